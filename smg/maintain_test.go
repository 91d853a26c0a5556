package smg_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

// maintainedFile writes the checkout memory to a file and returns its name.
func maintainedFile(t *testing.T) string {
	t.Helper()
	m := smg.New(nil)
	defer m.Close()
	if _, err := m.IngestAll(context.Background(), smgtest.CheckoutTurns(t)); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "shop.smg")
	if err := m.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	return name
}

// nodeIDs are the ids of a document's nodes.
func nodeIDs(doc *spec.Document) map[string]bool {
	out := map[string]bool{}
	for _, n := range doc.SemanticGraph.Nodes {
		out[n.ID] = true
	}
	return out
}

// Maintenance through a file: a dry run leaves the file's bytes as they
// are and reports what the real run then does; the result is valid, and
// what was pruned stays pruned when the file is opened and continued.
func TestMaintainFile(t *testing.T) {
	ctx := context.Background()
	name := maintainedFile(t)
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	opened, err := smg.Open(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer opened.Close()
	opts := smg.MaintainOptions{Now: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), DryRun: true}
	dry, err := opened.Maintain(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(name); !bytes.Equal(after, raw) {
		t.Fatal("a dry run changed the file")
	}
	if dry.Count(smg.ChangePrune) == 0 || dry.Count(smg.ChangeDropEdge) == 0 || dry.Count(smg.ChangeDecay) == 0 {
		t.Fatalf("the dry run reports %v", dry.Changes)
	}

	f, err := smg.OpenFileMemory(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	opts.DryRun = false
	var real smg.MaintenanceReport
	err = f.Update(ctx, func(m *smg.Memory) error {
		real, err = m.Maintain(ctx, opts)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	dry.DryRun = false
	if !reflect.DeepEqual(dry, real) {
		t.Errorf("the dry run reports\n%v\nthe real run\n%v", dry.Changes, real.Changes)
	}
	doc, err := format.ValidateFile(name, nil)
	if err != nil {
		t.Fatalf("the maintained file is not valid: %v", err)
	}
	ids := nodeIDs(doc)
	for _, c := range real.Changes {
		if c.Kind == smg.ChangePrune && ids[c.IDs[0]] {
			t.Errorf("%s is pruned, and still in the file", c.IDs[0])
		}
	}
	// Continued after a reload: a new turn does not bring the pruned
	// nodes back.
	m, err := smg.Open(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Ingest(ctx, smg.Turn{Role: "user", Content: "Thanks, that is all for today.", Timestamp: opts.Now}); err != nil {
		t.Fatal(err)
	}
	for id := range nodeIDs(m.Document()) {
		if !ids[id] {
			t.Errorf("%s is back after a reload", id)
		}
	}
	if err := format.Validate(m.Document(), nil); err != nil {
		t.Error(err)
	}
}

// MaintainEvery runs maintenance at the N-th write through a FileMemory,
// not before, counting the writes of every process in the file.
func TestMaintainEvery(t *testing.T) {
	ctx := context.Background()
	name := maintainedFile(t)
	var runs []smg.MaintenanceReport
	open := func() *smg.FileMemory {
		f, err := smg.OpenFileMemory(name, &smg.FileOptions{MaintainEvery: 3,
			OnMaintain: func(r smg.MaintenanceReport) { runs = append(runs, r) }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b := open(), open()
	for i, want := range []int{1, 2, 0, 1} {
		f := []*smg.FileMemory{a, b}[i%2]
		err := f.Update(ctx, func(m *smg.Memory) error {
			_, err := m.Remember(ctx, smg.Fact{Content: fmt.Sprintf("The shop's server number %d is in Frankfurt", i)})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		doc, err := format.ReadFile(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		if mt := doc.Metadata.Maintenance; mt != nil {
			got = mt.WritesSince
		}
		if got != want {
			t.Errorf("after write %d: %d writes since maintenance, want %d", i+1, got, want)
		}
		if ran := len(runs) == 1; ran != (i >= 2) {
			t.Errorf("after write %d: maintenance ran %d times", i+1, len(runs))
		}
		if i == 2 && (doc.Metadata.Maintenance == nil || doc.Metadata.Maintenance.LastRun.IsZero()) {
			t.Error("the maintenance is not recorded in the file")
		}
	}
	// Without MaintainEvery, nothing is counted.
	c, err := smg.OpenFileMemory(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Update(ctx, func(m *smg.Memory) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if doc, err := format.ReadFile(name, nil); err != nil || doc.Metadata.Maintenance == nil || doc.Metadata.Maintenance.WritesSince != 1 {
		t.Errorf("a write without MaintainEvery was counted (%v)", err)
	}
}

// Maintenance merges what the conversation named twice and reports it; a
// dry run changes nothing.
func ExampleMemory_Maintain() {
	ctx := context.Background()
	m := smg.New(nil)
	defer m.Close()
	start := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)
	for i, text := range []string{"I love border collies.", "I really love border collies!", "My favourite food is paella."} {
		if err := m.Ingest(ctx, smg.Turn{Role: "user", Speaker: "Dana", Content: text, Timestamp: start.Add(time.Duration(i) * time.Hour)}); err != nil {
			log.Fatal(err)
		}
	}
	r, err := m.Maintain(ctx, smg.MaintainOptions{DryRun: true})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range r.Changes {
		fmt.Println(c.Kind, c.Detail)
	}
	fmt.Println(len(m.Facts(smg.FactFilter{})), "facts before,")
	if _, err := m.Maintain(ctx, smg.MaintainOptions{}); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(m.Facts(smg.FactFilter{})), "after")
	// Output:
	// merge fact "Dana loves border collies." ← "Dana really loves border collies!"
	// 3 facts before,
	// 2 after
}

// FuzzMaintain: whatever was said, maintenance never panics, leaves a
// valid memory, and finds nothing more to do in the memory saved and
// loaded again, which is the same memory.
func FuzzMaintain(f *testing.F) {
	turns := smgtest.CheckoutTurns(f)
	for i := 0; i+1 < len(turns); i += 2 {
		f.Add(turns[i].Content, turns[i+1].Content, uint8(i))
	}
	f.Add("I love border collies. Ask Marta about Blue Pipeline.", "I really love border collies! The blue pipeline is slow.", uint8(40))
	f.Fuzz(func(t *testing.T, first, second string, days uint8) {
		ctx := context.Background()
		m := smg.New(nil)
		defer m.Close()
		at := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)
		for i, text := range []string{first, second, first + " " + second, second, "Thanks!", first} {
			tu := smg.Turn{Role: "user", Speaker: "Dana", Content: text, Timestamp: at.Add(time.Duration(i) * time.Duration(days) * 24 * time.Hour)}
			if i%2 == 1 {
				tu.Role, tu.Speaker = "assistant", ""
			}
			if err := m.Ingest(ctx, tu); err != nil && !errors.Is(err, smg.ErrInvalidTurn) {
				t.Fatalf("turn %d: %v", i+1, err)
			}
		}
		if _, err := m.Maintain(ctx, smg.MaintainOptions{StaleAfter: 30 * 24 * time.Hour}); err != nil {
			t.Fatal(err)
		}
		doc := m.Document()
		if err := format.Validate(doc, &format.ValidateOptions{SkipJSONLD: true}); err != nil {
			t.Fatal(err)
		}
		want, err := format.Marshal(doc, &smg.EncodeOptions{Plain: true})
		if err != nil {
			t.Fatal(err)
		}
		again, err := smg.Load(doc, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer again.Close()
		r, err := again.Maintain(ctx, smg.MaintainOptions{StaleAfter: 30 * 24 * time.Hour})
		if err != nil || len(r.Changes) > 0 {
			t.Fatalf("a second run, after a reload: %v %v", r.Changes, err)
		}
		if got, err := format.Marshal(again.Document(), &smg.EncodeOptions{Plain: true}); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("the memory reloads as another (%v)", err)
		}
	})
}

// TestMaintainClockIgnoresEdits checks that an edit made long after the
// conversation (a fact remembered, a pin) does not age the memory: its
// clock is its last turn's, so nothing the conversation made is stale.
func TestMaintainClockIgnoresEdits(t *testing.T) {
	ctx := context.Background()
	later := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC) // the turns are of November 2025
	m := smg.New(&smg.Options{Now: func() time.Time { return later }})
	defer m.Close()
	if _, err := m.IngestAll(ctx, smgtest.CheckoutTurns(t)); err != nil {
		t.Fatal(err)
	}
	r, err := m.Remember(ctx, smg.Fact{Content: "I prefer short answers", Category: "preference"})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Pin(ctx, r.Fact.ID); err != nil {
		t.Fatal(err)
	}
	rep, err := m.Maintain(ctx, smg.MaintainOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := rep.Count(smg.ChangePrune); n != 0 || rep.Now.Year() != 2025 {
		t.Errorf("after an edit in 2027: clock %v, %d nodes pruned", rep.Now, n)
	}
	// The same memory a year and a half on, by the wall clock, is stale.
	rep, err = m.Maintain(ctx, smg.MaintainOptions{DryRun: true, Now: later})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Count(smg.ChangePrune) == 0 {
		t.Error("nothing is stale a year and a half after the conversation")
	}
}

// TestRemovedNameComesBackOnce checks that a concept forgotten (or pruned)
// and then named again is one node again, not two: the name's and its
// phrase's counts start afresh.
func TestRemovedNameComesBackOnce(t *testing.T) {
	ctx := context.Background()
	m := smg.New(nil)
	defer m.Close()
	if _, err := m.IngestAll(ctx, smgtest.CheckoutTurns(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Forget(ctx, "concept-stripe-checkout"); err != nil {
		t.Fatal(err)
	}
	again := mustLoad(t, mustMarshal(t, m))
	turn := smg.Turn{Role: "user", Content: "Should we go back to Stripe Checkout for the mobile app?", Timestamp: time.Date(2025, 11, 4, 10, 0, 0, 0, time.UTC)}
	if err := again.Ingest(ctx, turn); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, n := range again.Document().SemanticGraph.Nodes {
		if strings.EqualFold(n.Label, "Stripe Checkout") {
			ids = append(ids, n.ID)
		}
	}
	if len(ids) != 1 {
		t.Errorf("Stripe Checkout, named again, is %d nodes: %v", len(ids), ids)
	}
}
