package restore

import "strconv"

// lexical gives the nodes and turns the full-text search found their
// "search" part: the hit's BM25 score over the best one's. The nodes it
// found are g.nodeHits, best first, for the graph to spread from.
func lexical(g *gathering) {
	best := 0.0
	var found []int
	for _, h := range g.hits {
		best = max(best, h.score)
		if h.kind == kindTurn {
			n, _ := strconv.Atoi(h.key)
			found = append(found, n)
		}
	}
	g.e.turns.prefetch(found)
	for _, h := range g.hits {
		s := h.score / best
		switch h.kind {
		case kindNode:
			if g.e.nodes[h.key] == nil {
				continue
			}
			g.nodes[h.key] = map[string]float64{"search": s}
			g.nodeHits = append(g.nodeHits, h.key)
		case kindTurn:
			n, _ := strconv.Atoi(h.key)
			if _, ok := g.e.turn(n); !ok {
				continue
			}
			raise(g.turn(n), "search", s)
		}
	}
}
