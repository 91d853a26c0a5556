package format_test

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

func TestDiffSelfIsEmpty(t *testing.T) {
	for _, name := range []string{"small.smg", "full.smg"} {
		doc, _ := readExample(t, name)
		again, _ := readExample(t, name)
		c, err := format.Diff(doc, again, &format.DiffOptions{Content: true})
		if err != nil {
			t.Fatal(err)
		}
		if !c.Empty() || c.Base != c.Target {
			t.Errorf("%s: the diff with itself is not empty: %+v", name, c)
		}
		var out bytes.Buffer
		if err := c.WriteText(&out, nil); err != nil || out.Len() != 0 {
			t.Errorf("%s: the empty diff writes %q, %v", name, out.String(), err)
		}
	}
}

// changedFull returns full.smg (the target) and a base that differs from
// it in one way per kind of change Diff reports.
func changedFull(t testing.TB) (base, target *spec.Document) {
	t.Helper()
	target, _ = readExample(t, "full.smg")
	base, _ = readExample(t, "full.smg")
	g := &base.SemanticGraph
	g.Nodes = slices.DeleteFunc(g.Nodes, func(n spec.Node) bool { return n.ID == "concept-idempotency-key" })
	for i := range g.Nodes {
		switch n := &g.Nodes[i]; n.ID {
		case "concept-go":
			n.Importance = 0.125
			n.Mentions = n.Mentions[:len(n.Mentions)-1]
		case "fact-user-prefers-go":
			n.ValidTo = time.Date(2025, 11, 3, 9, 30, 0, 0, time.UTC)
		case "decision-use-stripe-elements":
			n.Description = "An older description."
		}
	}
	g.Nodes = append(g.Nodes, spec.Node{ID: "concept-gone", Type: spec.NodeConcept, Label: "Gone", Confidence: 1, Version: 1})
	g.Edges = slices.DeleteFunc(g.Edges, func(e spec.Edge) bool { return e.From == "concept-idempotency-key" })
	for i := range g.Edges {
		if e := &g.Edges[i]; e.From == "solution-verify-raw-body" {
			e.Strength = 0.5
		}
	}
	a := base.ArtifactVault.Artifacts["artifact-webhook-go"]
	a.Versions = a.Versions[:2]
	base.ArtifactVault.Artifacts = map[string]spec.Artifact{"artifact-webhook-go": a}
	base.DeepArchive.Blocks = base.DeepArchive.Blocks[:1]
	vi := *base.DeepArchive.VectorIndex
	vi.Embeddings = vi.Embeddings[:len(vi.Embeddings)-1]
	base.DeepArchive.VectorIndex = &vi
	w := &base.WorkingMemory
	w.Summary = "An older summary."
	w.RecentContext = w.RecentContext[:len(w.RecentContext)-1]
	base.Metadata.Tags = []string{"go"}
	return base, target
}

