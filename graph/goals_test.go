package graph_test

import (
	"testing"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// Goals gives every goal the turns stated, with its turn, in order, also
// those the working memory no longer shows.
func TestGoals(t *testing.T) {
	b := graph.New(graph.Config{Goals: 1}, graph.Options{})
	for i, text := range []string{
		"We need to add rate limiting to the API.",
		"The weather is nice today.",
		"Next we need to write the migration for the orders table.",
	} {
		if err := b.Add(spec.Turn{Turn: i + 1, Role: "user", Content: text}); err != nil {
			t.Fatal(err)
		}
	}
	got := b.Goals()
	if len(got) != 2 || got[0].Turn != 1 || got[1].Turn != 3 {
		t.Fatalf("goals %+v, want one of turn 1 and one of turn 3", got)
	}
	if wm := b.Document().WorkingMemory.CurrentGoals; len(wm) != 1 {
		t.Errorf("current goals %q, want the newest alone", wm)
	}
	got[0].Text = "changed"
	if b.Goals()[0].Text == "changed" {
		t.Error("Goals returned the builder's own list")
	}
}
