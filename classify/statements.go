package classify

import (
	_ "embed"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/smg-memory/smg/classify/linear"
)

// What a user of an assistant says of themselves, their work and their
// wishes is what a memory of the chat keeps: a sentence at a time, the
// sentences a person would recognise in a list of what the memory knows
// about them (issue 36). Which sentences those are is a judgement the
// rules of facts make too narrowly (a third of what a project chat's user
// planted in it): a linear model over the sentence's words
// (statements.model) makes it, and rules make the rest: the kind of item,
// the third person, what is cut (a request to the assistant, a pointer to
// code), what is refused (a question, a pronoun whose referent is in
// another sentence, a fragment).

// A Kind of item a user's statement is, beside its fact category.
const (
	// KindInstruction: a standing instruction to the assistant ("Always
	// include encryption details when I ask about privacy").
	KindInstruction = "instruction"
	// KindGoal: what the user wants to achieve.
	KindGoal = "goal"
	// KindRequest: what the user asked the assistant.
	KindRequest = "request"
)

//go:embed statements.model
var statementsModel []byte

// StatementModel is the built-in model of which sentences of a user's turn
// a memory keeps: trained by `smg-bench train-statements` on the user
// sentences of the development chats that say what their plans planted
// (statements.md says how).
var StatementModel = sync.OnceValue(func() *linear.Model {
	m := new(linear.Model)
	if err := m.UnmarshalBinary(statementsModel); err != nil {
		// It is compiled in: not reading it is a build error.
		panic("classify: statements.model: " + err.Error())
	}
	return m
})

// Options tune an Analyzer.
type Options struct {
	// Statements judges which sentences of a user's turn to keep
	// (StatementModel when nil).
	Statements *linear.Model
}

// keepStatement is the probability above which a sentence is kept.
const keepStatement = 0.5

