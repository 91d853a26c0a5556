package smg_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/spec"
)

func fileMemory(t *testing.T, name string, limit int64) *smg.FileMemory {
	t.Helper()
	f, err := smg.OpenFileMemory(name, &smg.FileOptions{
		Create: &smg.Options{NoVectors: true}, Open: smg.OpenOptions{NoVectors: true}, JournalLimit: limit,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// chat is n turns of a conversation, from turn first on, each with its
// id and time.
func chat(first, n int) []spec.Turn {
	var out []spec.Turn
	for i := first; i < first+n; i++ {
		role := spec.RoleUser
		if i%2 == 0 {
			role = spec.RoleAssistant
		}
		out = append(out, spec.Turn{
			ConversationID: "c1", ExternalID: fmt.Sprintf("m%d", i), Role: role,
			Timestamp: time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute),
			Content:   fmt.Sprintf("Turn %d: we keep the parcels of order %d in Rotterdam, and ship them with DHL.", i, i),
		})
	}
	return out
}

// canonical is a memory's document in canonical JSON as a writer writes
// it (its blocks in the clear: a memory resumed from its state holds the
// file's blocks so, a memory built in one go holds them compressed), the
// given fields of its metadata that depend on when it was written
// cleared.
func canonical(t *testing.T, doc *spec.Document) []byte {
	t.Helper()
	graph.PlainBlocks(doc)
	doc.Metadata.CompressionRatio = 0
	doc.Metadata.Maintenance = nil
	js, err := spec.MarshalCanonical(doc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// TestJournal: turns recorded in a file go to its journal, not into the
// file; every reader sees them; compacting writes them into the file and
// ends the journal; the memory is the one built in one go.
func TestJournal(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "m.smg")
	f := fileMemory(t, name, 1<<30)
	ctx := context.Background()
	// The first turns make the file: there is no file to journal on.
	if _, err := f.Record(ctx, chat(1, 10), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(format.JournalName(name)); err == nil {
		t.Fatal("a new file got a journal")
	}
	before, _ := os.ReadFile(name)
	for i := 11; i < 41; i += 3 { // to turn 40
		if r, err := f.Record(ctx, chat(i, 3), nil); err != nil || r.Added != 3 {
			t.Fatalf("record %d: %+v, %v", i, r, err)
		}
	}
	if after, _ := os.ReadFile(name); !bytes.Equal(before, after) {
		t.Error("recording wrote the whole file")
	}
	if fi, err := os.Stat(format.JournalName(name)); err != nil || fi.Size() == 0 {
		t.Fatalf("no journal: %v", err)
	}
	// Sent again: held, nothing appended.
	jbefore, _ := os.ReadFile(format.JournalName(name))
	if r, err := f.Record(ctx, chat(20, 5), nil); err != nil || r.Added != 0 || r.Held != 5 {
		t.Errorf("again: %+v, %v", r, err)
	}
	if jafter, _ := os.ReadFile(format.JournalName(name)); !bytes.Equal(jbefore, jafter) {
		t.Error("turns held already were appended to the journal")
	}

	// One memory built in one go, for comparison.
	whole := smg.New(&smg.Options{NoVectors: true})
	if _, err := whole.IngestAll(ctx, chat(1, 40)); err != nil {
		t.Fatal(err)
	}
	want := canonical(t, whole.Document())

	// Readers: another FileMemory, and Open.
	other := fileMemory(t, name, 1<<30)
	m, err := other.Memory(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if m.Turns() != 40 {
		t.Errorf("another FileMemory of the file has %d turns, want 40", m.Turns())
	}
	o, err := smg.Open(name, &smg.OpenOptions{NoVectors: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := canonical(t, o.Document()); !bytes.Equal(got, want) {
		t.Errorf("Open of the file and its journal: %d bytes, want the %d of the memory built in one go", len(got), len(want))
	}
	o.Close()

	// Compacted: the file holds them all, and the journal is gone.
	if err := other.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(format.JournalName(name)); err == nil {
		t.Error("the journal is still there after compacting")
	}
	doc, err := format.ReadFile(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := format.Validate(doc, nil); err != nil {
		t.Fatal(err)
	}
	if got := canonical(t, doc); !bytes.Equal(got, want) {
		t.Errorf("the compacted file: %d bytes, want the %d of the memory built in one go", len(got), len(want))
	}
	// The first FileMemory sees the new file, and goes on.
	if _, err := f.Record(ctx, chat(41, 1), nil); err != nil {
		t.Fatal(err)
	}
	if m, _ := f.Memory(t.Context()); m.Turns() != 41 {
		t.Errorf("%d turns after compaction and one more, want 41", m.Turns())
	}
}

// TestJournalLimit: a journal that outgrows its limit is ended by a write
// of the whole file.
func TestJournalLimit(t *testing.T) {
	name := filepath.Join(t.TempDir(), "m.smg")
	f := fileMemory(t, name, 2000)
	ctx := context.Background()
	writes := 0
	last, _ := os.ReadFile(name)
	for i := 1; i <= 60; i++ {
		if _, err := f.Record(ctx, chat(i, 1), nil); err != nil {
			t.Fatal(err)
		}
		if now, _ := os.ReadFile(name); !bytes.Equal(now, last) {
			writes++
			last = now
		}
		if fi, err := os.Stat(format.JournalName(name)); err == nil && fi.Size() > 2000+1000 {
			t.Fatalf("turn %d: the journal is %d bytes, over its limit", i, fi.Size())
		}
	}
	if writes < 3 || writes > 30 {
		t.Errorf("%d writes of the whole file for 60 turns and a limit of 2,000 bytes", writes)
	}
	if o, err := smg.Open(name, &smg.OpenOptions{NoVectors: true}); err != nil || o.Turns() != 60 {
		t.Errorf("open: %v", err)
	}
}

// TestJournalTornAndStale: a last line cut off by a crash is no entry,
// and the next append cuts it; a journal that names other bytes than the
// file's (left by a crash between the write of the file and its removal)
// is ignored.
func TestJournalTornAndStale(t *testing.T) {
	name := filepath.Join(t.TempDir(), "m.smg")
	f := fileMemory(t, name, 1<<30)
	ctx := context.Background()
	for i := 1; i <= 5; i++ {
		if _, err := f.Record(ctx, chat(i, 1), nil); err != nil {
			t.Fatal(err)
		}
	}
	jn := format.JournalName(name)
	j, _ := os.ReadFile(jn)
	torn := append(bytes.Clone(j), `{"op":"record","turns":[{"turn":0,"content":"cut off `+strings.Repeat("and on ", 500)...)
	if err := os.WriteFile(jn, torn, 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := smg.Open(name, &smg.OpenOptions{NoVectors: true})
	if err != nil || o.Turns() != 5 {
		t.Fatalf("open with a torn last line: %v", err)
	}
	o.Close()
	g := fileMemory(t, name, 1<<30)
	if _, err := g.Record(ctx, chat(6, 1), nil); err != nil {
		t.Fatal(err)
	}
	if j, _ := os.ReadFile(jn); bytes.Contains(j, []byte("cut off")) || !bytes.HasSuffix(j, []byte("\n")) {
		t.Errorf("the torn line was not cut:\n%s", j)
	}
	if o, err := smg.Open(name, &smg.OpenOptions{NoVectors: true}); err != nil || o.Turns() != 6 {
		t.Fatalf("open after the append: %v", err)
	}

	// A journal of other bytes (the file replaced by another memory): the
	// file as it is, and nothing else.
	stale, _ := os.ReadFile(jn)
	another := smg.New(&smg.Options{NoVectors: true})
	if _, err := another.IngestAll(ctx, chat(100, 2)); err != nil {
		t.Fatal(err)
	}
	if err := another.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(jn, stale, 0o644); err != nil {
		t.Fatal(err)
	}
	o, err = smg.Open(name, &smg.OpenOptions{NoVectors: true})
	if err != nil || o.Turns() != 2 {
		t.Fatalf("open with a stale journal: %v", err)
	}
	// A malformed entry before the last line is an error, not a silent
	// loss.
	if err := g.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Record(ctx, chat(7, 2), nil); err != nil {
		t.Fatal(err)
	}
	j, _ = os.ReadFile(jn)
	lines := strings.SplitAfter(string(j), "\n")
	lines[1] = "not json\n"
	if err := os.WriteFile(jn, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := smg.Open(name, &smg.OpenOptions{NoVectors: true}); !errors.Is(err, smg.ErrJournal) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("open with a malformed entry: %v, want ErrJournal at line 2", err)
	}
}

// TestJournalUnknownEntry: an entry of a change this version does not know
// fails the open and every write, and the file is not written over it.
func TestJournalUnknownEntry(t *testing.T) {
	name := filepath.Join(t.TempDir(), "m.smg")
	f := fileMemory(t, name, 1<<30)
	ctx := context.Background()
	for i := 1; i <= 3; i++ {
		if _, err := f.Record(ctx, chat(i, 1), nil); err != nil {
			t.Fatal(err)
		}
	}
	jn := format.JournalName(name)
	j, _ := os.ReadFile(jn)
	if err := os.WriteFile(jn, append(j, `{"op":"teleport"}`+"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(name)
	if _, err := smg.Open(name, &smg.OpenOptions{NoVectors: true}); err == nil || !strings.Contains(err.Error(), `"teleport"`) {
		t.Errorf("open: %v, want an error naming the change", err)
	}
	if err := f.Compact(ctx); err == nil {
		t.Error("compacted over an entry it cannot read")
	}
	if after, _ := os.ReadFile(name); !bytes.Equal(before, after) {
		t.Error("the file was written over the journal")
	}
}

// TestResumeFromState: a memory opened from a file written by a
// FileMemory takes its next turns from the builder's state kept beside
// it, and gives the memory built in one go.
func TestResumeFromState(t *testing.T) {
	name := filepath.Join(t.TempDir(), "m.smg")
	ctx := context.Background()
	f := fileMemory(t, name, 1<<30)
	if _, err := f.Record(ctx, chat(1, 30), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(format.StateName(name)); err != nil {
		t.Fatalf("no state beside the file: %v", err)
	}
	whole := smg.New(&smg.Options{NoVectors: true})
	if _, err := whole.IngestAll(ctx, chat(1, 40)); err != nil {
		t.Fatal(err)
	}
	want := canonical(t, whole.Document())
	resumed := func() []byte {
		o, err := smg.Open(name, &smg.OpenOptions{NoVectors: true})
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		if _, err := o.IngestAll(ctx, chat(31, 10)); err != nil {
			t.Fatal(err)
		}
		return canonical(t, o.Document())
	}
	if got := resumed(); !bytes.Equal(got, want) {
		t.Errorf("resumed: %d bytes, want the %d of the memory built in one go", len(got), len(want))
	}
	// The state is what the memory goes on from: one of another memory of
	// as many turns, put in its place, shows in what it gives. (The state
	// is trusted as the file is; it is checked against damage only.)
	other := graph.New(graph.Config{}, graph.Options{})
	for _, tu := range chat(101, 30) {
		if err := other.Add(tu); err != nil {
			t.Fatal(err)
		}
	}
	data, err := other.State()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(name)
	if err := format.WriteState(format.StateName(name), format.FileHash(raw), data); err != nil {
		t.Fatal(err)
	}
	if got := resumed(); bytes.Equal(got, want) {
		t.Error("the memory did not go on from the state beside its file: it replayed")
	}
	// A damaged state is not used.
	st, _ := os.ReadFile(format.StateName(name))
	st[len(st)-1] ^= 1
	if err := os.WriteFile(format.StateName(name), st, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := resumed(); !bytes.Equal(got, want) {
		t.Error("a damaged state was used")
	}
}

// TestJournalRemember: a fact saved in a file goes to its journal, and
// every reader has it, with the time it was saved; the same fact again
// appends nothing.
func TestJournalRemember(t *testing.T) {
	name := filepath.Join(t.TempDir(), "m.smg")
	f := fileMemory(t, name, 1<<30)
	ctx := context.Background()
	if _, err := f.Record(ctx, chat(1, 4), nil); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(name)
	r, err := f.Remember(ctx, smg.Fact{Content: "I prefer answers with code first", Category: "preference"})
	if err != nil || r.Duplicate {
		t.Fatalf("remember: %+v, %v", r, err)
	}
	if after, _ := os.ReadFile(name); !bytes.Equal(before, after) {
		t.Error("remembering wrote the whole file")
	}
	j, _ := os.ReadFile(format.JournalName(name))
	if r, err := f.Remember(ctx, smg.Fact{Content: "User prefers answers with code first", Category: "preference"}); err != nil || !r.Duplicate {
		t.Errorf("the same fact: %+v, %v", r, err)
	}
	if j2, _ := os.ReadFile(format.JournalName(name)); !bytes.Equal(j, j2) {
		t.Error("a duplicate was appended to the journal")
	}
	doc, err := smg.ReadDocument(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	facts := graph.Facts(doc, graph.FactFilter{})
	if len(facts) != 1 || facts[0].Label != "User prefers answers with code first" || !facts[0].ValidFrom.Equal(r.Fact.ValidFrom) {
		t.Errorf("the file and its journal hold %+v, want the fact saved at %v", facts, r.Fact.ValidFrom)
	}
	if err := f.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if doc2, err := format.ReadFile(name, nil); err != nil || !bytes.Equal(canonical(t, doc2), canonical(t, doc)) {
		t.Errorf("compacted: %v", err)
	}
}

// TestResumeOnBench: on real coding sessions (aider's, with their code in
// the vault) and a long project chat, a memory whose file was written by
// a FileMemory goes on, from the builder's state beside it, to the
// memory built in one go. It skips without ../shared/bench.
func TestResumeOnBench(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests megabytes")
	}
	inputs := []string{"aider-dev/02_BartoshMaxim__TradePirates.md", "aider-dev/05_tooshel__poppoll.md", "aider-dev/09_0202alcc__luvatrix.md"}
	if raceEnabled {
		inputs = inputs[1:2]
	}
	ctx := context.Background()
	for _, in := range inputs {
		path := filepath.Join("..", "..", "shared", "bench", in)
		if _, err := os.Stat(path); err != nil {
			t.Skipf("no %s", path)
		}
		t.Run(filepath.Base(in), func(t *testing.T) {
			res, err := importer.ReadFile(path, importer.Options{})
			if err != nil {
				t.Fatal(err)
			}
			turns := res.Conversations[0].Turns
			half := len(turns) / 2
			name := filepath.Join(t.TempDir(), "m.smg")
			f := fileMemory(t, name, 1<<30)
			if _, err := f.Record(ctx, turns[:half], nil); err != nil {
				t.Fatal(err)
			}
			o, err := smg.Open(name, &smg.OpenOptions{NoVectors: true})
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			if _, err := o.IngestAll(ctx, turns[half:]); err != nil {
				t.Fatal(err)
			}
			whole := smg.New(&smg.Options{NoVectors: true})
			if _, err := whole.IngestAll(ctx, turns); err != nil {
				t.Fatal(err)
			}
			if got, want := canonical(t, o.Document()), canonical(t, whole.Document()); !bytes.Equal(got, want) {
				t.Errorf("resumed at turn %d of %d: %d bytes, want the %d of the memory built in one go", half, len(turns), len(got), len(want))
			}
		})
	}
}

// A file touched but not changed is not read into a new memory; one
// another process wrote is.
func TestTouchedFileKeepsItsMemory(t *testing.T) {
	ctx := context.Background()
	name := filepath.Join(t.TempDir(), "m.smg")
	f := fileMemory(t, name, 1<<30)
	if _, err := f.Record(ctx, chat(1, 4), nil); err != nil {
		t.Fatal(err)
	}
	before, err := f.Memory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(name, later, later); err != nil {
		t.Fatal(err)
	}
	if m, err := f.Memory(ctx); err != nil || m != before {
		t.Errorf("a touched file was read again (%v)", err)
	}
	other := fileMemory(t, name, 1<<30)
	if _, err := other.Record(ctx, chat(5, 1), nil); err != nil {
		t.Fatal(err)
	}
	if err := other.Compact(ctx); err != nil { // the file written whole
		t.Fatal(err)
	}
	if m, err := f.Memory(ctx); err != nil || m == before || m.Turns() != 5 {
		t.Errorf("the file another process wrote was not read again (%v)", err)
	}
}
