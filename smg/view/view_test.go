package view_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/view"
	"github.com/smg-memory/smg/spec"
)

// checkout is the golden memory of checkout.json.
func checkout(t *testing.T) *smg.Memory {
	t.Helper()
	m, err := smg.Open("../../testdata/conversations/checkout.smg", &smg.OpenOptions{NoVectors: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func ids(nodes []view.MapNode) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.ID
	}
	return out
}

// TestMap: a map holds the most important nodes that pass its filters,
// most important first, and the edges among them only; it counts what a
// type filter would show.
func TestMap(t *testing.T) {
	doc := checkout(t).Document()
	all := view.MapOf(doc, view.MapOptions{})
	current := 0
	for _, n := range doc.SemanticGraph.Nodes {
		if n.ValidTo.IsZero() {
			current++
		}
	}
	if all.All != len(doc.SemanticGraph.Nodes) || all.Total != current || len(all.Nodes)+all.Unlinked+all.Common != current || all.Unlinked != 1 {
		t.Fatalf("the default map: %d of %d nodes shown, %d pass, %d unlinked, %d common; want the %d current, one unlinked", len(all.Nodes), all.All, all.Total, all.Unlinked, all.Common, current)
	}
	// Every node shown has an edge to another; the one without is shown
	// by a filter of its type.
	linked := map[string]bool{}
	for _, e := range all.Edges {
		linked[e.From], linked[e.To] = true, true
	}
	var unlinked spec.Node
	for _, n := range doc.SemanticGraph.Nodes {
		if n.ValidTo.IsZero() && !slices.Contains(ids(all.Nodes), n.ID) {
			unlinked = n
		}
	}
	for _, n := range all.Nodes {
		if !linked[n.ID] {
			t.Errorf("%s is shown without an edge", n.ID)
		}
	}
	if typed := view.MapOf(doc, view.MapOptions{Types: []spec.NodeType{unlinked.Type}}); !slices.Contains(ids(typed.Nodes), unlinked.ID) {
		t.Errorf("a filter of its type does not show %s", unlinked.ID)
	}
	if slices.Contains(ids(all.Nodes), "decision-sqlite") {
		t.Error("a superseded decision is on the default map")
	}
	if !slices.IsSortedFunc(all.Nodes, func(a, b view.MapNode) int {
		if a.Importance > b.Importance {
			return -1
		}
		if a.Importance < b.Importance {
			return 1
		}
		return 0
	}) {
		t.Error("the map's nodes are not most important first")
	}
	if all.From.IsZero() || !all.To.After(all.From) {
		t.Errorf("the map's time span: %v to %v", all.From, all.To)
	}
	// A node's time is when it came up: a concept's, no later than the
	// turn that first mentioned it.
	m := checkout(t)
	mentioned := map[string]bool{}
	for _, n := range doc.SemanticGraph.Nodes {
		mentioned[n.ID] = n.FirstMentioned > 0
	}
	for _, n := range all.Nodes {
		if n.Time.IsZero() && !mentioned[n.ID] && n.Type == spec.NodeConcept {
			continue // named by a fact remembered on request: no turn to date it
		}
		if n.Time.Before(all.From) || n.Time.After(all.To) {
			t.Errorf("%s: time %v, out of the memory's %v to %v", n.ID, n.Time, all.From, all.To)
		}
		if n.Type != spec.NodeConcept {
			continue
		}
		for _, sn := range doc.SemanticGraph.Nodes {
			if sn.ID != n.ID || sn.FirstMentioned == 0 {
				continue
			}
			turns, _, err := m.ReadTurns(sn.FirstMentioned, 1)
			if err != nil || len(turns) != 1 {
				t.Fatalf("turn %d: %v", sn.FirstMentioned, err)
			}
			if n.Time.After(turns[0].Timestamp) {
				t.Errorf("%s: time %v, after turn %d that first mentioned it (%v)", n.ID, n.Time, sn.FirstMentioned, turns[0].Timestamp)
			}
		}
	}

	top := view.MapOf(doc, view.MapOptions{Limit: 4, Superseded: true})
	if len(top.Nodes) != 4 || top.Total != len(doc.SemanticGraph.Nodes) {
		t.Fatalf("limit 4: %d nodes of %d", len(top.Nodes), top.Total)
	}
	on := map[string]bool{}
	for _, n := range top.Nodes {
		on[n.ID] = true
	}
	edges := 0
	for _, e := range doc.SemanticGraph.Edges {
		if on[e.From] && on[e.To] {
			edges++
		}
	}
	if len(top.Edges) != edges {
		t.Errorf("limit 4: %d edges, want the %d among its nodes", len(top.Edges), edges)
	}
	for _, e := range top.Edges {
		if !on[e.From] || !on[e.To] {
			t.Errorf("an edge to a node not on the map: %+v", e)
		}
	}
	for _, n := range top.Nodes {
		if n.Degree == 0 {
			t.Errorf("%s: degree 0", n.ID)
		}
	}

	decisions := view.MapOf(doc, view.MapOptions{Types: []spec.NodeType{spec.NodeDecision}, Superseded: true})
	if got := ids(decisions.Nodes); len(got) != 3 || !slices.Contains(got, "decision-sqlite") {
		t.Errorf("decisions, superseded too: %v", got)
	}
	if decisions.Types[spec.NodeFact] != top.Types[spec.NodeFact] || decisions.Types[spec.NodeDecision] != 3 {
		t.Errorf("counts by type under a type filter: %v; want those without it, %v", decisions.Types, top.Types)
	}
	if got := ids(view.MapOf(doc, view.MapOptions{Query: "postgres"}).Nodes); !slices.Contains(got, "decision-postgresql") || !slices.Contains(got, "concept-postgresql") || slices.Contains(got, "concept-stripe") {
		t.Errorf("nodes that hold postgres: %v", got)
	}
	var sqlite time.Time
	for _, n := range view.MapOf(doc, view.MapOptions{Superseded: true}).Nodes {
		if n.ID == "decision-sqlite" {
			sqlite = n.Time
		}
	}
	if sqlite.IsZero() {
		t.Fatal("the SQLite decision has no time")
	}
	before := view.MapOf(doc, view.MapOptions{Superseded: true, To: sqlite})
	for _, n := range before.Nodes {
		if n.Time.After(sqlite) {
			t.Errorf("%s of %v is on a map up to %v", n.ID, n.Time, sqlite)
		}
	}
	if before.Total == 0 || before.Total >= top.Total {
		t.Errorf("a map up to the SQLite decision: %d nodes of %d", before.Total, top.Total)
	}
}

// TestNeighbours: a node and its neighbours, the node first; an unknown
// node is ErrNoNode.
func TestNeighbours(t *testing.T) {
	doc := checkout(t).Document()
	near, err := view.Neighbours(doc, "decision-postgresql", 0)
	if err != nil {
		t.Fatal(err)
	}
	got := ids(near.Nodes)
	if got[0] != "decision-postgresql" || !slices.Contains(got, "decision-sqlite") || !slices.Contains(got, "concept-postgresql") {
		t.Errorf("the neighbourhood of the PostgreSQL decision: %v", got)
	}
	for _, e := range near.Edges {
		if !slices.Contains(got, e.From) || !slices.Contains(got, e.To) {
			t.Errorf("an edge out of the neighbourhood: %+v", e)
		}
	}
	one, _ := view.Neighbours(doc, "decision-postgresql", 1)
	if len(one.Nodes) != 2 || one.Total != len(near.Nodes) {
		t.Errorf("limit 1: %v of %d", ids(one.Nodes), one.Total)
	}
	if _, err := view.Neighbours(doc, "decision-mysql", 0); !errors.Is(err, view.ErrNoNode) {
		t.Errorf("an unknown node: %v", err)
	}
}

// TestNode: a decision's detail holds its rationale and the options it
// rejected, its edges and the turns that mention it, with their times; an
// artifact's, its versions, the latest content and the diffs.
func TestNode(t *testing.T) {
	m := checkout(t)
	doc := m.Document()
	d, err := view.NodeOf(doc, "decision-postgresql")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Mentions) != 0 {
		t.Errorf("%d mentions before they are read", len(d.Mentions))
	}
	if err := d.ReadMentions(m.ReadTurns); err != nil {
		t.Fatal(err)
	}
	if d.Rationale == "" || len(d.Alternatives) == 0 || !strings.Contains(d.Alternatives[0].Option, "SQLite") {
		t.Errorf("the PostgreSQL decision: rationale %q, alternatives %+v", d.Rationale, d.Alternatives)
	}
	if len(d.Mentions) == 0 || d.MentionCount < len(d.Mentions) {
		t.Fatalf("%d mentions of %d", len(d.Mentions), d.MentionCount)
	}
	for _, mn := range d.Mentions {
		if mn.Time.IsZero() || mn.Text == "" || mn.Turn == 0 {
			t.Errorf("a mention: %+v", mn)
		}
	}
	supersedes := false
	for _, e := range d.Edges {
		supersedes = supersedes || e.Relation == spec.RelSupersedes && e.Out && e.Other.ID == "decision-sqlite" && e.Other.Superseded
	}
	if !supersedes {
		t.Errorf("the PostgreSQL decision's edges do not say it superseded SQLite: %+v", d.Edges)
	}
	if d.Artifact != nil {
		t.Error("a decision with an artifact")
	}

	a, err := view.NodeOf(doc, "artifact-checkout-webhook-go")
	if err != nil {
		t.Fatal(err)
	}
	if a.Artifact == nil || len(a.Artifact.Versions) != 4 || a.Artifact.Language != "go" {
		t.Fatalf("the webhook's artifact: %+v", a.Artifact)
	}
	want, err := format.ArtifactContent(doc, "art-checkout-webhook-go", 0)
	if err != nil {
		t.Fatal(err)
	}
	if a.Artifact.Content != want {
		t.Error("the artifact's content is not its latest version's")
	}
	for _, v := range a.Artifact.Versions {
		if (v.V > 1) != strings.HasPrefix(v.Diff, "--- ") {
			t.Errorf("version %d: diff %.40q", v.V, v.Diff)
		}
	}
	if _, err := view.NodeOf(doc, "nope"); !errors.Is(err, view.ErrNoNode) {
		t.Errorf("an unknown node: %v", err)
	}
}

