package restore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/smg-memory/smg/classify"
	"github.com/smg-memory/smg/spec"
)

// The sections of a context, in the order of its text.
const (
	secWorking   = "Working memory"
	secUser      = "About This User"
	secSpace     = "About This Workspace"
	secKnowledge = "Relevant knowledge"
	secDecisions = "Decisions"
	secArtifacts = "Artifacts"
	secCourse    = "The chat's course"
	secHistory   = "From earlier conversations"
)

var sectionOrder = []string{secInstructions, secWorking, secUser, secSpace, secKnowledge, secDecisions, secArtifacts, secCourse, secHistory}

// The pools of the budget, each section drawing on one.
const (
	poolWorking = iota
	poolKnowledge
	poolArtifacts
	poolHistory
	pools
)

var poolOf = map[string]int{
	secInstructions: poolWorking, secWorking: poolWorking, secUser: poolWorking, secSpace: poolWorking,
	secKnowledge: poolKnowledge, secDecisions: poolKnowledge,
	secArtifacts: poolArtifacts, secCourse: poolHistory, secHistory: poolHistory,
}

// The numbers of retrieval. They are general, not fitted to a question:
// how many hits to read, how far and how strongly the graph spreads a
// hit's score, how much of a statement's score its source turn inherits,
// how much a hit lends to the turns around it and how far (a conversation
// stays on a subject for a few turns), how much more to the turn that
// answers it when it asks something, what the turns of a speaker the
// question does not name keep of their score when it names another, and
// how a date the question names raises the turns of that date.
//
// Measured by evidence recall over LoCoMo categories 1–4 at 1,000 cl100k
// tokens, tuned on conv-26, -30 and -41 and checked on conv-42 and -43
// (each gain held on both): the answer's share raised it by 0.02, the
// speaker by 0.01–0.02, reaching three turns either way and summing what
// a turn's neighbours lend by 0.03, the dates by 0.01.
const (
	searchHits = 600
	expandFrom = 10
	// spreadFanout is how many of a node's edges, the strongest, the
	// spread follows, and keepNodes how many of the nodes it scores
	// become candidates. A context has room for a handful of nodes, and
	// a hub (a person everyone talks about) has thousands of edges: on a
	// 10,000-turn memory, following all of them made a context cost
	// 45 ms, most of it spent on nodes that never fit.
	spreadFanout  = 16
	keepNodes     = 100
	hopDecay      = 0.5
	sourceShare   = 0.9
	neighborShare = 0.3 // to the turns just before and after
	neighborReach = 3   // turns either way
	neighborDecay = 0.7 // per turn further away
	answerShare   = 0.6 // to the turn after one with a question mark
	otherSpeaker  = 0.5
	dateFactor    = 1.5
	dateFloor     = 0.3 // added, so that the date's turns come in even unfound
	// alwaysShare is the score of a fact always loaded that the question
	// did not find, times its importance: the facts fill the working
	// memory's share of the budget, most important first, and past it
	// rank below what the question found, since nothing in them matched
	// it (on LoCoMo, +0.003; at 0.2 they took 86 tokens of every 1,000
	// and held no evidence).
	alwaysShare = 0.01
)

// cand is something a context may include. Turns of one date share a
// line that gives it: group is that line. src is the index of the memory
// it comes from, in a composed context.
type cand struct {
	item Item
	// text is the candidate's text; for a whole turn, left "" until it
	// is needed (lazy), and then the turn's line (turnStore.line): a
	// context takes thousands of turns as candidates and packs a few,
	// and making every line took a tenth of a context.
	text  string
	lazy  bool
	key   string
	group string
	fact  bool // a fact node's line
	must  bool // goes in first (guaranteed)
	// beside: a fact the user asked to keep, of a category always
	// loaded, that the question found goes in beside the turn that
	// stated it (see pack).
	beside bool
	src    int
	// note, when set, follows text: what superseded the facts a turn
	// stated (supersededNote), and what contradicts them (conflictNote).
	// Its tokens are counted apart, since a
	// turn's are counted once for every question.
	note string
	// parts, when set, become item.Parts, rounded, if the candidate is
	// chosen: most are not, and rounding them all cost more than
	// choosing.
	parts map[string]float64
}