// Sentences are the sentences of text's prose, code aside, as the
// statement layer reads them: what a model of statements is trained on.
func Sentences(text string) []string {
	var out []string
	for _, s := range sentences(proseOf(text)) {
		if t := cleanSentence(s.text); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// proseOf is text without its fenced code.
func proseOf(text string) string {
	var b strings.Builder
	for _, g := range segments(text) {
		if !g.code {
			b.WriteString(g.text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// cleanSentence is a sentence without the marks it may end with (BEAM's
// "->-> 1,1") and its lead-in words, or "" when fewer than three words
// are left.
func cleanSentence(s string) string {
	s = strings.TrimSpace(trailingMarks.ReplaceAllString(s, ""))
	s = stripLead(stripListMark(s))
	if countWords(s) < 3 {
		return ""
	}
	return s
}

// StatementFeatures are what a model of statements reads of a sentence:
// its shape, not its topic. Each word is itself when it is a word of the
// grammar or a cue (a pronoun, an auxiliary, a preposition, a verb of
// wanting, deciding, liking…), and else a class of its form (a word in
// lower case, one with a capital, a number, a name of code), so that a
// model trained on some chats reads another topic as it read theirs: its
// words alone and in pairs, its first three, whether it asks, holds a
// number or a name, starts in the first person, and its length.
func StatementFeatures(sentence string) []string {
	raw, _ := words(sentence)
	ws := make([]string, len(raw))
	names, digits := false, false
	for i, w := range raw {
		ws[i] = wordClass(w, i)
		names = names || ws[i] == "<Name>"
		digits = digits || ws[i] == "<9>"
	}
	out := make([]string, 0, 2*len(ws)+10)
	seen := map[string]bool{}
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	// Each feature once: what a sentence says, not how long it is.
	for i, w := range ws {
		add("w:" + w)
		if i > 0 {
			add("b:" + ws[i-1] + " " + w)
		}
	}
	for n := 1; n <= min(3, len(ws)); n++ {
		out = append(out, "f:"+strings.Join(ws[:n], " "))
	}
	t := strings.TrimSpace(sentence)
	switch {
	case strings.HasSuffix(t, "?"):
		out = append(out, "ask")
	case strings.HasSuffix(t, ":"):
		out = append(out, "points")
	}
	if digits {
		out = append(out, "digit")
	}
	if names {
		out = append(out, "name")
	}
	if firstPerson.MatchString(t) {
		out = append(out, "first-person")
	}
	out = append(out, "len:"+string(rune('a'+min(len(ws)/5, 10))))
	return out
}

// wordClass is what a model of statements reads of the i-th word w of a
// sentence: the word in lower case when it is one of grammarWords, else its
// class: "<9>" a number, "<code>" a name of code or a file, "<Name>" a
// capitalized word past the first, "<x>" another word.
func wordClass(w string, i int) string {
	lw := strings.ToLower(w)
	switch {
	case grammarWords[lw]:
		return lw
	case strings.IndexFunc(w, unicode.IsDigit) >= 0:
		return "<9>"
	case strings.ContainsAny(w, "._/\\") || strings.IndexFunc(w[1:], unicode.IsUpper) >= 0 && strings.IndexFunc(w, unicode.IsLower) >= 0:
		return "<code>"
	case i > 0 && unicode.IsUpper([]rune(w)[0]):
		return "<Name>"
	}
	return "<x>"
}

// grammarWords are the words a model of statements reads as themselves: the
// words of English's grammar (pronouns, determiners, auxiliaries, modals,
// prepositions, conjunctions, question words) and the verbs, adverbs and
// nouns that say what a sentence does: wants, plans, decides, prefers,
// reports, asks.
var grammarWords = set(
	"i", "i'm", "i’m", "i've", "i’ve", "i'd", "i’d", "i'll", "i’ll", "me", "my", "mine", "myself", "we", "we're", "we've", "we'll", "us", "our",
	"you", "your", "you're", "he", "she", "it", "it's", "its", "they", "them", "their", "this", "that", "these", "those", "there", "here", "here's",
	"a", "an", "the", "some", "any", "all", "each", "every", "no", "not", "n't", "don't", "doesn't", "didn't", "can't", "won't", "isn't", "aren't",
	"is", "am", "are", "was", "were", "be", "been", "being", "have", "has", "had", "do", "does", "did", "will", "would", "can", "could",
	"should", "must", "may", "might", "shall", "gonna", "wanna",
	"to", "of", "in", "on", "at", "for", "with", "by", "from", "about", "into", "over", "after", "before", "during", "since", "until",
	"by", "per", "via", "like", "than", "as", "instead",
	"and", "or", "but", "so", "because", "if", "when", "while", "although", "though", "which", "who", "what", "where", "why", "how", "whether",
	"please", "thanks", "thank", "hi", "hello", "hey", "ok", "okay", "yes", "yeah", "sure", "hmm", "also", "just", "still", "already", "now",
	"always", "never", "usually", "often", "sometimes", "again", "really", "very", "too", "more", "most", "less", "only", "even", "first", "next", "last",
	"want", "wants", "wanted", "need", "needs", "needed", "like", "liked", "love", "loved", "prefer", "prefers", "preferred", "hate", "enjoy",
	"plan", "plans", "planning", "planned", "aim", "aiming", "hope", "hoping", "goal", "deadline", "target", "targeting",
	"decided", "decide", "deciding", "chose", "choose", "choosing", "picked", "switched", "switch", "moved", "go", "going", "went", "use", "using", "used",
	"try", "trying", "tried", "work", "working", "worked", "build", "building", "built", "make", "making", "made", "create", "creating", "created",
	"implement", "implementing", "implemented", "add", "adding", "added", "set", "setting", "start", "started", "finish", "finished", "completed",
	"help", "know", "think", "thinking", "wondering", "sure", "worried", "stuck", "struggling", "trouble", "error", "issue", "problem", "bug",
	"fails", "failed", "failing", "doesn", "works", "live", "lives", "born", "name", "called", "friend", "team", "project", "app", "code",
	"remember", "remind", "ask", "asked", "include", "format", "show", "explain", "give", "provide", "keep", "avoid", "make", "can", "let", "let's",
	"new", "now", "today", "yesterday", "tomorrow", "week", "month", "year", "since", "currently", "recently", "update", "updated", "changed")

// statements are the items of an assisted user's sentences that the
// model keeps and no other detector claimed (claimed: by sentence).
func (a *Analyzer) statements(sents []sentence, claimed map[string]bool, subject string, dates []Date) []Fact {
	model := a.stmts
	if model == nil {
		model = StatementModel()
	}
	var out []Fact
	for _, s := range sents {
		text := cleanSentence(s.text)
		if text == "" || claimed[strings.TrimSpace(s.text)] {
			continue
		}
		f, ok := Fact{}, false
		if model.Probability(StatementFeatures(text)) > keepStatement {
			f, ok = restate(text, subject)
		}
		if !ok && strings.ContainsAny(text, "0123456789") {
			// A value that changed is worth keeping, whatever the model
			// says, and even when a question takes it for granted.
			if u, isUpdate := restate(text, subject); isUpdate && statesUpdate(u.Text) {
				f, ok = u, true
			} else if u, isUpdate := presupposedUpdate(text, subject); isUpdate {
				f, ok = u, true
			}
		}
		if !ok {
			continue
		}
		f.Sentence = strings.TrimSpace(s.text)
		for _, d := range dates {
			if d.Start >= s.start && d.End <= s.start+len(s.text) {
				f.Dates = append(f.Dates, d)
			}
		}
		f.Specific = specific(f.Text) || len(f.Dates) > 0
		out = append(out, f)
	}
	return out
}

var (
	// instructionCue starts a standing instruction to the assistant.
	instructionCue = re(`^(?:please\s+)?(?:always|never|don['’]t ever|do not ever|from now on|going forward|in (?:the )?future|whenever|every time|each time|make sure (?:to|you) always)\b`)
	// instructionWhen is an instruction's condition: "when I ask about X".
	instructionWhen = re(`\b(?:when(?:ever)? i (?:ask|request|mention|talk|inquire|bring up|want|need)|if i (?:ask|request|mention))\b`)
	// goalLead starts a sentence that says what the user wants done.
	goalLead = re(`^(?:i(?:['’]m| am) (?:aiming|hoping|planning) to|i (?:want|hope|plan|aim|intend) to|i(?:['’]d| would) like to|my (?:main )?(?:goal|aim|objective|plan) is)\b`)
	// askLead starts a question or a request to the assistant.
	askLead = re(`^(?:can|could|would|will) you\b|^(?:how|what|which|where|when|why|who|is|are|should|do|does|can|could) `)
	// pointer is a clause that points at what follows the sentence: code,
	// a list ("here's my code:", "as follows").
	pointer = re(`[\s,;:—–-]+(?:(?:and|so|but)\s+)?(?:here(?:['’]s| is| are)|this is|below is|as follows|like this|the following)\b.*$`)
	// questionTail is a question a statement ends with: "I'm curious,
	// how can I …", "…, what should I do".
	questionTail = re(`[\s]*[,;:—–-]\s*(?:and |so |but |or )?(?:how|what|which|where|when|why|who|should|do|does|did|is|was|are|can|could|would|will)\s+(?:can|could|should|do|does|would|will|is|are|i|we|my|to|that|this|it|you|there)\b.*$`)
	// danglingLead is a sentence that starts with a pronoun or a
	// demonstrative whose referent is in another sentence.
	danglingLead = re(`^(?:it|this|that|these|those|they|them|he|she|his|her|its|their|there)\b(?:['’]s)?\s`)
	// danglingObject is a pronoun an item would lean on past its subject:
	// "… getting it to work", "… with that".
	danglingObject = re(`\b(it|this|that|them|these|those|him|her)\s*[.!?]*$|\b(?:of|about|with|for|on|at|to|into|from|get|getting|got|make|making|use|using|fix|fixing|do|doing|try|trying|implement|implementing|handle|handling|love|loved|like|liked|enjoy|enjoyed|see|saw|watch|watched|read|finish|finished|start|started|check)\s+(?:(it|them|him)\b|(this|that|these|those|her)(?:\s*[.!?,;:)]|\s*$|\s+(?:and|but|or|so|too|again|now|yet|because|is|was|are|were|to|in|on|at|for|with|from|when|if|as|out|up|off)\b))`)
	// cutShort is a sentence that stops before what it says: "James will
	// definitely.", "… but just."
	cutShort = re(`\b(?:will|would|can|could|should|must|just|but|and|or|so|to|the|a|an|of|for|with|definitely|really|gonna|going to)\s*[.!]*$`)
)

// statesUpdate tells whether text says that a value changed: a cue of
// change and a value after it ("moved the call to April 22").
func statesUpdate(text string) bool {
	// Every value holds a digit: no need to look for a cue without one.
	return strings.ContainsAny(text, "0123456789") && len(Quantities(NewValues(text))) > 0 && !hearsay.MatchString(text)
}

// hearsay is a sentence that tells what someone else says, not what
// changed: "I've heard that switching to Argon2 could cut the delay to 50 ms".
var hearsay = re(`\b(?:heard|read|rumou?red)\s+(?:that|about)\b`)

// presupposedUpdate is the update a question takes for granted, as a fact:
// "What's the best way to prepare for a webinar that got rescheduled from
// September 10 to September 17?" says "The webinar got rescheduled from
// September 10 to September 17." It is a thing named with an article or a
// possessive, then "that" or "which", then a cue of change and its value,
// up to the end of the clause.
func presupposedUpdate(text, subject string) (Fact, bool) {
	m := relativeUpdate.FindStringSubmatchIndex(text)
	if m == nil {
		return Fact{}, false
	}
	det, thing, change := text[m[2]:m[3]], text[m[4]:m[5]], text[m[6]:]
	// The match starts at the first article; the thing is named after the
	// last: "the best way to prepare for a webinar that got …".
	for _, d := range determiner.FindAllStringSubmatchIndex(thing, -1) {
		det, thing = thing[d[2]:d[3]], thing[d[1]:]
	}
	if loc := clauseStop.FindStringIndex(change); loc != nil {
		change = change[:loc[0]]
	}
	change = strings.TrimSpace(change)
	if !statesUpdate(change) || !proseLike(thing) {
		return Fact{}, false
	}
	if det = strings.ToLower(det); det == "a" || det == "an" {
		det = "the"
	}
	body := capitalize(thirdPersonThey(det+" "+thing+" "+change, subject))
	return Fact{Subject: subject, Category: CategoryOf(body), Text: strings.TrimRight(body, " .") + "."}, true
}

var (
	// relativeUpdate is a thing named with an article or a possessive,
	// then "that" or "which" and a verb of change: its submatches are the
	// article, the thing without it and what follows "that".
	relativeUpdate = re(`\b(a|an|the|my|our)\s+([\w’'$%.:-]+(?:\s+[\w’'$%.:-]+){0,6}?),?\s+(?:that|which)\s+((?:(?:has|have|had|was|were|got|is|are|just|recently|been)\s+){0,3}` + valueChangeVerbs + `\b)`)
	determiner     = re(`(?:^|\s)(a|an|the|my|our)\s+`)
	// clauseStop ends the clause of a presupposed update.
	clauseStop = re(`[,;?!](?:\s|$)|\.(?:\s|$)|\s(?:considering|because|since|so|and|but|while|in order|how|what)\s`)
)

// toldChange is a change a request tells of what the sentence named: "can
// you remind me that it's rescheduled to March 22?"; its submatch is the
// change, from its "it".
var toldChange = re(`\bthat (it(?:['’]s| is| was| has been| got| will be)\s[^?]+)`)

// restate makes an item of a sentence of the user's: its kind, its
// category and its text in the third person, or false when it cannot
// stand on its own.
func restate(text, subject string) (Fact, bool) {
	f := Fact{Subject: subject, Category: CategoryOf(text)}
	if pointer.MatchString(" "+text) && strings.HasPrefix(strings.ToLower(text), "here") {
		return Fact{}, false // "Here's my code:": what follows is what it says
	}
	// What the sentence asks of the assistant, at its end, is cut: what
	// is left says something of the user ("I'm 65, and I worry about the
	// job market, can you help me with that?").
	body, told := text, ""
	for _, tail := range []*regexp.Regexp{requestTail, questionTail, pointer} {
		if loc := tail.FindStringIndex(body); loc != nil && loc[0] > 0 {
			if m := toldChange.FindStringSubmatch(body[loc[0]:]); m != nil && told == "" && statesUpdate(m[1]) {
				told = m[1] // "…, can you remind me that it's moved to May 22?"
				if c := clauseStop.FindStringIndex(told); c != nil {
					told = told[:c[0]]
				}
			}
			body = body[:loc[0]]
		}
	}
	body = strings.TrimRight(strings.TrimSpace(hedges.ReplaceAllString(body, "")), " ,;:—–-")
	if told != "" {
		// What the request says changed, of what the statement names,
		// is part of the statement: "…the Zoom meeting with Professor
		// Danielle, and it's rescheduled to March 22 at 4:30 PM".
		body += ", and " + strings.TrimRight(told, " ?.!")
	}
	if !proseLike(body) {
		return Fact{}, false
	}
	lower := strings.ToLower(body)
	if strings.HasSuffix(body, "?") || askLead.MatchString(lower) || countWords(body) < 4 || strings.HasSuffix(body, ":") {
		return Fact{}, false
	}
	if !readsAlone(lower) {
		return Fact{}, false
	}
	switch {
	case instructionCue.MatchString(lower) || instructionWhen.MatchString(lower) && imperative(lower):
		f.Kind, f.Category = KindInstruction, CategoryPreference
		// An instruction stays an order to the assistant; what it says
		// of "me" is the user's.
		body = thirdPerson(body, "the user", "")
		body = capitalize(body)
	case !firstPerson.MatchString(body):
		if imperative(lower) {
			return Fact{}, false // an order for now ("Add a button…"), not a standing one
		}
	default:
		if goalLead.MatchString(lower) {
			f.Kind = KindGoal
		}
		body = thirdPersonThey(body, subject)
	}
	if !strings.HasSuffix(body, ".") && !strings.HasSuffix(body, "!") {
		body += "."
	}
	f.Text = body
	return f, true
}

// proseLike reports whether a sentence is a person's words, not a line of
// code, a log or a formula: it starts with a letter, holds none of the
// marks of code, and most of its words are words.
func proseLike(s string) bool {
	r := []rune(s)
	if len(r) == 0 || !unicode.IsLetter(r[0]) {
		return false
	}
	// Code in backticks is a name in a sentence.
	bare := inlineCode.ReplaceAllString(s, "x")
	if strings.ContainsAny(bare, "{}=<>│|;[]\\") || strings.Contains(bare, "()") {
		return false
	}
	ws, _ := words(bare)
	odd := 0
	for i, w := range ws {
		if c := wordClass(w, i); c == "<code>" || c == "<9>" {
			odd++
		}
	}
	return odd*2 <= len(ws)
}

// inlineCode is a span of code in backticks.
var inlineCode = regexp.MustCompile("`[^`]*`")

// hedges are the words of talk a statement drops: "I'm kinda worried",
// "…, you know, like Greg said".
var hedges = re(`\b(?:kinda|sorta|kind of|sort of)\s+|,?\s+you know\b,?`)

// readsAlone reports whether a sentence in lower case reads on its own:
// no pronoun at its start or among its first words whose referent is in
// another sentence, and no end cut off.
func readsAlone(lower string) bool {
	return !danglingLead.MatchString(lower) && !leansOnObject(lower) && !cutShort.MatchString(strings.TrimSpace(lower))
}

// leansOnObject reports a sentence whose object is a pronoun that can
// only mean something of another sentence: one that comes within its
// first words ("I'm having trouble getting it to work"), where nothing
// before it could be what it means.
func leansOnObject(lower string) bool {
	for _, m := range danglingObject.FindAllStringSubmatchIndex(lower, -1) {
		for g := 2; g+1 < len(m); g += 2 {
			if m[g] >= 0 && countWords(lower[:m[g]]) < 6 {
				return true // the pronoun, within the first words
			}
		}
	}
	return false
}

// imperative reports whether a sentence in lower case starts with a verb
// of an order: "include", "use", "format", "keep".
func imperative(lower string) bool {
	w, _, _ := strings.Cut(strings.TrimPrefix(lower, "please "), " ")
	return imperatives[w]
}

// imperatives are the verbs an order to an assistant starts with.
var imperatives = set("add", "always", "avoid", "be", "break", "check", "cite", "clarify", "compare", "consider", "include", "use",
	"format", "keep", "make", "mention", "never", "note", "prefer", "present", "provide", "put", "remember", "remind",
	"show", "skip", "specify", "start", "stick", "suggest", "summarize", "tell", "try", "write", "give", "list", "explain",
	"highlight", "focus", "ensure", "describe", "detail", "emphasize", "don't", "do", "stop", "answer", "respond", "reply",
	"send", "create", "implement", "fix", "update", "change", "remove", "delete", "help")

// CategoryOf is the fact category a first-person sentence's cues give
// it: preference, identity, relationship, project or context, project
// when none says otherwise.
func CategoryOf(sentence string) string {
	lower := strings.ToLower(strings.TrimSpace(sentence))
	for _, c := range factCategories {
		if c.cue.MatchString(lower) {
			return c.name
		}
	}
	return CategoryProject
}

// The fact categories of the format (spec §6.1.2).
const (
	CategoryIdentity     = "identity"
	CategoryPreference   = "preference"
	CategoryRelationship = "relationship"
	CategoryProject      = "project"
	CategoryContext      = "context"
)
