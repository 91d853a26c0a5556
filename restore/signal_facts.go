package restore

// facts makes candidates of the nodes always loaded that no signal
// before it scored, at alwaysShare of their importance: the pinned ones
// and the facts about the user (aboutUser), who asks every question. A
// fact about someone else goes in for its relevance to the question,
// when a signal finds it, not because it exists: "how do we deploy?"
// has nothing to learn from "Ben has a dog named Rex".
func facts(g *gathering) {
	for _, id := range g.e.always {
		if g.nodes[id] != nil {
			continue
		}
		n := g.e.nodes[id]
		if !n.Pinned && !aboutUser(n) {
			continue
		}
		parts := map[string]float64{"importance": n.Importance, "alwaysLoaded": 1}
		if c, ok := g.e.nodeCand(n, alwaysShare*n.Importance, parts, g.scopes); ok {
			g.out = append(g.out, c)
		}
	}
}
