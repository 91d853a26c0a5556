package restore

import (
	"math"
	"slices"

	"github.com/smg-memory/smg/spec"
)

// spread spreads the score of the best expandFrom nodes the search found
// along the graph, depth 2, by edge strength and the reached node's
// activation: a reached node's "graph" part.
func spread(g *gathering) {
	for _, id := range g.nodeHits[:min(len(g.nodeHits), expandFrom)] {
		g.spreadFrom(id)
	}
}

// spreadFrom spreads the search part of node id to the nodes within two
// edges of it.
func (g *gathering) spreadFrom(id string) {
	start := g.nodes[id]["search"]
	frontier := []string{id}
	seen := map[string]bool{id: true}
	for depth := 1; depth <= 2; depth++ {
		var next []string
		for _, from := range frontier {
			for _, ed := range g.e.fanout(from) {
				to := ed.To
				if to == from {
					to = ed.From
				}
				n := g.e.nodes[to]
				if n == nil || to == id {
					continue
				}
				if !seen[to] {
					seen[to] = true
					next = append(next, to)
				}
				v := start * ed.Strength * math.Pow(hopDecay, float64(depth)) * (0.5 + 0.5*n.Activation)
				if g.nodes[to] == nil {
					g.nodes[to] = map[string]float64{}
				}
				raise(g.nodes[to], "graph", v)
			}
		}
		frontier = next
	}
}

// strongest returns the k strongest of edges, strongest first, ties in
// the order of edges: the first k of a stable sort by strength, picked
// in one pass rather than by sorting a hub's thousands of edges.
func strongest(edges []spec.Edge, k int) []spec.Edge {
	if len(edges) <= k {
		return edges
	}
	top := make([]int, 0, k+1)
	for j := range edges {
		s := edges[j].Strength
		if len(top) == k && !(s > edges[top[k-1]].Strength) {
			continue
		}
		p := len(top)
		for p > 0 && s > edges[top[p-1]].Strength {
			p--
		}
		top = slices.Insert(top, p, j)
		if len(top) > k {
			top = top[:k]
		}
	}
	out := make([]spec.Edge, len(top))
	for i, j := range top {
		out[i] = edges[j]
	}
	return out
}

// fanout returns the edges of node id the spread follows: its
// spreadFanout strongest, worked out once per version of the graph. e.rw
// is held for reading.
func (e *Engine) fanout(id string) []spec.Edge {
	edges := e.edgesOf(id)
	if len(edges) <= spreadFanout {
		return edges
	}
	if f, ok := e.fanouts.Load(id); ok {
		return f.([]spec.Edge)
	}
	f := strongest(edges, spreadFanout)
	e.fanouts.Store(id, f)
	return f
}
