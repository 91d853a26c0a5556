package format

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/smg-memory/smg/spec"
)

// ErrNotFound: no node, artifact or turn of that id or number.
var ErrNotFound = errors.New("not found")

// NodeQuery selects and orders the nodes [Nodes] returns.
type NodeQuery struct {
	// Type keeps the nodes of one type; empty keeps all.
	Type spec.NodeType
	// Sort is "importance" (the default: most important first), "recent"
	// (most recently mentioned first) or "id".
	Sort string
	// Limit keeps the first Limit nodes; 0 keeps all.
	Limit int
}

// ErrBadQuery reports a NodeQuery that asks for what does not exist.
var ErrBadQuery = errors.New("bad query")

// Nodes returns the nodes of a document that q selects, in q's order.
func Nodes(doc *spec.Document, q NodeQuery) ([]spec.Node, error) {
	if q.Type != "" && !slices.Contains(spec.NodeTypes, q.Type) {
		return nil, fmt.Errorf("%w: node type %q is not one of %v", ErrBadQuery, q.Type, spec.NodeTypes)
	}
	var out []spec.Node
	for _, n := range doc.SemanticGraph.Nodes {
		if q.Type == "" || n.Type == q.Type {
			out = append(out, n)
		}
	}
	var order func(a, b spec.Node) int
	switch q.Sort {
	case "", "importance":
		order = func(a, b spec.Node) int {
			return cmp.Or(cmp.Compare(b.Importance, a.Importance), cmp.Compare(b.Activation, a.Activation), strings.Compare(a.ID, b.ID))
		}
	case "recent":
		order = func(a, b spec.Node) int {
			return cmp.Or(cmp.Compare(b.LastMentioned, a.LastMentioned), b.LastActivated.Compare(a.LastActivated), strings.Compare(a.ID, b.ID))
		}
	case "id":
		order = func(a, b spec.Node) int { return strings.Compare(a.ID, b.ID) }
	default:
		return nil, fmt.Errorf("%w: sort %q is not importance, recent or id", ErrBadQuery, q.Sort)
	}
	slices.SortFunc(out, order)
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// NodeView is a node with what surrounds it: its edges, with the nodes at
// their other ends, and the turns that mention it.
type NodeView struct {
	Node spec.Node  `json:"node"`
	Out  []EdgeView `json:"out"`
	In   []EdgeView `json:"in"`
	// Turns are the archived turns that mention the node, in order.
	Turns []spec.Turn `json:"turns"`
}

// EdgeView is an edge seen from one of its nodes: the relation, its
// strength, and the node at the other end.
type EdgeView struct {
	Relation spec.Relation `json:"relation"`
	Strength float64       `json:"strength"`
	Other    string        `json:"other"`
	Type     spec.NodeType `json:"type"`
	Label    string        `json:"label"`
}

// ShowNode returns the node of a document with id and what surrounds it.
// It decompresses only the archive blocks that hold the node's mentions.
func ShowNode(doc *spec.Document, id string, lim Limits) (*NodeView, error) {
	byID := make(map[string]*spec.Node, len(doc.SemanticGraph.Nodes))
	for i := range doc.SemanticGraph.Nodes {
		byID[doc.SemanticGraph.Nodes[i].ID] = &doc.SemanticGraph.Nodes[i]
	}
	n := byID[id]
	if n == nil {
		return nil, NodeNotFound(doc.SemanticGraph.Nodes, id)
	}
	v := &NodeView{Node: *n, Out: []EdgeView{}, In: []EdgeView{}}
	view := func(e spec.Edge, other string) EdgeView {
		ev := EdgeView{Relation: e.Relation, Strength: e.Strength, Other: other}
		if o := byID[other]; o != nil {
			ev.Type, ev.Label = o.Type, o.Label
		}
		return ev
	}
	for _, e := range doc.SemanticGraph.Edges {
		switch id {
		case e.From:
			v.Out = append(v.Out, view(e, e.To))
		case e.To:
			v.In = append(v.In, view(e, e.From))
		}
	}
	turns, err := ArchivedTurns(doc, n.Mentions, lim)
	if err != nil {
		return nil, err
	}
	v.Turns = turns
	return v, nil
}

// ArchivedTurns returns the archived turns with the given numbers, in
// order, with their whole content, decompressing only the blocks that hold
// them (through an [Archive]). A number no block holds is ErrNotFound; a
// turn of a damaged block is a [*BlockError].
func ArchivedTurns(doc *spec.Document, numbers []int, lim Limits) ([]spec.Turn, error) {
	want := slices.Clone(numbers)
	slices.Sort(want)
	want = slices.Compact(want)
	a := NewArchive(doc, lim)
	out := make([]spec.Turn, 0, len(want))
	for _, n := range want {
		t, err := a.Turn(n)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}
