package smg_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

// importedTurns reads every conversation of an importer's test file.
func importedTurns(t *testing.T, name string) [][]spec.Turn {
	t.Helper()
	res, err := importer.ReadFile(filepath.Join("importer", "testdata", name), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var convs [][]spec.Turn
	for _, c := range res.Conversations {
		convs = append(convs, c.Turns)
	}
	return convs
}

func record(t *testing.T, m *smg.Memory, turns []spec.Turn) smg.Recorded {
	t.Helper()
	r, err := m.Record(context.Background(), turns, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRecordEveryImporter: an export recorded again adds nothing, and
// one that has grown adds only what is new, whatever its format; a memory
// saved and opened again knows the turns it holds.
func TestRecordEveryImporter(t *testing.T) {
	for _, name := range []string{
		"transcript-basic.json", "transcript-lines.jsonl", "transcript-roles.json",
		"openai-chat.json", "openai-messages.json", "openai-finetune.jsonl",
		"locomo-sample.json", "aider-basic.md", "aider-architect.md", "aider-paragraphs.md",
		"chatgpt-branched.json", "claude-export.json", "claude-code-session.jsonl",
	} {
		t.Run(name, func(t *testing.T) {
			convs := importedTurns(t, name)
			total, halves := 0, 0
			m := smg.New(&smg.Options{NoVectors: true})
			// The first half of each conversation: an export taken
			// earlier.
			for _, c := range convs {
				total, halves = total+len(c), halves+len(c)/2
				if r := record(t, m, c[:len(c)/2]); r.Added != len(c)/2 || r.Held != 0 {
					t.Fatalf("first half: %+v, want %d added", r, len(c)/2)
				}
			}
			// The whole export: only the second halves are new.
			added := 0
			for _, c := range convs {
				r := record(t, m, c)
				if r.Held != len(c)/2 || len(r.Reused) != 0 {
					t.Errorf("whole export: %+v, want %d held, none reused", r, len(c)/2)
				}
				added += r.Added
			}
			if added != total-halves || m.Turns() != total {
				t.Fatalf("the memory has %d turns of the export's %d", m.Turns(), total)
			}
			// Saved and opened again, it holds them all.
			file := filepath.Join(t.TempDir(), "m.smg")
			if err := m.Save(file, nil); err != nil {
				t.Fatal(err)
			}
			o, err := smg.Open(file, &smg.OpenOptions{NoVectors: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range convs {
				if r := record(t, o, c); r.Added != 0 || r.Held != len(c) {
					t.Errorf("after reopening: %+v, want all %d held", r, len(c))
				}
			}
			if o.Turns() != total {
				t.Errorf("after reopening and recording again: %d turns, want %d", o.Turns(), total)
			}
		})
	}
}

// TestRecordEqualTurns: turns with neither id nor time are told apart by
// how many of them there are.
func TestRecordEqualTurns(t *testing.T) {
	yes := spec.Turn{Role: spec.RoleUser, Content: "yes"}
	ok := spec.Turn{Role: spec.RoleAssistant, Content: "Done."}
	m := smg.New(&smg.Options{NoVectors: true})
	if r := record(t, m, []spec.Turn{yes, ok, yes, ok}); r.Added != 4 {
		t.Fatalf("first: %+v, want 4 added", r)
	}
	if r := record(t, m, []spec.Turn{yes, ok, yes, ok}); r.Added != 0 || r.Held != 4 {
		t.Errorf("again: %+v, want 4 held", r)
	}
	if r := record(t, m, []spec.Turn{yes, ok, yes, ok, yes, ok}); r.Added != 2 || r.Held != 4 || r.First != 5 {
		t.Errorf("grown: %+v, want 2 added from turn 5, 4 held", r)
	}
	// The same words at another time, or by another speaker, are
	// another turn.
	later := yes
	later.Timestamp = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	other := yes
	other.Speaker = "Dana"
	if r := record(t, m, []spec.Turn{later, other}); r.Added != 2 {
		t.Errorf("another time, another speaker: %+v, want 2 added", r)
	}
	if m.Turns() != 8 {
		t.Errorf("%d turns, want 8", m.Turns())
	}
}

// TestRecordReusedID: a turn with the id of a held turn and other content
// is added, marked and reported, once; the document stays valid.
func TestRecordReusedID(t *testing.T) {
	at := time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC)
	turn := func(id, content string) spec.Turn {
		return spec.Turn{ConversationID: "c1", ExternalID: id, Role: spec.RoleUser, Content: content, Timestamp: at}
	}
	m := smg.New(&smg.Options{NoVectors: true})
	record(t, m, []spec.Turn{turn("m1", "Use Postgres."), turn("m2", "And Redis for the cache.")})
	edited := []spec.Turn{turn("m1", "Use Postgres."), turn("m2", "And Memcached for the cache.")}
	r := record(t, m, edited)
	want := []smg.ReusedID{{Index: 1, Turn: 3, SameAs: 2, ConversationID: "c1", ExternalID: "m2"}}
	if r.Added != 1 || r.Held != 1 || !slices.Equal(r.Reused, want) {
		t.Errorf("edited: %+v, want turn 3 added with the id of turn 2", r)
	}
	if r := record(t, m, edited); r.Added != 0 || len(r.Reused) != 0 {
		t.Errorf("edited again: %+v, want nothing added", r)
	}
	// The same id and content once more than held: added, but its
	// content is that of a turn with its id, so it is not marked.
	if r := record(t, m, []spec.Turn{turn("m1", "Use Postgres."), turn("m1", "Use Postgres.")}); r.Added != 1 || len(r.Reused) != 0 {
		t.Errorf("the same turn twice: %+v, want one added, unmarked", r)
	}
	// The same id in another conversation is another turn, unmarked.
	other := turn("m2", "Something else.")
	other.ConversationID = "c2"
	if r := record(t, m, []spec.Turn{other}); r.Added != 1 || len(r.Reused) != 0 {
		t.Errorf("another conversation: %+v", r)
	}
	doc := m.Document()
	if err := format.Validate(doc, nil); err != nil {
		t.Fatal(err)
	}
	var sameAs []int
	for _, tu := range smgtest.Turns(t, doc) {
		sameAs = append(sameAs, tu.SameIDAs)
	}
	if !slices.Equal(sameAs, []int{0, 0, 2, 0, 0}) {
		t.Errorf("sameIdAs of the turns: %v", sameAs)
	}
}

// TestRecordLegacyTurns: turns stored without a conversation (a memory
// made before turns had one) hold those of any conversation with their id
// and content.
func TestRecordLegacyTurns(t *testing.T) {
	convs := importedTurns(t, "locomo-sample.json")
	m := smg.New(&smg.Options{NoVectors: true})
	for _, c := range convs {
		legacy := slices.Clone(c)
		for i := range legacy {
			legacy[i].ConversationID = ""
		}
		if _, err := m.IngestAll(context.Background(), legacy); err != nil {
			t.Fatal(err)
		}
	}
	n := m.Turns()
	for _, c := range convs {
		if r := record(t, m, c); r.Added != 0 {
			t.Errorf("%+v: turns stored without a conversation added again", r)
		}
	}
	if m.Turns() != n {
		t.Errorf("%d turns, want %d", m.Turns(), n)
	}
}

// TestRecordIngestThenRecord: turns ingested without Record, in a memory
// opened from a file, are held too; Ingest sets no SameIDAs of its own.
func TestRecordIngestThenRecord(t *testing.T) {
	convs := importedTurns(t, "claude-export.json")
	file := filepath.Join(t.TempDir(), "m.smg")
	m := smg.New(&smg.Options{NoVectors: true})
	if _, err := m.IngestAll(context.Background(), convs[0][:2]); err != nil {
		t.Fatal(err)
	}
	if err := m.Save(file, nil); err != nil {
		t.Fatal(err)
	}
	o, err := smg.Open(file, &smg.OpenOptions{NoVectors: true})
	if err != nil {
		t.Fatal(err)
	}
	bogus := convs[0][2]
	bogus.SameIDAs = 99
	if err := o.Ingest(context.Background(), bogus); err != nil {
		t.Fatal(err)
	}
	if r := record(t, o, convs[0][:3]); r.Added != 0 || r.Held != 3 {
		t.Errorf("%+v, want the 3 turns held", r)
	}
	if err := format.Validate(o.Document(), nil); err != nil {
		t.Errorf("a SameIDAs given to Ingest was kept: %v", err)
	}
}

// TestRecordInvalid: an invalid turn stops Record, keeping what it added,
// or is skipped and reported with SkipInvalid.
func TestRecordInvalid(t *testing.T) {
	turns := []spec.Turn{
		{Role: spec.RoleUser, Content: "first"},
		{Content: "no role, no speaker"},
		{Role: spec.RoleUser, Content: "third"},
	}
	m := smg.New(&smg.Options{NoVectors: true})
	r, err := m.Record(context.Background(), turns, nil)
	if !errors.Is(err, smg.ErrInvalidTurn) || r.Added != 1 || m.Turns() != 1 {
		t.Errorf("%+v, %v: want the first turn added, then ErrInvalidTurn", r, err)
	}
	n := 0
	r, err = m.Record(context.Background(), turns, &smg.RecordOptions{SkipInvalid: true, Progress: func() { n++ }})
	if err != nil || r.Added != 1 || r.Held != 1 || len(r.Invalid) != 1 || r.Invalid[0].Index != 1 || n != 3 {
		t.Errorf("with SkipInvalid: %+v, %v, %d turns told", r, err, n)
	}
}
