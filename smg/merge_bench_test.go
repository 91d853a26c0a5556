package smg_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

// The merge tests on real forks: memories of the LoCoMo conversations of
// ../shared/bench (see smgtest.LoCoMoPath), forked, grown apart and merged.

// mergeLoCoMoFile reads the LoCoMo file once.
var mergeLoCoMoFile = sync.OnceValues(func() ([]importer.Conversation, error) {
	res, err := importer.ReadFile(smgtest.LoCoMoPath(), importer.Options{Format: importer.LoCoMo})
	if err != nil {
		return nil, err
	}
	return res.Conversations, nil
})

// mergeLoCoMo returns the turns of the i-th LoCoMo conversation, or skips the
// test when the benchmark data is not there.
func mergeLoCoMo(t testing.TB, i int) []smg.Turn {
	t.Helper()
	convs, err := mergeLoCoMoFile()
	if err != nil {
		t.Skipf("no benchmark data (%v): set SMG_BENCH_LOCOMO", err)
	}
	return convs[i].Turns
}

// mergeClock is the clock of the memories of the merge tests.
func mergeClock() time.Time { return time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC) }

// mergeGrow continues a document: it ingests turns, then runs change on the
// memory, and returns the memory's document.
func mergeGrow(t testing.TB, doc *spec.Document, turns []smg.Turn, change func(m *smg.Memory)) *spec.Document {
	t.Helper()
	m, err := smg.Load(doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.IngestAll(context.Background(), turns); err != nil {
		t.Fatal(err)
	}
	if change != nil {
		change(m)
	}
	return m.Document()
}

// mergeNewMemory returns the document of a new memory of turns.
func mergeNewMemory(t testing.TB, turns []smg.Turn) *spec.Document {
	t.Helper()
	m := smg.New(&smg.Options{Now: mergeClock})
	defer m.Close()
	if _, err := m.IngestAll(context.Background(), turns); err != nil {
		t.Fatal(err)
	}
	return m.Document()
}

// mergeArchived returns the turns of a document's archive.
func mergeArchived(t testing.TB, doc *spec.Document) []spec.Turn {
	t.Helper()
	var out []spec.Turn
	if err := graph.EachTurn(doc, nil, func(tu spec.Turn) error { out = append(out, tu); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// mergeValidate fails the test unless doc passes every check of the spec.
func mergeValidate(t testing.TB, doc *spec.Document) {
	t.Helper()
	if err := format.Validate(doc, &format.ValidateOptions{SkipJSONLD: testing.Short()}); err != nil {
		t.Fatal(err)
	}
}

// mergeNodeOf returns the node id of doc, or nil.
func mergeNodeOf(doc *spec.Document, id string) *spec.Node {
	for i := range doc.SemanticGraph.Nodes {
		if doc.SemanticGraph.Nodes[i].ID == id {
			return &doc.SemanticGraph.Nodes[i]
		}
	}
	return nil
}

// mergeBytes is the compact canonical JSON of doc.
func mergeBytes(t testing.TB, doc *spec.Document) []byte {
	t.Helper()
	b, err := format.Marshal(doc, &smg.EncodeOptions{Plain: true})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMergeRealFork forks a memory of the first 150 turns of a LoCoMo
// conversation; ours takes the next 40 turns; theirs remembers facts,
// forgets a node and takes turns of the conversation's later sessions.
func TestMergeRealFork(t *testing.T) {
	turns := mergeLoCoMo(t, 0)
	ctx := context.Background()
	base := mergeNewMemory(t, turns[:150])
	fork, err := smg.Fork(base, smg.ForkOptions{ID: "theirs", Name: "later sessions", Now: mergeClock()})
	if err != nil {
		t.Fatal(err)
	}
	// The node theirs forgets: a fact of the base that ours leaves as it is.
	ours := mergeGrow(t, base, turns[150:190], nil)
	var forgotten string
	for _, n := range base.SemanticGraph.Nodes {
		if o := mergeNodeOf(ours, n.ID); n.Type == spec.NodeFact && o != nil && o.Description == n.Description && o.Label == n.Label && !o.Pinned {
			forgotten = n.ID
			break
		}
	}
	if forgotten == "" {
		t.Fatal("no fact to forget")
	}
	facts := []string{"User's favourite painter is Hokusai", "User keeps bees on the roof of the studio"}
	later := turns[360:390]
	theirs := mergeGrow(t, fork, later, func(m *smg.Memory) {
		for _, f := range facts {
			if _, err := m.Remember(ctx, smg.Fact{Content: f, Source: spec.SourceUser}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := m.Forget(ctx, forgotten); err != nil {
			t.Fatal(err)
		}
	})

	merged, rep, err := smg.Merge(base, ours, theirs, smg.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mergeValidate(t, merged)
	if rep.BaseTurns != 150 || rep.OursTurns != 190 || rep.TheirsTurns != len(later) || rep.Shift != 40 {
		t.Errorf("report: base %d, ours %d, theirs %d, shift %d", rep.BaseTurns, rep.OursTurns, rep.TheirsTurns, rep.Shift)
	}
	if merged.Metadata.ID != base.Metadata.ID {
		t.Errorf("id %q, want ours' %q", merged.Metadata.ID, base.Metadata.ID)
	}
	if l := merged.Metadata.Lineage; l == nil || l.Operation != spec.OpMerge || len(l.Parents) != 2 || l.Parents[0].ID != ours.Metadata.ID || l.Parents[1].ID != "theirs" {
		t.Errorf("lineage %+v", merged.Metadata.Lineage)
	}

	// Every turn of both sides, in order: ours', then theirs' new ones.
	got := mergeArchived(t, merged)
	want := slices.Concat(turns[:190], later)
	if len(got) != len(want) {
		t.Fatalf("%d turns, want %d", len(got), len(want))
	}
	for i, tu := range got {
		if tu.Turn != i+1 || tu.Content != want[i].Content || tu.ExternalID != want[i].ExternalID {
			t.Fatalf("turn %d: %d %q %q, want %q %q", i+1, tu.Turn, tu.ExternalID, tu.Content, want[i].ExternalID, want[i].Content)
		}
	}

	// Theirs' facts are in, the forgotten node is out.
	var texts []string
	for _, n := range graph.Facts(merged, graph.FactFilter{}) {
		texts = append(texts, smg.FactText(n))
	}
	for _, f := range facts {
		if !slices.Contains(texts, f) {
			t.Errorf("fact %q is lost; facts: %q", f, texts)
		}
	}
	if mergeNodeOf(merged, forgotten) != nil {
		t.Errorf("the forgotten node %s is back", forgotten)
	}
	if !slices.ContainsFunc(rep.Changes, func(c format.MergeChange) bool {
		return c.Side == format.Theirs && c.Op == format.MergeRemoved && c.Node == forgotten
	}) {
		t.Errorf("the report does not say theirs removed %s", forgotten)
	}
	// Every node ours' new turns made is in (unless theirs forgot it).
	for _, n := range ours.SemanticGraph.Nodes {
		if n.ID != forgotten && mergeNodeOf(merged, n.ID) == nil {
			t.Errorf("ours' node %s is lost", n.ID)
		}
	}

	// The merged memory finds a turn only theirs had.
	m, err := smg.Load(merged, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.WaitIndex(ctx); err != nil {
		t.Fatal(err)
	}
	at := 0 // theirs' longest turn: one with words of its own
	for i, tu := range later {
		if len(tu.Content) > len(later[at].Content) {
			at = i
		}
	}
	probe := later[at]
	found, err := m.Search(ctx, probe.Content, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(found, func(f smg.Found) bool {
		return f.Kind == "turn" && f.ExternalID == probe.ExternalID && f.Turn == 190+at+1
	}) {
		t.Errorf("search for theirs' turn %s finds %+v", probe.ExternalID, found)
	}

	// Deterministic: the same merge gives the same bytes.
	again, _, err := smg.Merge(base, ours, theirs, smg.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mergeBytes(t, merged), mergeBytes(t, again)) {
		t.Error("two merges of the same memories differ")
	}
}

// TestMergeRealForkConflict: ours pins a fact that theirs forgets, a
// conflict; the merge fails without a preference and follows the one
// given.
func TestMergeRealForkConflict(t *testing.T) {
	turns := mergeLoCoMo(t, 0)
	ctx := context.Background()
	base := mergeNewMemory(t, turns[:100])
	var fact string
	for _, n := range base.SemanticGraph.Nodes {
		if n.Type == spec.NodeFact {
			fact = n.ID
			break
		}
	}
	if fact == "" {
		t.Fatal("no fact")
	}
	ours := mergeGrow(t, base, turns[100:120], func(m *smg.Memory) {
		if err := m.Pin(ctx, fact); err != nil {
			t.Fatal(err)
		}
	})
	theirs := mergeGrow(t, base, turns[200:220], func(m *smg.Memory) {
		if _, err := m.Forget(ctx, fact); err != nil {
			t.Fatal(err)
		}
	})
	_, rep, err := smg.Merge(base, ours, theirs, smg.MergeOptions{})
	var ce *format.ConflictError
	if !errors.As(err, &ce) || !errors.Is(err, smg.ErrConflict) {
		t.Fatalf("merge without a preference: %v", err)
	}
	if len(ce.Conflicts) != 1 || ce.Conflicts[0].Node != fact || ce.Conflicts[0].RemovedBy != format.Theirs ||
		!slices.Contains(ce.Conflicts[0].Fields, "pinned") || !strings.Contains(err.Error(), fact) {
		t.Errorf("conflicts: %v", err)
	}
	if len(rep.Conflicts) != 1 {
		t.Errorf("report conflicts %+v", rep.Conflicts)
	}
	for _, prefer := range []format.Side{format.Ours, format.Theirs} {
		merged, rep, err := smg.Merge(base, ours, theirs, smg.MergeOptions{Prefer: prefer})
		if err != nil {
			t.Fatal(err)
		}
		mergeValidate(t, merged)
		n := mergeNodeOf(merged, fact)
		if prefer == format.Ours && (n == nil || !n.Pinned) || prefer == format.Theirs && n != nil {
			t.Errorf("prefer %s: node %+v", prefer, n)
		}
		if len(rep.Conflicts) != 1 || rep.Conflicts[0].Chosen != prefer {
			t.Errorf("prefer %s: conflicts %+v", prefer, rep.Conflicts)
		}
	}
}

// TestMergeUnrelated merges the memories of two LoCoMo conversations that
// both have a speaker named John: one John, both archives whole.
func TestMergeUnrelated(t *testing.T) {
	a, b := mergeLoCoMo(t, 2)[:200], mergeLoCoMo(t, 4)[:100]
	ours, theirs := mergeNewMemory(t, a), mergeNewMemory(t, b)
	merged, rep, err := smg.Merge(nil, ours, theirs, smg.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mergeValidate(t, merged)
	if !rep.Unrelated || rep.BaseTurns != 0 || rep.OursTurns != 200 || rep.TheirsTurns != 100 || rep.Shift != 200 {
		t.Errorf("report %+v", rep)
	}
	got := mergeArchived(t, merged)
	want := slices.Concat(a, b)
	if len(got) != len(want) {
		t.Fatalf("%d turns, want %d", len(got), len(want))
	}
	for i, tu := range got {
		if tu.Content != want[i].Content || tu.ExternalID != want[i].ExternalID || tu.Speaker != want[i].Speaker {
			t.Fatalf("turn %d is %s %q, want %s %q", i+1, tu.ExternalID, tu.Content, want[i].ExternalID, want[i].Content)
		}
	}

	// John speaks in both, London is spoken of in both: one node each,
	// London mentioned in both archives (John only spoken to).
	for _, id := range []string{"concept-john", "concept-london"} {
		if mergeNodeOf(ours, id) == nil || mergeNodeOf(theirs, id) == nil {
			t.Fatalf("%s is not a node of both memories", id)
		}
		n := mergeNodeOf(merged, id)
		if n == nil || id == "concept-london" && (len(n.Mentions) == 0 || n.Mentions[0] > 200 || n.Mentions[len(n.Mentions)-1] <= 200) {
			t.Errorf("%s: %+v", id, n)
		}
		if want := len(mergeNodeOf(ours, id).Mentions) + len(mergeNodeOf(theirs, id).Mentions); len(n.Mentions) != want {
			t.Errorf("%s: %d mentions, want %d", id, len(n.Mentions), want)
		}
	}
	// Every node of both is in, under its id or the one it was given.
	moved := map[string]string{}
	for _, u := range rep.Unified {
		moved[u.Theirs] = u.Ours
	}
	for _, r := range rep.Renamed {
		moved[r.From] = r.To
	}
	for _, doc := range []*spec.Document{ours, theirs} {
		for _, n := range doc.SemanticGraph.Nodes {
			id := n.ID
			if doc == theirs && moved[id] != "" {
				id = moved[id]
			}
			if mergeNodeOf(merged, id) == nil {
				t.Errorf("node %s is lost", n.ID)
			}
		}
	}
	again, _, err := smg.Merge(nil, ours, theirs, smg.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mergeBytes(t, merged), mergeBytes(t, again)) {
		t.Error("two merges of the same memories differ")
	}
}