// TestTimeline: decisions and facts oldest first, superseded ones
// included and linked, and the supersede chains oldest first.
func TestTimeline(t *testing.T) {
	tl := view.TimelineOf(checkout(t).Document(), view.TimelineOptions{})
	if tl.Total != 5 || len(tl.Events) != 5 {
		t.Fatalf("%d events of %d, want the 3 decisions and 2 facts", len(tl.Events), tl.Total)
	}
	for i := 1; i < len(tl.Events); i++ {
		if tl.Events[i].Time.Before(tl.Events[i-1].Time) {
			t.Errorf("event %d (%v) before event %d (%v)", i, tl.Events[i].Time, i-1, tl.Events[i-1].Time)
		}
	}
	var sqlite view.Event
	for _, ev := range tl.Events {
		if ev.ID == "decision-sqlite" {
			sqlite = ev
		}
	}
	if !sqlite.Superseded || !slices.Equal(sqlite.SupersededBy, []string{"decision-postgresql"}) {
		t.Errorf("the SQLite decision: %+v", sqlite)
	}
	if len(tl.Chains) != 1 || !slices.Equal(tl.Chains[0], []string{"decision-sqlite", "decision-postgresql"}) {
		t.Errorf("chains %v", tl.Chains)
	}
	if last := view.TimelineOf(checkout(t).Document(), view.TimelineOptions{Limit: 2}); len(last.Events) != 2 || last.Events[1].ID != tl.Events[4].ID {
		t.Errorf("the 2 latest: %+v", last.Events)
	}
}