// Source is one of the memories a context is composed from ([Compose]).
type Source struct {
	Engine *Engine
	// Name tells the memory's items apart in the provenance
	// (Item.Memory): "user", "workspace:crawler"…
	Name string
	// Boost multiplies the scores of the memory's items: the current
	// file's memory counts for more than the team's, say (see
	// ScopeBoosts). Zero is 1.
	Boost float64
}

// ScopeBoosts are the boosts of the memories of a composed context by the
// kind of their scope, after the Quadratic design: the current file 1.5×,
// the team 1.3×, the others 1×.
var ScopeBoosts = map[string]float64{spec.ScopeFile: 1.5, spec.ScopeTeam: 1.3}

// Compose assembles one context from several memories: each is searched
// and expanded as [Engine.Context] does, the scores of its items are
// multiplied by its boost, and all compete for one budget, the facts for
// at most their own (Options.FactBudget). Facts about the user go under
// "About This User", those of a workspace (any scope but a user's) under
// "About This Workspace". The same memories and query give the same
// context, once their turns are indexed.
func Compose(ctx context.Context, query string, opts Options, sources ...Source) (*Result, error) {
	partial := false
	var warnings []string
	qvs := make([]*queryVector, len(sources))
	embeds := false
	for _, s := range sources {
		if opts.Wait {
			// A damaged block leaves its turns out (Partial says so):
			// the rest answers.
			if err := s.Engine.waitIndexed(ctx); err != nil && !errors.As(err, new(*DamagedBlocksError)) {
				return nil, err
			}
		}
		partial = partial || !s.Engine.Complete()
		embeds = embeds || s.Engine.cfg.Embedder != nil
	}
	// While the question is embedded, the full-text search runs beside
	// it: the built-in encoder takes one core for a few milliseconds, as
	// long as the search.
	var early []earlyHits
	var searched chan struct{}
	if embeds {
		searched = make(chan struct{})
		go func() {
			defer close(searched)
			early = searchEarly(query, sources)
		}()
	}
	for i, s := range sources {
		// The question is embedded before the lock is taken: a slow
		// provider must not hold up updates.
		var w []string
		qvs[i], w = s.Engine.embedQuery(ctx, query)
		warnings = append(warnings, w...)
	}
	if searched != nil {
		<-searched
	}
	locked := map[*Engine]bool{}
	for _, s := range sources {
		if !locked[s.Engine] {
			locked[s.Engine] = true
			s.Engine.rw.RLock()
			defer s.Engine.rw.RUnlock()
		}
	}
	r, err := compose(ctx, query, opts, sources, qvs, early)
	if err != nil {
		return nil, err
	}
	r.Partial, r.Warnings = partial, warnings
	return r, nil
}

// A turn's length weighs on its rank: a context is a knapsack, and of two
// turns found alike the shorter leaves room for more. Its score is
// multiplied by ((lengthRef + lengthOffset) / (tokens + lengthOffset))
// to the power lengthPower: a turn of lengthRef tokens keeps its score,
// one of 20 tokens gains 36%, an excerpt of 150 tokens loses 19%, a long
// turn of 1,000 tokens shown whole loses 65%. The offset keeps the
// shortest turns ("thanks!") from winning on length alone.
//
// Measured on the dev files with the built-in encoder (evidence recall,
// categories 1–4, cl100k, 1,000 / 4,000 tokens): beam-dev went from
// 0.612 / 0.796 to 0.640 / 0.816 with an offset of 20, 0.632 / 0.811
// with 50 and 0.634 / 0.802 with 100; LoCoMo from 0.854 / 0.947 to
// 0.844 / 0.947, 0.853 / 0.949 and 0.850 / 0.949. Power 0.3 and 0.7, and
// the factor on excerpts only, did worse.
const (
	lengthRef    = 80
	lengthOffset = 50
	lengthPower  = 0.5
)

