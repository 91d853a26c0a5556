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
	var concepts []spec.Node
	var decision, problem *spec.Node
	for i := range doc.SemanticGraph.Nodes {
		n := &doc.SemanticGraph.Nodes[i]
		switch n.Type {
		case spec.NodeConcept:
			if b.info[n.ID] != nil && b.info[n.ID].kind != "person" {
				concepts = append(concepts, *n)
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
	slices.SortFunc(concepts, func(x, y spec.Node) int {
		return cmp.Or(cmp.Compare(y.Activation*y.Importance, x.Activation*x.Importance), strings.Compare(x.ID, y.ID))
	})
	var parts []string
	if len(concepts) > 0 {
		var names []string
		for _, c := range concepts[:min(3, len(concepts))] {
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
