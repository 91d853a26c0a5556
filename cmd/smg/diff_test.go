package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// twoVersions makes two versions of a memory in a temporary folder: a.smg,
// the checkout conversation, and b.smg, the same with a fact and the
// personal conversation after it. It returns their paths.
func twoVersions(t testing.TB, env map[string]string) (a, b string) {
	t.Helper()
	dir := t.TempDir()
	a, b = filepath.Join(dir, "a.smg"), filepath.Join(dir, "b.smg")
	for _, args := range [][]string{
		{"ingest", filepath.Join(conversationsDir, "checkout.json"), "-o", a},
		{"ingest", filepath.Join(conversationsDir, "checkout.json"), "-o", b},
		{"remember", b, "I live in Berlin"},
		{"ingest", filepath.Join(conversationsDir, "personal.json"), "-o", b},
	} {
		if r := run(t, env, args...); r.status != exitOK {
			t.Fatalf("%q: status %d: %s", args, r.status, r.stderr)
		}
	}
	return a, b
}

func TestDiffCommand(t *testing.T) {
	a, b := twoVersions(t, nil)
	unchangedA, unchangedB := readOnly(t, a), readOnly(t, b)
	r := run(t, nil, "diff", a, a)
	if r.status != exitOK || r.stdout != "" || r.stderr != "" {
		t.Errorf("diff of a file with itself: %+v", r)
	}
	r = run(t, nil, "diff", a, b)
	if r.status != exitOK || r.stderr != "" {
		t.Fatalf("diff: %+v", r)
	}
	for _, want := range []string{"@@ nodes @@\n", "+ fact-user-lives-in-berlin (fact) User lives in Berlin\n", "~ totalExchanges: 20 → 42\n", " changes of upkeep, "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in:\n%s", want, r.stdout)
		}
	}
	// What changed in meaning, by default; the upkeep with --all.
	upkeep := []string{"@@ archive @@\n", "activation: ", "~ modified: "}
	for _, u := range upkeep {
		if strings.Contains(r.stdout, u) {
			t.Errorf("%q, upkeep, without --all:\n%s", u, r.stdout)
		}
	}
	all := run(t, nil, "diff", a, b, "--all")
	for _, want := range append(upkeep, "+ fact-user-lives-in-berlin (fact) User lives in Berlin\n") {
		if !strings.Contains(all.stdout, want) {
			t.Errorf("no %q with --all:\n%s", want, all.stdout)
		}
	}
	if strings.Contains(all.stdout, "changes of upkeep") {
		t.Errorf("--all tells of upkeep left out:\n%s", all.stdout)
	}
	if strings.Contains(r.stdout, "\x1b") {
		t.Error("colour without a terminal")
	}
	r = run(t, nil, "diff", a, b, "--json", "--content")
	var c struct {
		Base, Target string
		Nodes        []struct{ Change, ID string }
		Artifacts    []struct{ Versions []struct{ Diff string } }
	}
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil || r.status != exitOK || c.Base == c.Target || len(c.Nodes) == 0 {
		t.Fatalf("diff --json: %v %+v", err, r)
	}
	r = run(t, nil, "diff", a, a, "--json")
	c.Nodes = nil
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil || c.Base != c.Target || len(c.Nodes) != 0 {
		t.Errorf("diff --json of a file with itself: %v %s", err, r.stdout)
	}
	unchangedA("diff")
	unchangedB("diff")
}

