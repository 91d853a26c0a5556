package restore

import (
	"math"
	"strings"
)

// neighbors gives the turns around the turns gathered a "neighbor" part:
// a conversation stays on a subject for a few turns, and an answer often
// shares no word with the question but follows a turn that does. What a
// turn's neighbours lend it adds up, so that a turn amid several found
// ones counts for more than a turn beside one.
func neighbors(g *gathering) {
	var around []int
	for t := range g.turns {
		around = append(around, t-neighborReach, t, t+neighborReach)
	}
	g.e.turns.prefetch(around)
	for _, t := range sortedKeysInt(g.turns) {
		g.lend(t)
	}
}

// lend lends a share of turn t's evidence to the turns neighborReach
// either way of it, less the further they are, and answerShare to the
// turn after it when it asks something.
func (g *gathering) lend(t int) {
	s := g.evidence(g.turns[t], false)
	from, _ := g.e.turn(t)
	asks := strings.Contains(from.Content, "?")
	for d := 1; d <= neighborReach; d++ {
		share := neighborShare * math.Pow(neighborDecay, float64(d-1))
		for _, nb := range []int{t - d, t + d} {
			if _, ok := g.e.turn(nb); !ok {
				continue
			}
			sh := share
			if nb == t+1 && asks {
				sh = answerShare
			}
			g.turn(nb)["neighbor"] += s * sh
		}
	}
}
