package graph

import (
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
	"unique"

	"github.com/smg-memory/smg/classify"
	"github.com/smg-memory/smg/spec"
)

// Edge strengths: what one observation of each relation is worth. A
// co-mention is weak alone (0.2, under the pruning threshold) and grows
// with every turn that repeats it.
const (
	coMention        = 0.2
	requiresDecision = 0.7
	resultedIn       = 0.8
	solves           = 0.9
	implements       = 0.8
	about            = 0.8
	aboutMentioned   = 0.6
	mentions         = 0.5
	supersedes       = 1.0
	// sameTopic links two facts that say the same word of a person's
	// life.
	sameTopic = 0.6
	// topicFactsKept are the latest facts of a word that a new fact of
	// it is linked to.
	topicFactsKept = 8

	// coMentionLimit bounds the concepts of one turn linked pairwise.
	coMentionLimit = 8
	// optionWindow and problemWindow are how many turns back a decision
	// looks for the options it picks from, and a solution for the problem
	// it solves; decisionWindow how far back an artifact looks for the
	// decision it results from.
	optionWindow   = 10
	problemWindow  = 20
	decisionWindow = 2
)

// What the builder keeps of a turn's analysis must not hold the turn's
// whole text, as a string cut from it does: the builder keeps copies.
// Kept once, a piece of each turn would keep most of a long memory's
// transcript alive (TestBuilderKeepsNoTurnText).

// intern returns a copy of s, one for all equal strings: for the keys of
// the builder's maps. A copy made only when a key is new is not enough: an
// assignment to a map replaces the key it holds with the one it is given.
func intern(s string) string { return unique.Make(s).Value() }

// cloneAll copies the strings of ss.
func cloneAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.Clone(s)
	}
	return out
}

// create makes a node with the defaults of its type.
func (b *Builder) create(id string, typ spec.NodeType, label string) *spec.Node {
	n := &spec.Node{ID: id, Type: typ, Label: strings.Clone(label), Confidence: 0.8, Version: 1}
	b.store.Put(n)
	b.info[id] = &nodeInfo{}
	return n
}

// statement returns the node of a problem, solution or fact stated by
// text, keyed by the text's normal form; n is the node when it is new, for
// the caller to fill in, and nil when the statement was made before.
func (b *Builder) statement(typ spec.NodeType, text, label string) (id string, n *spec.Node) {
	key := string(typ) + ":" + NameKey(text)
	if id = b.ents.byKey[key]; id != "" {
		return id, nil
	}
	id = b.newID(string(typ), firstWords(text, 8), key)
	b.ents.byKey[key] = id
	return id, b.create(id, typ, label)
}

// turnState is what one turn touches.
type turnState struct {
	turn     int
	t        spec.Turn
	touched  []string
	concepts []string
	speaker  string
}

func (ts *turnState) touch(id string) {
	if !slices.Contains(ts.touched, id) {
		ts.touched = append(ts.touched, id)
	}
}

// mention records that a node is mentioned at a turn.
func (b *Builder) mention(id string, turn int) {
	n := b.store.Node(id)
	if k := len(n.Mentions); k > 0 && n.Mentions[k-1] >= turn {
		if !slices.Contains(n.Mentions, turn) {
			n.Mentions = append(n.Mentions, turn)
			slices.Sort(n.Mentions)
		}
	} else {
		n.Mentions = append(n.Mentions, turn)
	}
	n.FirstMentioned, n.LastMentioned = n.Mentions[0], n.Mentions[len(n.Mentions)-1]
	if b.cur != nil && b.cur.turn == turn {
		b.cur.touch(id)
	}
}

// reinforce strengthens an edge by one observation worth step:
// s' = 1 − (1 − s)(1 − step).
func (b *Builder) reinforce(from, to string, rel spec.Relation, step float64) {
	old, _ := b.store.Strength(from, to, rel)
	b.store.Link(from, to, rel, 1-(1-old)*(1-step))
}