// TestChains: a chain of three, told once, from any of its events.
func TestChains(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	doc := &spec.Document{}
	for i, id := range []string{"fact-a", "fact-b", "fact-c", "fact-d"} {
		n := spec.Node{ID: id, Type: spec.NodeFact, Label: id, ValidFrom: at.Add(time.Duration(i) * time.Hour)}
		if i < 2 {
			n.ValidTo = at.Add(time.Duration(i+1) * time.Hour)
		}
		doc.SemanticGraph.Nodes = append(doc.SemanticGraph.Nodes, n)
	}
	doc.SemanticGraph.Edges = []spec.Edge{
		{From: "fact-c", To: "fact-b", Relation: spec.RelSupersedes, Strength: 1},
		{From: "fact-b", To: "fact-a", Relation: spec.RelSupersedes, Strength: 1},
	}
	tl := view.TimelineOf(doc, view.TimelineOptions{})
	if len(tl.Chains) != 1 || !slices.Equal(tl.Chains[0], []string{"fact-a", "fact-b", "fact-c"}) {
		t.Errorf("chains %v, want [fact-a fact-b fact-c]", tl.Chains)
	}
	if got := []string{tl.Events[0].ID, tl.Events[3].ID}; !slices.Equal(got, []string{"fact-a", "fact-d"}) {
		t.Errorf("first and last events: %v", got)
	}
}

