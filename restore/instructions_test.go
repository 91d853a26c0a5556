package restore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// instructionMemory is a memory of a few turns with two standing
// instructions, and the fake's vectors of every turn when emb is set.
func instructionMemory(t *testing.T, emb *fakeEmbedder) *spec.Document {
	t.Helper()
	b := graph.New(graph.Config{}, graph.Options{ID: "instructions"})
	for i, c := range []string{
		"Always include mileage details when I ask about a car purchase.",
		"The garden needs watering twice a week in summer.",
		"Always format the watering schedule as a table when I ask about the garden.",
		"We bought a sedan last spring, a red car with leather seats.",
		"My sister plays the violin in an orchestra.",
	} {
		if err := b.Add(spec.Turn{Role: spec.RoleUser, Content: c}); err != nil {
			t.Fatal(err)
		}
		if emb != nil {
			if err := b.SetExcerptEmbedding(i+1, 0, 0, emb.model, fakeVector(c)); err != nil {
				t.Fatal(err)
			}
		}
	}
	doc := b.Document()
	n := 0
	for _, nd := range doc.SemanticGraph.Nodes {
		if nd.Kind == spec.KindInstruction {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d instructions, want 2", n)
	}
	return doc
}

// A context gives the standing instructions that bear on its question a
// section of their own, first, also when the question does not name them
// (by meaning, with vectors), and leaves out those that do not.
func TestContextInstructions(t *testing.T) {
	emb := &fakeEmbedder{model: "fake-64"}
	e := newEngine(t, instructionMemory(t, emb), &Config{Embedder: emb})
	r, err := e.Context(context.Background(), vectorQuestion, Options{Budget: 300})
	if err != nil {
		t.Fatal(err)
	}
	if sec := section(r.Text, secInstructions); !strings.HasPrefix(sec, "- Always include mileage details") || strings.Contains(sec, "watering schedule") || !strings.HasPrefix(r.Text, "## "+secInstructions) {
		t.Errorf("the context of %q:\n%s", vectorQuestion, r.Text)
	}
	var found bool
	for _, it := range r.Items {
		if it.Section == secInstructions {
			found = it.Turn == 1 && it.Parts["instruction"] > 0
		}
	}
	if !found {
		t.Errorf("no item of the instruction of turn 1: %+v", r.Items)
	}
	r, err = e.Context(context.Background(), "Who plays the violin?", Options{Budget: 300})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Text, secInstructions) {
		t.Errorf("an instruction applies to a question about the violin:\n%s", r.Text)
	}

	// Without vectors, those the search finds apply.
	e = newEngine(t, instructionMemory(t, nil), nil)
	r, err = e.Context(context.Background(), "How often does the garden need watering?", Options{Budget: 300})
	if err != nil {
		t.Fatal(err)
	}
	if sec := section(r.Text, secInstructions); !strings.HasPrefix(sec, "- Always format the watering schedule as a table") || strings.Contains(sec, "mileage") {
		t.Errorf("without vectors:\n%s", r.Text)
	}
}

// section is the text of the section of a context's text with this title,
// "" when it has none.
func section(text, title string) string {
	_, rest, ok := strings.Cut(text, "## "+title+"\n\n")
	if !ok {
		return ""
	}
	sec, _, _ := strings.Cut(rest, "\n## ")
	return sec
}

// Without vectors, an instruction that shares terms with the question
// applies however many documents of the memory hold them more often: it
// is searched for among the instructions, not among the memory's best
// hits, which a memory of many chats fills with other documents. One
// shared term is not enough.
func TestInstructionFoundAmongManyHits(t *testing.T) {
	b := graph.New(graph.Config{}, graph.Options{ID: "many"})
	add := func(c string) {
		t.Helper()
		if err := b.Add(spec.Turn{Role: spec.RoleUser, Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	add("Always include tree diagrams when I ask about dependent event probability.")
	for i := range 2 * searchHits {
		add(fmt.Sprintf("Event %d: the probability of rain at the event venue is dependent on the event date; event night %d.", i, i))
	}
	e := newEngine(t, b.Document(), nil)
	ask := func(q string) string {
		t.Helper()
		if hits, err := search(e.ix, q, searchHits, e.bm25()); err != nil || slices.ContainsFunc(hits, func(h hit) bool { return h.kind == kindNode && e.nodes[h.key].Kind == spec.KindInstruction }) {
			t.Fatalf("the search's best hits hold the instruction (err %v): the test asks nothing", err)
		}
		r, err := e.Context(context.Background(), q, Options{Budget: 400})
		if err != nil {
			t.Fatal(err)
		}
		return section(r.Text, secInstructions)
	}
	if sec := ask("If I draw two cards without putting the first back, how do I figure out the probability of both dependent events?"); !strings.HasPrefix(sec, "- Always include tree diagrams") {
		t.Errorf("the instruction does not apply:\n%s", sec)
	}
	if sec := ask("Where is the event on Friday?"); sec != "" {
		t.Errorf("an instruction that shares one term with the question applies:\n%s", sec)
	}
}

// Without vectors, the instructions searched for are the graph's current
// ones: one stated after the engine was made applies once the engine has
// the turn.
func TestInstructionIndexFollowsTheGraph(t *testing.T) {
	b := graph.New(graph.Config{}, graph.Options{ID: "follows"})
	add := func(c string) *spec.Document {
		t.Helper()
		if err := b.Add(spec.Turn{Role: spec.RoleUser, Content: c}); err != nil {
			t.Fatal(err)
		}
		return b.Document()
	}
	add("Always include mileage details when I ask about a car purchase.")
	e := newEngine(t, add("We bought a sedan last spring, a red car with leather seats."), nil)
	const q = "How often should the garden be watered?"
	ask := func() string {
		t.Helper()
		r, err := e.Context(context.Background(), q, Options{Budget: 300})
		if err != nil {
			t.Fatal(err)
		}
		return section(r.Text, secInstructions)
	}
	if sec := ask(); sec != "" {
		t.Fatalf("an instruction applies before the garden's was stated:\n%s", sec)
	}
	if err := e.Update(add("Always format the watering schedule as a table when I ask about the garden.")); err != nil {
		t.Fatal(err)
	}
	// Contexts at once, the first of which makes the instructions' index
	// again.
	secs := make([]string, 4)
	var wg sync.WaitGroup
	for i := range secs {
		wg.Go(func() {
			r, err := e.Context(context.Background(), q, Options{Budget: 300})
			if err == nil {
				secs[i] = section(r.Text, secInstructions)
			}
		})
	}
	wg.Wait()
	for _, sec := range secs {
		if !strings.HasPrefix(sec, "- Always format the watering schedule") || strings.Contains(sec, "mileage") {
			t.Errorf("after the garden's instruction was stated:\n%s", sec)
		}
	}
}