// apply puts what a turn says into the graph, and the sentences that
// carry most into the notes of the archive block.
func (b *Builder) apply(t spec.Turn, s classify.Signals) {
	ts := &turnState{turn: t.Turn, t: t}
	b.cur = ts
	defer func() { b.cur = nil }()
	if name := strings.TrimSpace(t.Speaker); name != "" && !strings.EqualFold(name, string(t.Role)) && t.Role != spec.RoleAssistant && t.Role != spec.RoleTool && t.Role != spec.RoleSystem {
		// A speaker named by their role ("User", as BEAM's chats are)
		// is no one by name: the user of a chat, not a person node.
		ts.speaker = b.speaker(name)
	}
	if s.Filler {
		return
	}
	if ts.speaker == "" && t.Role == spec.RoleUser {
		for _, e := range s.Entities {
			if key := b.entityKey(e.Kind, e.Text); e.Self && b.ents.byKey[key] == "" {
				// "I'm Christina": the user's name, in this turn and
				// the next, the first name alone too.
				b.ents.self[key] = true
				first, _, _ := strings.Cut(e.Text, " ")
				b.ents.self[b.entityKey(e.Kind, first)] = true
			}
		}
	}
	b.concepts(ts, s)
	if len(s.Options) > 0 {
		b.options = append(b.options, optionSet{turn: ts.turn, options: cloneAll(s.Options)})
	}
	for _, d := range s.Decisions {
		b.decision(ts, d)
	}
	for _, p := range s.Problems {
		b.problem(ts, p)
	}
	for _, so := range s.Solutions {
		b.solution(ts, so)
	}
	for _, f := range s.Facts {
		b.fact(ts, f)
	}
	var arts []string
	for _, a := range s.Artifacts {
		if b.code.Agent && a.Filename == "" {
			// In a coding agent's session the project's artifacts are its
			// files: a snippet in a plan, a command to run, an error
			// pasted, an edit of no file it names is part of its turn.
			continue
		}
		arts = append(arts, b.artifact(ts, a))
	}
	b.vault.turnArtifacts = append(b.vault.turnArtifacts[:0], arts...)
	b.vault.turnOfArtifacts = ts.turn
	b.coding(ts, s, arts)
	b.anchor(ts)
	for _, g := range s.Goals {
		b.goals = append(b.goals, goal{text: strings.Clone(g), turn: ts.turn})
	}
	for _, id := range ts.touched {
		info := b.info[id]
		info.cues += s.DecisionCues
		info.words += s.Words
	}
	b.notes(ts.turn, s)
}

// anchor links what the turn stated or wrote that no edge a document
// keeps links to anything (an artifact of an answer, a fact of no named
// thing) to the things the turn names: those its text names, or else the
// first few the turn named, as what it is about; an answer's artifact of a
// turn that names nothing, to the statements of the user's turn it
// answers. A map shows no orphan, and a context reaches it from its topic.
func (b *Builder) anchor(ts *turnState) {
	var stated []string
	for _, id := range ts.touched {
		n := b.store.Node(id)
		if n == nil || n.Type == spec.NodeConcept {
			continue
		}
		if ts.t.Role == spec.RoleUser && n.Type != spec.NodeArtifact {
			stated = append(stated, id)
		}
		if b.store.Strongest(id) >= b.cfg.MinEdgeStrength {
			continue
		}
		text := n.Label + " " + n.Description
		if st := b.vault.arts[n.ArtifactID]; n.Type == spec.NodeArtifact && st != nil {
			text += " " + st.latest
		}
		to := b.conceptsIn(ts, text)
		if len(to) == 0 {
			to = ts.concepts
		}
		for _, c := range to[:min(len(to), anchorsKept)] {
			b.store.Link(id, c, spec.RelAbout, aboutMentioned)
		}
		if len(to) == 0 && n.Type == spec.NodeArtifact && ts.t.Role != spec.RoleUser && ts.turn-b.lastAsked.turn <= answerWindow {
			// The code of an answer comes of what the user asked.
			for _, a := range b.lastAsked.ids[:min(len(b.lastAsked.ids), anchorsKept)] {
				b.store.Link(a, id, spec.RelResultedIn, resultedIn)
			}
		}
	}
	if ts.t.Role == spec.RoleUser {
		b.lastAsked.ids, b.lastAsked.turn = stated, ts.turn
	}
}