// TestTimelineConflicts: two current facts that contradict each other are
// a conflict, told once, older first, and each event names the other; a
// fact contradicted by one no longer current is in no conflict.
func TestTimelineConflicts(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	doc := &spec.Document{}
	for i, id := range []string{"fact-route", "fact-never", "fact-old", "fact-other"} {
		n := spec.Node{ID: id, Type: spec.NodeFact, Label: id, ValidFrom: at.Add(time.Duration(i) * time.Hour)}
		if id == "fact-old" {
			n.ValidTo = at.Add(10 * time.Hour)
		}
		doc.SemanticGraph.Nodes = append(doc.SemanticGraph.Nodes, n)
	}
	doc.SemanticGraph.Edges = []spec.Edge{
		{From: "fact-never", To: "fact-route", Relation: spec.RelContradicts, Strength: 1},
		{From: "fact-other", To: "fact-old", Relation: spec.RelContradicts, Strength: 1},
	}
	tl := view.TimelineOf(doc, view.TimelineOptions{})
	if len(tl.Conflicts) != 1 || tl.Conflicts[0] != [2]string{"fact-route", "fact-never"} {
		t.Errorf("conflicts %v, want [[fact-route fact-never]]", tl.Conflicts)
	}
	for _, ev := range tl.Events {
		want := map[string][]string{"fact-route": {"fact-never"}, "fact-never": {"fact-route"}}[ev.ID]
		if !slices.Equal(ev.ConflictsWith, want) {
			t.Errorf("%s conflicts with %v, want %v", ev.ID, ev.ConflictsWith, want)
		}
	}
}

// TestMapConnected: a node comes with its strongest neighbour, however
// low that ranks, so that no node is shown alone; a node whose neighbour
// does not fit waits (fact-b at limit 3), and one of no edge is left out
// and counted.
func TestMapConnected(t *testing.T) {
	doc := &spec.Document{}
	for _, n := range []struct {
		id  string
		imp float64
	}{{"fact-a", 0.9}, {"fact-b", 0.8}, {"fact-alone", 0.7}, {"concept-c", 0.1}, {"concept-d", 0.05}, {"concept-e", 0.01}} {
		doc.SemanticGraph.Nodes = append(doc.SemanticGraph.Nodes, spec.Node{ID: n.id, Type: spec.NodeFact, Label: n.id, Importance: n.imp})
	}
	doc.SemanticGraph.Edges = []spec.Edge{
		{From: "fact-a", To: "concept-e", Relation: spec.RelAbout, Strength: 0.6},
		{From: "fact-a", To: "concept-c", Relation: spec.RelAbout, Strength: 0.8},
		{From: "fact-b", To: "concept-d", Relation: spec.RelAbout, Strength: 0.8},
	}
	m := view.MapOf(doc, view.MapOptions{Limit: 3})
	if got := ids(m.Nodes); !slices.Equal(got, []string{"fact-a", "concept-c", "concept-e"}) || m.Unlinked != 1 || len(m.Edges) != 2 {
		t.Errorf("limit 3: nodes %v, %d unlinked, edges %v; want fact-a with concept-c, then concept-e (fact-b's neighbour does not fit), fact-alone counted", got, m.Unlinked, m.Edges)
	}
	m = view.MapOf(doc, view.MapOptions{Limit: 4})
	if got := ids(m.Nodes); !slices.Equal(got, []string{"fact-a", "fact-b", "concept-c", "concept-d"}) {
		t.Errorf("limit 4: nodes %v", got)
	}
}