// lengthFactor is what a turn of tokens tokens has its score multiplied
// by.
func lengthFactor(tokens int) float64 {
	return math.Pow(float64(lengthRef+lengthOffset)/float64(max(tokens, 0)+lengthOffset), lengthPower)
}

// earlyHits are a search's hits made before compose, and the gen of its
// engine then.
type earlyHits struct {
	hits []hit
	gen  uint64
	ok   bool
}

// searchEarly searches each source's engine for query, each under its
// read lock, which it takes and releases.
func searchEarly(query string, sources []Source) []earlyHits {
	out := make([]earlyHits, len(sources))
	for i, s := range sources {
		e := s.Engine
		e.rw.RLock()
		hits, err := search(e.ix, query, searchHits, e.bm25())
		out[i] = earlyHits{hits: hits, gen: e.gen, ok: err == nil}
		e.rw.RUnlock()
	}
	return out
}

// compose is Compose with the engines' read locks held; qvs are the
// question's vectors, by source, and early the hits of a search made
// before, if any: those of an engine that has not changed since stand
// for its search.
func compose(ctx context.Context, query string, opts Options, sources []Source, qvs []*queryVector, early []earlyHits) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tk, budget := opts.counted()
	alloc := opts.Allocation
	if alloc == (Allocation{}) {
		alloc = DefaultAllocation
	}
	var cands []cand
	for i, s := range sources {
		e := s.Engine
		var hits []hit
		if i < len(early) && early[i].ok && early[i].gen == e.gen {
			hits = early[i].hits
		} else {
			var err error
			if hits, err = search(e.ix, query, searchHits, e.bm25()); err != nil {
				return nil, err
			}
		}
		cs := e.instructions(e.candidates(query, hits, opts.Scopes, e.vectorTurns(qvs[i])), query, qvs[i], opts.Scopes)
		if !opts.At.IsZero() {
			cs = e.asOf(cs, opts.At)
		}
		boost := s.Boost
		if boost == 0 {
			boost = 1
		}
		for j := range cs {
			c := &cs[j]
			if c.item.Kind == "turn" && c.item.Excerpt == nil {
				c.item.Tokens = e.turns.count(tk, c.item.Turn, func() string { return e.turns.line(c.item.Turn) }) + 1
				if c.note != "" {
					c.item.Tokens += e.count(tk, "note:"+c.key, c.note) + 1
				}
			} else {
				c.item.Tokens = e.count(tk, c.key, c.text) + 1
				if c.note != "" {
					c.item.Tokens += tk.Count(c.note) + 1
				}
			}
			if c.item.Kind == "turn" {
				f := lengthFactor(c.item.Tokens)
				c.item.Score = round4(c.item.Score * f)
				c.parts["length"] = round4(f)
			}
			c.src, c.item.Memory = i, s.Name
			if len(sources) > 1 {
				c.key = strconv.Itoa(i) + ":" + c.key
			}
			if boost != 1 {
				c.item.Score = round4(c.item.Score * boost)
				if c.parts == nil {
					c.parts = map[string]float64{}
				}
				c.parts["scope"] = boost
			}
		}
		cands = append(cands, cs...)
	}
	usable := budget
	if tk.Name() == Estimate {
		usable = int(math.Floor(float64(budget) * (1 - alloc.Margin)))
	}
	facts := opts.FactBudget
	if facts == 0 {
		facts = DefaultFactBudget
	}
	chosen, left := pack(cands, tk, usable, alloc, facts)
	lines(chosen, sources)
	text := render(chosen)
	tokens := tk.Count(text)
	for tokens > budget && len(chosen) > 0 {
		// Tokens that merge across lines never add up to more than the
		// parts, but a tokenizer is the judge: drop the weakest item.
		weakest := 0
		for i, c := range chosen {
			if c.item.Score < chosen[weakest].item.Score {
				weakest = i
			}
		}
		left = append(left, chosen[weakest])
		chosen = slices.Delete(chosen, weakest, weakest+1)
		text = render(chosen)
		tokens = tk.Count(text)
	}
	res := &Result{Text: text, Tokens: tokens, Budget: budget, Tokenizer: tk.Name(), Items: make([]Item, 0, len(chosen))}
	for _, c := range ordered(chosen) {
		res.Items = append(res.Items, c.reported())
	}
	if opts.Left > 0 {
		slices.SortStableFunc(left, func(a, b cand) int { return cmp.Compare(b.item.Score, a.item.Score) })
		res.Left = make([]Item, 0, min(opts.Left, len(left)))
		lines(left[:min(opts.Left, len(left))], sources)
		for _, c := range left[:min(opts.Left, len(left))] {
			it := c.reported()
			it.Text = leftText(c.text)
			res.Left = append(res.Left, it)
		}
	}
	return res, nil
}

