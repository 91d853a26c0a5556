package graph

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/graph/graphtest"
	"github.com/smg-memory/smg/spec"
)

// dupTurns make a memory with two concepts of one name ("blue pipeline"
// in code, "Blue Pipeline" named) and two facts that say the same.
func dupTurns() []spec.Turn {
	base := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)
	var turns []spec.Turn
	for i, text := range []string{
		"Good morning, how was the weekend?",
		"The weather was lovely here in the hills.",
		"We had a long walk along the river.",
		"Tomorrow we should plan the sprint.",
		"We deploy the shop with `blue-pipeline` every morning.",
		"Coffee first, then the standup.",
		"Lunch was a sandwich at the desk.",
		"The `blue-pipeline` job failed again last night.",
		"I think `blue-pipeline` needs a cache.",
		"Ask Marta whether Blue Pipeline has a cache option.",
		"I love border collies.",
		"I really love border collies!",
		"My favourite food is paella.",
	} {
		turns = append(turns, spec.Turn{Role: "user", Speaker: "Dana", Content: text, Timestamp: base.Add(time.Duration(i) * 24 * time.Hour)})
	}
	return turns
}

func builder(t testing.TB, cfg Config, turns []spec.Turn) *Builder {
	t.Helper()
	b := New(cfg, Options{})
	for _, tu := range turns {
		if err := b.Add(tu); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// maintain runs maintenance on b and checks what every run must hold: a
// dry run first reports the same changes and changes nothing; the
// document reloads as it is, with the changes; a second run finds
// nothing to do.
func maintain(t *testing.T, b *Builder, opts MaintainOptions) (MaintenanceReport, *spec.Document) {
	t.Helper()
	before := canonical(t, b.Document())
	opts.DryRun = true
	dry, err := b.Maintain(opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := canonical(t, b.Document()); got != before {
		t.Fatal("a dry run changed the memory")
	}
	opts.DryRun = false
	r, err := b.Maintain(opts)
	if err != nil {
		t.Fatal(err)
	}
	if !dry.DryRun || r.DryRun {
		t.Errorf("DryRun is %v in the dry run's report, %v in the real one's", dry.DryRun, r.DryRun)
	}
	dry.DryRun = false
	if !reflect.DeepEqual(dry, r) {
		t.Errorf("the dry run reports\n%v\nthe real run\n%v", dry.Changes, r.Changes)
	}
	doc := b.Document()
	c, err := Load(doc, Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if canonical(t, c.Document()) != canonical(t, doc) {
		t.Error("the maintained memory reloads as another")
	}
	again, err := b.Maintain(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Changes) > 0 {
		t.Errorf("a second run changes %v", again.Changes)
	}
	if canonical(t, b.Document()) != canonical(t, doc) {
		t.Error("a second run changed the memory")
	}
	return r, doc
}

// changes are the changes of a kind, as kind and ids.
func changes(r MaintenanceReport, kind ChangeKind) []string {
	var out []string
	for _, c := range r.Changes {
		if c.Kind == kind {
			out = append(out, strings.Join(c.IDs, " "))
		}
	}
	return out
}

func TestMaintainMerges(t *testing.T) {
	turns := dupTurns()
	b := builder(t, Config{}, turns)
	r, doc := maintain(t, b, MaintainOptions{})
	want := []string{
		"concept-blue-pipeline concept-blue-pipeline-e4630f",
		"fact-dana-loves-border-collies fact-dana-really-loves-border-collies",
	}
	if got := changes(r, ChangeMerge); !slices.Equal(got, want) {
		t.Fatalf("merges %q, want %q", got, want)
	}
	ix := indexOf(doc)
	if ix.nodes["concept-blue-pipeline-e4630f"] != nil || ix.nodes["fact-dana-really-loves-border-collies"] != nil {
		t.Error("a merged node is still there")
	}
	kept := ix.nodes["concept-blue-pipeline"]
	if !slices.Contains(kept.Aliases, "Blue Pipeline") || !slices.Equal(kept.Mentions, []int{5, 8, 9, 10}) ||
		!reflect.DeepEqual(kept.Metadata[mergedKey], []any{"concept-blue-pipeline-e4630f"}) {
		t.Errorf("the kept concept: aliases %q, mentions %v, metadata %v", kept.Aliases, kept.Mentions, kept.Metadata)
	}
	if f := ix.nodes["fact-dana-loves-border-collies"]; !slices.Equal(f.Mentions, []int{11, 12}) {
		t.Errorf("the kept fact is mentioned at %v, want 11 and 12", f.Mentions)
	}
	for _, e := range doc.SemanticGraph.Edges {
		if ix.nodes[e.From] == nil || ix.nodes[e.To] == nil {
			t.Errorf("edge %s -%s-> %s is left dangling", e.From, e.Relation, e.To)
		}
	}
	// The merged names find the node kept, in this sitting and in the
	// next: the same turn gives the same memory.
	more := spec.Turn{Role: "user", Speaker: "Dana", Content: "Marta says Blue Pipeline is fast now.", Timestamp: turns[len(turns)-1].Timestamp.Add(time.Hour)}
	c, err := Load(doc, Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []*Builder{b, c} {
		if err := x.Add(more); err != nil {
			t.Fatal(err)
		}
	}
	got, reloaded := b.Document(), c.Document()
	if canonical(t, got) != canonical(t, reloaded) {
		t.Error("a turn after maintenance gives another memory after a reload")
	}
	ix = indexOf(reloaded)
	if ix.nodes["concept-blue-pipeline-e4630f"] != nil || !slices.Contains(ix.nodes["concept-blue-pipeline"].Mentions, len(turns)+1) {
		t.Error("a merged name, used again, does not find the node kept")
	}
}

func TestMaintainPrunes(t *testing.T) {
	b := builder(t, Config{}, graphtest.Conversation(t, "personal.json"))
	at := time.Date(2024, 5, 20, 10, 0, 0, 0, time.UTC)
	if err := b.Pin("concept-madrid", true, at); err != nil {
		t.Fatal(err)
	}
	if _, err := b.EditFact("fact-ben-went-hiking-in-the-sierra-de-guadarrama", "Ben went hiking in the Sierra de Guadarrama with his sister Lucia.", at); err != nil {
		t.Fatal(err)
	}
	r, doc := maintain(t, b, MaintainOptions{StaleAfter: 60 * 24 * time.Hour, MinEdgeStrength: -1})
	pruned := changes(r, ChangePrune)
	for _, id := range []string{"concept-cadiz", "concept-sierra-de-guadarrama", "fact-ana-is-working-on-a-photo-book-about"} {
		if !slices.Contains(pruned, id) {
			t.Errorf("%s is not pruned", id)
		}
	}
	for id, why := range map[string]string{
		"concept-madrid": "pinned",
		"concept-ana":    "a speaker",
		"fact-ben-went-hiking-in-the-sierra-de-guadarrama": "edited",
		"fact-ana-lives-in-madrid-so-ana-should-really":    "superseded: history",
		"fact-ben-is-a-nurse-so-weekends-outdoors-are":     "an identity fact",
	} {
		if slices.Contains(pruned, id) {
			t.Errorf("%s is pruned, though %s", id, why)
		}
	}
	ix := indexOf(doc)
	for _, id := range pruned {
		if ix.nodes[id] != nil {
			t.Errorf("%s is reported pruned, but it is there", id)
		}
	}
	for _, e := range doc.SemanticGraph.Edges {
		if ix.nodes[e.From] == nil || ix.nodes[e.To] == nil {
			t.Errorf("edge %s -%s-> %s is left dangling", e.From, e.Relation, e.To)
		}
	}
	// Measured against the memory's own clock (its last change, on 20
	// May 2024), not the wall clock: with the default 90 days, nothing is
	// stale yet.
	c := builder(t, Config{}, graphtest.Conversation(t, "personal.json"))
	if r, err := c.Maintain(MaintainOptions{}); err != nil || r.Count(ChangePrune) > 0 || !r.Now.Equal(c.Clock()) {
		t.Errorf("the default run prunes %d nodes at %v (%v)", r.Count(ChangePrune), r.Now, err)
	}
}

func TestMaintainDropsWeakEdges(t *testing.T) {
	b := builder(t, Config{}, graphtest.Conversation(t, "checkout.json"))
	strong := len(b.Document().SemanticGraph.Edges)
	r, doc := maintain(t, b, MaintainOptions{StaleAfter: -1})
	want := []string{"concept-stripe-checkout concept-stripe-elements"}
	if got := changes(r, ChangeDropEdge); !slices.Equal(got, want) {
		t.Fatalf("dropped %q, want %q", got, want)
	}
	for _, c := range r.Changes {
		if c.Kind == ChangeDropEdge && (c.Relation != spec.RelRelatedTo || c.Before != 0.36) {
			t.Errorf("dropped edge %v: relation %s, strength %v", c.IDs, c.Relation, c.Before)
		}
	}
	if got := len(doc.SemanticGraph.Edges); got != strong-1 {
		t.Errorf("%d edges left of %d", got, strong)
	}
	if indexOf(doc).edge("concept-stripe-checkout", "concept-stripe-elements", spec.RelRelatedTo) {
		t.Error("the weak edge is still there")
	}
}

// codeTurns write one file and then edit it n-1 times, a line at a time:
// each version after the first is a patch of the one before (no turn holds
// it whole), a full copy every SnapshotInterval.
func codeTurns(n int) []spec.Turn {
	base := time.Date(2024, 2, 1, 9, 0, 0, 0, time.UTC)
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf("\tfmt.Println(\"step %d of the long job\")", i))
	}
	code := "package main\n\nimport \"fmt\"\n\nfunc main() {\n" + strings.Join(lines, "\n") + "\n}\n"
	turns := []spec.Turn{{Role: "assistant", Timestamp: base, Content: "The job:\n\n```go cmd/job/main.go\n" + code + "```"}}
	for v := 1; v < n; v++ {
		edit := fmt.Sprintf("<<<<<<< SEARCH\n%s\n=======\n\tfmt.Println(\"step %d, revised %d times\")\n>>>>>>> REPLACE\n", lines[v], v, v)
		turns = append(turns, spec.Turn{Role: "assistant", Timestamp: base.Add(time.Duration(v) * time.Hour),
			Content: fmt.Sprintf("Version %d of the job:\n\ncmd/job/main.go\n```go\n%s```", v+1, edit)})
	}
	return turns
}

func TestMaintainRebases(t *testing.T) {
	b := builder(t, Config{}, codeTurns(8))
	before := b.Document().ArtifactVault.Artifacts["art-cmd-job-main-go"]
	if n := len(before.Versions); n != 8 || before.Versions[7].Patch == nil {
		t.Fatalf("%d versions, the last one a patch: %v", n, before.Versions[n-1].Patch != nil)
	}
	r, doc := maintain(t, b, MaintainOptions{StaleAfter: -1, MinEdgeStrength: -1})
	if got := changes(r, ChangeRebase); !slices.Equal(got, []string{"art-cmd-job-main-go"}) {
		t.Fatalf("rebased %q", got)
	}
	after := doc.ArtifactVault.Artifacts["art-cmd-job-main-go"]
	last := after.Versions[7]
	if last.Content == nil || last.Patch != nil || last.Hash != before.Versions[7].Hash {
		t.Fatal("the latest version is not stored in full, with its hash")
	}
	for i := range 7 {
		if !reflect.DeepEqual(after.Versions[i], before.Versions[i]) {
			t.Errorf("version %d changed", i+1)
		}
	}
	want, err := VaultReader(&spec.ArtifactVault{Artifacts: map[string]spec.Artifact{"a": before}}).Content("a", 8)
	if err != nil || *last.Content != want {
		t.Errorf("the content stored is not version 8's (%v)", err)
	}
	// A version after it patches the full copy.
	c, err := Load(doc, Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Add(codeTurns(9)[8]); err != nil {
		t.Fatal(err)
	}
	v9 := c.Document().ArtifactVault.Artifacts["art-cmd-job-main-go"].Versions[8]
	if v9.Patch == nil {
		t.Error("version 9 is not a patch")
	}
	// A short chain stays as it is.
	if r, _ := builder(t, Config{}, codeTurns(5)).Maintain(MaintainOptions{}); r.Count(ChangeRebase) > 0 {
		t.Errorf("a chain of 4 patches is rebased: %v", r.Changes)
	}
}

func TestMaintainDecays(t *testing.T) {
	b := builder(t, Config{}, graphtest.Conversation(t, "checkout.json"))
	was := indexOf(b.Document())
	now := b.Clock().Add(30 * 24 * time.Hour)
	r, doc := maintain(t, b, MaintainOptions{Now: now, StaleAfter: -1, MinEdgeStrength: -1})
	if doc.Metadata.Maintenance == nil || !doc.Metadata.Maintenance.LastRun.Equal(now) || !doc.Metadata.Modified.Equal(now) {
		t.Fatalf("metadata %+v", doc.Metadata)
	}
	ix := indexOf(doc)
	decayed := 0
	for _, c := range r.Changes {
		if c.Kind != ChangeDecay {
			continue
		}
		decayed++
		id := c.IDs[0]
		if c.Before != was.nodes[id].Activation || c.After != ix.nodes[id].Activation || c.After >= c.Before {
			t.Errorf("%s: reported %v → %v, was %v, is %v", id, c.Before, c.After, was.nodes[id].Activation, ix.nodes[id].Activation)
		}
	}
	unpinned := 0
	for _, n := range doc.SemanticGraph.Nodes {
		if !n.Pinned && len(n.Mentions) > 0 {
			unpinned++
		}
	}
	if decayed == 0 || decayed != unpinned {
		t.Errorf("%d nodes decayed, of %d mentioned and not pinned", decayed, unpinned)
	}
}

func TestCountWrite(t *testing.T) {
	b := builder(t, Config{}, dupTurns())
	first := b.Document()
	for want := 1; want <= 3; want++ {
		if got := b.CountWrite(); got != want {
			t.Fatalf("write %d counted as %d", want, got)
		}
	}
	if first.Metadata.Maintenance != nil {
		t.Error("counting changed a document given before")
	}
	if _, err := b.Maintain(MaintainOptions{}); err != nil {
		t.Fatal(err)
	}
	if mt := b.Document().Metadata.Maintenance; mt == nil || mt.WritesSince != 0 || !mt.LastRun.Equal(b.Clock()) {
		t.Errorf("after maintenance: %+v", mt)
	}
}
