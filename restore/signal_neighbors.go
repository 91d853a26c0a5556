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
//
// A long turn neither lends nor borrows: it goes in as a passage, and
// that one passage of it, or its neighbour, was found says nothing of
// which of its other passages would serve. On long project chats (BEAM),
// where every user turn sits between long answers, lending to and from
// them filled small contexts with excerpts no search had found:
// beam-dev at 1,000 tokens went from 0.612 to 0.482 with 200 vector hits
// lending to long turns (see vectors.go), and LoCoMo, whose turns are
// short, did not move.
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
	from, shown, _ := g.e.turns.shownTurn(t)
	if shown.long {
		return
	}
	s := g.evidence(g.turns[t], false)
	asks := strings.Contains(from.Content, "?")
	for d := 1; d <= neighborReach; d++ {
		share := neighborShare * math.Pow(neighborDecay, float64(d-1))
		for _, nb := range []int{t - d, t + d} {
			if _, shown, ok := g.e.turns.shownTurn(nb); !ok || shown.long {
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