// A concept too common to look up is no topic of the default map (a
// common word, the words of a date's format, a word that inflects as a
// verb); a person no turn names (a speaker, whom facts are about) is, and
// is drawn as a person.
func TestMapCommon(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	doc := &spec.Document{}
	for _, n := range []spec.Node{
		{ID: "concept-json", Type: spec.NodeConcept, Label: "JSON", Mentions: []int{1, 2}, FirstMentioned: 1, LastMentioned: 2, Importance: 0.9},
		{ID: "concept-x", Type: spec.NodeConcept, Label: "[x]", Mentions: []int{1}, FirstMentioned: 1, LastMentioned: 1, Importance: 0.8},
		{ID: "concept-ana", Type: spec.NodeConcept, Kind: spec.KindPerson, Label: "Ana", Importance: 0.7},
		{ID: "concept-month-day", Type: spec.NodeConcept, Label: "Month Day", Mentions: []int{1}, FirstMentioned: 1, LastMentioned: 1, Importance: 0.65},
		{ID: "concept-change", Type: spec.NodeConcept, Label: "Change", Aliases: []string{"Changed", "Changes"}, Mentions: []int{1}, FirstMentioned: 1, LastMentioned: 1, Importance: 0.64},
		{ID: "concept-render", Type: spec.NodeConcept, Label: "Render", Aliases: []string{"render.com"}, Mentions: []int{1}, FirstMentioned: 1, LastMentioned: 1, Importance: 0.63},
		{ID: "concept-stripe", Type: spec.NodeConcept, Label: "Stripe", Mentions: []int{2}, FirstMentioned: 2, LastMentioned: 2, Importance: 0.6},
		{ID: "fact-a", Type: spec.NodeFact, Label: "Ana pays with Stripe in JSON", ValidFrom: at, Importance: 0.5},
	} {
		doc.SemanticGraph.Nodes = append(doc.SemanticGraph.Nodes, n)
	}
	for _, c := range []string{"concept-json", "concept-x", "concept-ana", "concept-stripe", "concept-month-day", "concept-change", "concept-render"} {
		doc.SemanticGraph.Edges = append(doc.SemanticGraph.Edges, spec.Edge{From: "fact-a", To: c, Relation: spec.RelAbout, Strength: 0.8})
	}
	m := view.MapOf(doc, view.MapOptions{})
	if got := ids(m.Nodes); !slices.Equal(got, []string{"concept-ana", "concept-render", "concept-stripe", "fact-a"}) || m.Common != 4 {
		t.Errorf("default map %v, %d common; want Ana, Render, Stripe and the fact, 4 common", got, m.Common)
	}
	if m.Nodes[0].Kind != spec.KindPerson {
		t.Errorf("Ana is drawn as %q, want a person", m.Nodes[0].Kind)
	}
	if typed := view.MapOf(doc, view.MapOptions{Types: []spec.NodeType{spec.NodeConcept}}); len(typed.Nodes) != 7 {
		t.Errorf("a filter of concepts shows %v", ids(typed.Nodes))
	}
}

// Each node of the map belongs to a hub, which a map draws it near: the
// things it is about first (a person, a file), each hub taking the nodes
// it links to that no hub took before; a node linked to no hub goes with
// its neighbour.
func TestMapGroups(t *testing.T) {
	doc := &spec.Document{}
	add := func(id string, typ spec.NodeType, imp float64) {
		doc.SemanticGraph.Nodes = append(doc.SemanticGraph.Nodes, spec.Node{ID: id, Type: typ, Label: id, Importance: imp})
	}
	link := func(from, to string) {
		doc.SemanticGraph.Edges = append(doc.SemanticGraph.Edges, spec.Edge{From: from, To: to, Relation: spec.RelAbout, Strength: 0.8})
	}
	add("concept-ana", spec.NodeConcept, 0.2)
	add("artifact-app-py", spec.NodeArtifact, 0.2)
	for _, f := range []string{"fact-1", "fact-2", "fact-3"} {
		add(f, spec.NodeFact, 0.9)
		link(f, "concept-ana")
	}
	add("solution-fix", spec.NodeSolution, 0.8)
	add("problem-crash", spec.NodeProblem, 0.7)
	link("solution-fix", "artifact-app-py")
	link("fact-3", "artifact-app-py") // Ana's fact about the file: Ana's
	link("solution-fix", "problem-crash")
	add("decision-a", spec.NodeDecision, 0.6)
	add("decision-b", spec.NodeDecision, 0.5)
	link("decision-a", "decision-b")
	m := view.MapOf(doc, view.MapOptions{})
	want := map[string]string{
		"concept-ana": "concept-ana", "fact-1": "concept-ana", "fact-2": "concept-ana", "fact-3": "concept-ana",
		"artifact-app-py": "artifact-app-py", "solution-fix": "artifact-app-py", "problem-crash": "artifact-app-py",
		"decision-a": "decision-a", "decision-b": "decision-a",
	}
	for _, n := range m.Nodes {
		if n.Group != want[n.ID] {
			t.Errorf("%s belongs to %q, want %q", n.ID, n.Group, want[n.ID])
		}
	}
}
