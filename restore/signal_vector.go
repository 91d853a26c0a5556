package restore

// vectors gives the turns nearest the question in meaning (g.vec, see
// vectors.go) their "vector" part. A long turn found by the vector of a
// passage goes in as that passage, unless the search found a passage of
// it that counts for more.
func vectors(g *gathering) {
	for _, n := range sortedKeysInt(g.vec) {
		v := g.vec[n]
		t, ok := g.e.turn(n)
		if !ok {
			continue
		}
		raise(g.turn(n), "vector", v.part)
		if v.span == (Span{}) {
			continue
		}
		if _, ok := excerptOf(t, v.span); !ok {
			continue
		}
		s := vectorWeight * v.part
		if p := g.passages[n]; p == nil || p.score < s {
			g.passages[n] = &passageHit{span: v.span, score: s}
		}
	}
}
