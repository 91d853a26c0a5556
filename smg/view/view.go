// Package view is what smg's web views show of a memory: the knowledge
// map (the most important nodes of its graph and the edges among them,
// with a node's neighbourhood on demand), a node's detail (its fields, its
// edges, the turns that mention it and its artifact's versions), and the
// timeline of decisions and facts with their supersede chains. Each
// function reads a document ([smg.Memory.Document]); smg serve answers
// with them as JSON, and its web interface draws them.
package view

import (
	"cmp"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/smg-memory/smg/spec"
)

// ErrNoNode is the error of a node id the document does not hold.
var ErrNoNode = errors.New("no such node")

// DefaultLimit is the number of nodes a map starts from: a few hundred
// stay readable, and a browser lays them out at once.
const DefaultLimit = 300

// MaxLimit bounds a map's nodes.
const MaxLimit = 5000

// MapOptions choose the nodes of a map. The zero value is the
// DefaultLimit most important current nodes of every type.
type MapOptions struct {
	// Limit is the most nodes; DefaultLimit when 0, at most MaxLimit.
	Limit int
	// Types, when not empty, are the node types shown.
	Types []spec.NodeType
	// From and To, when set, keep the nodes whose time (see [MapNode])
	// is within them, inclusive.
	From, To time.Time
	// Superseded shows the nodes that are no longer current too.
	Superseded bool
	// Query, when set, keeps the nodes whose label, description or an
	// alias holds it, in any case.
	Query string
}

// Map is a part of a memory's graph: nodes, and the edges among them.
type Map struct {
	Nodes []MapNode `json:"nodes"`
	Edges []MapEdge `json:"edges"`
	// Total counts the nodes that pass the options' filters; Nodes are
	// the most important of them.
	Total int `json:"total"`
	// All counts the memory's nodes.
	All int `json:"all"`
	// Unlinked counts the nodes the default map leaves out because no
	// edge links them to another node it could show (a search or a type
	// filter shows them).
	Unlinked int `json:"unlinked"`
	// Common counts the concepts the default map leaves out as no topic
	// to look up: a word too common (API, JSON, TV), or markup (a search
	// or a type filter shows them).
	Common int `json:"common"`
	// Types counts the nodes that pass the filters but for the type, by
	// type: what a type filter would show.
	Types map[spec.NodeType]int `json:"types"`
	// From and To are the time of the memory's first and last turns.
	From time.Time `json:"from,omitzero"`
	To   time.Time `json:"to,omitzero"`
}

// MapNode is a node as a map draws it.
type MapNode struct {
	ID   string        `json:"id"`
	Type spec.NodeType `json:"type"`
	// Kind is the node's kind (spec §6.1.3): a person is drawn as one.
	Kind spec.Kind `json:"kind,omitempty"`
	// Group is the hub of the map that this node belongs to, which a map
	// draws it near (a hub is its own; see group). "" when the node is
	// linked to nothing on the map.
	Group      string  `json:"group,omitempty"`
	Label      string  `json:"label"`
	Importance float64 `json:"importance"`
	// Superseded tells that the node is no longer current.
	Superseded bool `json:"superseded,omitzero"`
	Pinned     bool `json:"pinned,omitzero"`
	// Degree counts the node's edges in the whole graph: a node whose
	// neighbours are not all on the map can be expanded.
	Degree int `json:"degree"`
	// Time is when the node came up: a decision's time, a fact's
	// ValidFrom, or else the time of the turn that first mentioned it.
	Time time.Time `json:"time,omitzero"`
}

// MapEdge is an edge as a map draws it.
type MapEdge struct {
	From     string        `json:"from"`
	To       string        `json:"to"`
	Relation spec.Relation `json:"relation"`
	Strength float64       `json:"strength"`
}

// graphIndex is what the views look up in a document.
type graphIndex struct {
	doc    *spec.Document
	byID   map[string]*spec.Node
	adj    map[string][]int // edge indexes by node id, both ends
	blocks []spec.ArchiveBlock
}

