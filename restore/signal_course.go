package restore

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/smg-memory/smg/spec"
)

// A question that spans a chat ("summarize how the project progressed",
// "in what order did I bring up…", "how did my plans evolve across our
// conversations") is answered by the chat's course, not by its few best
// turns: course splits the memory's turns into courseParts stretches of
// equal length and gives the user's turn of each stretch that the other
// signals scored best a "course" part, which lifts it among the turns
// (see turnScore): a context then holds something of every stretch, in
// the order said. The chat is the one the question is about: in a memory
// of many chats, the conversation whose turns the other signals scored
// best (see topicTurn and chatOf).
func course(g *gathering) {
	if !spansChat.MatchString(g.query) {
		return
	}
	lo, hi := g.e.chatOf(g.topicTurn())
	if hi-lo+1 < 2*courseParts {
		return
	}
	best := make([]int, courseParts)
	top := make([]float64, courseParts)
	for n, parts := range g.turns {
		t, ok := g.e.turn(n)
		if !ok || t.Role != spec.RoleUser || n < lo || n > hi {
			continue
		}
		i := min(courseParts-1, (n-lo)*courseParts/(hi-lo+1))
		if s := g.turnScore(parts); s > top[i] || s == top[i] && best[i] > n {
			best[i], top[i] = n, s
		}
	}
	for i, n := range best {
		if top[i] > 0 {
			g.turns[n]["course"] = courseLift
		}
	}
	courseLines(g, lo, hi)
}

// topicTurn is the best turn of the chat the question is about, or 0 when
// its signals found no turn. The chat is the conversation whose turns the
// signals scored most in sum, not the one of the single best turn: a
// question that spans a chat says so in words ("the order in which I
// brought up…") that one turn of another chat may match best ("the order
// of the rows matters"), where the chat it is about matches its subject in
// many turns. A conversation's best turn is the earliest of its equals;
// turns of no conversation are one chat.
func (g *gathering) topicTurn() int {
	type chat struct {
		best     int
		top, sum float64
	}
	chats := map[string]*chat{}
	for _, n := range sortedKeysInt(g.turns) { // in order: sums the same each time
		s := g.turnScore(g.turns[n])
		if s <= 0 {
			continue
		}
		t, _ := g.e.turn(n)
		c := chats[t.ConversationID]
		if c == nil {
			c = &chat{}
			chats[t.ConversationID] = c
		}
		c.sum += s
		if s > c.top || s == c.top && n < c.best {
			c.best, c.top = n, s
		}
	}
	var about *chat
	for _, c := range chats {
		if about == nil || c.sum > about.sum || c.sum == about.sum && c.best < about.best {
			about = c
		}
	}
	if about == nil {
		return 0
	}
	return about.best
}

// chatOf returns the first and last turn of the chat that holds turn n:
// the run of turns around it of its conversation (spec §5.1). A memory
// whose turns name no conversation, or n = 0, is one chat.
func (e *Engine) chatOf(n int) (lo, hi int) {
	lo, hi = 1, e.turns.n
	t, ok := e.turn(n)
	if !ok || t.ConversationID == "" {
		return lo, hi
	}
	same := func(m int) bool {
		u, ok := e.turn(m)
		return ok && u.ConversationID == t.ConversationID
	}
	for lo = n; lo > 1 && same(lo-1); lo-- {
	}
	for hi = n; hi < e.turns.n && same(hi+1); hi++ {
	}
	return lo, hi
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

// courseLines gives a question that spans a chat its course from the
// graph, compactly: the items stated in the chat (decisions, facts, goals
// and requests, problems, solutions, changes), one short line each under
// their dates, in the order of their turns ("The chat's course"). The chat
// is read in courseStretches stretches; the items of each are ranked by
// what the question found of them and of their turns, and a stretch's
// first comes before any stretch's second, so that the section's share of
// the budget (courseShare) holds something of every stretch. A line's
// item carries its turn: the turn is in the context through it. The chat
// is turns lo to hi.
func courseLines(g *gathering, lo, hi int) {
	n := hi - lo + 1
	type line struct {
		id   string
		turn int
		rel  float64
	}
	stretches := make([][]line, courseStretches)
	for id, t := range g.e.source {
		node := g.e.nodes[id]
		if t < lo || t > hi {
			continue // another chat's
		}
		if node.Kind == spec.KindInstruction || node.Type == spec.NodeFact && !spec.InScopes(node.Scope, g.scopes) {
			continue // standing instructions have their own section
		}
		rel := 0.0
		if parts := g.turns[t]; parts != nil {
			rel = g.evidence(parts, true)
		}
		if parts := g.nodes[id]; parts != nil {
			rel = max(rel, parts["search"], parts["graph"])
		}
		rel += courseImportance * node.Importance
		i := min(courseStretches-1, (t-lo)*courseStretches/n)
		stretches[i] = append(stretches[i], line{id, t, rel})
	}
	for _, ls := range stretches {
		slices.SortFunc(ls, func(a, b line) int {
			return cmp.Or(cmp.Compare(b.rel, a.rel), cmp.Compare(a.turn, b.turn), cmp.Compare(a.id, b.id))
		})
		for rank, l := range ls[:min(len(ls), coursePerStretch)] {
			c := g.e.courseLine(g.e.nodes[l.id], l.turn)
			// Rank in the stretch first, then what the question found.
			c.item.Score = round4(courseTop - float64(rank) + l.rel/(1+l.rel))
			c.parts = map[string]float64{"course": courseTop - float64(rank), "relevance": l.rel}
			g.out = append(g.out, c)
		}
	}
}

// courseLine is node's line in a chat's course: its label, cut to
// courseWords words, under the date of turn t, its turn, and whether it
// was superseded or is contradicted.
func (e *Engine) courseLine(n *spec.Node, t int) cand {
	tu, _ := e.turn(t)
	label := n.Label
	if words := strings.Fields(label); len(words) > courseWords {
		label = strings.Join(words[:courseWords], " ") + " …"
	}
	if n.Type != spec.NodeFact {
		label = capitalize(string(n.Type)) + ": " + label
	}
	group := ""
	if d := dateOf(tu.Timestamp); d != "" {
		group = "[" + d + "]"
	}
	it := Item{Section: secCourse, Kind: "node", NodeID: n.ID, Label: n.Label, Turn: t, ExternalID: tu.ExternalID, Timestamp: tu.Timestamp}
	if s, ok := e.sup.by[n.ID]; ok {
		it.SupersededBy = []Supersession{s}
	}
	it.ConflictsWith = e.con.of[n.ID]
	// A course holds the old values of updates too, in their order: it
	// says so, briefly (what superseded it is a line after it; the item
	// names it).
	var note []string
	if len(it.SupersededBy) > 0 {
		note = append(note, "superseded")
		if d := dateOf(it.SupersededBy[0].At); d != "" {
			note[0] += " on " + d
		}
	}
	if len(it.ConflictsWith) > 0 {
		note = append(note, "contradicted")
	}
	c := cand{key: "c:" + n.ID, text: "- " + label, group: group, item: it}
	if len(note) > 0 {
		c.note = "(" + strings.Join(note, ", ") + ")"
	}
	return c
}

// The course of a chat: how many stretches it is read in, how many items
// of each it offers, the words of an item's line, the share of the
// budget its section may take, what an item's importance adds to what
// the question found of it, and the score of a stretch's best item (the
// next are one less each, so that every stretch's first comes first).
const (
	courseStretches  = 24
	coursePerStretch = 6
	courseWords      = 12
	courseShare      = 0.5
	courseImportance = 0.1
	courseTop        = 10
)
