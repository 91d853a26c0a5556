package smg_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

// mergeFacts returns a memory of a few turns of the checkout conversation
// and of the facts, remembered, and the facts' ids.
func mergeFacts(t *testing.T, facts ...string) (*spec.Document, []string) {
	t.Helper()
	ctx := context.Background()
	m := smg.New(&smg.Options{Now: mergeClock})
	defer m.Close()
	if _, err := m.IngestAll(ctx, smgtest.CheckoutTurns(t)[:6]); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range facts {
		r, err := m.Remember(ctx, smg.Fact{Content: f, Source: spec.SourceUser})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.Fact.ID)
	}
	return m.Document(), ids
}

// mergeChange runs change on a memory of doc and returns its document.
func mergeChange(t *testing.T, doc *spec.Document, change func(ctx context.Context, m *smg.Memory) error) *spec.Document {
	t.Helper()
	m, err := smg.Load(doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := change(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	return m.Document()
}

// mergeOK merges and checks the result against the spec.
func mergeOK(t *testing.T, base, ours, theirs *spec.Document, opts smg.MergeOptions) (*spec.Document, *smg.MergeReport) {
	t.Helper()
	doc, rep, err := smg.Merge(base, ours, theirs, opts)
	if err != nil {
		t.Fatal(err)
	}
	mergeValidate(t, doc)
	return doc, rep
}

func TestMergeDisjointChangesCombine(t *testing.T) {
	base, ids := mergeFacts(t, "User's dog is called Biscuit", "User drinks green tea every morning")
	ours := mergeChange(t, base, func(ctx context.Context, m *smg.Memory) error {
		_, err := m.EditFact(ctx, ids[0], "User's dog is called Pretzel")
		return err
	})
	var added string
	theirs := mergeChange(t, base, func(ctx context.Context, m *smg.Memory) error {
		r, err := m.Remember(ctx, smg.Fact{Content: "User is learning the cello", Source: spec.SourceUser})
		added = r.Fact.ID
		if err != nil {
			return err
		}
		return m.Pin(ctx, ids[1])
	})
	merged, rep := mergeOK(t, base, ours, theirs, smg.MergeOptions{})
	dog, tea, cello := mergeNodeOf(merged, ids[0]), mergeNodeOf(merged, ids[1]), mergeNodeOf(merged, added)
	if dog == nil || smg.FactText(*dog) != "User's dog is called Pretzel" || dog.Version != 2 || len(dog.PreviousSummaries) != 1 {
		t.Errorf("ours' edit: %+v", dog)
	}
	if tea == nil || !tea.Pinned {
		t.Errorf("theirs' pin: %+v", tea)
	}
	if cello == nil {
		t.Error("theirs' new fact is lost")
	}
	want := []format.MergeChange{
		{Side: format.Theirs, Op: format.MergeAdded, Node: added},
		{Side: format.Ours, Op: format.MergeChanged, Node: ids[0], Fields: []string{"text"}},
		{Side: format.Theirs, Op: format.MergeChanged, Node: ids[1], Fields: []string{"pinned"}},
	}
	for _, w := range want {
		if !slices.ContainsFunc(rep.Changes, func(c format.MergeChange) bool {
			return c.Side == w.Side && c.Op == w.Op && c.Node == w.Node && slices.Equal(c.Fields, w.Fields)
		}) {
			t.Errorf("the report lacks %+v: %+v", w, rep.Changes)
		}
	}
	if len(rep.Resolved) != 0 || len(rep.Conflicts) != 0 {
		t.Errorf("resolved %v, conflicts %v", rep.Resolved, rep.Conflicts)
	}
}

func TestMergeSameNodeChangedOnBothSides(t *testing.T) {
	base, ids := mergeFacts(t, "User's dog is called Biscuit")
	edit := func(text string) func(ctx context.Context, m *smg.Memory) error {
		return func(ctx context.Context, m *smg.Memory) error {
			_, err := m.EditFact(ctx, ids[0], text)
			return err
		}
	}
	ours := mergeChange(t, base, edit("User's dog is called Pretzel"))
	theirs := mergeChange(t, base, edit("User's dog is called Waffle"))

	// A tie (same version, never activated): ours wins, theirs' text is
	// kept.
	merged, rep := mergeOK(t, base, ours, theirs, smg.MergeOptions{})
	n := mergeNodeOf(merged, ids[0])
	if smg.FactText(*n) != "User's dog is called Pretzel" || n.Version != 3 {
		t.Errorf("node %+v", n)
	}
	var texts []string
	for _, s := range n.PreviousSummaries {
		texts = append(texts, s.Text)
	}
	if !slices.Equal(texts, []string{"User's dog is called Biscuit", "User's dog is called Waffle"}) || n.PreviousSummaries[1].Version != 2 {
		t.Errorf("previous summaries %+v", n.PreviousSummaries)
	}
	if len(rep.Resolved) != 1 || rep.Resolved[0].Node != ids[0] || rep.Resolved[0].Winner != format.Ours ||
		rep.Resolved[0].Rule != "ours on a tie" || !slices.Equal(rep.Resolved[0].Fields, []string{"text"}) {
		t.Errorf("resolved %+v", rep.Resolved)
	}

	// The node activated later wins.
	mergeNodeOf(theirs, ids[0]).LastActivated = mergeClock().Add(time.Hour)
	merged, rep = mergeOK(t, base, ours, theirs, smg.MergeOptions{})
	if n := mergeNodeOf(merged, ids[0]); smg.FactText(*n) != "User's dog is called Waffle" || n.PreviousSummaries[1].Text != "User's dog is called Pretzel" {
		t.Errorf("node %+v", n)
	}
	if len(rep.Resolved) != 1 || rep.Resolved[0].Winner != format.Theirs || rep.Resolved[0].Rule != "later lastActivated" {
		t.Errorf("resolved %+v", rep.Resolved)
	}
}

func TestMergeKeepsFivePreviousSummaries(t *testing.T) {
	base, ids := mergeFacts(t, "User's dog is called Biscuit")
	edits := func(names ...string) func(ctx context.Context, m *smg.Memory) error {
		return func(ctx context.Context, m *smg.Memory) error {
			for _, name := range names {
				if _, err := m.EditFact(ctx, ids[0], "User's dog is called "+name); err != nil {
					return err
				}
			}
			return nil
		}
	}
	ours := mergeChange(t, base, edits("Pretzel", "Waffle", "Noodle", "Pickle"))
	theirs := mergeChange(t, base, edits("Mochi", "Tofu", "Dumpling", "Bagel", "Crumpet"))
	merged, _ := mergeOK(t, base, ours, theirs, smg.MergeOptions{})
	n := mergeNodeOf(merged, ids[0])
	// Theirs has the higher version (6): it wins; ours' text is version 6
	// of the merge, which is version 7.
	if smg.FactText(*n) != "User's dog is called Crumpet" || n.Version != 7 || len(n.PreviousSummaries) != spec.MaxPreviousSummaries {
		t.Fatalf("node %+v", n)
	}
	if last := n.PreviousSummaries[len(n.PreviousSummaries)-1]; last.Text != "User's dog is called Pickle" || last.Version != 6 {
		t.Errorf("the last previous summary is %+v", last)
	}
}

func TestMergeRemovedAndEdited(t *testing.T) {
	base, ids := mergeFacts(t, "User's dog is called Biscuit", "User drinks green tea every morning")
	ours := mergeChange(t, base, func(ctx context.Context, m *smg.Memory) error {
		if _, err := m.Forget(ctx, ids[0]); err != nil {
			return err
		}
		_, err := m.Forget(ctx, ids[1])
		return err
	})
	theirs := mergeChange(t, base, func(ctx context.Context, m *smg.Memory) error {
		_, err := m.EditFact(ctx, ids[0], "User's dog is called Pretzel")
		return err
	})
	_, _, err := smg.Merge(base, ours, theirs, smg.MergeOptions{})
	var ce *format.ConflictError
	if !errors.As(err, &ce) || len(ce.Conflicts) != 1 || ce.Conflicts[0].Node != ids[0] || ce.Conflicts[0].RemovedBy != format.Ours {
		t.Fatalf("merge: %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "node "+ids[0]+" removed by ours, changed by theirs (text)") {
		t.Errorf("message: %s", msg)
	}
	// The fact nobody edited is gone whatever the preference.
	for _, prefer := range []format.Side{format.Ours, format.Theirs} {
		merged, rep := mergeOK(t, base, ours, theirs, smg.MergeOptions{Prefer: prefer})
		if n := mergeNodeOf(merged, ids[0]); (n != nil) != (prefer == format.Theirs) {
			t.Errorf("prefer %s: the edited fact is %+v", prefer, n)
		}
		if mergeNodeOf(merged, ids[1]) != nil {
			t.Errorf("prefer %s: the forgotten fact is back", prefer)
		}
		if len(rep.Conflicts) != 1 || rep.Conflicts[0].Chosen != prefer {
			t.Errorf("prefer %s: conflicts %+v", prefer, rep.Conflicts)
		}
	}
}

// mergeEdge returns the edge of doc from, to, or nil.
func mergeEdge(doc *spec.Document, e spec.Edge) *spec.Edge {
	for i, x := range doc.SemanticGraph.Edges {
		if x.From == e.From && x.To == e.To && x.Relation == e.Relation {
			return &doc.SemanticGraph.Edges[i]
		}
	}
	return nil
}

func TestMergeEdges(t *testing.T) {
	base := mergeNewMemory(t, smgtest.CheckoutTurns(t)[:10])
	if len(base.SemanticGraph.Edges) < 2 {
		t.Fatal("too few edges")
	}
	e0, e1 := base.SemanticGraph.Edges[0], base.SemanticGraph.Edges[1]
	clone := func() *spec.Document {
		return mergeChange(t, base, func(context.Context, *smg.Memory) error { return nil })
	}

	// Reweighted on both sides: the stronger weight.
	ours, theirs := clone(), clone()
	mergeEdge(ours, e0).Strength = 0.9
	mergeEdge(theirs, e0).Strength = 0.95
	merged, rep := mergeOK(t, base, ours, theirs, smg.MergeOptions{})
	if e := mergeEdge(merged, e0); e == nil || e.Strength != 0.95 {
		t.Errorf("edge %+v", e)
	}
	if len(rep.Resolved) != 1 || rep.Resolved[0].Edge == nil || rep.Resolved[0].Winner != format.Theirs || rep.Resolved[0].Rule != "stronger" {
		t.Errorf("resolved %+v", rep.Resolved)
	}

	// Removed on one side, unchanged on the other: removed. Removed on
	// one side, reweighted on the other: a conflict.
	ours, theirs = clone(), clone()
	mergeEdge(ours, e0).Strength = 0.9
	theirs.SemanticGraph.Edges = slices.DeleteFunc(theirs.SemanticGraph.Edges, func(e spec.Edge) bool {
		return mergeEdge(&spec.Document{SemanticGraph: spec.SemanticGraph{Edges: []spec.Edge{e0, e1}}}, e) != nil
	})
	_, _, err := smg.Merge(base, ours, theirs, smg.MergeOptions{})
	var ce *format.ConflictError
	if !errors.As(err, &ce) || len(ce.Conflicts) != 1 || ce.Conflicts[0].Edge == nil || *ce.Conflicts[0].Edge != (format.MergeEdge{From: e0.From, To: e0.To, Relation: e0.Relation}) {
		t.Fatalf("merge: %v", err)
	}
	merged, _ = mergeOK(t, base, ours, theirs, smg.MergeOptions{Prefer: format.Ours})
	if e := mergeEdge(merged, e0); e == nil || e.Strength != 0.9 || mergeEdge(merged, e1) != nil {
		t.Errorf("prefer ours: edges %+v, %+v", e, mergeEdge(merged, e1))
	}
	merged, _ = mergeOK(t, base, ours, theirs, smg.MergeOptions{Prefer: format.Theirs})
	if mergeEdge(merged, e0) != nil || mergeEdge(merged, e1) != nil {
		t.Error("prefer theirs: the removed edges are back")
	}
}

// TestMergeUnchangedSide: merging with a side that did not change gives
// the graph of the other side.
func TestMergeUnchangedSide(t *testing.T) {
	turns := smgtest.CheckoutTurns(t)
	base := mergeNewMemory(t, turns[:8])
	changed := mergeGrow(t, base, turns[8:], func(m *smg.Memory) {
		if _, err := m.Remember(context.Background(), smg.Fact{Content: "User's dog is called Biscuit"}); err != nil {
			t.Fatal(err)
		}
	})
	for _, c := range []struct {
		name          string
		ours, theirs  *spec.Document
		wantTurnShift int
	}{{"theirs unchanged", changed, base, 12}, {"ours unchanged", base, changed, 0}} {
		merged, _ := mergeOK(t, base, c.ours, c.theirs, smg.MergeOptions{})
		if got, want := mergeGraph(merged), mergeGraph(changed); got != want {
			t.Errorf("%s: the graph\n%s\nis not the changed side's\n%s", c.name, got, want)
		}
	}
}

// mergeGraph is the semantic graph of doc as JSON.
func mergeGraph(doc *spec.Document) string {
	d := spec.New("x", mergeClock())
	d.SemanticGraph = doc.SemanticGraph
	b, _ := format.Marshal(d, &smg.EncodeOptions{Plain: true, Indent: true})
	return string(b)
}

// TestMergeArtifacts: both sides add a version of one file; theirs'
// follows ours', at its turn in the merge.
func TestMergeArtifacts(t *testing.T) {
	turns := smgtest.CheckoutTurns(t)
	base := mergeNewMemory(t, turns[:8])
	ours := mergeGrow(t, base, turns[8:14], nil)
	theirs := mergeGrow(t, base, turns[14:], nil)
	merged, rep := mergeOK(t, base, ours, theirs, smg.MergeOptions{})
	if rep.TheirsTurns != 6 || rep.Shift != 6 {
		t.Errorf("report %+v", rep)
	}
	const id = "art-checkout-webhook-go"
	o, th, m := ours.ArtifactVault.Artifacts[id], theirs.ArtifactVault.Artifacts[id], merged.ArtifactVault.Artifacts[id]
	if len(o.Versions) != 3 || len(th.Versions) != 3 || len(m.Versions) != 4 {
		t.Fatalf("versions: ours %d, theirs %d, merged %d", len(o.Versions), len(th.Versions), len(m.Versions))
	}
	if v := m.Versions[2]; v.Hash != o.Versions[2].Hash || v.Turn != o.Versions[2].Turn {
		t.Errorf("v3 %+v is not ours' v3 %+v", v, o.Versions[2])
	}
	if v := m.Versions[3]; v.Hash != th.Versions[2].Hash || v.Turn != th.Versions[2].Turn+6 {
		t.Errorf("v4 %+v is not theirs' v3 %+v", v, th.Versions[2])
	}
	for _, n := range merged.SemanticGraph.Nodes {
		if n.ArtifactID == id && n.ArtifactVersion != 4 {
			t.Errorf("node %s refers to version %d", n.ID, n.ArtifactVersion)
		}
	}
	content, err := format.ArtifactContent(merged, id, 4)
	if want, _ := format.ArtifactContent(theirs, id, 3); err != nil || content != want {
		t.Errorf("v4: %v", err)
	}
}

func TestMergeVectors(t *testing.T) {
	turns := smgtest.CheckoutTurns(t)
	base := mergeNewMemory(t, turns[:8])
	ours := mergeGrow(t, base, turns[8:10], nil)
	theirs := mergeGrow(t, base, turns[8:12], nil)
	vec := func(turn int, x float32) spec.Embedding {
		return spec.Embedding{Turn: turn, Vector: spec.EncodeVector([]float32{x, 1})}
	}
	ours.DeepArchive.VectorIndex = &spec.VectorIndex{Enabled: true, Model: "m", Dimensions: 2, Embeddings: []spec.Embedding{vec(1, 1), vec(9, 9)}}
	theirs.DeepArchive.VectorIndex = &spec.VectorIndex{Enabled: true, Model: "m", Dimensions: 2, Embeddings: []spec.Embedding{vec(1, 1), vec(2, 2), vec(9, 90)}}
	merged, _ := mergeOK(t, base, ours, theirs, smg.MergeOptions{})
	var got []int
	for _, e := range merged.DeepArchive.VectorIndex.Embeddings {
		v, _ := spec.DecodeVector(e.Vector)
		got = append(got, e.Turn, int(v[0]))
	}
	// Theirs' turn 9 is turn 11 of the merge.
	if want := []int{1, 1, 2, 2, 9, 9, 11, 90}; !slices.Equal(got, want) {
		t.Errorf("embeddings (turn, x) %v, want %v", got, want)
	}
	theirs.DeepArchive.VectorIndex.Model = "other"
	merged, rep := mergeOK(t, base, ours, theirs, smg.MergeOptions{})
	if n := len(merged.DeepArchive.VectorIndex.Embeddings); n != 2 || rep.DroppedEmbeddings != 3 {
		t.Errorf("another model: %d embeddings, %d dropped", n, rep.DroppedEmbeddings)
	}
}

func TestMergeUnrelatedFacts(t *testing.T) {
	ours, oids := mergeFacts(t, "User likes TypeScript", "User works at the bakery on Main Street every Monday")
	m := smg.New(&smg.Options{Now: mergeClock})
	defer m.Close()
	ctx := context.Background()
	if _, err := m.IngestAll(ctx, smgtest.CheckoutTurns(t)[10:14]); err != nil {
		t.Fatal(err)
	}
	var tids []string
	for _, f := range []string{"User prefers using TypeScript for all projects", "User works at the bakery on Main Street every Friday"} {
		r, err := m.Remember(ctx, smg.Fact{Content: f, Source: spec.SourceUser})
		if err != nil {
			t.Fatal(err)
		}
		tids = append(tids, r.Fact.ID)
	}
	if oids[1] != tids[1] {
		t.Fatalf("the bakery facts have ids %s and %s: the test needs one", oids[1], tids[1])
	}
	merged, rep := mergeOK(t, nil, ours, m.Document(), smg.MergeOptions{})
	if !slices.Contains(rep.Unified, format.MergeUnification{Theirs: tids[0], Ours: oids[0], By: "fact"}) || mergeNodeOf(merged, tids[0]) != nil {
		t.Errorf("the TypeScript facts are not one: unified %+v", rep.Unified)
	}
	if len(rep.Renamed) != 1 || rep.Renamed[0].From != tids[1] {
		t.Fatalf("renamed %+v", rep.Renamed)
	}
	monday, friday := mergeNodeOf(merged, oids[1]), mergeNodeOf(merged, rep.Renamed[0].To)
	if monday == nil || friday == nil || !strings.HasSuffix(smg.FactText(*monday), "Monday") || !strings.HasSuffix(smg.FactText(*friday), "Friday") {
		t.Errorf("the bakery facts: %+v, %+v", monday, friday)
	}
}

func TestMergeBadBase(t *testing.T) {
	turns := smgtest.CheckoutTurns(t)
	base := mergeNewMemory(t, turns[:8])
	other := mergeNewMemory(t, turns[2:12])
	if _, _, err := smg.Merge(base, other, base, smg.MergeOptions{}); !errors.Is(err, format.ErrMergeBase) {
		t.Errorf("another memory: %v", err)
	}
	short := mergeNewMemory(t, turns[:4])
	if _, _, err := smg.Merge(base, base, short, smg.MergeOptions{}); !errors.Is(err, format.ErrMergeBase) {
		t.Errorf("a shorter memory: %v", err)
	}
	if _, _, err := smg.Merge(base, base, base, smg.MergeOptions{Prefer: "mine"}); err == nil {
		t.Error("prefer mine: no error")
	}
}

func TestFork(t *testing.T) {
	base := mergeNewMemory(t, smgtest.CheckoutTurns(t)[:8])
	hash, err := format.ContentHash(base)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	fork, err := smg.Fork(base, smg.ForkOptions{ID: "try-postgres", Name: "Trying Postgres", Now: at})
	if err != nil {
		t.Fatal(err)
	}
	mergeValidate(t, fork)
	want := spec.Lineage{Operation: spec.OpFork, Parents: []spec.Parent{{ID: base.Metadata.ID, ContentHash: hash}}}
	if l := fork.Metadata.Lineage; l == nil || l.Operation != want.Operation || !slices.EqualFunc(l.Parents, want.Parents, func(a, b spec.Parent) bool { return a.ID == b.ID && a.ContentHash == b.ContentHash }) {
		t.Errorf("lineage %+v", fork.Metadata.Lineage)
	}
	if fork.Metadata.ID != "try-postgres" || fork.Metadata.Description != "Trying Postgres" || !fork.Metadata.Modified.Equal(at) {
		t.Errorf("metadata %+v", fork.Metadata)
	}
	if h, _ := format.ContentHash(base); h != hash {
		t.Error("forking changed the parent")
	}
	random, err := smg.Fork(base, smg.ForkOptions{})
	if err != nil || random.Metadata.ID == base.Metadata.ID || len(random.Metadata.ID) != 36 {
		t.Errorf("a random id: %v, %v", random.Metadata.ID, err)
	}
	if _, err := smg.Fork(base, smg.ForkOptions{ID: "no/slash"}); !errors.Is(err, format.ErrInvalidID) {
		t.Errorf("a bad id: %v", err)
	}
}
