package graph

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/smg-memory/smg/classify"
	"github.com/smg-memory/smg/spec"
)

// Updates and contradictions. A fact that says a value has changed ("the
// first sprint now targets completion by March 31") supersedes the current
// fact of its scope that gave the value before ("the first sprint ends on
// March 29"). A fact that denies what a current one says ("User has never
// written any Flask routes" after "User implemented the homepage route with
// Flask") is kept, and the two are linked as contradicting: both stay
// current, in conflict, until one of them is superseded or forgotten.
//
// A fact found in a turn often joins several clauses ("User is trying to
// update the timeline, and the first sprint now targets …"). What a
// statement is about is read from the clause that carries its cue, as its
// terms, each weighed by how rare it is among the current facts of the
// scope; another fact is about the same thing when one of its clauses holds
// most of that weight. An update must also give another value of the same
// kind (a date for a date, a percentage for a percentage, minutes for
// minutes) than the clause it replaces.

// contradicts is the strength of a contradicts edge.
const contradicts = 1.0

// sameShare is the least share of a cue clause's weight that a clause of
// another fact must hold to be about the same thing. It must also hold
// updateShared of an update's terms, denialShared of a denial's: an update
// is the more often said in passing, among other words.
const (
	sameShare    = 0.5
	updateShared = 3
	denialShared = 2
)

// An update's clause often says more than what changed ("adjusted their
// relocation budget to $3,500 to cover the visa fees"). What changed is
// named before its new value: the clause up to the end of its cue, its
// subject and the object of its verb ("the conference paper editing has
// been extended through", "moving the Zoom call with the creative director
// to"). A clause that holds focusShare of the weight of those terms, and
// at least focusShared of them, is about the same thing too.
const (
	focusShare  = 0.75
	focusShared = 2
)

// A clause that gives a count without a cue of change updates one that
// counts the same thing otherwise, holds restateShare of its weight and
// restateShared of its terms: "User has gathered 22 peer-reviewed articles
// from JSTOR and Google Scholar" after "a deadline to gather 15
// peer-reviewed articles from JSTOR and Google Scholar".
const (
	restateShare  = 0.7
	restateShared = 4
)

var (
	// denialCue denies an experience: "has never written", "never
	// met", "hasn't ever used".
	denialCue = regexp.MustCompile(`(?i)\b(?:never|(?:has|have|had|did)(?:n't|n’t| not) ever|not once)\b`)
	// clauseEnd ends a clause of a fact: a comma or semicolon before a
	// conjunction or a relative ("…, and", "…, but", "…, which"), or a
	// sentence's end.
	clauseEnd = regexp.MustCompile(`(?i)(?:[,;]\s+(?:and|but|so|which|who|while|because|since|as|although|though|yet|or)\b|[;.!?](?:\s|$))`)
	// clauseStart starts a clause: after a boundary of clauseEnd (its
	// submatch: a relative), or after a subordinator.
	clauseStart = regexp.MustCompile(`(?i)(?:[,;]\s+(?:(which|who)|and|but|so|while|because|since|as|although|though|yet|or)\b|[;.!?](?:\s|$)|\b(?:that|since|because|although|though|while|especially|considering)\s)`)
)

// clauseAt is the clause of text that holds text[at[0]:at[1]]: from the
// last clause boundary or subordinator before it ("…, and", "…, but",
// "that", "since") to the next boundary after it. A relative clause ("…,
// which has now reached 165") keeps the clause before it, which names what
// it is about.
func clauseAt(text string, at []int) string {
	start := 0
	for _, e := range clauseStart.FindAllStringSubmatchIndex(text[:at[0]], -1) {
		if e[2] < 0 { // not a relative
			start = e[1]
		}
	}
	end := len(text)
	if e := clauseEnd.FindStringIndex(text[at[1]:]); e != nil {
		end = at[1] + e[0]
	}
	return strings.TrimSpace(text[start:end])
}

// cueClause is the clause of text that holds the first match of cue, or ""
// when none does.
func cueClause(text string, cue *regexp.Regexp) string {
	if loc := cue.FindStringIndex(text); loc != nil {
		return clauseAt(text, loc)
	}
	return ""
}

// updateClause is the first clause of text whose cue of change is followed
// by a value: "User has added two new projects, so now they have 10 cards"
// gives "now they have 10 cards"; "" when none is.
func updateClause(text string) string {
	if !strings.ContainsAny(text, "0123456789") {
		return "" // every value holds a digit
	}
	for _, loc := range classify.UpdateCue.FindAllStringIndex(text, -1) {
		if c := clauseAt(text, loc); len(classify.Quantities(classify.NewValues(c))) > 0 {
			return c
		}
	}
	return ""
}