// reported is the item of c as a result reports it.
func (c cand) reported() Item {
	if c.parts != nil {
		c.item.Parts = roundAll(c.parts)
	}
	return c.item
}

// lines makes the text of the lazy candidates of cs, turns of sources.
func lines(cs []cand, sources []Source) {
	for i := range cs {
		if c := &cs[i]; c.lazy {
			c.text, c.lazy = sources[c.src].Engine.turns.line(c.item.Turn), false
		}
	}
}

// leftTextBytes bounds the text of an item left out that a result tells.
const leftTextBytes = 300

// leftText is the start of a left-out item's line, up to about
// leftTextBytes, cut at a character's start.
func leftText(s string) string {
	if len(s) <= leftTextBytes {
		return s
	}
	end := leftTextBytes
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "…"
}

// nodeCand is a node's line in a context; a fact of a scope not among
// scopes has none.
func (e *Engine) nodeCand(n *spec.Node, s float64, parts map[string]float64, scopes []string) (cand, bool) {
	if n.Type == spec.NodeConcept || n.Type == spec.NodeArtifact {
		return cand{}, false // named by the statements about them
	}
	if n.Type == spec.NodeFact && !spec.InScopes(n.Scope, scopes) {
		return cand{}, false
	}
	var c cand
	if v, ok := e.lines.Load(n.ID); ok {
		c = v.(cand)
	} else {
		c = e.nodeLine(n)
		e.lines.Store(n.ID, c)
	}
	c.item.Score, c.parts = round4(s), parts
	c.beside = c.fact && n.Source == spec.SourceUser && parts["search"] > 0 && alwaysLoaded(n)
	return c, true
}

// nodeLine is a node's line in a context, unscored; nodeCand keeps it
// for the version of the graph (e.lines).
func (e *Engine) nodeLine(n *spec.Node) cand {
	it := Item{Section: secKnowledge, Kind: "node", NodeID: n.ID, Label: n.Label}
	if t, ok := e.source[n.ID]; ok {
		tu, _ := e.turn(t)
		it.Turn, it.ExternalID, it.Timestamp = t, tu.ExternalID, tu.Timestamp
	}
	var line strings.Builder
	switch n.Type {
	case spec.NodeFact:
		kind, _, _ := strings.Cut(n.Scope, ":")
		switch {
		case kind != "" && kind != spec.ScopeUser:
			it.Section = secSpace
		case n.Category == spec.CategoryIdentity || n.Category == spec.CategoryPreference || n.Category == spec.CategoryRelationship:
			it.Section = secUser
		}
		line.WriteString("- " + n.Label)
	case spec.NodeDecision:
		it.Section = secDecisions
		line.WriteString("- " + n.Label)
		if n.Rationale != "" {
			line.WriteString(", because " + n.Rationale)
		}
		var alts []string
		for _, a := range n.Alternatives {
			alts = append(alts, a.Option)
		}
		if len(alts) > 0 {
			line.WriteString(" (not " + strings.Join(alts, ", ") + ")")
		}
		if _, known := e.sup.by[n.ID]; !known && !n.ValidTo.IsZero() {
			line.WriteString(" [superseded]")
		}
	default:
		line.WriteString("- " + capitalize(string(n.Type)) + ": " + n.Label)
		if n.Description != "" && n.Description != n.Label && !strings.HasPrefix(n.Description, strings.TrimSuffix(n.Label, "…")) {
			line.WriteString(" — " + n.Description)
		}
	}
	if d := dateOf(it.Timestamp); d != "" {
		line.WriteString(" (" + d + ")")
	}
	if s, ok := e.sup.by[n.ID]; ok {
		it.SupersededBy = []Supersession{s}
	}
	it.ConflictsWith = e.con.of[n.ID]
	it.Solves, it.SolvedBy, it.Files = e.fix.solves[n.ID], e.fix.solvedBy[n.ID], e.filesOf(n)
	return cand{key: "n:" + n.ID, text: line.String(), item: it, fact: n.Type == spec.NodeFact, must: guaranteed(n),
		note: notes(supersededNote(it.SupersededBy), conflictNote(it.ConflictsWith), e.fixNote(n))}
}