// answerWindow is how many turns after the user's statements an answer's
// artifact is taken to come of them.
const answerWindow = 3

// anchorsKept is the most things an anchored node is linked to.
const anchorsKept = 2

// notes gives the archive the sentences of a turn a block summary may
// quote.
func (b *Builder) notes(turn int, s classify.Signals) {
	for _, d := range s.Decisions {
		b.arch.note(turn, d.Sentence, noteDecision)
	}
	for _, p := range s.Problems {
		if p.Kind != "trace" {
			b.arch.note(turn, p.Summary, noteProblem)
		}
	}
	for _, so := range s.Solutions {
		b.arch.note(turn, so.Sentence, noteSolution)
	}
	for _, f := range s.Facts {
		b.arch.note(turn, f.Text, noteFact)
	}
	for _, g := range s.Goals {
		b.arch.note(turn, g, noteGoal)
	}
	for _, e := range s.Entities {
		if e.Kind == "name" {
			b.arch.note(turn, e.Sentence, noteName)
		}
	}
}

// concepts puts the turn's named things and recurring terms into the
// graph and links those mentioned together.
func (b *Builder) concepts(ts *turnState, s classify.Signals) {
	add := func(id string) {
		if id != "" && !slices.Contains(ts.concepts, id) {
			ts.concepts = append(ts.concepts, id)
		}
	}
	for _, w := range s.Lower {
		w = intern(w)
		b.ents.lower[w]++
		if s.Role != spec.RoleAssistant {
			b.ents.lowerOthers[w]++
		}
		if us := b.ents.lowerTurns[w]; len(us) < lowerTurnsKept {
			b.ents.lowerTurns[w] = append(us, ts.turn)
		}
	}
	capital := map[string]bool{}
	for _, e := range s.Entities {
		if e.Kind == "name" && !e.SentenceStart && !strings.Contains(e.Text, " ") && !capital[strings.ToLower(e.Text)] {
			w := intern(strings.ToLower(e.Text))
			capital[w] = true
			b.ents.capital[w]++
			if s.Role != spec.RoleAssistant {
				b.ents.capitalOthers[w]++
			}
		}
	}
	for _, e := range s.Entities {
		add(b.entity(e, ts.turn, s.Role == spec.RoleAssistant))
	}
	// Recurring phrases and lone words are no concepts: measured by the
	// labels of testdata/labels, a phrase lifted from talk ("stats
	// section", "measurable goals") is rarely a topic one would look up.
	limit := min(len(ts.concepts), coMentionLimit)
	for i := 0; i < limit; i++ {
		for j := i + 1; j < limit; j++ {
			a, c := ts.concepts[i], ts.concepts[j]
			if c < a {
				a, c = c, a
			}
			b.reinforce(a, c, spec.RelRelatedTo, coMention)
		}
	}
}

// conceptsIn returns the turn's concepts whose names occur in text.
func (b *Builder) conceptsIn(ts *turnState, text string) []string {
	lower := strings.ToLower(text)
	var out []string
	for _, id := range ts.concepts {
		for f := range b.info[id].forms {
			if f != "" && strings.Contains(lower, strings.ToLower(f)) {
				out = append(out, id)
				break
			}
		}
	}
	return out
}