// holds tells whether qs give the value of q, of a kind alike.
func holds(qs []classify.Quantity, q classify.Quantity) bool {
	return slices.ContainsFunc(qs, func(p classify.Quantity) bool {
		return p.Value == q.Value && classify.SameKind(p.Kind, q.Kind)
	})
}

// counted tells whether q counts something named.
func counted(q classify.Quantity) bool { return strings.HasPrefix(q.Kind, "count:") }

// countedIn tells whether some fact of others names a thing that a clause
// of restated counts: none, and no count can be said again.
func countedIn(restated, others []string, b *Builder) bool {
	var nouns []string
	for _, c := range restated {
		for _, q := range classify.Quantities(c) {
			if counted(q) {
				nouns = append(nouns, strings.TrimPrefix(q.Kind, "count:"))
			}
		}
	}
	for _, o := range others {
		text := strings.ToLower(wholeText(b.store.Node(o)))
		for _, w := range nouns {
			if strings.Contains(text, w) {
				return true
			}
		}
	}
	return false
}

// sameCount tells whether some count of now counts the same thing as one
// of before, with another value.
func sameCount(now, before []classify.Quantity) bool {
	for _, q := range now {
		for _, p := range before {
			if counted(q) && q.Kind == p.Kind && q.Value != p.Value {
				return true
			}
		}
	}
	return false
}

// whatChanged is the part of an update's clause that names what changed:
// the clause up to the end of its cue.
func whatChanged(clause string) string {
	loc := classify.UpdateCue.FindStringIndex(clause)
	if loc == nil {
		return ""
	}
	start := 0
	for _, m := range bareConjunction.FindAllStringIndex(clause[:loc[0]], -1) {
		start = m[1]
	}
	return clause[start:loc[1]]
}

// pronounSubject is a clause whose subject is a pronoun: what it is
// about was named before it.
var pronounSubject = regexp.MustCompile(`(?i)^(?:(?:and|but|so)\s+)?(?:it|this|that)(?:['’]s|\s)`)

// bareConjunction joins two clauses without a comma: "User is considering a
// job relocation and they have adjusted their relocation budget to".
var bareConjunction = regexp.MustCompile(`(?i)\s(?:and|but|so)\s+(?:they|he|she|i|we|user)\s`)

// fromValue is the old value an update may give before its new one: "from
// 3 PM to 5 PM", "from 65% to 82%".
var fromValue = regexp.MustCompile(`(?i)\bfrom\s+(\S+(?:\s+\S+){0,2}?)\s+to\b`)

// oldValue is the value an update's clause says changed, when it says
// ("rescheduled from 3 PM to 5 PM"): the old fact must give it.
func oldValue(clause string) (classify.Quantity, bool) {
	v := classify.NewValues(clause)
	if m := fromValue.FindStringSubmatch(v); m != nil {
		if qs := classify.Quantities(m[1]); len(qs) > 0 {
			return qs[0], true
		}
	}
	return classify.Quantity{}, false
}

// changedValue tells whether some quantity of now is of a kind that some of
// before has, with another value.
func changedValue(now, before []classify.Quantity) bool {
	for _, q := range now {
		for _, p := range before {
			if classify.SameKind(q.Kind, p.Kind) && q.Value != p.Value && !holds(before, q) {
				return true
			}
		}
	}
	return false
}

// clauses are the clauses of text, each with the clause before it when it
// is a relative.
func clauses(text string) []string {
	var out []string
	start := 0
	for _, e := range clauseEnd.FindAllStringIndex(text, -1) {
		out = append(out, text[start:e[0]])
		start = e[0]
	}
	out = append(out, text[start:])
	for i := range out {
		if i > 0 && relative.MatchString(out[i]) {
			out[i] = out[i-1] + out[i]
		}
	}
	return out
}

var relative = regexp.MustCompile(`(?i)^[,;]\s+(?:which|who)\b`)

// topicTerms are what text says something about: the terms of the
// statement it makes (without its subject, the words of liking and
// negation, and the generic nouns), without numbers and without the words
// of the cues (a denial's, and the verbs of change: an update's cue holds
// what changed, "adjusted their relocation budget to").
func (b *Builder) topicTerms(text string) []string {
	text = denialCue.ReplaceAllString(text, " ")
	var out []string
	for _, t := range b.an.Statement(text, FactSubject).Terms {
		if !strings.ContainsAny(t, "0123456789") && !cueTerms[t] {
			out = append(out, t)
		}
	}
	return out
}

