package restore

import "strconv"

// lexical gives the nodes and turns the full-text search found their
// "search" part: the hit's BM25 score over the best one's. The nodes it
// found are g.nodeHits, best first, for the graph to spread from. The
// best passage found of a long turn gives its turn a "passage" part,
// passageShare of its score, and is kept in g.passages, so that the turn
// goes in as that excerpt. A passage lends nothing to the turns around it
// (see [gathering.evidence]).
func lexical(g *gathering) {
	best := 0.0
	var found []int
	for _, h := range g.hits {
		best = max(best, h.score)
		switch h.kind {
		case kindTurn:
			n, _ := strconv.Atoi(h.key)
			found = append(found, n)
		case kindPassage:
			if n, _, ok := parsePassage(h.key); ok {
				found = append(found, n)
			}
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
		case kindPassage:
			n, p, ok := parsePassage(h.key)
			if !ok {
				continue
			}
			t, ok := g.e.turn(n)
			if !ok {
				continue
			}
			if _, ok := excerptOf(t, p); !ok {
				continue
			}
			if g.passages[n] != nil {
				continue // a better passage of it was found: hits are best first
			}
			s *= passageShare
			raise(g.turn(n), "passage", s)
			g.passages[n] = &passageHit{span: p, score: s}
		}
	}
}
