package restore

import "github.com/smg-memory/smg/spec"

// facts makes candidates of the nodes a context loads unfound
// (loadedUnfound) that no signal before it scored, at alwaysShare of
// their importance.
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

// loadedUnfound reports whether a context loads a node without a
// question's finding it: a pinned one, and a fact about the user
// (aboutUser) of a category always loaded that was given to keep: saved
// (smg remember, save_memory) or asked to be remembered in a turn
// ("please remember that I prefer Go"). Any other fact goes in for its
// relevance to the question, when a signal finds it, not because it
// exists: "how do we deploy?" has nothing to learn from "Ben has a dog
// named Rex", nor from "Dana is working on the shop with Priya", which
// the engine read in a turn.
func loadedUnfound(n *spec.Node) bool {
	return alwaysLoaded(n) && (n.Pinned || aboutUser(n) && given(n))
}

// given reports whether a fact was given to keep: saved rather than found
// in a turn (no turn mentions it), or asked to be remembered.
func given(n *spec.Node) bool {
	return n.FirstMentioned == 0 || n.Source == spec.SourceUser
}