func index(doc *spec.Document) *graphIndex {
	g := &graphIndex{doc: doc, byID: make(map[string]*spec.Node, len(doc.SemanticGraph.Nodes)), adj: map[string][]int{}, blocks: doc.DeepArchive.Blocks}
	for i := range doc.SemanticGraph.Nodes {
		g.byID[doc.SemanticGraph.Nodes[i].ID] = &doc.SemanticGraph.Nodes[i]
	}
	for i, e := range doc.SemanticGraph.Edges {
		g.adj[e.From] = append(g.adj[e.From], i)
		if e.To != e.From {
			g.adj[e.To] = append(g.adj[e.To], i)
		}
	}
	return g
}

// turnTime is the time of turn n, as near as the archive's blocks tell
// without reading them: the first time of its block, or zero.
func (g *graphIndex) turnTime(n int) time.Time {
	i := sort.Search(len(g.blocks), func(i int) bool { return g.blocks[i].TurnRange[1] >= n })
	if n <= 0 || i == len(g.blocks) || g.blocks[i].TurnRange[0] > n {
		return time.Time{}
	}
	return g.blocks[i].FirstTimestamp
}

// nodeTime is when n came up.
func (g *graphIndex) nodeTime(n *spec.Node) time.Time {
	switch {
	case !n.Timestamp.IsZero():
		return n.Timestamp
	case !n.ValidFrom.IsZero():
		return n.ValidFrom
	}
	return g.turnTime(n.FirstMentioned)
}

func (g *graphIndex) mapNode(n *spec.Node) MapNode {
	return MapNode{ID: n.ID, Type: n.Type, Kind: n.Kind, Label: n.Label, Importance: n.Importance, Superseded: !n.ValidTo.IsZero(),
		Pinned: n.Pinned, Degree: len(g.adj[n.ID]), Time: g.nodeTime(n)}
}

// span is the time of the memory's first and last turns.
func (g *graphIndex) span() (time.Time, time.Time) {
	var from, to time.Time
	for _, b := range g.blocks {
		if !b.FirstTimestamp.IsZero() && (from.IsZero() || b.FirstTimestamp.Before(from)) {
			from = b.FirstTimestamp
		}
		if b.LastTimestamp.After(to) {
			to = b.LastTimestamp
		}
	}
	return from, to
}

// edgesAmong returns the edges whose ends are both in ids, sorted.
func (g *graphIndex) edgesAmong(ids map[string]bool) []MapEdge {
	edges := []MapEdge{}
	for _, e := range g.doc.SemanticGraph.Edges {
		if ids[e.From] && ids[e.To] {
			edges = append(edges, MapEdge{From: e.From, To: e.To, Relation: e.Relation, Strength: e.Strength})
		}
	}
	return edges
}

