package extraction_test

import (
	"testing"
	"time"

	"github.com/smg-memory/smg/smg/extraction"
	"github.com/smg-memory/smg/spec"
)

// An update counts when a node that covers it supersedes one about the
// same thing; a contradiction, when a node that covers it is in conflict,
// both current, with one about the same thing.
func TestLinkPlan(t *testing.T) {
	plan := []extraction.PlanBullet{
		{Category: "Information Update", Text: "The first sprint now targets completion by March 31."},
		{Category: "Information Update", Text: "The Zotero library now includes 52 sources."},
		{Category: "Logical Contradiction", Text: "I have never written any Flask routes."},
		{Category: "Logical Contradiction", Text: "I have never met Bryan at any film festival."},
		{Category: "Preference Statement", Text: "I prefer minimal dependencies."},
	}
	ended := time.Date(2024, 3, 20, 0, 0, 0, 0, time.UTC)
	fact := func(id, label string, to time.Time) spec.Node {
		return spec.Node{ID: id, Type: spec.NodeFact, Label: label, ValidTo: to}
	}
	g := spec.SemanticGraph{
		Nodes: []spec.Node{
			fact("sprint-31", "The first sprint now targets completion by March 31.", time.Time{}),
			fact("sprint-29", "The first sprint ends on March 29.", ended),
			fact("zotero-52", "The Zotero library includes 52 sources.", time.Time{}),
			fact("weather", "User likes sunny weather in March.", ended),
			fact("never-routes", "User has never written any Flask routes.", time.Time{}),
			fact("home-route", "User wrote the homepage's Flask routes.", time.Time{}),
			fact("never-bryan", "User has never met Bryan at any film festival.", time.Time{}),
			fact("bryan-advice", "User got advice from Bryan at the film festival.", ended),
		},
		Edges: []spec.Edge{
			{From: "sprint-31", To: "sprint-29", Relation: spec.RelSupersedes},
			{From: "zotero-52", To: "weather", Relation: spec.RelSupersedes}, // about another thing
			{From: "never-routes", To: "home-route", Relation: spec.RelContradicts},
			{From: "never-bryan", To: "bryan-advice", Relation: spec.RelContradicts}, // no longer current: no conflict
			{From: "home-route", To: "home-route", Relation: spec.RelContradicts},
		},
	}
	got := extraction.LinkPlan(plan, g, extraction.DefaultPlanThreshold)
	want := extraction.PlanLinks{Updates: 2, UpdatesLinked: 1, Contradictions: 2, ContradictionsLinked: 1, Supersedes: 2, Contradicts: 2}
	if got != want {
		t.Errorf("LinkPlan = %+v, want %+v", got, want)
	}
	got.Add(want)
	if got.Updates != 4 || got.ContradictionsLinked != 2 || got.Contradicts != 4 {
		t.Errorf("Add: %+v", got)
	}
}