// decision puts a decision into the graph: the node, what it supersedes,
// the concepts it decides about.
func (b *Builder) decision(ts *turnState, d classify.Decision) {
	outcome, alts := b.resolveOptions(d.Outcome, d.Alternatives, ts.turn)
	key := NameKey(outcome)
	if key == "" {
		return
	}
	id := b.decisionKeys[key]
	if id == "" {
		id = b.newID("decision", outcome, "decision:"+key)
		b.decisionKeys[key] = id
		n := b.create(id, spec.NodeDecision, capitalize(outcome))
		n.Outcome = strings.Clone(outcome)
		n.Description = strings.Clone(d.Sentence)
		n.Timestamp, n.ValidFrom = ts.t.Timestamp, ts.t.Timestamp
		b.info[id].outcomeKey = key
	}
	n := b.store.Node(id)
	n.ValidTo = time.Time{} // decided (again): valid from here on
	if n.Rationale == "" {
		n.Rationale = strings.Clone(d.Rationale)
	}
	for _, a := range alts {
		if a != "" && !strings.EqualFold(a, outcome) && !hasAlternative(n.Alternatives, a) {
			n.Alternatives = append(n.Alternatives, spec.Alternative{Option: strings.Clone(a)})
		}
	}
	b.mention(id, ts.turn)
	// What this decision replaces or rejects, decided before, is
	// superseded: closed, not deleted.
	replaced := false
	for _, old := range b.decisionIDs() {
		o := b.store.Node(old)
		if old == id || !o.ValidTo.IsZero() {
			continue
		}
		for _, a := range append([]string{d.Replaces}, alts...) {
			if a != "" && sameThing(b.info[old].outcomeKey, NameKey(a)) {
				b.supersede(id, old, ts.t.Timestamp)
				replaced = replaced || strings.EqualFold(a, d.Replaces)
				break
			}
		}
	}
	if d.Replaces != "" && !replaced && properName(d.Replaces) {
		// "We switched from X to Y": X was decided before this memory saw
		// it, when X is a thing's name ("Redux", "`RawGestureDetector`");
		// "replace hardcoded values with constants" decided no values.
		okey := NameKey(d.Replaces)
		oid := b.decisionKeys[okey]
		if oid == "" {
			oid = b.newID("decision", d.Replaces, "decision:"+okey)
			b.decisionKeys[okey] = oid
			o := b.create(oid, spec.NodeDecision, capitalize(d.Replaces)+" (before "+outcome+")")
			o.Outcome = strings.Clone(d.Replaces)
			o.Description = "Replaced: " + d.Sentence
			o.Confidence = 0.5
			o.Metadata = map[string]any{"inferred": true}
			o.Timestamp, o.ValidFrom = ts.t.Timestamp, ts.t.Timestamp
			b.info[oid].outcomeKey = okey
			b.mention(oid, ts.turn)
		}
		if oid != id {
			b.supersede(id, oid, ts.t.Timestamp)
		}
	}
	concepts := b.conceptsIn(ts, d.Sentence)
	for _, c := range concepts {
		b.store.Link(c, id, spec.RelRequiresDecision, requiresDecision)
	}
	// A decision made because of an open problem about the same thing
	// solves it ("we switched from SQLite because it kept locking").
	if d.Rationale != "" {
		for k := len(b.openProblems) - 1; k >= 0; k-- {
			p := b.openProblems[k]
			if ts.turn-b.store.Node(p).LastMentioned > problemWindow || !b.sharesConcept(p, concepts) {
				continue
			}
			b.store.Link(id, p, spec.RelSolves, solves)
			b.openProblems = slices.Delete(b.openProblems, k, k+1)
		}
	}
	b.lastDecision.id, b.lastDecision.turn = id, ts.turn
}

