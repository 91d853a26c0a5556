package restore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// A turn that stated a fact in conflict with another current one says so
// in the context, and with what, and so does the fact's line; the items
// carry the conflict. A conflict keeps both sides current.
func TestContextMarksConflicts(t *testing.T) {
	e := newEngine(t, turnsMemory(t, 24*time.Hour,
		spec.Turn{Role: spec.RoleUser, Content: "I'm trying to implement the basic homepage route with Flask, and I have managed to return static HTML, tested at about 150ms."},
		spec.Turn{Role: spec.RoleUser, Content: "I'm trying to integrate Chart.js v4.3.0 for rendering expense pie charts on the dashboard."},
		spec.Turn{Role: spec.RoleUser, Content: "I have never written any Flask routes or handled HTTP requests in this project."},
	), nil)
	var route, never string
	for id, n := range e.nodes {
		switch {
		case n.Type == spec.NodeFact && strings.Contains(n.Label, "homepage route"):
			route = id
		case n.Type == spec.NodeFact && strings.Contains(n.Label, "never written"):
			never = id
		}
	}
	if route == "" || never == "" || len(e.con.of[route]) != 1 || e.con.of[route][0].With != never {
		t.Fatalf("facts %q and %q, conflicts %+v: want the two in conflict", route, never, e.con.of)
	}
	r, err := e.Context(context.Background(), "Have I written any Flask routes?", Options{Budget: 1000})
	if err != nil {
		t.Fatal(err)
	}
	turns, nodes := itemsOf(r)
	said, denied := turns[1], turns[3]
	if said.Turn == 0 || denied.Turn == 0 {
		t.Fatalf("the context lacks a side of the conflict:\n%s", r.Text)
	}
	if len(said.ConflictsWith) != 1 || said.ConflictsWith[0].With != never ||
		!strings.Contains(r.Text, "tested at about 150ms. (contradicted by: User has never written any Flask routes") {
		t.Errorf("turn 1 does not say the denial contradicts it: %+v\n%s", said.ConflictsWith, r.Text)
	}
	if len(denied.ConflictsWith) != 1 || denied.ConflictsWith[0].With != route {
		t.Errorf("turn 3 does not say turn 1's fact contradicts it: %+v", denied.ConflictsWith)
	}
	if it, ok := nodes[route]; ok && (len(it.ConflictsWith) != 1 || !strings.Contains(r.Text, "(contradicted by:")) {
		t.Errorf("the route fact's item: %+v", it)
	}
	if turns[2].ConflictsWith != nil {
		t.Errorf("the charts turn is in conflict: %+v", turns[2].ConflictsWith)
	}
	// The route fact's line in a chat's course says so too.
	if c := e.courseLine(e.nodes[route], 1); c.note != "(contradicted)" || len(c.item.ConflictsWith) != 1 {
		t.Errorf("the route fact's line in a course: %q %q, %+v", c.text, c.note, c.item.ConflictsWith)
	}
}

// A note quotes each label once, cut short, and two at most.
func TestConflictNote(t *testing.T) {
	long := strings.Repeat("word ", 40) + "end."
	got := conflictNote([]Conflict{{Label: "User has never met Bryan."}, {Label: "User has never met Bryan"}, {Label: long}})
	if !strings.HasPrefix(got, "(contradicted by: User has never met Bryan; word word") || !strings.HasSuffix(got, "…)") || len(got) > 120 {
		t.Errorf("conflictNote = %q", got)
	}
	got = conflictNote([]Conflict{{Label: "A one."}, {Label: "A two."}, {Label: "A three."}, {Label: "A four."}})
	if got != "(contradicted by: A one; A two; and 2 more)" {
		t.Errorf("conflictNote of four = %q", got)
	}
	if conflictNote(nil) != "" {
		t.Error("a note of no conflict")
	}
}

// turnsMemory is the document of a memory of turns, numbered from 1, one
// said every so often from 1 March 2024 on.
func turnsMemory(t *testing.T, every time.Duration, turns ...spec.Turn) *spec.Document {
	t.Helper()
	at := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	b := graph.New(graph.Config{}, graph.Options{})
	for i, tu := range turns {
		tu.Turn, tu.Timestamp = i+1, at.Add(time.Duration(i)*every)
		if err := b.Add(tu); err != nil {
			t.Fatal(err)
		}
	}
	return b.Document()
}
