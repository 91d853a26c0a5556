package restore

import "slices"

// A signal is one named source of what a context may include, or of the
// parts of its score: working memory, full-text search, vectors, the
// graph, the facts always loaded, the turns around a hit, dates,
// speakers. [Engine.candidates] runs the signals in the order of
// [signals], each on one gathering, then scores the turns gathered.
//
// A signal reads the question (g.query, g.hits, g.vec, g.scopes) and what
// the signals before it left in g, and writes:
//   - candidates, appended to g.out (their order is the order of ties in
//     the context, so a signal appends in a stable order);
//   - parts of a node's score, in g.nodes, read by the nodes signal, which
//     ranks the nodes and makes them candidates;
//   - parts of a turn's score, in g.turns, which the turns' score
//     combines at the end (see [gathering.evidence] and turnCands).
//
// Order matters: the graph spreads from the search's node hits, the nodes
// signal ranks what search and graph scored and gives turns their
// statement part, the facts always loaded are those no signal before
// scored, the neighbors lend what the turns found so far have, and the
// speakers weigh every turn gathered, dated ones too, and what is
// superseded is lowered last, every candidate made.
//
// A signal with a weight writes a part of a turn's score named name, and
// the turn's score adds it, times weight, to the best of its full-text
// parts (search, statement, neighbor), in the order of [signals]; to lend
// to the neighbors too, it comes before them.
type signal struct {
	name   string
	add    func(g *gathering)
	weight float64
}

// signals are the signals of a context, in the order they run.
var signals = []signal{
	{"working", working, 0},
	{"search", lexical, 0},
	{"vector", vectors, vectorWeight},
	{"graph", spread, 0},
	{"nodes", nodes, 0},
	{"facts", facts, 0},
	{"neighbor", neighbors, 0},
	{"date", dates, 0},
	{"speaker", speakers, 0},
	{"course", course, 0},
	{"superseded", demote, 0},
}

// gathering is what the signals of one context share.
type gathering struct {
	e      *Engine
	query  string
	hits   []hit          // the full-text hits, best first
	scopes []string       // the scopes of the facts wanted
	vec    map[int]vecHit // what the vectors found of the turns nearest the question
	summed []signal       // the signals with a weight, in order

	nodes    map[string]map[string]float64 // node id → parts of its score
	turns    map[int]map[string]float64    // turn → parts of its score
	nodeHits []string                      // the nodes the search found, best first
	// passages are the best passages of long turns the search found, by
	// turn.
	passages map[int]*passageHit
	out      []cand
}

// candidates scores what a context may include: working memory, the facts
// always loaded, the nodes and turns the search found, the nodes the
// graph reaches from them, the turns that stated them and the turns
// around the hits, and the artifacts of the nodes; facts of scopes not
// among scopes are left out. vec are the vector parts of the turns
// nearest the question, if any (vectors.go).
func (e *Engine) candidates(query string, hits []hit, scopes []string, vec map[int]vecHit) []cand {
	g := &gathering{
		e: e, query: query, hits: hits, scopes: scopes, vec: vec,
		nodes:    map[string]map[string]float64{},
		turns:    map[int]map[string]float64{},
		passages: map[int]*passageHit{},
	}
	for _, s := range signals {
		if s.weight != 0 {
			g.summed = append(g.summed, s)
		}
	}
	for _, s := range signals {
		s.add(g)
	}
	g.turnCands()
	return g.out
}

// turn returns the parts of turn n's score, making them if need be.
func (g *gathering) turn(n int) map[string]float64 {
	if g.turns[n] == nil {
		g.turns[n] = map[string]float64{}
	}
	return g.turns[n]
}

// raise sets part of parts to v, if v is more.
func raise(parts map[string]float64, part string, v float64) {
	parts[part] = max(parts[part], v)
}

// evidence is a turn's score from what found it: the best of its
// full-text parts (search, statement and, but when it lends, neighbor
// and passage), plus the part of each signal with a weight, times the weight, in their order.
func (g *gathering) evidence(parts map[string]float64, lent bool) float64 {
	s := max(parts["search"], parts["statement"])
	if lent {
		s = max(s, parts["neighbor"], parts["passage"])
	}
	for _, w := range g.summed {
		s += w.weight * parts[w.name]
	}
	return s
}

// turnCands makes the turns gathered candidates, in the order of their
// numbers: a turn's score is its evidence, raised when the question names
// its date and lowered when it names a speaker but not the turn's. A long
// turn the search found a passage of goes in as that passage, an excerpt;
// small talk and an agent's status lines do not go in (they stay in the
// archive).
func (g *gathering) turnCands() {
	g.out = slices.Grow(g.out, len(g.turns))
	for _, n := range sortedKeysInt(g.turns) {
		parts := g.turns[n]
		t, shown, _ := g.e.turns.shownTurn(n)
		if shown.small {
			continue // "thanks", "You're welcome.": nothing to show
		}
		sup, con := g.e.sup.stated[n], g.e.con.stated[n]
		if p := g.passages[n]; p != nil {
			text, _ := excerptOf(t, p.span)
			span := p.span
			g.out = append(g.out, cand{
				key:   passageKey(n, span),
				text:  excerptLine(t, span, text),
				group: shown.group,
				item: Item{Section: secHistory, Kind: "turn", Turn: n, ExternalID: t.ExternalID, Timestamp: t.Timestamp,
					Excerpt: &span, Score: round4(g.turnScore(parts)), SupersededBy: sup, ConflictsWith: con},
				parts: parts,
				note:  notes(supersededNote(sup), conflictNote(con)),
			})
			continue
		}
		g.out = append(g.out, cand{
			key:   turnKey(n),
			lazy:  true,
			group: shown.group,
			item:  Item{Section: secHistory, Kind: "turn", Turn: n, ExternalID: t.ExternalID, Timestamp: t.Timestamp, Score: round4(g.turnScore(parts)), SupersededBy: sup, ConflictsWith: con},
			parts: parts,
			note:  notes(supersededNote(sup), conflictNote(con)),
		})
	}
}

// turnScore is the score of a turn of parts: its evidence, raised when
// the question names its date and lowered when it names a speaker but not
// the turn's.
func (g *gathering) turnScore(parts map[string]float64) float64 {
	s := g.evidence(parts, true)
	if f, ok := parts["date"]; ok {
		s = s*f + dateFloor
	}
	if f, ok := parts["speaker"]; ok {
		s *= f
	}
	if f, ok := parts["superseded"]; ok {
		s *= f
	}
	return s + parts["course"]
}

// passageHit is a passage of a long turn the search found, and its
// "search" part.
type passageHit struct {
	span  Span
	score float64
}
