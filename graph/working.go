package graph

import (
	"cmp"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/smg-memory/smg/spec"
)

// workingMemory is the tier that does not decay: the last turns verbatim,
// what the conversation is about, what is left to do, and the artifacts in
// use.
func (b *Builder) workingMemory(doc *spec.Document) spec.WorkingMemory {
	wm := spec.WorkingMemory{
		RecentContext:   slices.Clone(b.recent),
		ActiveArtifacts: b.activeArtifacts(),
		CurrentGoals:    b.currentGoals(),
		Extra:           jsontext.Value(b.extra.wm),
	}
	wm.Summary = b.summary(doc)
	return wm
}

// currentGoals are the goals the turns stated, newest first, and the
// problems still open, up to Goals in all.
func (b *Builder) currentGoals() []string {
	var out []string
	seen := map[string]bool{}
	for i := len(b.goals) - 1; i >= 0 && len(out) < b.cfg.Goals; i-- {
		k := NameKey(b.goals[i].text)
		if !seen[k] {
			seen[k] = true
			out = append(out, capitalize(b.goals[i].text))
		}
	}
	for i := len(b.openProblems) - 1; i >= 0 && len(out) < b.cfg.Goals; i-- {
		if n := b.store.Node(b.openProblems[i]); n != nil && b.turns-n.LastMentioned <= problemWindow {
			out = append(out, "Solve: "+n.Label)
		}
	}
	return out
}

// summary says what the conversation is about now: its most active
// concepts, its latest decision still in force and its latest open problem.
func (b *Builder) summary(doc *spec.Document) string {
	// The three concepts of most activation times importance, ties by
	// id: picked in one pass, as a live memory makes this summary at
	// every turn, and sorting its thousands of concepts took 29 ms of
	// each on 10,000 turns.
	var focus []*spec.Node
	var decision, problem *spec.Node
	for i := range doc.SemanticGraph.Nodes {
		n := &doc.SemanticGraph.Nodes[i]
		switch n.Type {
		case spec.NodeConcept:
			if b.info[n.ID] != nil && b.info[n.ID].kind != "person" {
				focus = top(focus, n, focusConcepts, focusOrder)
			}
		case spec.NodeDecision:
			if n.ValidTo.IsZero() && (decision == nil || n.LastMentioned > decision.LastMentioned) {
				decision = n
			}
		case spec.NodeProblem:
			if slices.Contains(b.openProblems, n.ID) && (problem == nil || n.LastMentioned > problem.LastMentioned) {
				problem = n
			}
		}
	}
	var parts []string
	if len(focus) > 0 {
		var names []string
		for _, c := range focus {
			names = append(names, c.Label)
		}
		parts = append(parts, "Focus: "+strings.Join(names, ", ")+".")
	}
	if decision != nil {
		d := "Latest decision: " + decision.Label
		if decision.Rationale != "" {
			d += " (" + decision.Rationale + ")"
		}
		parts = append(parts, d+".")
	}
	if problem != nil {
		parts = append(parts, "Open problem: "+strings.TrimSuffix(problem.Label, ".")+".")
	}
	return strings.Join(parts, " ")
}

// focusConcepts is how many concepts the working memory's summary names.
const focusConcepts = 3

// focusOrder orders concepts for the summary: most activation times
// importance first, ties by id.
func focusOrder(x, y *spec.Node) int {
	return cmp.Or(cmp.Compare(y.Activation*y.Importance, x.Activation*x.Importance), strings.Compare(x.ID, y.ID))
}

// top adds n to best, the k first of some nodes in the order of less,
// kept in that order, if it is among the k first.
func top(best []*spec.Node, n *spec.Node, k int, less func(x, y *spec.Node) int) []*spec.Node {
	p := len(best)
	for p > 0 && less(n, best[p-1]) < 0 {
		p--
	}
	if p == k {
		return best
	}
	best = slices.Insert(best, p, n)
	return best[:min(len(best), k)]
}

// Goal is a goal a turn stated.
type Goal struct {
	Text string
	Turn int
}

// Goals returns every goal the turns stated, in the order of the turns,
// current or not (the working memory holds the newest few).
func (b *Builder) Goals() []Goal {
	out := make([]Goal, len(b.goals))
	for i, g := range b.goals {
		out[i] = Goal{Text: g.text, Turn: g.turn}
	}
	return out
}
