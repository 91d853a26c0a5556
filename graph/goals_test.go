package graph_test

import (
	"strings"
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

// A user turn that repeats the assistant's last reply word for word is a
// relay (aider's architect handing its plan to the editor), read as the
// assistant's: its plan states no goal of the user's.
func TestRelayIsTheAssistants(t *testing.T) {
	b := graph.New(graph.Config{}, graph.Options{})
	plan := "Looking at the list, I need to create the GameState enum in the core namespace."
	for i, tu := range []spec.Turn{
		{Role: "user", Content: "Do the first task."},
		{Role: "assistant", Content: plan},
		{Role: "tool", Content: "Tokens: 1.5k sent, 289 received."},
		{Role: "user", Content: strings.ReplaceAll(plan, ", ", ",\n")},
		{Role: "user", Content: "I need to create the GameState enum in the core namespace."},
	} {
		tu.Turn = i + 1
		if err := b.Add(tu); err != nil {
			t.Fatal(err)
		}
	}
	if got := b.Goals(); len(got) != 1 || got[0].Turn != 5 {
		t.Errorf("goals %+v, want the user's own, of turn 5", got)
	}
}
