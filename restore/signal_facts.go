package restore

// facts makes candidates of the facts of the categories always loaded
// that no signal before it scored, at alwaysShare of their importance.
func facts(g *gathering) {
	for _, id := range g.e.always {
		if g.nodes[id] != nil {
			continue
		}
		n := g.e.nodes[id]
		parts := map[string]float64{"importance": n.Importance, "alwaysLoaded": 1}
		if c, ok := g.e.nodeCand(n, alwaysShare*n.Importance, parts, g.scopes); ok {
			g.out = append(g.out, c)
		}
	}
}
