package graph_test

import (
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/classify/linear"
	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// reconciled builds the memory of the user's turns, a day apart, and
// returns its document.
func reconciled(t *testing.T, texts ...string) *spec.Document {
	t.Helper()
	return reconciledWith(t, graph.Config{}, texts...)
}

// reconciledWith is reconciled with the configuration cfg.
func reconciledWith(t *testing.T, cfg graph.Config, texts ...string) *spec.Document {
	t.Helper()
	b := graph.New(cfg, graph.Options{})
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

// keepAll keeps every statement of a user's that reads alone: the tests of
// updates are of how facts link, not of which sentences a model keeps.
var keepAll = graph.Config{Statements: &linear.Model{W: make([]float32, 16), Bias: 5}}

// An update finds the fact it updates by what changed, named before its
// new value (or before its "it"), by the old value it says, or by a count
// of the same thing;
// a count said again without a cue updates a fact that says nearly all
// the same. An old value that the fact does not give links nothing.
func TestUpdateForms(t *testing.T) {
	filler := "I'm reading about sourdough starters and how often to feed them in a warm kitchen."
	for _, c := range []struct{ name, old, upd string }{
		{"what changed, then more", "I've budgeted $2,000 for the kitchen renovation, including tiles and paint.",
			"I'm rethinking things and I have raised my kitchen renovation budget to $2,600 to cover new cabinets and a plumber's visit."},
		{"a long object", "I have a call with the head of hiring on June 3 at 2 PM.",
			"I'm worried that moving the call with the head of hiring to June 4 at 10 AM might clash with my classes."},
		{"the old value said", "I'm nervous about the team offsite in Lisbon on October 8.",
			"How should I pack for an offsite that got moved from October 8 to October 15?"},
		{"a count of the same thing", "My photo album from the Alps trip has 40 pictures so far.",
			"I've scanned a few more prints, so now I have a total of 55 pictures."},
		{"what 'it' names", "I have a dentist appointment with Dr Okafor on May 7 at 10 AM.",
			"I'm nervous about the dentist appointment with Dr Okafor, so can you remind me that it's moved to May 9 at 2 PM?"},
		{"a count said again", "I've set a goal of collecting 30 signatures for the community garden petition by May 1.",
			"I have collected 42 signatures for the community garden petition."},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := reconciledWith(t, keepAll, c.old, filler, c.upd)
			var old, upd *spec.Node
			for i, n := range doc.SemanticGraph.Nodes {
				if n.Type == spec.NodeFact && n.FirstMentioned == 1 {
					old = &doc.SemanticGraph.Nodes[i]
				} else if n.Type == spec.NodeFact && n.FirstMentioned == 3 {
					upd = &doc.SemanticGraph.Nodes[i]
				}
			}
			if old == nil || upd == nil {
				t.Fatalf("facts %q: want the first and the last turn's", labels(doc))
			}
			if !edge(doc, upd.ID, old.ID, spec.RelSupersedes) || old.ValidTo.IsZero() {
				t.Errorf("%q does not supersede %q", upd.Label, old.Label)
			}
		})
	}
	doc := reconciledWith(t, keepAll, "I have a piano lesson with Mrs Kerr on Tuesday at 4 PM.", filler,
		"My piano recital got rescheduled from 3 PM to 5 PM on Saturday.")
	for _, e := range doc.SemanticGraph.Edges {
		if e.Relation == spec.RelSupersedes && e.From != e.To {
			t.Errorf("%s supersedes %s, which never said 3 PM; facts %q", e.From, e.To, labels(doc))
		}
	}
}
