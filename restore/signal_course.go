package restore

import (
	"regexp"

	"github.com/smg-memory/smg/spec"
)

// A question that spans a chat ("summarize how the project progressed",
// "in what order did I bring up…", "how did my plans evolve across our
// conversations") is answered by the chat's course, not by its few best
// turns: course splits the memory's turns into courseParts stretches of
// equal length and gives the user's turn of each stretch that the other
// signals scored best a "course" part, which lifts it among the turns
// (see turnScore): a context then holds something of every stretch, in
// the order said.
func course(g *gathering) {
	if !spansChat.MatchString(g.query) || g.e.turns.n < 2*courseParts {
		return
	}
	best := make([]int, courseParts)
	top := make([]float64, courseParts)
	for n, parts := range g.turns {
		t, ok := g.e.turn(n)
		if !ok || t.Role != spec.RoleUser {
			continue
		}
		i := min(courseParts-1, (n-1)*courseParts/g.e.turns.n)
		if s := g.turnScore(parts); s > top[i] || s == top[i] && best[i] > n {
			best[i], top[i] = n, s
		}
	}
	for i, n := range best {
		if top[i] > 0 {
			g.turns[n]["course"] = courseLift
		}
	}
}

// courseParts is how many stretches a chat's course is read in;
// courseLift is what the course part adds to a turn's score.
const (
	courseParts = 8
	courseLift  = 1.0
)

// spansChat says that a question asks about the course of a chat: a
// summary, an order, a progress, an evolution, all of it.
var spansChat = regexp.MustCompile(`(?i)\b(?:summar(?:y|ize|ise|izing)|overview|recap|throughout|across (?:our|all|the|my|these)|over (?:the course|time|our)|in (?:what|which) order|the order (?:in which|of)|sequence of|chronolog\w*|timeline of|progress(?:ed|ion)?\b|evolv\w*|evolution|from (?:the )?(?:start|beginning) to)\b`)
