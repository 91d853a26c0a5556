package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

// TestForkMerge forks a memory, grows both sides apart through the
// command, and merges them: with a conflict, without, and as JSON.
func TestForkMerge(t *testing.T) {
	dir := t.TempDir()
	base, ours, theirs, out := filepath.Join(dir, "base.smg"), filepath.Join(dir, "ours.smg"), filepath.Join(dir, "theirs.smg"), filepath.Join(dir, "out.smg")
	ok := func(args ...string) string { t.Helper(); return succeed(t, nil, args...) }
	ingest(t, nil, filepath.Join(conversationsDir, "checkout.json"), "-o", base)
	out1 := ok("fork", base, "-o", theirs, "--name", "personal notes", "--id", "notes")
	if !regexp.MustCompile(`^forked .*base\.smg into .*theirs\.smg: memory notes, from [0-9a-f-]{36} at sha256:[0-9a-f]{64}\n$`).MatchString(out1) {
		t.Errorf("fork:\n%s", out1)
	}
	validate(t, nil, theirs)
	b, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ours, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ok("remember", ours, "I prefer tea over coffee")
	ok("pin", ours, "decision-stripe-elements")
	ingest(t, nil, filepath.Join(conversationsDir, "personal.json"), "-o", theirs)
	ok("forget", theirs, "decision-stripe-elements")

	// Ours pinned what theirs forgot: a conflict, and nothing written.
	r := run(t, nil, "merge", base, ours, theirs, "-o", out)
	if r.status != exitInvalid || !strings.Contains(r.stderr, "merge conflict: 1 conflict; node decision-stripe-elements removed by theirs, changed by ours (pinned)") ||
		!strings.Contains(r.stderr, "--prefer ours or --prefer theirs") {
		t.Errorf("merge with a conflict: status %d\n%s", r.status, r.stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a merge that failed wrote %s: %v", out, err)
	}

	report := ok("merge", base, ours, theirs, "-o", out, "--prefer", "ours")
	validate(t, nil, out)
	for _, want := range []string{
		"merged into " + out + ": 20 turns of ours (20 of them the base's), then 22 new of theirs\n",
		"  ours:   1 node added\n",
		"  conflict  node decision-stripe-elements removed by theirs, changed by ours (pinned): kept (--prefer ours)\n",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
	facts := ok("facts", out)
	if !strings.Contains(facts, "User prefers tea over coffee") || !strings.Contains(facts, "Ana lives in Lisbon now") {
		t.Errorf("facts of the merge:\n%s", facts)
	}
	first, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}

	var rep format.MergeReport
	if err := json.Unmarshal([]byte(ok("merge", base, ours, theirs, "-o", out, "--prefer", "ours", "--json")), &rep); err != nil ||
		rep.TheirsTurns != 22 || len(rep.Conflicts) != 1 || rep.Conflicts[0].Chosen != format.Ours {
		t.Errorf("--json: %v %+v", err, rep)
	}
	if again, _ := os.ReadFile(out); !bytes.Equal(first, again) {
		t.Error("the same merge wrote other bytes")
	}

	// Two files: unrelated memories.
	report = ok("merge", ours, filepath.Join(testdataDir, "small.smg"), "-o", out)
	if !strings.Contains(report, "then 4 of theirs (unrelated), their turns 1–4 now 21–24\n") {
		t.Errorf("unrelated merge:\n%s", report)
	}
	validate(t, nil, out)
}

func TestMergeUsage(t *testing.T) {
	base, _ := example(t, "small.smg")
	out := filepath.Join(t.TempDir(), "out.smg")
	for _, c := range []struct {
		args   []string
		status int
		stderr string
	}{
		{[]string{"merge", base, "-o", out}, exitUsage, "missing FILE"},
		{[]string{"merge", base, base, base, base, "-o", out}, exitUsage, "too many arguments"},
		{[]string{"merge", base, base}, exitUsage, "missing -o OUT"},
		{[]string{"merge", base, base, "-o", out, "--prefer", "mine"}, exitUsage, `--prefer must be ours or theirs, not "mine"`},
		{[]string{"fork", base}, exitUsage, "missing -o OUT"},
		{[]string{"fork", base, "-o", out, "--id", "a/b"}, exitInvalid, "invalid id"},
		{[]string{"merge", filepath.Join(testdataDir, "full.smg"), base, base, "-o", out}, exitInvalid, "the base is not an ancestor"},
	} {
		r := run(t, nil, c.args...)
		if r.status != c.status || !strings.Contains(r.stderr, c.stderr) {
			t.Errorf("%q: status %d, want %d; stderr:\n%s", c.args, r.status, c.status, r.stderr)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s was written", out)
	}
}

// TestForkMergeEncrypted: an encrypted memory forks and merges into
// encrypted files.
func TestForkMergeEncrypted(t *testing.T) {
	dir := t.TempDir()
	base, fork, out := filepath.Join(dir, "base.smg"), filepath.Join(dir, "fork.smg"), filepath.Join(dir, "out.smg")
	env := withPassword("hunter2")
	ingest(t, nil, filepath.Join(conversationsDir, "checkout.json"), "-o", base)
	if r := run(t, env, "encrypt", base, "--kdf", "pbkdf2"); r.status != exitOK {
		t.Fatal(r.stderr)
	}
	for _, args := range [][]string{{"fork", base, "-o", fork}, {"merge", base, fork, "-o", out}} {
		if r := run(t, env, args...); r.status != exitOK {
			t.Fatalf("%q: %s", args, r.stderr)
		}
	}
	for _, name := range []string{fork, out} {
		if _, err := format.ReadFile(name, nil); err == nil || !strings.Contains(err.Error(), "encrypted") {
			t.Errorf("%s opens without a password: %v", name, err)
		}
		validate(t, env, name)
	}
}

// TestMergeDropsVectors: theirs' vectors of another model are dropped,
// the report says so and how to embed their turns, and 'smg embed' then
// embeds them with ours' model.
func TestMergeDropsVectors(t *testing.T) {
	dir := t.TempDir()
	ours, theirs, out := filepath.Join(dir, "ours.smg"), filepath.Join(dir, "theirs.smg"), filepath.Join(dir, "out.smg")
	if r := runVectors(t, nil, "ingest", filepath.Join(conversationsDir, "checkout.json"), "-o", ours); r.status != exitOK {
		t.Fatalf("ingest: %s", r.stderr)
	}
	srv := smgtest.NewProviderServer(t)
	ingest(t, providerEnv(srv, ""), filepath.Join(conversationsDir, "personal.json"), "-o", theirs)
	report := succeed(t, nil, "merge", ours, theirs, "-o", out)
	if !strings.Contains(report, "  dropped   22 vectors of theirs, of another model, size or encoding than ours ('smg embed' embeds their turns anew)\n") {
		t.Errorf("merge report:\n%s", report)
	}
	if r := runVectors(t, nil, "embed", out); r.status != exitOK || !strings.Contains(r.stdout, "22 turns embedded ("+smg.BuiltinModel+")") {
		t.Errorf("embed after the merge: status %d, %q %q", r.status, r.stdout, r.stderr)
	}
}

// Fork, merge, diff and patch on memories with vectors: a fork keeps the
// base's vectors, a merge holds a vector for every turn of both sides, in
// the order of their turns, and the differential file from the base to
// the merge patches the base into it, byte for byte.
func TestForkMergeVectors(t *testing.T) {
	dir := t.TempDir()
	base, ours, theirs, out := filepath.Join(dir, "base.smg"), filepath.Join(dir, "ours.smg"), filepath.Join(dir, "theirs.smg"), filepath.Join(dir, "out.smg")
	ok := func(args ...string) string {
		t.Helper()
		r := runVectors(t, nil, args...)
		if r.status != exitOK {
			t.Fatalf("%q: status %d\n%s", args, r.status, r.stderr)
		}
		return r.stdout
	}
	ok("ingest", filepath.Join(conversationsDir, "checkout.json"), "-o", base)
	ok("fork", base, "-o", theirs)
	ok("fork", base, "-o", ours)
	ok("remember", ours, "I prefer tea over coffee")
	ok("ingest", filepath.Join(conversationsDir, "personal.json"), "-o", theirs)
	ok("merge", base, ours, theirs, "-o", out)
	// The files hold none: their caches do, and a fork's and a merge's
	// are carried from what they were made from.
	if vi, _ := vectorIndex(t, ours, ""); vi == nil || len(vi.Embeddings) < 20 {
		t.Errorf("the fork, with a fact remembered, has vectors %+v", vi)
	}
	doc, err := format.ReadFile(out, &smg.DecodeOptions{CachedVectors: true})
	if err != nil {
		t.Fatal(err)
	}
	vi := doc.DeepArchive.VectorIndex
	turns := map[int]bool{}
	for _, e := range vi.Embeddings {
		turns[e.Turn] = true
	}
	if len(turns) != doc.Metadata.TotalExchanges || doc.Metadata.TotalExchanges != 42 {
		t.Errorf("the merge holds vectors of %d turns of %d", len(turns), doc.Metadata.TotalExchanges)
	}
	for _, f := range []string{theirs, ours, out} {
		validate(t, nil, f)
	}
	if r := run(t, nil, "diff", base, out); r.status != exitOK || !strings.Contains(r.stdout, "~ totalExchanges: 20 → 42\n") {
		t.Errorf("diff: %+v", r)
	}
	delta, patched := filepath.Join(dir, "d.smg.diff"), filepath.Join(dir, "patched.smg")
	succeed(t, nil, "diff", base, out, "-o", delta)
	succeed(t, nil, "patch", base, delta, "-o", patched)
	want, _ := os.ReadFile(out)
	if got, err := os.ReadFile(patched); err != nil || !bytes.Equal(got, want) {
		t.Errorf("the patched file differs from the merge (%v)", err)
	}
	// The patched file's cache has the base's vectors; embed makes the
	// rest.
	if vi, _ := vectorIndex(t, patched, ""); vi == nil || len(vi.Embeddings) == 0 || vi.Embeddings[len(vi.Embeddings)-1].Turn > 20 {
		t.Errorf("the patched file's vectors: %+v, want the base's", vi)
	}
	if r := runVectors(t, nil, "embed", patched); r.status != exitOK || !strings.Contains(r.stdout, "22 turns embedded") {
		t.Errorf("embed after the patch: status %d, %q %q", r.status, r.stdout, r.stderr)
	}
}

// Diff, patch, fork and merge on a memory with every kind of item: the six
// node types, artifacts of several versions, facts remembered, superseded,
// pinned and forgotten, collaborators with private parts (one sealed, one
// in the clear), blocks' summaries, and vectors kept in the cache. The
// differential file patches the base into the memory byte for byte, and a
// merge of two forks holds every item of both.
func TestEveryKindOfItem(t *testing.T) {
	dir := t.TempDir()
	base, b, patched := filepath.Join(dir, "base.smg"), filepath.Join(dir, "b.smg"), filepath.Join(dir, "patched.smg")
	alicePW := map[string]string{privateEnv: "alice's passphrase"}
	ok := func(env map[string]string, args ...string) string {
		t.Helper()
		r := runVectors(t, env, args...)
		if r.status != exitOK {
			t.Fatalf("%q: status %d\n%s", args, r.status, r.stderr)
		}
		return r.stdout
	}
	ok(nil, "ingest", filepath.Join(conversationsDir, "checkout.json"), "-o", base)
	ok(nil, "fork", base, "-o", b)
	ok(nil, "collaborators", "add", b, "alice", "--name", "Alice")
	ok(nil, "collaborators", "add", b, "bob")
	ok(alicePW, "remember", b, "Alice is negotiating the Zorbacorp checkout contract", "--private", "alice", "--seal", "--category", "project")
	ok(nil, "remember", b, "Bob prefers answers in German", "--private", "bob", "--category", "preference")
	ok(nil, "remember", b, "User lives in Paris")
	ok(nil, "remember", b, "User lives in Berlin", "--pin") // supersedes Paris
	var tea struct{ Fact struct{ ID string } }
	if err := json.Unmarshal([]byte(ok(nil, "remember", b, "I prefer tea over coffee", "--json")), &tea); err != nil || tea.Fact.ID == "" {
		t.Fatalf("remember --json: %v %+v", err, tea)
	}
	ok(nil, "forget", b, tea.Fact.ID)
	ok(nil, "ingest", filepath.Join(conversationsDir, "personal.json"), "-o", b)

	doc, err := format.ReadFile(b, &smg.DecodeOptions{CachedVectors: true})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, n := range doc.SemanticGraph.Nodes {
		kinds[string(n.Type)]++
		if n.Type == spec.NodeFact && !n.ValidTo.IsZero() {
			kinds["superseded fact"]++
		}
		if n.Pinned {
			kinds["pinned"]++
		}
	}
	for _, a := range doc.ArtifactVault.Artifacts {
		if len(a.Versions) > 1 {
			kinds["artifact of versions"]++
		}
	}
	for _, blk := range doc.DeepArchive.Blocks {
		if blk.Summary != "" {
			kinds["block summary"]++
		}
	}
	kinds["private part"] = len(doc.PrivateContexts)
	kinds["vector"] = len(doc.DeepArchive.VectorIndex.Embeddings)
	for _, k := range []string{"concept", "decision", "problem", "solution", "fact", "artifact", "superseded fact", "pinned", "artifact of versions", "block summary", "private part", "vector"} {
		if kinds[k] == 0 {
			t.Errorf("the memory has no %s: %v", k, kinds)
		}
	}

	// The differential file patches the base into it, byte for byte.
	delta := filepath.Join(dir, "b.smg.diff")
	ok(nil, "diff", base, b, "-o", delta)
	ok(nil, "patch", base, delta, "-o", patched)
	want, _ := os.ReadFile(b)
	if got, err := os.ReadFile(patched); err != nil || !bytes.Equal(got, want) {
		t.Errorf("the patched file differs from the memory (%v)", err)
	}
	validate(t, nil, patched)
	if out := ok(alicePW, "context", patched, "what is the state of the Zorbacorp checkout contract?", "--as", "alice", "--no-index-cache"); !strings.Contains(out, "Zorbacorp") {
		t.Errorf("alice's sealed part, patched:\n%s", out)
	}

	// Two forks of it, changed apart, merged: every item of both.
	ours, theirs, merged := filepath.Join(dir, "ours.smg"), filepath.Join(dir, "theirs.smg"), filepath.Join(dir, "merged.smg")
	ok(nil, "fork", b, "-o", ours)
	ok(nil, "fork", b, "-o", theirs)
	ok(nil, "remember", ours, "User drives a sedan")
	ok(nil, "remember", theirs, "User plays the cello")
	ok(nil, "merge", b, ours, theirs, "-o", merged)
	validate(t, nil, merged)
	md, err := format.ReadFile(merged, &smg.DecodeOptions{CachedVectors: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(md.SemanticGraph.Nodes) < len(doc.SemanticGraph.Nodes)+2 || len(md.PrivateContexts) != len(doc.PrivateContexts) ||
		md.Metadata.TotalExchanges != doc.Metadata.TotalExchanges || len(md.DeepArchive.VectorIndex.Embeddings) < kinds["vector"] {
		t.Errorf("the merge: %d nodes (the memory %d), %d private parts (%d), %d turns (%d), %d vectors (%d)",
			len(md.SemanticGraph.Nodes), len(doc.SemanticGraph.Nodes), len(md.PrivateContexts), len(doc.PrivateContexts),
			md.Metadata.TotalExchanges, doc.Metadata.TotalExchanges, len(md.DeepArchive.VectorIndex.Embeddings), kinds["vector"])
	}
	if out := ok(nil, "facts", merged); !strings.Contains(out, "sedan") || !strings.Contains(out, "cello") || !strings.Contains(out, "Berlin") {
		t.Errorf("the merge's facts:\n%s", out)
	}
}
