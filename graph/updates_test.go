package graph_test

import (
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// reconciled builds the memory of the user's turns, a day apart, and
// returns its document.
func reconciled(t *testing.T, texts ...string) *spec.Document {
	t.Helper()
	b := graph.New(graph.Config{}, graph.Options{})
	at := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	for i, text := range texts {
		if err := b.Add(spec.Turn{Turn: i + 1, Role: "user", Content: text, Timestamp: at.AddDate(0, 0, i)}); err != nil {
			t.Fatal(err)
		}
	}
	return b.Document()
}

// factSaying is the fact whose label holds s, or nil.
func factSaying(doc *spec.Document, s string) *spec.Node {
	for i, n := range doc.SemanticGraph.Nodes {
		if n.Type == spec.NodeFact && strings.Contains(n.Label, s) {
			return &doc.SemanticGraph.Nodes[i]
		}
	}
	return nil
}

func edge(doc *spec.Document, from, to string, rel spec.Relation) bool {
	for _, e := range doc.SemanticGraph.Edges {
		if e.From == from && e.To == to && e.Relation == rel {
			return true
		}
	}
	return false
}

func labels(doc *spec.Document) []string {
	var out []string
	for _, n := range doc.SemanticGraph.Nodes {
		if n.Type == spec.NodeFact {
			out = append(out, n.Label)
		}
	}
	return out
}

// A fact that gives a new value of what a current fact gave supersedes
// it: the old one's validity ends when the new one is said.
func TestUpdateSupersedes(t *testing.T) {
	doc := reconciled(t,
		"I'm working on a project with two-week sprints, and the first sprint ends on March 29, focusing on user registration and login.",
		"I'm trying to set up the Flask blueprints for auth and transactions, and I have 12 routes in total so far.",
		"I'm trying to update my timeline, and I noticed that the first sprint now targets completion by March 31, which gives us two extra days for testing.",
	)
	old, upd, other := factSaying(doc, "March 29"), factSaying(doc, "March 31"), factSaying(doc, "blueprints")
	if old == nil || upd == nil || other == nil {
		t.Fatalf("facts %q: want the first sprint's two dates and the blueprints", labels(doc))
	}
	if !edge(doc, upd.ID, old.ID, spec.RelSupersedes) {
		t.Errorf("%q does not supersede %q", upd.Label, old.Label)
	}
	if !old.ValidTo.Equal(upd.ValidFrom) || !upd.ValidTo.IsZero() {
		t.Errorf("old valid to %v, new from %v to %v: want the old ended when the new began", old.ValidTo, upd.ValidFrom, upd.ValidTo)
	}
	if !other.ValidTo.IsZero() || edge(doc, upd.ID, other.ID, spec.RelSupersedes) {
		t.Errorf("the update superseded %q, which is about something else", other.Label)
	}
}

// A value of another kind, or about another thing, replaces nothing: a
// percentage does not update a date, and a new deadline of the essay does
// not update the sprint's.
func TestUpdateOfAnotherThing(t *testing.T) {
	doc := reconciled(t,
		"I'm working on a project with two-week sprints, and the first sprint ends on March 29, focusing on user registration and login.",
		"My essay draft is now due on April 12, after my professor moved the deadline.",
		"The first sprint's test coverage has now reached 85%, up from what I had last week.",
	)
	for _, e := range doc.SemanticGraph.Edges {
		if e.Relation == spec.RelSupersedes && e.From != e.To {
			t.Errorf("%s supersedes %s; facts %q", e.From, e.To, labels(doc))
		}
	}
}

// A fact that denies what a current fact said done contradicts it: both
// stay current, linked. A denial does not contradict a goal, nor what is
// said done after it (progress since).
func TestDenialContradicts(t *testing.T) {
	doc := reconciled(t,
		"I'm trying to implement the basic homepage route with Flask, and I have managed to return static HTML, tested at about 150ms.",
		"I've set a goal to complete a 5,000-word screenplay draft by April 15, 2024, to boost my confidence.",
		"I'm trying to integrate Chart.js v4.3.0 for rendering expense pie charts on the dashboard.",
		"I have never written any Flask routes or handled HTTP requests in this project.",
		"I have never completed a first draft of any screenplay in this project.",
		"I have never integrated Flask-Login or managed user sessions in this project.",
		"I'm trying to integrate Flask-Login v0.6.2 for session management in my Flask app, replacing the manual session handling.",
	)
	route, never := factSaying(doc, "homepage route"), factSaying(doc, "never written any Flask routes")
	goal, neverDraft := factSaying(doc, "5,000-word screenplay"), factSaying(doc, "never completed a first draft")
	login, neverLogin := factSaying(doc, "Flask-Login v0.6.2"), factSaying(doc, "never integrated Flask-Login")
	charts := factSaying(doc, "Chart.js")
	if route == nil || never == nil || goal == nil || neverDraft == nil || login == nil || neverLogin == nil || charts == nil {
		t.Fatalf("facts %q: want the route, the goal, the login and the charts, and the three denials", labels(doc))
	}
	if !edge(doc, never.ID, route.ID, spec.RelContradicts) {
		t.Errorf("%q does not contradict %q", never.Label, route.Label)
	}
	for _, n := range []*spec.Node{route, never} {
		if !n.ValidTo.IsZero() {
			t.Errorf("%q ended at %v: a conflict keeps both current", n.Label, n.ValidTo)
		}
	}
	for _, e := range doc.SemanticGraph.Edges {
		if e.Relation != spec.RelContradicts {
			continue
		}
		for _, n := range []*spec.Node{charts, goal, login} {
			if e.From == n.ID || e.To == n.ID {
				t.Errorf("%q is in conflict: %+v", n.Label, e)
			}
		}
	}
}
