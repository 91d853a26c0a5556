package graph

import (
	"slices"
	"strings"

	dgraph "github.com/dominikbraun/graph"

	"github.com/smg-memory/smg/spec"
)

// Store holds a semantic graph: its nodes, and its typed, weighted edges
// with an adjacency index in both directions, so that the neighbours of a
// node cost O(degree) to list. (dominikbraun/graph's own store rebuilds
// its whole adjacency map for every traversal: measured at 460 ms for
// 100,000 vertices.)
//
// Store implements dominikbraun/graph's Store interface, so the library's
// algorithms and its DOT output work on it through [Store.Graph]. The
// library allows one edge per ordered pair of nodes; a pair linked by
// several relations is one library edge whose Data is its [Relations].
//
// A Store is not safe for concurrent use.
type Store struct {
	nodes map[string]*spec.Node
	out   map[string]map[string]Relations // from → to → relations
	in    map[string]map[string]bool      // to → from
	edges int                             // (from, to, relation) triples
}

// Relations are the relations from one node to another, with their
// strengths.
type Relations map[spec.Relation]float64

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{nodes: map[string]*spec.Node{}, out: map[string]map[string]Relations{}, in: map[string]map[string]bool{}}
}

// Node returns the node with id, or nil.
func (s *Store) Node(id string) *spec.Node { return s.nodes[id] }

// Put adds or replaces a node.
func (s *Store) Put(n *spec.Node) { s.nodes[n.ID] = n }

// Len is the number of nodes.
func (s *Store) Len() int { return len(s.nodes) }