// artifactCand is an artifact node's content, at the version it points at.
func (e *Engine) artifactCand(n *spec.Node, s float64) (cand, bool) {
	a, ok := e.doc.ArtifactVault.Artifacts[n.ArtifactID]
	if !ok {
		return cand{}, false
	}
	v := n.ArtifactVersion
	if v <= 0 || v > len(a.Versions) {
		v = len(a.Versions)
	}
	content, err := e.content(n.ArtifactID, v)
	if err != nil {
		return cand{}, false
	}
	name := a.Filename
	if name == "" {
		name = n.ArtifactID
	}
	text := fmt.Sprintf("%s (version %d):\n```%s\n%s\n```", name, v, a.Language, strings.TrimRight(content, "\n"))
	return cand{key: "a:" + n.ArtifactID, text: text, item: Item{
		Section: secArtifacts, Kind: "artifact", NodeID: n.ID, Label: n.Label, ArtifactID: n.ArtifactID, Version: v, Score: round4(s),
	}}, true
}

// shownContent is a turn's content as a context shows it: a coding agent's
// tool turn without its lines of chatter (classify.ToolChatter), a user's
// without the commands to the agent they typed (classify.WithoutCommands);
// both stay in the archive.
func shownContent(t spec.Turn) string {
	return shownText(t, t.Content)
}

// shownText is text, the content of turn t or a part of it, as a context
// shows it (shownContent).
func shownText(t spec.Turn, text string) string {
	switch t.Role {
	case spec.RoleTool:
		return classify.WithoutChatter(text)
	case spec.RoleUser:
		return classify.WithoutCommands(text)
	}
	return text
}

