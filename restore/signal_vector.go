package restore

// vectors gives the turns nearest the question in meaning (g.vec, see
// vectors.go) their "vector" part.
func vectors(g *gathering) {
	for n, v := range g.vec {
		if _, ok := g.e.turn(n); !ok {
			continue
		}
		raise(g.turn(n), "vector", v)
	}
}