// IDs returns the node ids in order.
func (s *Store) IDs() []string {
	ids := make([]string, 0, len(s.nodes))
	for id := range s.nodes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Link adds an edge, or, when it exists, sets its strength to strength if
// that is greater. Both nodes must exist; a self-loop is refused.
func (s *Store) Link(from, to string, rel spec.Relation, strength float64) bool {
	if from == to || s.nodes[from] == nil || s.nodes[to] == nil {
		return false
	}
	rs := s.out[from][to]
	if rs == nil {
		if s.out[from] == nil {
			s.out[from] = map[string]Relations{}
		}
		if s.in[to] == nil {
			s.in[to] = map[string]bool{}
		}
		rs = Relations{}
		s.out[from][to] = rs
		s.in[to][from] = true
	}
	old, ok := rs[rel]
	if !ok {
		s.edges++
	}
	if !ok || strength > old {
		rs[rel] = strength
	}
	return true
}

// Strength returns the strength of an edge, and whether it exists.
func (s *Store) Strength(from, to string, rel spec.Relation) (float64, bool) {
	v, ok := s.out[from][to][rel]
	return v, ok
}

// Unlink removes an edge.
func (s *Store) Unlink(from, to string, rel spec.Relation) {
	rs := s.out[from][to]
	if _, ok := rs[rel]; !ok {
		return
	}
	delete(rs, rel)
	s.edges--
	if len(rs) == 0 {
		delete(s.out[from], to)
		delete(s.in[to], from)
	}
}

// Out returns the ids of the nodes an edge from id points at, in order.
func (s *Store) Out(id string) []string { return sortedSet(s.out[id]) }

// In returns the ids of the nodes with an edge to id, in order.
func (s *Store) In(id string) []string { return sortedSet(s.in[id]) }

// Relations returns the relations from one node to another (nil when none).
func (s *Store) Relations(from, to string) Relations { return s.out[from][to] }

// Degree is the number of edges, in and out, of a node.
func (s *Store) Degree(id string) int {
	n := 0
	for _, rs := range s.out[id] {
		n += len(rs)
	}
	for from := range s.in[id] {
		n += len(s.out[from][id])
	}
	return n
}

// Strongest is the strength of the strongest edge, in or out, of a node;
// 0 without one.
func (s *Store) Strongest(id string) float64 {
	best := 0.0
	for _, rs := range s.out[id] {
		for _, v := range rs {
			best = max(best, v)
		}
	}
	for from := range s.in[id] {
		for _, v := range s.out[from][id] {
			best = max(best, v)
		}
	}
	return best
}

// EdgeCount is the number of (from, to, relation) edges.
func (s *Store) EdgeCount() int { return s.edges }

// Edges returns every edge in canonical order (from, to, relation). It
// walks the maps in that order rather than sorting every edge: a node's
// edges are few, and comparing ids that share long prefixes across
// tens of thousands of edges was most of the cost of a document.
func (s *Store) Edges() []spec.Edge {
	out := make([]spec.Edge, 0, s.edges)
	for _, from := range sortedSet(s.out) {
		tos := s.out[from]
		for _, to := range sortedSet(tos) {
			rs := tos[to]
			start := len(out)
			for rel, w := range rs {
				out = append(out, spec.Edge{From: from, To: to, Relation: rel, Strength: w})
			}
			if len(out)-start > 1 {
				slices.SortFunc(out[start:], func(a, b spec.Edge) int { return strings.Compare(string(a.Relation), string(b.Relation)) })
			}
		}
	}
	return out
}

// Remove deletes a node and its edges.
func (s *Store) Remove(id string) {
	for to, rs := range s.out[id] {
		s.edges -= len(rs)
		delete(s.in[to], id)
	}
	for from := range s.in[id] {
		s.edges -= len(s.out[from][id])
		delete(s.out[from], id)
	}
	delete(s.out, id)
	delete(s.in, id)
	delete(s.nodes, id)
}

func sortedSet[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Graph returns a dominikbraun/graph view of the store: a directed graph
// whose vertices are the node ids and whose edges carry their Relations as
// Data and their greatest strength as Weight. Changes through either are
// changes to the store.
func (s *Store) Graph() dgraph.Graph[string, *spec.Node] {
	return dgraph.NewWithStore(func(n *spec.Node) string { return n.ID }, libraryStore{s}, dgraph.Directed(), dgraph.Weighted())
}

// libraryStore adapts Store to dominikbraun/graph's Store interface.
type libraryStore struct{ s *Store }

func (l libraryStore) AddVertex(hash string, value *spec.Node, _ dgraph.VertexProperties) error {
	if l.s.nodes[hash] != nil {
		return dgraph.ErrVertexAlreadyExists
	}
	l.s.nodes[hash] = value
	return nil
}

func (l libraryStore) Vertex(hash string) (*spec.Node, dgraph.VertexProperties, error) {
	n := l.s.nodes[hash]
	if n == nil {
		return nil, dgraph.VertexProperties{}, dgraph.ErrVertexNotFound
	}
	return n, dgraph.VertexProperties{Attributes: map[string]string{"type": string(n.Type), "label": n.Label}}, nil
}

func (l libraryStore) RemoveVertex(hash string) error {
	if l.s.nodes[hash] == nil {
		return dgraph.ErrVertexNotFound
	}
	if len(l.s.out[hash]) > 0 || len(l.s.in[hash]) > 0 {
		return dgraph.ErrVertexHasEdges
	}
	delete(l.s.nodes, hash)
	return nil
}

func (l libraryStore) ListVertices() ([]string, error) { return l.s.IDs(), nil }

func (l libraryStore) VertexCount() (int, error) { return len(l.s.nodes), nil }

func (l libraryStore) AddEdge(from, to string, e dgraph.Edge[string]) error {
	if l.s.nodes[from] == nil || l.s.nodes[to] == nil {
		return dgraph.ErrVertexNotFound
	}
	if l.s.out[from][to] != nil {
		return dgraph.ErrEdgeAlreadyExists
	}
	return l.UpdateEdgeOrAdd(from, to, e)
}

func (l libraryStore) UpdateEdge(from, to string, e dgraph.Edge[string]) error {
	if l.s.out[from][to] == nil {
		return dgraph.ErrEdgeNotFound
	}
	return l.UpdateEdgeOrAdd(from, to, e)
}

// UpdateEdgeOrAdd sets the relations of an edge from its Data (Relations),
// or, without Data, a related_to edge of its Weight over 100.
func (l libraryStore) UpdateEdgeOrAdd(from, to string, e dgraph.Edge[string]) error {
	rs, ok := e.Properties.Data.(Relations)
	if !ok {
		rs = Relations{spec.RelRelatedTo: float64(e.Properties.Weight) / 100}
	}
	for rel := range l.s.out[from][to] {
		if _, keep := rs[rel]; !keep {
			l.s.Unlink(from, to, rel)
		}
	}
	for rel, w := range rs {
		l.s.Link(from, to, rel, w)
		l.s.out[from][to][rel] = w
	}
	return nil
}

func (l libraryStore) RemoveEdge(from, to string) error {
	for rel := range l.s.out[from][to] {
		l.s.Unlink(from, to, rel)
	}
	return nil
}

func (l libraryStore) Edge(from, to string) (dgraph.Edge[string], error) {
	rs := l.s.out[from][to]
	if rs == nil {
		return dgraph.Edge[string]{}, dgraph.ErrEdgeNotFound
	}
	return libraryEdge(from, to, rs), nil
}

func (l libraryStore) ListEdges() ([]dgraph.Edge[string], error) {
	var out []dgraph.Edge[string]
	for _, from := range l.s.IDs() {
		for _, to := range l.s.Out(from) {
			out = append(out, libraryEdge(from, to, l.s.out[from][to]))
		}
	}
	return out, nil
}

func libraryEdge(from, to string, rs Relations) dgraph.Edge[string] {
	best := 0.0
	for _, w := range rs {
		best = max(best, w)
	}
	return dgraph.Edge[string]{Source: from, Target: to, Properties: dgraph.EdgeProperties{Weight: int(best*100 + 0.5), Data: rs}}
}
