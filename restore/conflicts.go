package restore

import (
	"fmt"
	"slices"
	"strings"

	"github.com/smg-memory/smg/classify"
	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// Conflict says that something a context includes is contradicted by
// another current node: node NodeID (the item's node, or a fact the item's
// turn stated) and node With, whose label is Label, contradict each other,
// and neither has been superseded. Which one holds is for the person to
// say; a context gives both.
type Conflict struct {
	NodeID string `json:"nodeId"`
	With   string `json:"with"`
	Label  string `json:"label"`
}

// conflicts is what the engine knows of the nodes in conflict, worked out
// by setGraph for each version of the graph.
type conflicts struct {
	// of are, for each node in conflict, the conflicts it is in, by the id
	// of the other node.
	of map[string][]Conflict
	// stated are, by turn, the conflicts of the nodes the turn stated.
	stated map[int][]Conflict
}

// newConflicts finds the conflicts of a document (graph.Conflicts): its
// contradicts edges between two current nodes; source gives the turn each
// node was stated in.
func newConflicts(doc *spec.Document, nodes map[string]*spec.Node, source map[string]int) conflicts {
	c := conflicts{of: map[string][]Conflict{}, stated: map[int][]Conflict{}}
	for id, with := range graph.Conflicts(doc) {
		for _, w := range with {
			c.of[id] = append(c.of[id], Conflict{NodeID: id, With: w, Label: nodes[w].Label})
		}
	}
	for _, id := range sortedKeys(c.of) {
		if t, ok := source[id]; ok {
			for _, cf := range c.of[id] {
				// A turn that stated both sides of a conflict says so
				// itself.
				if source[cf.With] != t {
					c.stated[t] = append(c.stated[t], cf)
				}
			}
		}
	}
	return c
}

// noteLabel is the most bytes of a label a note quotes, noteLabels the
// most labels: a note costs tokens of the budget.
const (
	noteLabel  = 60
	noteLabels = 2
)

// conflictNote is what a context's line says of the current nodes that
// contradict it: "(contradicted by: User has never met Bryan)".
func conflictNote(cs []Conflict) string {
	if len(cs) == 0 {
		return ""
	}
	labels := make([]string, len(cs))
	for i, c := range cs {
		labels[i] = c.Label
	}
	return "(contradicted by: " + noteList(labels) + ")"
}

// noteList is the labels a note names: each clipped to noteLabel bytes
// and once, noteLabels at most and how many more: "A; B; and 2 more".
func noteList(labels []string) string {
	parts := make([]string, 0, len(labels))
	for _, l := range labels {
		if p := classify.Clip(strings.TrimSuffix(l, "."), noteLabel); !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	more := ""
	if len(parts) > noteLabels {
		more = fmt.Sprintf("; and %d more", len(parts)-noteLabels)
		parts = parts[:noteLabels]
	}
	return strings.Join(parts, "; ") + more
}

// notes joins the notes of a line that are not empty.
func notes(ns ...string) string {
	return strings.Join(slices.DeleteFunc(ns, func(s string) bool { return s == "" }), " ")
}