// cueTerms are terms that say how a fact is known, wanted or changed, not
// what it is about.
var cueTerms = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range strings.Fields(`now new recent just got get notic realiz realis ensur sure make try actual current alreadi
		still need wonder know understand help worri
		reach growth grow grown increas decreas improv reduc chang adjust move extend updat shift upgrad shorten lengthen doubl tripl boost cut trim
		expand drop rais lower delai reschedul postpon revis bump switch`) {
		m[t] = true
	}
	return m
}()

// A sameness weighs the terms of the current facts of a scope by how rare
// they are among them, and finds the fact one of whose clauses is about
// what a clause is about.
type sameness struct {
	b      *Builder
	n      int // the facts the weights are counted over
	facts  []string
	clause [][]string              // of each fact, its clauses
	terms  [][][]string            // of each fact, the topic terms of each clause
	values [][][]classify.Quantity // of each fact, the values of each clause
	df     map[string]int
}

func (b *Builder) sameness(facts []string) *sameness {
	s := &sameness{b: b, n: len(facts), facts: facts, df: map[string]int{}}
	for _, id := range facts {
		ft := b.topicOf(id)
		seen := map[string]bool{}
		for _, ts := range ft.terms {
			for _, t := range ts {
				if !seen[t] {
					seen[t] = true
					s.df[t]++
				}
			}
		}
		s.clause = append(s.clause, ft.clauses)
		s.terms = append(s.terms, ft.terms)
		s.values = append(s.values, ft.values)
	}
	return s
}

// A factTopic is what a fact's clauses are about, read once: its clauses,
// their topic terms and their values, and the clause of its denial, if it
// denies.
type factTopic struct {
	clauses []string
	terms   [][]string
	values  [][]classify.Quantity
	denial  string
}

// topicOf is what the clauses of the fact id are about.
func (b *Builder) topicOf(id string) *factTopic {
	info := b.info[id]
	if info.topic == nil {
		text := wholeText(b.store.Node(id))
		ft := &factTopic{clauses: clauses(text), denial: cueClause(text, denialCue)}
		for _, c := range ft.clauses {
			ft.terms = append(ft.terms, b.topicTerms(c))
			var v []classify.Quantity
			if strings.ContainsAny(c, "0123456789") { // every value holds a digit
				v = classify.Quantities(c)
			}
			ft.values = append(ft.values, v)
		}
		info.topic = ft
	}
	return info.topic
}

func (s *sameness) weight(t string) float64 {
	return math.Log(1 + float64(s.n+1)/float64(1+s.df[t]))
}

// best is the fact one of whose clauses, accepted by keep (given the fact's
// index, the clause and its values), holds the largest share of the weight
// of clause's topic terms, at least share and least of them; "" when none
// does.
func (s *sameness) best(clause string, least int, share float64, keep func(i int, clause string, values []classify.Quantity) bool) string {
	// Of the clause's terms, those no fact has tell nothing of which fact
	// it is about.
	ct := slices.DeleteFunc(s.b.topicTerms(clause), func(t string) bool { return s.df[t] == 0 })
	total := 0.0
	for _, t := range ct {
		total += s.weight(t)
	}
	if total == 0 {
		return ""
	}
	pick, top := "", share
	for i := range s.facts {
		for j, c := range s.clause[i] {
			shared, w := 0, 0.0
			for _, t := range ct {
				if slices.Contains(s.terms[i][j], t) {
					shared++
					w += s.weight(t)
				}
			}
			if shared >= least && w/total >= top && keep(i, c, s.values[i][j]) {
				pick, top = s.facts[i], w/total
			}
		}
	}
	return pick
}

// intention says that a clause is a wish, a plan or a goal, not something
// done.
var intention = regexp.MustCompile(`(?i)\b(?:wants? to|wanted to|plans? to|planning|goal|hopes? to|hoping|going to|will|would like|invited|aims? to|aiming|considering|thinking (?:of|about))\b`)

// accomplished tells whether a clause may say something done: it is no
// wish, plan or goal. (Requiring a verb in the past too turned away most of
// beam-dev's contradictions, said as "I'm trying to …, and I've …".)
func accomplished(clause string) bool {
	return !intention.MatchString(clause)
}

// wholeText is the whole text of a fact: its label, or, when the label was
// cut short, its description (the sentence it was found in, or its text
// before the label cut it).
func wholeText(n *spec.Node) string {
	if strings.HasSuffix(n.Label, "…") && n.Description != "" {
		return n.Description
	}
	return n.Label
}

