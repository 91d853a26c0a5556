package restore

import (
	"context"
	"strings"
	"testing"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// TestVectorsFindAPassage checks that a long turn embedded in passages is
// found by the vector of the passage that answers the question, though
// the question shares no word with it, and goes in as that excerpt, with
// its offsets, not whole.
func TestVectorsFindAPassage(t *testing.T) {
	emb := &fakeEmbedder{model: "fake-64"}
	filler := strings.Repeat("The weather was mild and the meeting ran long as usual. ", 12)
	long := filler + "I finally bought a sedan, a red car with leather seats. " + filler
	b := graph.New(graph.Config{BlockSize: 10}, graph.Options{ID: "passage-vectors"})
	contents := []string{
		"The garden needs watering twice a week in summer.",
		long,
		"My sister plays the violin in an orchestra.",
	}
	for i, c := range contents {
		if err := b.Add(spec.Turn{Speaker: "Dana", Content: c}); err != nil {
			t.Fatal(err)
		}
		ps := Passages(c)
		if ps == nil {
			ps = []Span{{}}
		}
		for _, p := range ps {
			text := c
			if p != (Span{}) {
				text = c[p.Start:p.End]
			}
			if err := b.SetExcerptEmbedding(i+1, p.Start, p.End, emb.model, fakeVector(text)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(Passages(long)) < 3 {
		t.Fatalf("the long turn has %d passages", len(Passages(long)))
	}
	e := newEngine(t, b.Document(), &Config{Embedder: emb})
	r, err := e.Context(context.Background(), vectorQuestion, Options{Budget: 300})
	if err != nil {
		t.Fatal(err)
	}
	it, ok := hasTurnItem(r, 2)
	if !ok {
		t.Fatalf("the long turn is not in:\n%s", r.Text)
	}
	if it.Excerpt == nil || !strings.Contains(long[it.Excerpt.Start:it.Excerpt.End], "red car") {
		t.Fatalf("turn 2 went in as %+v, not as the passage of the car:\n%s", it.Excerpt, r.Text)
	}
	if it.Parts["vector"] != 1 || !strings.Contains(r.Text, "(excerpt)") || strings.Count(r.Text, "weather was mild") >= 24 {
		t.Errorf("parts %v; context:\n%s", it.Parts, r.Text)
	}
}
