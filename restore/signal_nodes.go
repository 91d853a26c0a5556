package restore

import (
	"cmp"
	"slices"

	"github.com/smg-memory/smg/spec"
)

// nodes ranks the nodes the signals before it scored, by their search or
// graph part weighted by importance, and makes the best keepNodes of them
// candidates, with their artifacts; the turn that stated a node gets a
// "statement" part, a share of the node's score.
func nodes(g *gathering) {
	type scored struct {
		id string
		s  float64
	}
	var ranked []scored
	for _, id := range sortedKeys(g.nodes) {
		ranked = append(ranked, scored{id, nodeScore(g.nodes[id], g.e.nodes[id])})
	}
	slices.SortStableFunc(ranked, func(a, b scored) int { return cmp.Compare(b.s, a.s) })
	for _, r := range ranked[:min(len(ranked), keepNodes)] {
		g.addNode(r.id, r.s)
	}
}

// nodeScore is a node's score: its search or graph part, weighted by its
// importance, which joins parts.
func nodeScore(parts map[string]float64, n *spec.Node) float64 {
	base := max(parts["search"], parts["graph"])
	parts["importance"] = n.Importance
	return base * (0.6 + 0.4*n.Importance)
}

// addNode raises the turn that stated node id and makes the node a
// candidate of score s, and its artifact, if it has one.
func (g *gathering) addNode(id string, s float64) {
	n := g.e.nodes[id]
	parts := g.nodes[id]
	t, stated := g.e.source[id]
	if stated {
		raise(g.turn(t), "statement", s*sourceShare)
	}
	if stated && n.Type == spec.NodeFact && parts["search"] == 0 && !guaranteed(n) {
		// A fact only the graph reached goes in through the turn
		// that stated it, raised above: the turn says it too, with
		// its date and speaker, and a line of its own would spend
		// the budget on it twice (on LoCoMo, +0.002).
		return
	}
	if c, ok := g.e.nodeCand(n, s, parts, g.scopes); ok {
		g.out = append(g.out, c)
	}
	if n.Type == spec.NodeArtifact {
		if c, ok := g.e.artifactCand(n, s); ok {
			g.out = append(g.out, c)
		}
	}
}