// byImportance orders nodes most important first, then by id.
func byImportance(a, b MapNode) int {
	if c := cmp.Compare(b.Importance, a.Importance); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// MapOf returns the map of doc's nodes that opts choose.
func MapOf(doc *spec.Document, opts MapOptions) *Map {
	g := index(doc)
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	query := strings.ToLower(strings.TrimSpace(opts.Query))
	m := &Map{All: len(doc.SemanticGraph.Nodes), Types: map[spec.NodeType]int{}}
	m.From, m.To = g.span()
	var chosen []MapNode
	for i := range doc.SemanticGraph.Nodes {
		n := &doc.SemanticGraph.Nodes[i]
		if !opts.Superseded && !n.ValidTo.IsZero() {
			continue
		}
		if query != "" && !holds(n, query) {
			continue
		}
		mn := g.mapNode(n)
		if (!opts.From.IsZero() && mn.Time.Before(opts.From)) || (!opts.To.IsZero() && mn.Time.After(opts.To)) {
			continue
		}
		m.Types[n.Type]++
		if len(opts.Types) > 0 && !slices.Contains(opts.Types, n.Type) {
			continue
		}
		chosen = append(chosen, mn)
	}
	m.Total = len(chosen)
	slices.SortFunc(chosen, byImportance)
	byDefault := opts.Query == "" && len(opts.Types) == 0
	if byDefault {
		chosen = slices.DeleteFunc(chosen, func(mn MapNode) bool {
			n := g.byID[mn.ID]
			if n.Type == spec.NodeConcept && (common(n.Label) || inflected(n)) {
				m.Common++
				return true
			}
			return false
		})
	}
	m.Nodes, m.Unlinked = g.connected(chosen, limit, byDefault)
	ids := make(map[string]bool, len(m.Nodes))
	for _, n := range m.Nodes {
		ids[n.ID] = true
	}
	m.Edges = g.edgesAmong(ids)
	group(m)
	return m
}

// group sets the Group of the nodes of m, what each belongs to: hubs are
// chosen greedily, the things a map is about first (concepts, persons,
// files), then by their edges on the map; a hub takes its neighbours not
// yet taken, and a node left over goes with its strongest neighbour.
// Every group is a star around its hub, which a map draws its members
// near.
func group(m *Map) {
	at := make(map[string]int, len(m.Nodes))
	for i, n := range m.Nodes {
		at[n.ID] = i
	}
	adj := adjacency(len(m.Nodes), at, slices.Values(m.Edges))
	thing := func(n MapNode) bool { return n.Type == spec.NodeConcept || n.Type == spec.NodeArtifact }
	order := make([]int, len(m.Nodes))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		na, nb := m.Nodes[a], m.Nodes[b]
		return cmp.Or(-compareBool(thing(na), thing(nb)), -cmp.Compare(len(adj[a]), len(adj[b])),
			-cmp.Compare(na.Importance, nb.Importance), strings.Compare(na.ID, nb.ID))
	})
	for _, i := range order {
		if m.Nodes[i].Group != "" || len(adj[i]) < 2 {
			continue
		}
		free := 0
		for _, l := range adj[i] {
			if m.Nodes[l.to].Group == "" {
				free++
			}
		}
		if free == 0 {
			continue
		}
		m.Nodes[i].Group = m.Nodes[i].ID
		for _, l := range adj[i] {
			if m.Nodes[l.to].Group == "" {
				m.Nodes[l.to].Group = m.Nodes[i].ID
			}
		}
	}
	for _, i := range order {
		if m.Nodes[i].Group != "" || len(adj[i]) == 0 {
			continue
		}
		best := adj[i][0] // the strongest
		if m.Nodes[best.to].Group == "" {
			// Two nodes of no hub: the one met first (the greater
			// thing, or the more important) is the pair's.
			m.Nodes[best.to].Group = m.Nodes[i].ID
		}
		m.Nodes[i].Group = m.Nodes[best.to].Group
	}
}

// compareBool orders false before true.
func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// A neighbour is a node linked to another, by its index, and the strength
// of the edge.
type neighbour struct {
	to       int
	strength float64
}

// adjacency are the neighbours of each of size nodes, at giving their
// indexes by id, by the edges among them (others are passed over), the
// strongest first, then by index.
func adjacency(size int, at map[string]int, edges iter.Seq[MapEdge]) [][]neighbour {
	adj := make([][]neighbour, size)
	for e := range edges {
		a, ok1 := at[e.From]
		b, ok2 := at[e.To]
		if ok1 && ok2 && a != b {
			adj[a] = append(adj[a], neighbour{b, e.Strength})
			adj[b] = append(adj[b], neighbour{a, e.Strength})
		}
	}
	for _, v := range adj {
		slices.SortFunc(v, func(x, y neighbour) int { return cmp.Or(cmp.Compare(y.strength, x.strength), cmp.Compare(x.to, y.to)) })
	}
	return adj
}

// connected chooses limit of nodes, most important first, so that every
// node shown is shown with a neighbour: a node none of whose neighbours is
// shown yet comes with its strongest neighbour among nodes, or waits,
// when the room left holds it alone, for the end, where the nodes of no
// edge among nodes go too, if room is left and not linkedOnly (then they
// are counted in unlinked, of those met before the limit). The nodes come
// back most important first. A map of the most important
// nodes alone showed most of them without an edge (an answer's code whose
// question ranked lower).
func (g *graphIndex) connected(nodes []MapNode, limit int, linkedOnly bool) (out []MapNode, unlinked int) {
	at := make(map[string]int, len(nodes))
	for i, n := range nodes {
		at[n.ID] = i
	}
	adj := adjacency(len(nodes), at, func(yield func(MapEdge) bool) {
		for _, e := range g.doc.SemanticGraph.Edges {
			if !yield(MapEdge{From: e.From, To: e.To, Strength: e.Strength}) {
				return
			}
		}
	})
	picked := make([]bool, len(nodes))
	out = []MapNode{}
	var later []int
	add := func(i int) {
		picked[i] = true
		out = append(out, nodes[i])
	}
	for i := range nodes {
		if len(out) >= limit {
			break
		}
		if picked[i] {
			continue
		}
		if len(adj[i]) == 0 {
			unlinked++
			if !linkedOnly {
				later = append(later, i)
			}
			continue
		}
		if slices.ContainsFunc(adj[i], func(x neighbour) bool { return picked[x.to] }) {
			add(i)
			continue
		}
		if len(out)+2 > limit {
			later = append(later, i)
			continue
		}
		add(i)
		add(adj[i][0].to)
	}
	for _, i := range later {
		if len(out) >= limit {
			break
		}
		if !picked[i] {
			add(i)
		}
	}
	slices.SortFunc(out, byImportance)
	return out, unlinked
}