// pack chooses what fits: first each pool up to its share of the budget,
// by score; then, with what the pools left, the best of the rest, but
// for the working memory's summary and goals (cand.standing). A turn
// goes in once: a statement whose turn is in is left out, and so is a
// turn whose statement is, so that the budget goes to other evidence
// (on LoCoMo, recall +0.01).
//
// What must go in goes first, whatever the shares. Facts take at most
// facts tokens, when facts is positive. A long item found weakly does not
// go in at all (weak). left are the candidates that did not go in for
// lack of room (not those another covered), best first.
func pack(cands []cand, tk Tokenizer, usable int, alloc Allocation, facts int) (chosen, left []cand) {
	cands = byScore(cands)
	cands = slices.DeleteFunc(cands, weak(cands, usable))
	shares := [pools]float64{alloc.Working, alloc.Knowledge, alloc.Artifacts, alloc.History}
	total := shares[0] + shares[1] + shares[2] + shares[3]
	var caps [pools]int
	for p := range caps {
		caps[p] = int(float64(usable) * shares[p] / total)
	}
	headings := map[string]int{}
	for _, s := range sectionOrder {
		headings[s] = tk.Count("## "+s) + 2
	}
	used, spent, factsUsed, courseUsed := [pools]int{}, 0, 0, 0
	courseCap := int(float64(usable) * courseShare)
	type srcNode struct {
		src  int
		node string
	}
	// nodesIn are the nodes in, and whether in the course: a node in the
	// course is not also in another section, nor the other way.
	nodesIn := map[srcNode]bool{}
	open := map[string]bool{}
	type srcGroup struct {
		src   int
		group string
	}
	groups := map[srcGroup]int{} // the cost of a date line, once it is paid: 0
	lineCost := map[string]int{}
	taken := make([]bool, len(cands))
	roomless := make([]bool, len(cands)) // refused for lack of room when last tried
	// A node restates what its source turn said, and a fact nothing
	// more: a turn and the facts stated in it are exchangeable, and
	// whichever ranks first goes in alone. A decision, a problem or a
	// solution goes in even when its turn is in: it carries more (a
	// rationale, the alternatives, a fix found turns later); so does a
	// fact the user asked to keep that the question found (cand.beside):
	// "Which language does Dana prefer?" gets "Dana prefers Go" under
	// "About This User" as well as the turn where Dana said it (on the
	// dev files, recall unchanged; any fact the question found, 0.001 to
	// 0.002 less on LoCoMo).
	//
	// An excerpt of a turn goes in only while the whole turn is not in,
	// and the whole turn only while no excerpt of it is.
	type srcTurn struct{ src, turn int }
	covered := map[srcTurn]bool{}   // the turns in, whole or through a node
	excerpted := map[srcTurn]bool{} // the turns an excerpt of is in
	try := func(i int, capped bool) {
		c := cands[i]
		roomless[i] = false
		st := srcTurn{c.src, c.item.Turn}
		switch {
		case c.item.Excerpt != nil:
			if covered[st] {
				return
			}
		case c.item.Kind == "turn" || c.fact && !c.beside:
			if covered[st] || excerpted[st] {
				return
			}
		}
		sn := srcNode{c.src, c.item.NodeID}
		if course, in := nodesIn[sn]; in && (course || c.item.Section == secCourse) {
			return
		}
		cost := c.item.Tokens
		if !open[c.item.Section] {
			cost += headings[c.item.Section]
		}
		if c.group != "" {
			g, ok := groups[srcGroup{c.src, c.group}]
			if !ok {
				if g, ok = lineCost[c.group]; !ok {
					g = tk.Count(c.group) + 1
					lineCost[c.group] = g
				}
			}
			cost += g
		}
		p := poolOf[c.item.Section]
		inCourse := c.item.Section == secCourse
		roomless[i] = spent+cost > usable || capped && used[p]+cost > caps[p] || c.fact && facts > 0 && factsUsed+cost > facts || inCourse && courseUsed+cost > courseCap
		if roomless[i] {
			return
		}
		if inCourse {
			courseUsed += cost
		}
		if sn.node != "" {
			nodesIn[sn] = nodesIn[sn] || inCourse
		}
		open[c.item.Section] = true
		if c.group != "" {
			groups[srcGroup{c.src, c.group}] = 0
		}
		used[p] += cost
		spent += cost
		if c.fact {
			factsUsed += cost
		}
		taken[i] = true
		switch {
		case c.item.Excerpt != nil:
			excerpted[st] = true
		case c.item.Turn > 0 && !c.beside:
			covered[st] = true
		}
		chosen = append(chosen, c)
	}
	for i := range cands {
		if cands[i].must {
			try(i, false)
		}
	}
	for i := range cands {
		if !taken[i] {
			try(i, true)
		}
	}
	for i := range cands {
		if !taken[i] && !cands[i].standing() {
			try(i, false)
		}
	}
	for i, c := range cands {
		if !taken[i] && roomless[i] {
			left = append(left, c)
		}
	}
	return chosen, left
}