// One turn added: the diff shows the turn's count and what the turn added
// to the graph, in a few lines, not the fading of every node.
func TestDiffOfOneTurn(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.smg"), filepath.Join(dir, "b.smg")
	succeed(t, nil, "ingest", filepath.Join(conversationsDir, "checkout.json"), "-o", a, "--no-vectors")
	raw, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	succeed(t, nil, "add", b, "--no-vectors", "--time", "2025-12-01T10:00:00Z", "We decided to use Redis for the session cache because it is fast.")
	succeed(t, nil, "compact", b)
	r := run(t, nil, "diff", a, b)
	all := run(t, nil, "diff", a, b, "--all")
	if r.status != exitOK || !strings.Contains(r.stdout, "~ totalExchanges: 20 → 21\n") || !strings.Contains(r.stdout, "Redis") {
		t.Fatalf("diff: %+v", r)
	}
	lines, allLines := strings.Count(r.stdout, "\n"), strings.Count(all.stdout, "\n")
	if lines > 20 || allLines < 2*lines {
		t.Errorf("one turn: %d lines by default, %d with --all:\n%s", lines, allLines, r.stdout)
	}
}

func TestDiffPatchCommands(t *testing.T) {
	a, b := twoVersions(t, nil)
	dir := filepath.Dir(a)
	delta, out := filepath.Join(dir, "b.smg.diff"), filepath.Join(dir, "out.smg")
	r := run(t, nil, "diff", a, b, "-o", delta)
	if r.status != exitOK || !strings.HasPrefix(r.stdout, delta+": ") {
		t.Fatalf("diff -o: %+v", r)
	}
	d, _ := os.ReadFile(delta)
	want, _ := os.ReadFile(b)
	if len(d) >= len(want) {
		t.Errorf("the differential file (%d bytes) is not smaller than the file (%d)", len(d), len(want))
	}
	if r := run(t, nil, "patch", a, delta, "-o", out); r.status != exitOK || r.stderr != "" {
		t.Fatalf("patch: %+v", r)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
		t.Error("the patched file's bytes are not B's")
	}

	// The wrong base: refused, and nothing written.
	if err := os.WriteFile(out, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, nil, "patch", b, delta, "-o", out)
	if r.status != exitInvalid || !strings.Contains(r.stderr, "does not apply to this document") || !strings.Contains(r.stderr, "hint:") {
		t.Errorf("patch on the wrong base: %+v", r)
	}
	if got, _ := os.ReadFile(out); string(got) != "keep" {
		t.Error("a refused patch changed the output")
	}
	// Not a differential file.
	if r := run(t, nil, "patch", a, b, "-o", out); r.status != exitInvalid || !strings.Contains(r.stderr, "not an smg differential file") {
		t.Errorf("patch with a .smg file for the diff: %+v", r)
	}
	// In place.
	if r := run(t, nil, "patch", a, delta); r.status != exitOK {
		t.Fatalf("patch in place: %+v", r)
	}
	if got, _ := os.ReadFile(a); !bytes.Equal(got, want) {
		t.Error("patched in place, the file is not B")
	}
}

func TestDiffPatchEncrypted(t *testing.T) {
	env := withPassword("correct horse")
	a, b := twoVersions(t, nil)
	if r := run(t, env, "encrypt", b, "--kdf", "pbkdf2"); r.status != exitOK {
		t.Fatalf("encrypt: %+v", r)
	}
	delta, out := filepath.Join(filepath.Dir(a), "b.smg.diff"), filepath.Join(filepath.Dir(a), "out.smg")
	if r := run(t, env, "diff", a, b, "-o", delta); r.status != exitOK {
		t.Fatalf("diff -o: %+v", r)
	}
	if d, _ := os.ReadFile(delta); bytes.Contains(d, []byte("smg-diff")) || !bytes.HasPrefix(d, []byte("{")) {
		t.Error("the differential file of an encrypted file is not encrypted")
	}
	if r := run(t, nil, "patch", a, delta, "-o", out); r.status != exitPassword {
		t.Errorf("patch without the password: %+v", r)
	}
	if r := run(t, env, "patch", a, delta, "-o", out); r.status != exitOK {
		t.Fatalf("patch: %+v", r)
	}
	if r := run(t, env, "diff", b, out); r.status != exitOK || r.stdout != "" {
		t.Errorf("the patched file differs from B: %+v", r)
	}
	if r := run(t, nil, "info", out); r.status != exitPassword {
		t.Errorf("the patched file is not encrypted: %+v", r)
	}
}
