package main

import (
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// writerRounds is how many times TestWritersRace races each pair of
// writers: a few in the usual run, hundreds in .ci/run.
var writerRounds = flag.Int("writer-rounds", 1, "rounds of each pair of writers in TestWritersRace")

// writer is a command that changes a memory file, FILE in its arguments.
type writer struct {
	name string
	args []string
}

func (w writer) on(file string) []string {
	args := slices.Clone(w.args)
	for i, a := range args {
		if a == "FILE" {
			args[i] = file
		}
	}
	return args
}

// writerFixture is a memory and what the writers need to change it.
type writerFixture struct {
	base    []byte // the memory's file
	writers []writer
}

// newWriterFixture builds a memory from the bundled checkout conversation
// with two facts, one to forget and one to pin, and a differential file
// that adds a third; and lists every command that writes a memory.
func newWriterFixture(t *testing.T) *writerFixture {
	t.Helper()
	dir := t.TempDir()
	base := filepath.Join(dir, "base.smg")
	succeed(t, nil, "ingest", filepath.Join(conversationsDir, "checkout.json"), "-o", base)
	saved := regexp.MustCompile(`saved (\S+) `)
	remember := func(file, fact string) string {
		out := succeed(t, nil, "remember", file, fact, "--category", "project")
		m := saved.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("remember printed no id: %s", out)
		}
		return m[1]
	}
	gone := remember(base, "Project note: the old queue runs on RabbitMQ")
	pinned := remember(base, "Project note: the staging database is called heron")
	next := filepath.Join(dir, "next.smg")
	copyFile(t, base, next)
	remember(next, "Project note: the patch adds the wibble cache")
	delta := filepath.Join(dir, "next.smg.diff")
	succeed(t, nil, "diff", base, next, "-o", delta)
	raw, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	return &writerFixture{base: raw, writers: []writer{
		{"remember", []string{"remember", "FILE", "Project note: the zubex service depends on kalomi", "--category", "project"}},
		{"remember-another", []string{"remember", "FILE", "Project note: the invoices are printed in Lyon", "--category", "project"}},
		{"forget", []string{"forget", "FILE", gone}},
		{"pin", []string{"pin", "FILE", pinned}},
		{"collaborators-add", []string{"collaborators", "add", "FILE", "bob"}},
		{"ingest", []string{"ingest", filepath.Join(conversationsDir, "personal.json"), "-o", "FILE"}},
		{"maintain", []string{"maintain", "FILE", "--now", "2026-06-01T00:00:00Z"}},
		{"encrypt", []string{"encrypt", "FILE", "--kdf", "pbkdf2"}},
		{"decrypt", []string{"decrypt", "FILE"}},
		{"patch", []string{"patch", "FILE", delta}},
		{"fork", []string{"fork", base, "-o", "FILE", "--id", "forked"}},
	}}
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// outcome is what a sequence of writers did: each one's exit status, and
// the memory they left.
type outcome struct {
	status [2]int
	memory string
}

// memoryState describes the memory of the named file by what the writers
// change: its id, whether it is encrypted, its turns, its collaborators,
// and its nodes with their pins and validity. Two files of the same state
// hold the same memory, whatever their bytes.
func memoryState(t testing.TB, name string) string {
	t.Helper()
	env := withPassword("race")
	info, err := format.InspectFile(name, &smg.DecodeOptions{Password: []byte(env[passwordEnv])})
	if err != nil {
		t.Fatalf("the memory the writers left: %v", err)
	}
	doc, err := format.ValidateFile(name, &format.ValidateOptions{Password: []byte(env[passwordEnv]), SkipJSONLD: true})
	if err != nil {
		t.Fatalf("the memory the writers left is not valid: %v", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "id %s, encrypted %v, %d turns\n", doc.Metadata.ID, info.Form.Encrypted, doc.Metadata.TotalExchanges)
	for _, c := range doc.Metadata.Collaborators {
		fmt.Fprintf(&b, "collaborator %s\n", c.ID)
	}
	for _, n := range doc.SemanticGraph.Nodes {
		fmt.Fprintf(&b, "%s pinned %v until %v\n", n.ID, n.Pinned, !n.ValidTo.IsZero())
	}
	return b.String()
}

// runWriters runs two writers on the named file with SMG_PASSWORD set, in
// turn or at once, and returns what they did.
func runWriters(t *testing.T, file string, a, b writer, together bool) outcome {
	t.Helper()
	env := withPassword("race")
	var o outcome
	if !together {
		o.status[0] = run(t, env, a.on(file)...).status
		o.status[1] = run(t, env, b.on(file)...).status
	} else {
		var wg sync.WaitGroup
		for i, w := range []writer{a, b} {
			wg.Go(func() {
				// A random head start, so that each gets the lock
				// first in some rounds and each waits in others.
				time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
				r := run(t, env, w.on(file)...)
				if r.status != exitOK && r.status != exitInvalid {
					t.Errorf("%s with %s: status %d: %s", w.name, []writer{a, b}[1-i].name, r.status, r.stderr)
				}
				o.status[i] = r.status
			})
		}
		wg.Wait()
	}
	o.memory = memoryState(t, file)
	return o
}

// TestWritersRace races every command that writes a memory against every
// other one on the same file, and checks that the two are serialized:
// the exit statuses and the memory they leave are those of running one
// after the other, in one order or the other. A writer that read the file
// before the other wrote it and wrote after would lose the other's change
// (a fact remembered, then gone), or leave an encrypted file in the clear.
func TestWritersRace(t *testing.T) {
	if testing.Short() || raceEnabled {
		// The lock is between processes, which the race detector does
		// not see; it would only make the 330 commands slow. .ci/run runs
		// this without it, 50 rounds.
		t.Skip("runs every pair of writers; without -short and -race")
	}
	fx := newWriterFixture(t)
	dir := t.TempDir()
	for i, a := range fx.writers {
		for _, b := range fx.writers[i+1:] {
			t.Run(a.name+"/"+b.name, func(t *testing.T) {
				t.Parallel()
				file := filepath.Join(dir, a.name+"-"+b.name+".smg")
				start := func() {
					if err := os.WriteFile(file, fx.base, 0o644); err != nil {
						t.Fatal(err)
					}
					if a.name == "decrypt" || b.name == "decrypt" {
						// Something to decrypt: each order has its own
						// outcome, the encryption's or the decryption's.
						succeed(t, withPassword("race"), "encrypt", file, "--kdf", "pbkdf2")
					}
				}
				start()
				ab := runWriters(t, file, a, b, false)
				start()
				ba := runWriters(t, file, b, a, false)
				ba.status[0], ba.status[1] = ba.status[1], ba.status[0]
				for round := range *writerRounds {
					start()
					got := runWriters(t, file, a, b, true)
					if got != ab && got != ba {
						t.Fatalf("round %d: %s and %s at once gave statuses %v and\n%s\nwhich neither order gives:\n%s then %s: %v\n%s\n%s then %s: %v\n%s",
							round, a.name, b.name, got.status, got.memory, a.name, b.name, ab.status, ab.memory, b.name, a.name, ba.status, ba.memory)
					}
				}
			})
		}
	}
}

// Eight processes that each remember 25 facts in one memory at once all
// succeed with the default --lock-timeout, and every fact one reports
// saved (or found saved already) is in the memory.
func TestManyWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("200 writes")
	}
	writers, each := 8, 25
	if raceEnabled {
		each = 5 // .ci/run runs the 25 without the race detector
	}
	name := filepath.Join(t.TempDir(), "m.smg")
	succeed(t, nil, "ingest", filepath.Join(conversationsDir, "checkout.json"), "-o", name)
	var wg sync.WaitGroup
	var mu sync.Mutex
	waited := 0
	saved := map[string]bool{}
	savedID := regexp.MustCompile(`(?m)^(?:saved|already saved as) (\S+?)[ :]`)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				r := run(t, nil, "remember", name, fmt.Sprintf("Project note: writer %d saved note number %d", w, i), "--category", "project")
				if r.status != exitOK {
					t.Errorf("writer %d, write %d: status %d: %s", w, i, r.status, r.stderr)
				}
				m := savedID.FindStringSubmatch(r.stdout)
				if m == nil {
					t.Errorf("writer %d, write %d printed no id: %s", w, i, r.stdout)
					continue
				}
				mu.Lock()
				saved[m[1]] = true
				mu.Unlock()
				if n := strings.Count(r.stderr, "waiting for"); n > 1 {
					t.Errorf("a writer said %d times that it waits:\n%s", n, r.stderr)
				} else {
					mu.Lock()
					waited += n
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	doc, err := format.ReadFile(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range doc.SemanticGraph.Nodes {
		delete(saved, n.ID)
	}
	if len(saved) > 0 {
		t.Errorf("%d facts reported saved are not in the memory: %v", len(saved), slices.Sorted(maps.Keys(saved)))
	}
	if waited == 0 {
		t.Error("no writer ever waited for another: the test did not race them")
	}
}

// --lock-timeout bounds the wait; it must be above zero.
func TestLockTimeoutFlag(t *testing.T) {
	name := filepath.Join(t.TempDir(), "m.smg")
	succeed(t, nil, "remember", name, "Project note: the lock test's memory", "--category", "project")
	for _, v := range []string{"0s", "-1s"} {
		if r := run(t, nil, "remember", name, "Project note: never saved", "--lock-timeout", v); r.status != exitUsage || !strings.Contains(r.stderr, "--lock-timeout") {
			t.Errorf("--lock-timeout %s: status %d: %s", v, r.status, r.stderr)
		}
	}
	unlock, err := format.LockFile(t.Context(), name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	for _, args := range [][]string{
		{"remember", name, "Project note: never saved either"},
		{"encrypt", name},
		{"fork", name, "-o", name},
	} {
		r := run(t, withPassword("pw"), append(args, "--lock-timeout", "150ms")...)
		if r.status != exitFailure || !strings.Contains(r.stderr, "waiting for "+name) || !strings.Contains(r.stderr, "locked by another process") {
			t.Errorf("%s on a locked memory: status %d: %s", args[0], r.status, r.stderr)
		}
	}
}

// writeUnchecked writes doc into the named file as smg would, but without
// the validation that keeps smg from writing an invalid memory: a test's
// damaged or hand-edited file.
func writeUnchecked(t testing.TB, name string, doc *spec.Document) {
	t.Helper()
	raw, err := format.Marshal(doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A writer refuses to write back a memory that fails validation (a node of
// a type the spec lacks, as a hand edit might leave): exit 3, the
// problem's path, and the file as it was.
func TestWritersRefuseAnInvalidMemory(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "bad.smg")
	succeed(t, nil, "ingest", filepath.Join(conversationsDir, "checkout.json"), "-o", name)
	out := succeed(t, nil, "remember", name, "Project note: this fact is forgotten below", "--category", "project")
	id := strings.Fields(out)[1]
	doc, err := format.ReadFile(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc.SemanticGraph.Nodes = append(doc.SemanticGraph.Nodes, spec.Node{ID: "zz-bogus", Type: "bogus", Label: "a node of no type", Importance: 0.5})
	writeUnchecked(t, name, doc)
	for _, args := range [][]string{
		{"remember", name, "Project note: the bogus node stays out", "--category", "project"},
		{"forget", name, id},
		{"pin", name, id},
		{"collaborators", "add", name, "bob"},
		{"ingest", filepath.Join(conversationsDir, "personal.json"), "-o", name},
		{"fork", name, "-o", filepath.Join(dir, "fork.smg")},
		{"maintain", name},
	} {
		unchanged := readOnly(t, name)
		r := run(t, nil, args...)
		if r.status != exitInvalid || !strings.Contains(r.stderr, "$.semanticGraph.nodes[") {
			t.Errorf("%s of an invalid memory: status %d: %s", args[0], r.status, r.stderr)
		}
		unchanged(args[0])
	}
	if _, err := os.Stat(filepath.Join(dir, "fork.smg")); err == nil {
		t.Error("fork wrote an invalid memory")
	}
}

// The index cache beside a memory in the clear holds nothing the file does
// not: not the text of a sealed private part opened with --as. Encrypting
// the memory removes the cache, which holds its text in the clear.
func TestIndexCacheHoldsOnlyTheFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "p.smg")
	succeed(t, nil, "ingest", filepath.Join(conversationsDir, "checkout.json"), "-o", name)
	succeed(t, nil, "collaborators", "add", name, "alice")
	alice := map[string]string{privateEnv: "alice's own"}
	succeed(t, alice, "remember", name, "Alice keeps the Quillfeather adoption papers in the safe", "--private", "alice", "--seal", "--category", "project")
	out := succeed(t, alice, "context", name, "where are the adoption papers kept?", "--as", "alice")
	if !strings.Contains(out, "Quillfeather") {
		t.Fatalf("the context lacks alice's private fact:\n%s", out)
	}
	cache := format.IndexCacheDir(name)
	found := func(word string) []string {
		var in []string
		filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), word) {
					in = append(in, p)
				}
			}
			return nil
		})
		return in
	}
	if in := found("webhook"); len(in) == 0 {
		t.Fatal("the index cache does not hold the memory's text: the test looks in the wrong place")
	}
	if in := found("Quillfeather"); len(in) > 0 {
		t.Errorf("the index cache holds the sealed private part's text, in %q", in)
	}
	succeed(t, withPassword("pw"), "encrypt", name, "--kdf", "pbkdf2")
	if _, err := os.Stat(cache); !os.IsNotExist(err) {
		t.Errorf("the index cache is still there beside the encrypted memory: %v", err)
	}
	succeed(t, withPassword("pw"), "context", name, "how was the webhook fixed?")
	if _, err := os.Stat(cache); !os.IsNotExist(err) {
		t.Errorf("a context of the encrypted memory wrote an index cache: %v", err)
	}
}