// commonWords are the names of things too common in talk about work to be
// a topic of a memory's map: formats, protocols and their verbs, and
// words of every day. They stay concepts, found by a search.
var commonWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`api apis url urls uri http https json html xml csv yaml
		post get put patch delete tv db id ids ui`) {
		commonWords[w] = true
	}
}

// common tells whether a concept's label names no topic to look up: a
// common word, markup of fewer than two letters ("[x]"), or the words of a
// format of dates ("Month Day").
func common(label string) bool {
	letters := 0
	for _, r := range label {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	if letters < 2 || commonWords[strings.ToLower(strings.TrimSpace(label))] {
		return true
	}
	// Words of a format of dates alone: "Month Day", "Day Month Year".
	for _, w := range strings.Fields(strings.ToLower(label)) {
		if !calendarWords[strings.Trim(w, ",.")] {
			return false
		}
	}
	return true
}

// inflected tells whether a concept is a word of the language, not a
// name: among its forms are the word inflected as a verb ("Change",
// "Changed", "Changing"), which a name is not.
func inflected(n *spec.Node) bool {
	word := strings.ToLower(n.Label)
	if strings.ContainsAny(word, " ._-/") {
		return false
	}
	stem := strings.TrimSuffix(word, "e")
	for _, a := range n.Aliases {
		a = strings.ToLower(a)
		if a == stem+"ed" || a == stem+"ing" {
			return true
		}
	}
	return false
}

// calendarWords name the parts of a date or a time.
var calendarWords = map[string]bool{"day": true, "days": true, "month": true, "months": true, "year": true, "years": true,
	"week": true, "weeks": true, "date": true, "time": true, "hour": true, "hours": true, "minute": true, "minutes": true}

// holds reports whether n's label, description or an alias holds query,
// which is in lower case.
func holds(n *spec.Node, query string) bool {
	if strings.Contains(strings.ToLower(n.Label), query) || strings.Contains(strings.ToLower(n.Description), query) {
		return true
	}
	for _, a := range n.Aliases {
		if strings.Contains(strings.ToLower(a), query) {
			return true
		}
	}
	return false
}

// Neighbours returns the node id and the limit most important of its
// neighbours (DefaultLimit when 0), superseded or not, with the edges
// among them all: what a map adds when a node is expanded.
func Neighbours(doc *spec.Document, id string, limit int) (*Map, error) {
	g := index(doc)
	n, ok := g.byID[id]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNoNode, id)
	}
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	seen := map[string]bool{id: true}
	var near []MapNode
	for _, i := range g.adj[id] {
		e := doc.SemanticGraph.Edges[i]
		other := e.To
		if other == id {
			other = e.From
		}
		if o, ok := g.byID[other]; ok && !seen[other] {
			seen[other] = true
			near = append(near, g.mapNode(o))
		}
	}
	slices.SortFunc(near, byImportance)
	m := &Map{All: len(doc.SemanticGraph.Nodes), Total: len(near) + 1, Types: map[spec.NodeType]int{}}
	m.From, m.To = g.span()
	m.Nodes = append([]MapNode{g.mapNode(n)}, near[:min(limit, len(near))]...)
	ids := make(map[string]bool, len(m.Nodes))
	for _, mn := range m.Nodes {
		ids[mn.ID] = true
		m.Types[mn.Type]++
	}
	m.Edges = g.edgesAmong(ids)
	return m, nil
}
