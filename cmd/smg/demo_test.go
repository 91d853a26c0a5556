package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestDemoCommand runs the demo as a user does, with the built-in
// encoder.
func TestDemoCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "demo.smg")
	r := runVectors(t, nil, "demo", "-o", out)
	if r.status != exitOK || r.stderr != "" {
		t.Fatalf("demo: status %d: %s", r.status, r.stderr)
	}
	validate(t, nil, out)
	if got := entries(t, filepath.Dir(out)); !slices.Equal(got, []string{".demo.smg.cache", "demo.smg"}) {
		t.Errorf("the demo left %q beside its file, want its cache folder alone", got)
	}

	// The summary, as smg info prints it.
	info := runVectors(t, nil, "info", out)
	if info.status != exitOK || !strings.Contains(r.stdout, "saved it to "+out+":\n\n"+info.stdout) {
		t.Errorf("the demo lacks the summary of smg info:\n%s", r.stdout)
	}

	// Each question, answered within 400 tokens with its evidence.
	parts := strings.Split(r.stdout, "\n==== Question ")
	if len(parts) != 1+len(demoQuestions) {
		t.Fatalf("%d questions in:\n%s", len(parts)-1, r.stdout)
	}
	evidence := [][]string{
		{"Stripe Elements, because the designers want the payment form to match the rest of the site", "3 (msg-003)"},
		// The problem, and the fix that solved it, named by what it did.
		{"The webhook returns 401 in production", "Solution: Read the body once, verify it with webhook.ConstructEvent", "7 (msg-007)"},
		// The fact Dana asked to keep, under About This User, and the turn
		// that states it.
		{"## About This User\n\n- Dana prefers Go for all backend work.", "9 (msg-009)", "fact-dana-prefers-go-for-all-backend-work"},
	}
	// What a question does not need: the first webhook handler's 134
	// tokens of code, which the third question only brushes in meaning.
	absent := [][]string{nil, nil, {"6 (msg-006)", "Here is a first handler"}}
	footer := regexp.MustCompile(`\n([0-9]+) of 400 tokens \(cl100k\)\n`)
	for i, q := range demoQuestions {
		part := parts[i+1]
		if !strings.HasPrefix(part, strconv.Itoa(i+1)+" of 3: "+q+"\n") {
			t.Errorf("question %d is not %q:\n%.200s", i+1, q, part)
		}
		for _, e := range evidence[i] {
			if !strings.Contains(part, e) {
				t.Errorf("the answer to %q lacks %q:\n%s", q, e, part)
			}
		}
		for _, e := range absent[i] {
			if strings.Contains(part, e) {
				t.Errorf("the answer to %q holds %q:\n%s", q, e, part)
			}
		}
		m := footer.FindStringSubmatch(part)
		if m == nil {
			t.Errorf("the answer to %q has no size:\n%s", q, part)
		} else if n, _ := strconv.Atoi(m[1]); n == 0 || n > 400 {
			t.Errorf("the answer to %q takes %d tokens", q, n)
		}
	}

	// It answers what smg context answers on its file.
	c := runVectors(t, nil, "context", "--no-index-cache", "--budget", "400", out, demoQuestions[1])
	if c.status != exitOK || !strings.Contains(r.stdout, c.stdout) {
		t.Errorf("smg context on the demo's file answers otherwise:\n%s", c.stdout)
	}

	// It writes a new memory, never over a file.
	unchanged := readOnly(t, out)
	if r := runVectors(t, nil, "demo", "-o", out); r.status != exitFailure || !strings.Contains(r.stderr, "exists") {
		t.Errorf("demo over a file: status %d: %s", r.status, r.stderr)
	}
	unchanged("demo")
}

// TestDemoDefault: without -o, the demo writes its own file in smg's folder
// of the user's cache, and says where; a second demo replaces it, and
// neither leaves anything in the temporary folder.
func TestDemoDefault(t *testing.T) {
	tmp, cache := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", t.TempDir())
	var saved []string
	for range 2 {
		r := run(t, nil, "demo")
		if r.status != exitOK {
			t.Fatalf("demo: status %d: %s", r.status, r.stderr)
		}
		m := regexp.MustCompile(`saved it to (.+):\n`).FindStringSubmatch(r.stdout)
		if m == nil {
			t.Fatalf("demo does not say where it saved the memory:\n%.400s", r.stdout)
		}
		saved = append(saved, m[1])
	}
	if want := filepath.Join(cache, "smg", "demo", "shop.smg"); saved[0] != want || saved[1] != want {
		t.Errorf("the demos saved to %q, want %s", saved, want)
	}
	if got := entries(t, filepath.Join(cache, "smg", "demo")); !slices.Equal(got, []string{"shop.smg"}) {
		t.Errorf("the demo's folder holds %q", got)
	}
	if got := entries(t, tmp); len(got) > 0 {
		t.Errorf("the demo left %q in the temporary folder", got)
	}
}

// TestMissingFolder: no command makes a missing folder: demo -o, mcp
// --memory (and --workspace), remember and ingest -o all fail with exit
// status 1, naming the user's file and the folder that is missing, and
// leave no folder behind.
func TestMissingFolder(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nonexistent", "x")
	name := filepath.Join(missing, "m.smg")
	file, _ := example(t, "small.smg")
	for _, args := range [][]string{
		{"demo", "-o", name},
		{"mcp", "--memory", name},
		{"mcp", "--memory", file, "--workspace", name},
		{"remember", name, "User prefers dark mode in editors"},
		{"ingest", filepath.Join(conversationsDir, "checkout.json"), "-o", name},
	} {
		r := run(t, nil, args...)
		want := "cannot make " + name + ": the folder " + missing + " does not exist"
		if r.status != exitFailure || !strings.Contains(r.stderr, want) {
			t.Errorf("%v: status %d, stderr %q; want %d and %q", args, r.status, r.stderr, exitFailure, want)
		}
		if got := entries(t, dir); len(got) != 0 {
			t.Errorf("%v made %q", args, got)
			os.RemoveAll(filepath.Join(dir, "nonexistent"))
		}
	}
}