// reconcile links the fact id, just found at turn, to the current facts of
// its scope found before that it updates or contradicts. A denial
// contradicts only what was said done before it ("User has submitted the
// letter"), not a wish, a plan or a goal ("User wants to submit the
// letter"), and not the same words said again; what is said done after a
// denial is progress since ("never completed a coin toss problem", then
// "improved by 20% on coin toss problems"), not a contradiction.
func (b *Builder) reconcile(id string, turn int) {
	n := b.store.Node(id)
	text := wholeText(n)
	var qs []classify.Quantity // the new values an update gives
	update := updateClause(text)
	if update != "" {
		qs = classify.Quantities(classify.NewValues(update))
	}
	denial := cueClause(text, denialCue)
	var restated []string // without a cue: the clauses that count something
	if update == "" && strings.ContainsAny(text, "0123456789") {
		for _, c := range clauses(text) {
			if strings.ContainsAny(c, "0123456789") && !denialCue.MatchString(c) && slices.ContainsFunc(classify.Quantities(c), counted) {
				restated = append(restated, c)
			}
		}
	}
	if len(qs) == 0 && denial == "" && len(restated) == 0 {
		return
	}
	var others []string
	for _, o := range b.store.IDs() {
		on := b.store.Node(o)
		if o != id && on.Type == spec.NodeFact && on.Scope == n.Scope && on.ValidTo.IsZero() && on.FirstMentioned < turn {
			others = append(others, o)
		}
	}
	if len(others) == 0 || len(qs) == 0 && denial == "" && !countedIn(restated, others, b) {
		return
	}
	s := b.sameness(others)
	if len(qs) > 0 && pronounSubject.MatchString(update) {
		// "…the Zoom meeting with Professor Danielle, and it's
		// rescheduled to March 22": what "it" is was named before.
		if i := strings.Index(text, update); i > 0 {
			update = text[:i+len(update)]
		}
	}
	if len(qs) > 0 {
		was, said := oldValue(update)
		keep := func(_ int, c string, cq []classify.Quantity) bool {
			return !denialCue.MatchString(c) && changedValue(qs, cq) && (!said || holds(cq, was))
		}
		old := s.best(update, updateShared, sameShare, keep)
		if old == "" {
			old = s.best(whatChanged(update), focusShared, focusShare, keep)
		}
		if old == "" && said {
			// The old value said and found is evidence enough: one
			// term of what changed will do.
			old = s.best(whatChanged(update), 1, focusShare, keep)
		}
		if old == "" {
			// So is a count of the same thing ("now 10 cards" after
			// "a gallery with 8 cards"), with half the clause's weight.
			old = s.best(update, 1, sameShare, func(i int, c string, cq []classify.Quantity) bool {
				return keep(i, c, cq) && sameCount(qs, cq)
			})
		}
		if old != "" {
			b.supersede(id, old, n.ValidFrom)
		}
	}
	for _, c := range restated {
		// A value said again of the same thing, without a cue, is an
		// update when the clauses agree on nearly all else.
		cq := classify.Quantities(c)
		old := s.best(c, restateShared, restateShare, func(_ int, o string, oq []classify.Quantity) bool {
			return !denialCue.MatchString(o) && sameCount(cq, oq)
		})
		if old != "" {
			b.supersede(id, old, n.ValidFrom)
			break
		}
	}
	if denial != "" {
		st := b.statementOf(id)
		old := s.best(denial, denialShared, sameShare, func(i int, c string, _ []classify.Quantity) bool {
			return b.topicOf(others[i]).denial == "" && accomplished(c) &&
				classify.Similarity(st, b.statementOf(others[i])) < DuplicateSimilarity
		})
		if old != "" {
			b.store.Link(id, old, spec.RelContradicts, contradicts)
		}
	}
}

// supersede ends the validity of the node old at, and links id to it as
// what superseded it.
func (b *Builder) supersede(id, old string, at time.Time) {
	b.store.Node(old).ValidTo = at
	b.store.Link(id, old, spec.RelSupersedes, supersedes)
}

// Conflicts are, for each current node of doc in conflict, the current
// nodes a contradicts edge links it to, either way, by id and sorted: what
// the memory holds in conflict until a person says which holds (spec
// §6.1).
func Conflicts(doc *spec.Document) map[string][]string {
	current := map[string]bool{}
	for _, n := range doc.SemanticGraph.Nodes {
		current[n.ID] = n.ValidTo.IsZero()
	}
	out := map[string][]string{}
	for _, e := range doc.SemanticGraph.Edges {
		if e.Relation != spec.RelContradicts || e.From == e.To || !current[e.From] || !current[e.To] {
			continue
		}
		for _, p := range [][2]string{{e.From, e.To}, {e.To, e.From}} {
			if !slices.Contains(out[p[0]], p[1]) {
				out[p[0]] = append(out[p[0]], p[1])
			}
		}
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}