// A long item (a turn, an artifact), one that would take more than a
// longShare-th of the budget, goes in only with a score of at least
// weakFloor times the best of the candidates' (but working memory's and
// what must go in): found
// weakly (a code block a question only brushes in meaning), it would fill
// a small context with what the question does not need. Measured on the
// dev files with the built-in encoder (evidence recall, categories 1–4,
// cl100k): unchanged at 1,000 and 4,000 tokens (beam-dev 0.641 / 0.811,
// LoCoMo 0.853 / 0.950); the same floor on turns of more than 100 tokens
// at any budget cost beam-dev 0.008 at 4,000 tokens.
const (
	weakFloor = 0.3
	longShare = 8
)

// weak returns what reports whether a candidate is a long item found too
// weakly to go in a context of usable tokens.
func weak(cands []cand, usable int) func(cand) bool {
	best := 0.0
	for _, c := range cands {
		if c.item.Section != secWorking && !c.must {
			best = max(best, c.item.Score)
		}
	}
	return func(c cand) bool {
		return c.item.Section != secWorking && !c.must && c.item.Tokens > usable/longShare && c.item.Score < weakFloor*best
	}
}

// standing reports whether c is the working memory's summary or one of
// its goals: they are in every context, ranked above whatever the
// question found by a score of their own, so past the working memory's
// share they would fill a small context ahead of the evidence, and they
// never take more than that share. On long project chats (beam-dev),
// where a memory holds many goals, they took 150 of 1,000 tokens;
// capped, evidence recall at 1,000 tokens went from 0.646 to 0.653.
func (c *cand) standing() bool {
	return c.item.Section == secWorking && (c.item.Kind == "summary" || c.item.Kind == "goal")
}

// byScore returns cands best first, ties by key, in the order of a
// stable sort. It sorts their indices: a candidate is large, and moving
// it at each step of the sort cost more than the sort.
func byScore(cands []cand) []cand {
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		a, b := &cands[i], &cands[j]
		if c := cmp.Compare(b.item.Score, a.item.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	out := make([]cand, len(cands))
	for i, j := range order {
		out[i] = cands[j]
	}
	return out
}

// ordered puts chosen items in the order of the text: by section, then
// turns by memory and number and the rest by score.
func ordered(chosen []cand) []cand {
	rank := map[string]int{}
	for i, s := range sectionOrder {
		rank[s] = i
	}
	out := slices.Clone(chosen)
	slices.SortStableFunc(out, func(a, b cand) int {
		if c := cmp.Compare(rank[a.item.Section], rank[b.item.Section]); c != 0 {
			return c
		}
		if a.item.Kind == "turn" && b.item.Kind == "turn" || a.item.Section == secCourse {
			return cmp.Or(cmp.Compare(a.src, b.src), cmp.Compare(a.item.Turn, b.item.Turn), cmp.Compare(excerptStart(a), excerptStart(b)))
		}
		if c := cmp.Compare(b.item.Score, a.item.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	return out
}

// excerptStart is where an excerpt starts in its turn; -1 for a whole
// turn.
func excerptStart(c cand) int {
	if c.item.Excerpt == nil {
		return -1
	}
	return c.item.Excerpt.Start
}

// render writes the chosen items under their section headings.
func render(chosen []cand) string {
	var sb strings.Builder
	section, group, src := "", "", 0
	for _, c := range ordered(chosen) {
		if c.item.Section != section {
			if section != "" {
				sb.WriteByte('\n')
			}
			section, group = c.item.Section, ""
			sb.WriteString("## " + section + "\n\n")
		}
		if c.group != group || c.src != src {
			group, src = c.group, c.src
			if group != "" {
				sb.WriteString(group + "\n")
			}
		}
		sb.WriteString(c.text)
		if c.note != "" {
			// After a code block, on a line of its own.
			if strings.HasSuffix(c.text, "```") {
				sb.WriteByte('\n')
			} else {
				sb.WriteByte(' ')
			}
			sb.WriteString(c.note)
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

func roundAll(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = round4(v)
	}
	return out
}

func sortedKeysInt[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