// decisionIDs lists the decisions in id order.
func (b *Builder) decisionIDs() []string {
	ids := make([]string, 0, len(b.decisionKeys))
	for _, id := range b.decisionKeys {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// sharesConcept reports whether a node links to one of concepts.
func (b *Builder) sharesConcept(id string, concepts []string) bool {
	for _, c := range concepts {
		if b.store.Relations(id, c) != nil || b.store.Relations(c, id) != nil {
			return true
		}
	}
	return false
}

// resolveOptions expands an outcome and alternatives against the options
// the recent turns weighed: "Elements" after "Stripe Checkout or Stripe
// Elements?" is "Stripe Elements", and "Stripe Checkout" is an alternative.
func (b *Builder) resolveOptions(outcome string, alts []string, turn int) (string, []string) {
	alts = slices.Clone(alts)
	for i := len(b.options) - 1; i >= 0; i-- {
		set := b.options[i]
		if turn-set.turn > optionWindow {
			break
		}
		match := ""
		for _, o := range set.options {
			if sameThing(NameKey(o), NameKey(outcome)) {
				match = o
				break
			}
		}
		if match == "" {
			continue
		}
		if len(match) > len(outcome) {
			outcome = match
		}
		for _, o := range set.options {
			if o == match {
				continue
			}
			known := false
			for k, a := range alts {
				if sameThing(NameKey(a), NameKey(o)) {
					if len(o) > len(a) {
						alts[k] = o
					}
					known = true
				}
			}
			if !known {
				alts = append(alts, o)
			}
		}
		break
	}
	return outcome, alts
}

// sameThing reports whether two keys name the same thing: equal, or one
// the other's last or first word(s) ("elements", "stripe elements").
func sameThing(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if a == b {
		return true
	}
	short, long := a, b
	if len(short) > len(long) {
		short, long = long, short
	}
	return len(short) >= 3 && (strings.HasSuffix(long, " "+short) || strings.HasPrefix(long, short+" "))
}

func hasAlternative(as []spec.Alternative, o string) bool {
	for _, a := range as {
		if strings.EqualFold(a.Option, o) {
			return true
		}
	}
	return false
}

// NameKey is how two names (or other short texts) are compared: without case, and with any run
// of characters other than letters and digits as one space ("Node.js"
// and "node js" are one name).
func NameKey(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// problem puts a problem into the graph and opens it.
func (b *Builder) problem(ts *turnState, p classify.Problem) {
	key := p.Summary
	if p.Kind == "trace" {
		// The same error met again, at another place of its file: the
		// same problem; in another file, another.
		key = classify.MessageKey(key) + " @" + classify.PlaceFile(key)
	}
	id, n := b.statement(spec.NodeProblem, key, clipLabel(p.Summary))
	if n != nil {
		n.Description = strings.Clone(p.Summary)
		md := map[string]any{"kind": p.Kind}
		if p.Code != "" {
			md["code"] = strings.Clone(p.Code)
		}
		if p.Setup {
			md["setup"] = true // the agent's own: no change of the code fixes it
		}
		n.Metadata = md
	}
	b.mention(id, ts.turn)
	if !slices.Contains(b.openProblems, id) {
		b.openProblems = append(b.openProblems, id)
	}
	for _, c := range b.conceptsIn(ts, p.Summary) {
		b.store.Link(id, c, spec.RelAbout, aboutMentioned)
	}
}

// solution puts a solution into the graph and links it to the problem it
// solves: the latest open one of the last turns.
func (b *Builder) solution(ts *turnState, so classify.Solution) {
	if so.Confirmation && !b.problemOpen(ts.turn) {
		return // "it works" of nothing that was broken
	}
	label, desc := so.Sentence, so.Sentence
	if so.Confirmation {
		// "That fixed it": the fix is what the assistant said just before.
		if fix, cause := b.previousAssistant(ts.turn); fix != "" {
			// The description starts with the fix, as a context shows it,
			// and says how it was confirmed and why it works, for search.
			label = fix
			desc = strings.TrimSpace(fix + " (confirmed: " + so.Sentence + ") " + cause)
		}
	}
	id, n := b.statement(spec.NodeSolution, label, clipLabel(label))
	if n != nil {
		n.Description = strings.Clone(desc)
		n.Confidence = 0.7
	}
	b.mention(id, ts.turn)
	for k := len(b.openProblems) - 1; k >= 0; k-- {
		p := b.openProblems[k]
		if ts.turn-b.store.Node(p).LastMentioned > problemWindow {
			continue
		}
		b.store.Link(id, p, spec.RelSolves, solves)
		b.openProblems = slices.Delete(b.openProblems, k, k+1)
		break
	}
	if so.Confirmation && b.vault.turnOfArtifacts >= ts.turn-2 {
		for _, a := range b.vault.turnArtifacts {
			b.store.Link(a, id, spec.RelImplements, implements)
			b.info[a].artifactRel = true
			b.info[id].artifactRel = true
		}
	}
}

// problemOpen reports whether a problem is open that a fix at turn may
// solve: reported within problemWindow turns before it.
func (b *Builder) problemOpen(turn int) bool {
	for _, p := range b.openProblems {
		if turn-b.store.Node(p).LastMentioned <= problemWindow {
			return true
		}
	}
	return false
}

// previousAssistant returns the fix (classify.Fix) of the last assistant
// turn before turn, within two turns, and the rest of its prose.
func (b *Builder) previousAssistant(turn int) (fix, rest string) {
	for i := len(b.recent) - 2; i >= 0; i-- {
		t := b.recent[i]
		if turn-t.Turn > 2 {
			break
		}
		if t.Role == spec.RoleAssistant {
			return classify.Fix(t.Content)
		}
	}
	return "", ""
}

// topics links the facts that say the same thing of a person's life: a
// fact shares a topic with the facts before it that said its word ("I
// adopted two turtles", "I love watching my turtles eat"), so that a
// question that finds one reaches the others. The word is no concept of
// its own: alone, it is too common to look up (measured by the labels of
// testdata/labels: 2 of 14 such words were topics one would look up).
func (b *Builder) topics(fact, sentence string) {
	for _, w := range b.an.Topics(sentence) {
		terms := b.an.Terms(w)
		if len(terms) != 1 {
			continue
		}
		facts := b.ents.topics[terms[0]]
		for _, other := range facts {
			if other != fact && b.store.Node(other) != nil {
				b.reinforce(fact, other, spec.RelRelatedTo, sameTopic)
			}
		}
		if !slices.Contains(facts, fact) {
			if len(facts) == topicFactsKept {
				facts = facts[1:]
			}
			b.ents.topics[terms[0]] = append(facts, fact)
		}
	}
}

// exclusivePredicates are what a person can be only one of at a time: a
// newer fact with the same one supersedes the older.
var exclusivePredicates = []string{"lives in", "lives near", "is from", "works at", "works as", "works for", "name is", "is married", "is single", "is engaged", "is dating", "is divorced", "is called"}

// fact puts a fact about a person into the graph.
func (b *Builder) fact(ts *turnState, f classify.Fact) {
	id, n := b.statement(spec.NodeFact, f.Text, f.Text)
	if n != nil {
		n.Description = strings.Clone(f.Sentence)
		n.Category = f.Category
		n.Kind = spec.Kind(f.Kind)
		n.Scope = "user"
		if f.Subject != "User" {
			n.Scope = "user:" + slug(f.Subject, 60)
		}
		n.Source = spec.SourceAI
		if f.Remember {
			n.Source = spec.SourceUser
		}
		n.CreatedBy = "smg"
		n.Confidence = 0.9
		if f.Vague {
			n.Confidence = 0.6
		}
		n.ValidFrom = ts.t.Timestamp
		md := map[string]any{}
		if f.Specific {
			md["specific"] = true
		}
		if f.Vague {
			md["vague"] = true
		}
		if len(f.Dates) > 0 {
			var ds []any
			for _, d := range f.Dates {
				ds = append(ds, map[string]any{"text": d.Text, "date": d.From.Format("2006-01-02"), "granularity": d.Granularity.String()})
			}
			md["dates"] = ds
		}
		if len(md) > 0 {
			n.Metadata = md
		}
		info := b.info[id]
		info.predicate = predicateKey(n.Scope, f.Text, f.Subject)
		if info.predicate != "" {
			b.factPreds[info.predicate] = append(b.factPreds[info.predicate], id)
		}
	}
	b.mention(id, ts.turn)
	if ts.speaker != "" && f.Subject == ts.t.Speaker {
		b.store.Link(id, ts.speaker, spec.RelAbout, about)
	}
	for _, c := range b.conceptsIn(ts, f.Sentence) {
		if c != ts.speaker {
			b.store.Link(id, c, spec.RelAbout, aboutMentioned)
		}
	}
	b.topics(id, f.Sentence)
	if n != nil {
		b.reconcile(id, ts.turn)
	}
	// A newer fact of the same exclusive predicate supersedes the older.
	if p := b.info[id].predicate; p != "" {
		for _, old := range b.factPreds[p] {
			o := b.store.Node(old)
			if old == id || !o.ValidTo.IsZero() {
				continue
			}
			b.supersede(id, old, ts.t.Timestamp)
		}
	}
}

// predicateKey files a fact by what its subject can be only one of at a
// time: its scope, its subject (but for the user, whom a scope's facts are
// about by default) and its exclusive predicate ("user\x00lives in",
// "user\x00ana lives in"); "" when it has none. subject is the fact's
// subject, or "" to read it from the text: "User", or the name it starts
// with ("Ana lives in Lisbon").
func predicateKey(scope, text, subject string) string {
	if subject == "" {
		subject = factSubject(text)
	}
	p := predicateOf(text, subject)
	if p == "" {
		return ""
	}
	if subject != FactSubject {
		p = strings.ToLower(subject) + " " + p
	}
	return scope + "\x00" + p
}

// factSubject reads the subject of a fact in the third person: "User", or
// the capitalized words it starts with, up to three ("Ana", "Dana Reyes").
func factSubject(text string) string {
	ws := strings.Fields(text)
	n := 0
	for n < len(ws) && n < 3 && properName(ws[n]) && !strings.HasSuffix(ws[n], "'s") {
		n++
	}
	if n == 0 || n == len(ws) {
		return FactSubject
	}
	return strings.Join(ws[:n], " ")
}

// predicateOf returns the exclusive predicate of a fact's text about
// subject, if it has one ("lives in").
func predicateOf(text, subject string) string {
	rest := strings.ToLower(strings.TrimPrefix(text, subject))
	rest = strings.TrimPrefix(strings.TrimSpace(rest), "'s ")
	for _, p := range exclusivePredicates {
		if strings.HasPrefix(rest, p+" ") || rest == p {
			return p
		}
	}
	// A preference for a purpose: one at a time, for the same purpose
	// ("prefers Go for all backend work", then "prefers Rust for all
	// backend work").
	if m := preferenceFor.FindStringSubmatch(strings.TrimSuffix(rest, ".")); m != nil {
		return "prefers for " + NameKey(m[1])
	}
	return ""
}

// preferenceFor is a preference of one thing for a purpose, in the third
// person, lower case: its submatch is the purpose.
var preferenceFor = regexp.MustCompile(`^(?:prefers|favou?rs|would rather use|likes best)\s+(?:using\s+|to use\s+)?\S+(?:\s+\S+)?\s+for\s+(.+)$`)

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}

// maxLabel is how long a label is, in bytes, before clipLabel cuts it.
const maxLabel = classify.MaxLabel

// clipLabel shortens a sentence to a label of at most maxLabel bytes.
func clipLabel(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxLabel {
		return s
	}
	cut := strings.LastIndexByte(s[:maxLabel], ' ')
	if cut < maxLabel/2 {
		cut = maxLabel
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
	}
	return strings.TrimSpace(s[:cut]) + "…"
}

// properName reports whether s starts as a name does: a capital letter or
// code.
func properName(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r) || r == '`'
}