func TestDiffReportsEachKindOfChange(t *testing.T) {
	base, target := changedFull(t)
	c, err := format.Diff(base, target, &format.DiffOptions{Content: true})
	if err != nil {
		t.Fatal(err)
	}
	field := func(fs []format.FieldChange, name string) *format.FieldChange {
		i := slices.IndexFunc(fs, func(f format.FieldChange) bool { return f.Name == name })
		if i < 0 {
			return nil
		}
		return &fs[i]
	}
	node := func(id string) *format.NodeChange {
		i := slices.IndexFunc(c.Nodes, func(n format.NodeChange) bool { return n.ID == id })
		if i < 0 {
			t.Fatalf("no change of node %s in %+v", id, c.Nodes)
		}
		return &c.Nodes[i]
	}
	if len(c.Nodes) != 5 {
		t.Errorf("%d node changes, want 5: %+v", len(c.Nodes), c.Nodes)
	}
	if n := node("concept-idempotency-key"); n.Change != format.Added || n.Type != spec.NodeConcept || n.Label != "idempotency key" {
		t.Errorf("added node: %+v", n)
	}
	if n := node("concept-gone"); n.Change != format.Removed || n.Label != "Gone" {
		t.Errorf("removed node: %+v", n)
	}
	n := node("concept-go")
	if f := field(n.Fields, "importance"); n.Change != format.Changed || f == nil || string(f.Old) != "0.125" {
		t.Errorf("importance: %+v", n)
	}
	if f := field(n.Fields, "mentions"); f == nil || len(f.New) <= len(f.Old) || len(n.Fields) != 2 {
		t.Errorf("mentions: %+v", n)
	}
	if f := field(node("fact-user-prefers-go").Fields, "validTo"); f == nil || string(f.Old) != `"2025-11-03T09:30:00Z"` || f.New != nil {
		t.Errorf("validity: %+v", f)
	}
	if f := field(node("decision-use-stripe-elements").Fields, "description"); f == nil || string(f.Old) != `"An older description."` {
		t.Errorf("description: %+v", f)
	}

	var added, reweighted int
	for _, e := range c.Edges {
		switch {
		case e.Change == format.Added && e.From == "concept-idempotency-key" && e.NewStrength != nil && e.OldStrength == nil:
			added++
		case e.Change == format.Changed && e.From == "solution-verify-raw-body" && *e.OldStrength == 0.5 && *e.NewStrength == 0.9 && len(e.Fields) == 0:
			reweighted++
		}
	}
	if len(c.Edges) != 2 || added != 1 || reweighted != 1 {
		t.Errorf("edges: %+v", c.Edges)
	}

	if len(c.Artifacts) != 2 {
		t.Fatalf("artifacts: %+v", c.Artifacts)
	}
	if a := c.Artifacts[0]; a.ID != "artifact-checkout-plan" || a.Change != format.Added || len(a.Versions) != 1 || !strings.HasPrefix(a.Versions[0].Diff, "--- artifact-checkout-plan@v0\n+++ artifact-checkout-plan@v1\n@@ -0,0 +1") {
		t.Errorf("added artifact: %+v", a)
	}
	a := c.Artifacts[1]
	if a.Change != format.Changed || len(a.Versions) != 1 || a.Versions[0].V != 3 || a.Versions[0].Change != format.Added ||
		!strings.HasPrefix(a.Versions[0].Diff, "--- artifact-webhook-go@v2\n+++ artifact-webhook-go@v3\n@@ ") || len(a.Fields) != 0 {
		t.Errorf("new version: %+v", a)
	}

	if len(c.Blocks) != 1 || c.Blocks[0].Change != format.Added || c.Blocks[0].ID != "block-0002" || c.Blocks[0].TurnRange != [2]int{9, 12} {
		t.Errorf("blocks: %+v", c.Blocks)
	}
	if !slices.Equal(c.Embeddings.Added, []int{12}) || !slices.Equal(c.RecentTurns.Added, []int{12}) {
		t.Errorf("embeddings %+v, recent turns %+v", c.Embeddings, c.RecentTurns)
	}
	if f := field(c.WorkingMemory, "summary"); f == nil || len(c.WorkingMemory) != 1 {
		t.Errorf("working memory: %+v", c.WorkingMemory)
	}
	if f := field(c.Metadata, "tags"); f == nil || string(f.Old) != `["go"]` || len(c.Metadata) != 1 {
		t.Errorf("metadata: %+v", c.Metadata)
	}
	if c.Empty() || len(c.Document) != 0 || len(c.Graph) != 0 || len(c.Vault) != 0 || len(c.Archive) != 0 {
		t.Errorf("changes where there are none: %+v", c)
	}

	// The way back reports the same changes, reversed.
	back, err := format.Diff(target, base, nil)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(back.Nodes, func(n format.NodeChange) bool { return n.ID == "concept-idempotency-key" })
	if len(back.Nodes) != 5 || i < 0 || back.Nodes[i].Change != format.Removed || back.Blocks[0].Change != format.Removed ||
		back.Artifacts[1].Versions[0].Change != format.Removed || back.Artifacts[1].Versions[0].Diff != "" {
		t.Errorf("the diff back: %+v", back)
	}
}

func TestDiffText(t *testing.T) {
	base, target := changedFull(t)
	c, err := format.Diff(base, target, &format.DiffOptions{Content: true})
	if err != nil {
		t.Fatal(err)
	}
	var plain, color bytes.Buffer
	if err := c.WriteText(&plain, nil); err != nil {
		t.Fatal(err)
	}
	out := plain.String()
	for _, want := range []string{
		"--- " + c.Base + "\n+++ " + c.Target + "\n@@ metadata @@\n~ tags: [\"go\"] → [\"checkout\",\"go\",\"stripe\"]\n",
		"@@ working memory @@\n~ summary: \"An older summary.\" → ",
		"+ recent turn 12\n",
		"@@ nodes @@\n",
		"~ concept-go (concept) Go\n    ~ importance: 0.125 → ",
		"- concept-gone (concept) Gone\n",
		"+ concept-idempotency-key (concept) idempotency key\n",
		"    - validTo: \"2025-11-03T09:30:00Z\"\n",
		"@@ edges @@\n+ concept-idempotency-key --mentions--> artifact-node-checkout-plan (0.4)\n~ solution-verify-raw-body --solves--> problem-webhook-401: strength 0.5 → 0.9\n",
		"~ artifact-webhook-go (code, checkout/webhook.go)\n",
		"    + v3 sha256:",
		"+++ artifact-webhook-go@v3\n",
		"@@ archive @@\n+ block-0002 turns 9-12 (4 turns)\n",
		"@@ vector index @@\n+ embedding of turn 12\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Error("colour without Color")
	}
	if err := c.WriteText(&color, &format.TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\x1b[36m@@ nodes @@\x1b[m\n", "\x1b[32m+ concept-idempotency-key", "\x1b[31m- concept-gone", "\x1b[33m~ concept-go"} {
		if !strings.Contains(color.String(), want) {
			t.Errorf("no %q in the coloured text", want)
		}
	}
}

func TestDiffDuplicateIDs(t *testing.T) {
	doc, _ := readExample(t, "full.smg")
	bad, _ := readExample(t, "full.smg")
	bad.SemanticGraph.Nodes = append(bad.SemanticGraph.Nodes, bad.SemanticGraph.Nodes[0])
	if _, err := format.Diff(doc, bad, nil); !errors.Is(err, format.ErrInvalid) {
		t.Errorf("a document with a node twice: %v", err)
	}
}
