// Package classify turns the text of a turn into signals: decisions with
// their outcome, rationale and rejected alternatives; problems and
// solutions; facts about a person, rewritten in the third person, with a
// category; named things; code and documents; goals; relative dates; and
// filler. Its functions are deterministic and cheap enough to run on every
// turn of a live chat. It imports nothing else of this module.
//
// It reads English with cue phrases and patterns, not a model: what it
// finds is what a careful reader would mark on a first pass, and the graph
// package decides, across turns, what becomes a node. Terms (tokens, stop
// words, stemming) come from bleve's English analysis ([English]), which
// the search index uses too, so that classify and the index agree on what
// a term is.
package classify

import (
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/smg-memory/smg/classify/linear"
)

// Turn is the text to classify and what is known of it.
type Turn struct {
	Text string
	// Role is user, assistant, system or tool.
	Role string
	// Speaker is the author's name, when the conversation names people.
	Speaker string
	// Time is when the turn was written; relative dates resolve against it.
	Time time.Time
	// Listener is whom the turn addresses, when known (the other person of
	// a chat between two, "the assistant"): what the turn says of "you"
	// is of them.
	Listener string
	// Assisted: the turn is a user's to an assistant (not a person's to
	// another): the sentences it says of the user and their work are
	// items of the memory (see StatementModel).
	Assisted bool
	// Coding: the turn is of a coding agent's session, whose tool
	// applies edits: a user's turn reports problems of the program, asks
	// for changes.
	Coding bool
	// Asks: a user's turn to an assistant is read for what it asks an
	// agent to do (Signals.Request): in a coding session, and in a chat's
	// first turns, before its tool first speaks. (A chat's requests are
	// of no use to its memory: reading every turn for them costs.)
	Asks bool
}

// Signals is what a turn says.
type Signals struct {
	// Filler: the turn is small talk ("thanks", "ok", "lol") and carries
	// nothing for the graph.
	Filler bool
	// Words counts the words of the turn's prose (code aside).
	Words int
	// DecisionCues counts the decision cue phrases of the prose.
	DecisionCues int
	// Role is whose words the turn was read as: its role, but an
	// assistant's for a turn that edits files.
	Role string

	Entities []Entity
	// Lower are the words the prose writes in lower case (letters only,
	// three or more), each once: what a capitalized word is elsewhere.
	Lower     []string
	Options   []string
	Decisions []Decision
	Problems  []Problem
	Solutions []Solution
	Facts     []Fact
	Goals     []string
	Artifacts []Artifact
	Dates     []Date

	// Of a coding agent's work: the files its tool lines say it edited,
	// the commits it made and undid (a tool turn), and what a user's
	// turn asks it to do.
	Applied     []string
	Commits     []Commit
	Undone      []Commit
	Uncommitted []string
	Request     *Request
}

// Term is an analyzed term and the word it came from, lowercased.
type Term struct {
	Term, Word string
}

// Analyzer classifies turns. It is safe for concurrent use.
type Analyzer struct {
	terms analysis.Analyzer
	stop  analysis.TokenMap
	stmts *linear.Model
}

// New returns an Analyzer.
func New() *Analyzer { return NewWith(Options{}) }

// NewWith returns an Analyzer of opts.
func NewWith(opts Options) *Analyzer {
	cache := registry.NewCache()
	a, err := English(cache)
	if err != nil {
		// Its filters are compiled into bleve; not finding them is a
		// build error, not a run-time condition.
		panic("classify: bleve's English analysis: " + err.Error())
	}
	stop, err := cache.TokenMapNamed(en.StopName)
	if err != nil {
		panic("classify: bleve's English stop words: " + err.Error())
	}
	return &Analyzer{terms: a, stop: stop, stmts: opts.Statements}
}

// Terms returns the analyzed terms of text, as the search index sees them.
func (a *Analyzer) Terms(text string) []string {
	toks := a.terms.Analyze([]byte(text))
	out := make([]string, 0, len(toks))
	for _, t := range toks {
		out = append(out, string(t.Term))
	}
	return out
}

// termsOf is Terms with the words the terms came from.
func (a *Analyzer) termsOf(text string) []Term {
	toks := a.terms.Analyze([]byte(text))
	out := make([]Term, 0, len(toks))
	for _, t := range toks {
		out = append(out, Term{Term: string(t.Term), Word: strings.ToLower(text[t.Start:t.End])})
	}
	return out
}

// Analyze classifies one turn.
func (a *Analyzer) Analyze(t Turn) Signals {
	var s Signals
	segs := segments(t.Text)
	s.Artifacts = findArtifacts(t.Text, segs)
	var prose strings.Builder
	for _, g := range segs {
		if !g.code {
			prose.WriteString(g.text)
			prose.WriteByte('\n')
		}
	}
	p := prose.String()
	ws, offs := words(p)
	s.Words = countWords(p)
	if t.Role == "tool" {
		readToolLines(t.Text, &s)
		if t.Coding {
			s.Problems = codingProblems(findCodingProblems(t.Text, nil, "tool"))
			return s
		}
		// Tool output: errors and edits, not a person's words. An agent's
		// tool lines are mostly its own (installs, tokens, retries): an
		// error there is the project's when it points into a source file.
		for _, p := range findProblems(t.Text, nil, nil) {
			if sourceLocation.MatchString(p.Summary) {
				s.Problems = append(s.Problems, p)
			}
		}
		return s
	}
	if isFiller(ws) && len(s.Artifacts) == 0 {
		s.Filler = true
		return s
	}
	s.Dates = Dates(p, t.Time)
	sents := sentences(p)
	s.Entities = findEntities(p, ws, offs, sents, a.stop, t.Listener)
	listed := listedCode(p, s.Entities)
	lines := lineScan{p: p}
	s.Entities = slices.DeleteFunc(s.Entities, func(e Entity) bool {
		return lines.inDump(e) || definedAbbreviation(p, e) || placeholder(p, e) || inMath(p, e) || codeLiterals[e.Text] ||
			commandOption(p, e) || parameter(p, e) || e.Kind == "path" && vendored(p, e) || adjectiveCompound.MatchString(e.Text)
	})
	for i := range s.Entities {
		s.Entities[i].Listed = listed[s.Entities[i].Start]
		s.Entities[i].Self = t.Role == "user" && selfName(p, s.Entities[i])
	}
	english := !foreign(p, ws, offs)
	if !english {
		// In another language a capital says less: its nouns ("Derece"),
		// its headings ("Temps Réel") are no names one would look up.
		s.Entities = slices.DeleteFunc(s.Entities, func(e Entity) bool { return e.Kind == "name" })
	}
	s.Lower = lowerWords(ws)
	setSentences(s.Entities, sents)
	s.Options = findOptions(sents)
	agent := edits(s.Artifacts)
	role := t.Role
	if agent {
		// A turn that edits files is an agent's work, whoever the
		// transcript says spoke (an aider history logs an architect's
		// plan as the user's): its plans are no one's goals, its guesses
		// no one's problems, and it says nothing of a person.
		role = "assistant"
	}
	s.Role = role
	s.Decisions, s.DecisionCues = findDecisions(sents, role, agent)
	if role != "assistant" {
		// A problem is reported by whom it troubles; an assistant's
		// "errors" are its advice, plans and explanations ("handle any
		// errors", "if the call fails").
		s.Problems = findProblems(t.Text, sents, decisionSentences(s.Decisions))
		if t.Coding && role == "user" {
			have := map[string]bool{}
			for _, p := range s.Problems {
				have[strings.ToLower(p.Summary)] = true
			}
			for _, p := range findCodingProblems(t.Text, sents, role) {
				if !have[strings.ToLower(p.Summary)] {
					s.Problems = append(s.Problems, p)
				}
			}
			s.Problems = codingProblems(s.Problems)
			s.Decisions = append(s.Decisions, codingDecisions(sents)...)
		}
	}
	s.Solutions = findSolutions(sents, role)
	if t.Coding && role == "user" {
		s.Solutions = append(s.Solutions, prescribedFixes(sents)...)
	}
	s.Goals = findGoals(sents, role)
	if role != "assistant" && t.Role != "system" {
		s.Facts = findFacts(sents, subjectOf(t), t.Listener, s.Dates, a.stop)
	}
	if t.Assisted && role == "user" {
		if !t.Coding {
			// An agent's user pastes logs and code unfenced, and asks for
			// changes: requests and problems say what matters there.
			s.Facts = append(s.Facts, a.statements(sents, claimedSentences(s), subjectOf(t), s.Dates)...)
		}
		if t.Asks {
			s.Request = findRequest(t.Text, sents, english)
		}
	}
	return s
}

// claimedSentences are the sentences of which s has an item already.
func claimedSentences(s Signals) map[string]bool {
	m := decisionSentences(s.Decisions)
	for _, p := range s.Problems {
		m[strings.TrimSpace(p.Summary)] = true
	}
	for _, so := range s.Solutions {
		m[strings.TrimSpace(so.Sentence)] = true
	}
	for _, f := range s.Facts {
		m[strings.TrimSpace(f.Sentence)] = true
	}
	return m
}

// decisionSentences are the sentences that make decisions: their words of
// trouble give a decision's reason, not a new problem.
func decisionSentences(ds []Decision) map[string]bool {
	m := map[string]bool{}
	for _, d := range ds {
		m[d.Sentence] = true
	}
	return m
}

// subjectOf is who "I" is in a turn: the speaker's name, or "User".
func subjectOf(t Turn) string {
	if t.Speaker != "" {
		return t.Speaker
	}
	return "User"
}

// segment is a run of prose or a fenced code block of a turn's text.
type segment struct {
	text  string
	start int
	code  bool
	// info is a code block's info string (after the fence), fence the
	// fence itself.
	info  string
	fence string
	// body is a code block's content, without its fences.
	body string
}

// segments splits text into prose and fenced code blocks (``` or ~~~, three
// or more, closed by a fence of the same character at least as long). An
// unclosed fence runs to the end of the text.
func segments(text string) []segment {
	var out []segment
	pos, proseStart := 0, 0
	for pos < len(text) {
		lineEnd := strings.IndexByte(text[pos:], '\n')
		if lineEnd < 0 {
			lineEnd = len(text)
		} else {
			lineEnd += pos
		}
		line := text[pos:lineEnd]
		fence, info, ok := openFence(line)
		if !ok {
			pos = min(lineEnd+1, len(text))
			continue
		}
		if pos > proseStart {
			out = append(out, segment{text: text[proseStart:pos], start: proseStart})
		}
		bodyStart := min(lineEnd+1, len(text))
		end, bodyEnd := len(text), len(text)
		for q := bodyStart; q < len(text); {
			e := strings.IndexByte(text[q:], '\n')
			if e < 0 {
				e = len(text)
			} else {
				e += q
			}
			if closesFence(text[q:e], fence) {
				bodyEnd, end = q, min(e+1, len(text))
				break
			}
			q = e + 1
		}
		out = append(out, segment{text: text[pos:end], start: pos, code: true, info: info, fence: fence, body: text[bodyStart:bodyEnd]})
		pos, proseStart = end, end
	}
	if proseStart < len(text) {
		out = append(out, segment{text: text[proseStart:], start: proseStart})
	}
	return out
}

// openFence reports whether line opens a fenced block, with its fence and
// info string.
func openFence(line string) (fence, info string, ok bool) {
	l := strings.TrimLeft(line, " ")
	if len(line)-len(l) > 3 || len(l) < 3 || (l[0] != '`' && l[0] != '~') {
		return "", "", false
	}
	n := 0
	for n < len(l) && l[n] == l[0] {
		n++
	}
	if n < 3 {
		return "", "", false
	}
	info = strings.TrimSpace(l[n:])
	if l[0] == '`' && strings.Contains(info, "`") {
		return "", "", false
	}
	return l[:n], info, true
}

func closesFence(line, fence string) bool {
	l := strings.TrimSpace(line)
	if len(l) < len(fence) || l[0] != fence[0] {
		return false
	}
	for i := 0; i < len(l); i++ {
		if l[i] != fence[0] {
			return false
		}
	}
	return true
}

// sentence is a sentence of prose with its offset, and lowercased.
type sentence struct {
	text  string
	start int
	lower string
}

// sentences splits prose at sentence ends (. ! ? followed by a space and
// not after a one-letter or common abbreviation) and at line breaks.
func sentences(p string) []sentence {
	var out []sentence
	start := 0
	flush := func(end int) {
		s := strings.TrimSpace(p[start:end])
		if s != "" {
			out = append(out, sentence{text: s, start: start + strings.Index(p[start:end], s), lower: strings.ToLower(s)})
		}
		start = end
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '\n':
			flush(i + 1)
		case '.', '!', '?':
			j := i + 1
			for j < len(p) && (p[j] == '.' || p[j] == '!' || p[j] == '?' || p[j] == '"' || p[j] == '\'' || p[j] == ')') {
				j++
			}
			if j < len(p) && p[j] != ' ' && p[j] != '\n' {
				continue // 3.14, e.g., file.go
			}
			if c == '.' && abbreviation(p[start:i]) {
				continue
			}
			flush(j)
			i = j - 1
		}
	}
	flush(len(p))
	return out
}

var abbreviations = map[string]bool{"e.g": true, "i.e": true, "etc": true, "vs": true, "mr": true, "mrs": true, "ms": true, "dr": true, "st": true, "approx": true, "no": false}

func abbreviation(before string) bool {
	last := lastField(before)
	if last == "" {
		return false
	}
	w := strings.ToLower(strings.TrimLeft(last, "(\"'"))
	return abbreviations[w] || (utf8.RuneCountInString(w) == 1 && unicode.IsLetter([]rune(w)[0]))
}

// lastField is the last of strings.Fields(s), or "" if it has none.
func lastField(s string) string {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	if k := strings.LastIndexFunc(s, unicode.IsSpace); k >= 0 {
		_, n := utf8.DecodeRuneInString(s[k:])
		return s[k+n:]
	}
	return s
}

// hasAny reports whether s contains any of words: a cheap check that
// spares a regular expression the sentences it cannot match.
func hasAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func countWords(s string) int {
	n, in := 0, false
	for _, r := range s {
		w := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '_'
		if w && !in {
			n++
		}
		in = w
	}
	return n
}

// words returns the words of s (letters, digits, apostrophes, hyphens and
// underscores inside a word) with their offsets.
func words(s string) (ws []string, offs []int) {
	start := -1
	for i, r := range s {
		w := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' ||
			((r == '\'' || r == '’' || r == '-') && start >= 0)
		switch {
		case w && start < 0:
			start = i
		case !w && start >= 0:
			ws, offs = append(ws, strings.TrimRight(s[start:i], "'’-")), append(offs, start)
			start = -1
		}
	}
	if start >= 0 {
		ws, offs = append(ws, strings.TrimRight(s[start:], "'’-")), append(offs, start)
	}
	return ws, offs
}

// edits reports whether a turn edits files (an agent's SEARCH/REPLACE
// blocks): its instructions are changes made, not advice.
func edits(as []Artifact) bool {
	for _, a := range as {
		if a.Edit != nil {
			return true
		}
	}
	return false
}

// lowerWords are the words of ws written in lower case, three letters or
// more, each once, in order.
func lowerWords(ws []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range ws {
		if len(w) < 3 || !allLower(w) || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// allLower reports whether every character of w is a lower-case letter.
func allLower(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= utf8.RuneSelf {
			return strings.IndexFunc(w[i:], func(r rune) bool { return !unicode.IsLower(r) }) < 0
		} else if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// lowerAlready reports whether strings.ToLower(w) is w, without making
// it when w is ASCII.
func lowerAlready(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= utf8.RuneSelf {
			return w == strings.ToLower(w)
		} else if c >= 'A' && c <= 'Z' {
			return false
		}
	}
	return true
}

// foreign reports prose in a language other than English: of its words in
// lower case that stand alone (not part of a path or a name of code), eight
// or more, fewer than half are frequent English words.
func foreign(p string, ws []string, offs []int) bool {
	n, english := 0, 0
	for i, w := range ws {
		if w == "" || !lowerAlready(w) || !allLetters(w) || !standsAlone(p, offs[i], offs[i]+len(w)) {
			continue
		}
		n++
		if Frequent(w) {
			english++
		}
	}
	return n >= 8 && english*2 < n
}

// standsAlone reports whether p[from:to] is a word between spaces or
// punctuation, not a part of a path, a file or a name of code.
func standsAlone(p string, from, to int) bool {
	joined := func(c byte) bool { return c == '/' || c == '.' || c == '_' || c == '\\' || c == '-' }
	return (from == 0 || !joined(p[from-1])) && (to >= len(p) || !joined(p[to]) || to+1 >= len(p) || p[to+1] == ' ' || p[to+1] == '\n')
}

// inDump reports an entity on a line that names things in bulk: a coding
// agent's command ("/add src/a.py src/b.py", "/drop …"), a stack trace's
// frame, a line of source an error quotes or a person pasted without a code fence ("import {
// Home, Shield } from 'lucide-react';"), or a list of ten names or more
// (the exports an error message lists): none of them is shown to matter.
func (l *lineScan) inDump(e Entity) bool {
	if l.idx == nil {
		l.idx = newLineIndex(l.p)
	}
	start, end := l.idx.line(l.p, e.Start)
	line := strings.TrimSpace(l.p[start:end])
	if l.dump(start, end, line) {
		return true
	}
	if e.Kind != "name" {
		return false
	}
	n, ok := l.commas[start]
	if !ok {
		if l.commas == nil {
			l.commas = map[int]int{}
		}
		n = strings.Count(line, ",")
		l.commas[start] = n
	}
	return n >= 9
}

// dump reports whether the line of p from start to end, line trimmed,
// names things in bulk whatever they are: an agent's command, a frame of
// source or of a stack trace, or code.
func (l *lineScan) dump(start, end int, line string) bool {
	if d, ok := l.dumps[start]; ok {
		return d
	}
	if l.dumps == nil {
		l.dumps = map[int]bool{}
	}
	d := agentCommand.MatchString(line) || codeFrame.MatchString(line) || stackFrame.MatchString(line) || l.code(start, end) || !proseLine(line) && l.inCodeParagraph(start, end)
	l.dumps[start] = d
	return d
}

// span widens p[from:to] to the run around it that none of the bytes of
// stops breaks: its line, with "\n"; its token, with spaces and quotes.
func span(p string, from, to int, stops string) (int, int) {
	from = strings.LastIndexAny(p[:from], stops) + 1
	if k := strings.IndexAny(p[to:], stops); k >= 0 {
		return from, to + k
	}
	return from, len(p)
}

// lineScan reads the lines of a turn's prose p as code or not once each,
// however many entities they hold: a long paste holds hundreds.
type lineScan struct {
	p string
	// lines and paragraphs say, by where they start, whether a line is
	// code (codeLine) and whether a paragraph is mostly code; dumps
	// whether a line names things in bulk (dump).
	lines, paragraphs, dumps map[int]bool
	// idx says where each line starts; commas counts a line's commas, by
	// its start.
	idx    lineIndex
	commas map[int]int
}

// code reports whether the line of p from start to end is code.
func (l *lineScan) code(start, end int) bool {
	if c, ok := l.lines[start]; ok {
		return c
	}
	if l.lines == nil {
		l.lines = map[int]bool{}
	}
	c := codeLine(strings.TrimSpace(l.p[start:end]))
	l.lines[start] = c
	return c
}

// listedCode returns, by their start, the paths and names of code that a
// line lists by three or more ("username, profileLink, articlesCount";
// "Assets/Scripts/Core, Assets/Scripts/Economy, Assets/Scripts/UI"): one
// of many listed is not shown to matter (Entity.Listed); named on its own
// elsewhere, it is.
func listedCode(p string, ents []Entity) map[int]bool {
	byLine := map[int][]int{}
	for _, e := range ents {
		if e.Kind == "identifier" || e.Kind == "path" {
			line := strings.LastIndexByte(p[:e.Start], '\n') + 1
			byLine[line] = append(byLine[line], e.Start)
		}
	}
	out := map[int]bool{}
	for line, starts := range byLine {
		end := strings.IndexByte(p[line:], '\n')
		if end < 0 {
			end = len(p) - line
		}
		if len(starts) >= 3 && strings.Count(p[line:line+end], ",") >= 2 {
			for _, at := range starts {
				out[at] = true
			}
		}
	}
	return out
}

// inCodeParagraph reports whether the line from start to end of p is in a
// paragraph (lines between blank ones) that is mostly code: half its
// lines or more are codeLine, and two at least. A comment or a string of
// pasted code is code too.
func (l *lineScan) inCodeParagraph(start, end int) bool {
	p := l.p
	from := strings.LastIndex(p[:start], "\n\n") + 1
	if c, ok := l.paragraphs[from]; ok {
		return c
	}
	to := strings.Index(p[end:], "\n\n")
	if to < 0 {
		to = len(p)
	} else {
		to += end
	}
	code, lines := 0, 0
	for at := from; at < to; {
		n := strings.IndexByte(p[at:to], '\n')
		if n < 0 {
			n = to - at
		}
		if strings.TrimSpace(p[at:at+n]) != "" {
			lines++
			if l.code(at, at+n) {
				code++
			}
		}
		at += n + 1
	}
	if l.paragraphs == nil {
		l.paragraphs = map[int]bool{}
	}
	c := code >= 2 && 2*code >= lines
	l.paragraphs[from] = c
	return c
}

// proseLine reports a line that reads as a sentence: three words or more,
// no code's brackets or operators, and a sentence's mark at its end.
func proseLine(line string) bool {
	return len(strings.Fields(line)) >= 3 && !strings.ContainsAny(line, "{}()[];=<>") && strings.ContainsAny(line[len(line)-1:], ".!?:")
}

// codeLine reports a line of source in prose: one that opens or closes a
// block or ends a statement ("interface Props {", "};"), starts with a
// declaration and has code's punctuation ("import { Home } from 'x'"),
// assigns a call ("chiA, SA = exit_state(0.1)"), starts with a markup
// tag ("<span class=\"icon\">check_circle</span>"), or is a terminal's
// prompt ("ana@box:~/app$ npm test").
func codeLine(line string) bool {
	if line == "" {
		return false
	}
	if strings.Trim(line, "()[]{};,") == "" {
		return true // the end of a block: "])", "},"
	}
	switch line[len(line)-1] {
	case '{', ';':
		return true
	case '}':
		return strings.Contains(line, "{") // an object written out: "usage: Object { total_tokens: 37895 }"
	}
	switch line[0] {
	case '}':
		return true
	case '<':
		return markupTag.MatchString(line)
	}
	return codeStart.MatchString(line) || codeAssign.MatchString(line) || codeCall.MatchString(line) || dataField.MatchString(line) ||
		shellPrompt.MatchString(line)
}

var (
	// codeStart is a declaration or statement with code's punctuation.
	codeStart = gated{regexp.MustCompile(`^(?:import|export|const|let|var|def|class|interface|function|func|return|public|private|protected|static|using|namespace|#include|from\s+[\w.]+\s+import)\b.*[{}()=;'"]`),
		func(s string) bool { return hasPrefix(s, codeWords) && strings.ContainsAny(s, `{}()=;'"`) }}
	// codeAssign is an assignment of a call or a literal to names.
	codeAssign = gated{regexp.MustCompile(`^[\w.\[\]]+(?:\s*,\s*[\w.\[\]]+)*\s*(?:[-+*/]?=)\s*(?:[\w.]+\(|[\[{"'\d])`),
		func(s string) bool { return strings.IndexByte(s, '=') >= 0 }}
	// dataField is a field of JSON or YAML data: "\"area\": \"Training\",",
	// or of an object a console prints, its key a name of code and its
	// value a number or a literal: "total_tokens: 37895".
	dataField = gated{regexp.MustCompile(`^(?:"[\w .-]+"\s*:\s*(?:"|\d|\[|\{|true|false|null)|[a-z][a-z0-9]*(?:_\w*|[A-Z]\w*)\s*:\s*(?:-?[\d.]+|true|false|null|"[^"]*"),?$)`),
		func(s string) bool { return strings.IndexByte(s, ':') >= 0 }}
	// codeCall is a statement that calls a function: "print(f\"x\")".
	codeCall = gated{regexp.MustCompile(`^[\w.]+\(.*\)[;,]?$`),
		func(s string) bool { return strings.IndexByte(s, '(') >= 0 && strings.IndexByte(s, ')') >= 0 }}
	// shellPrompt is a terminal's prompt, perhaps with the command typed
	// after it: "@ana ➜ /workspaces/app (main) $", "ana@box:~/app$ npm
	// test", "$ npm install".
	shellPrompt = gated{regexp.MustCompile(`^(?:@?[\w.-]+(?:@[\w.-]+)?(?::|\s+➜)\s*[~/]\S*[^$]*\$(?:\s|$)|\$\s)`),
		func(s string) bool { return strings.IndexByte(s, '$') >= 0 }}
	// markupTag is an HTML or XML tag, opening or closing.
	markupTag = regexp.MustCompile(`</?[a-zA-Z][\w-]*(?:\s+[\w-]+(?:=(?:"[^"]*"|'[^']*'))?)*\s*/?>`)
)

// selfIntro is what comes before the name a speaker gives themselves, at
// a sentence's start or after a greeting: "I'm", "my name is", "Hi, I am".
var selfIntro = regexp.MustCompile(`(?i)(?:^|[.!?,;]\s+|\n)\s*(?:(?:hi|hello|hey)(?: there| all| everyone)?[,!.]?\s+)?(?:my name is|my name's|i['’]m|i am|call me)\s+$`)

// selfEnd is what may follow it: a mark, "and", "here", or the end.
var selfEnd = regexp.MustCompile(`^(?:[,.!;:]|\s+(?:and|here)\b|\s*$)`)

// selfName reports whether e is the name the speaker gives themselves
// ("I'm Christina, a colour technologist", "Hi, my name is Ana Lima."),
// not a state or a people ("I'm Fine.", "I'm Korean").
func selfName(p string, e Entity) bool {
	if e.Kind != "name" || demonyms[e.Text] {
		return false
	}
	first, _, _ := strings.Cut(e.Text, " ")
	if Frequent(strings.ToLower(first)) || !selfEnd.MatchString(p[e.End:min(len(p), e.End+8)]) {
		return false
	}
	line, _ := span(p, e.Start, e.Start, "\n")
	return selfIntro.MatchString(p[line:e.Start])
}

// placeholder reports a slot of a template in brackets ("[Last Name]",
// "[Your Email]"): a blank to fill, not a name. One word in brackets may
// be code ("[SerializeField]").
func placeholder(p string, e Entity) bool {
	return e.Kind == "name" && strings.Contains(e.Text, " ") && e.Start > 0 && e.End < len(p) && p[e.Start-1] == '[' && p[e.End] == ']'
}

// inMath reports an entity in a formula, "\(BC\)" or "\[AB = AC\]": the
// points and variables of mathematics, not things to look up.
func inMath(p string, e Entity) bool {
	line := p[strings.LastIndexByte(p[:e.Start], '\n')+1 : e.Start]
	for _, open := range [][2]string{{`\(`, `\)`}, {`\[`, `\]`}} {
		if k := strings.LastIndex(line, open[0]); k >= 0 && !strings.Contains(line[k+len(open[0]):], open[1]) {
			return true
		}
	}
	return false
}

// codeLiterals are the constants of programming languages, and the
// mark a shell's here-document ends at ("EOF"): no names.
var codeLiterals = set("True", "False", "None", "true", "false", "null", "nil", "undefined", "NaN", "NULL", "Nothing", "EOF")

// codeFrame is a line of source an error quotes with its number ("> 4 |
// import * as DropdownMenuPrimitive from …"): code, not prose.
var codeFrame = gated{regexp.MustCompile(`^>?\s*\d+\s*[|│]`), func(s string) bool { return strings.ContainsAny(s, "|│") }}

// stackFrame is a line of a stack trace: "at visit (file:///C:/app/x.js:65:25)",
// "File \"/app/venv/lib/pip/misc.py\", line 3, in main".
var stackFrame = gated{regexp.MustCompile(`^(?:at\s+\S.*:\d+(?::\d+)?\)?$|File\s+"[^"]+",\s+line\s+\d+)`),
	func(s string) bool { return strings.HasPrefix(s, "at") || strings.HasPrefix(s, "File") }}

// agentCommand is a coding agent's command line: "/add FILE…", "/drop".
var agentCommand = gated{regexp.MustCompile(`^/[a-z][a-z-]*(?:\s|/|$)`), func(s string) bool { return strings.HasPrefix(s, "/") }}

// commandOption reports a name of code that is an option of a command
// line ("-projectPath", "--es-module-specifier-resolution"): a switch of
// a tool, not a thing of the work.
func commandOption(p string, e Entity) bool {
	if strings.HasPrefix(e.Text, "-") {
		return true
	}
	at := e.Start
	for k := 0; k < 2 && at > 0 && p[at-1] == '-'; k++ {
		at--
	}
	return at < e.Start && (at == 0 || p[at-1] == ' ' || p[at-1] == '\t' || p[at-1] == '\'' || p[at-1] == '`')
}

// vendorDirs are the marks of a path into code installed, not written:
// packages, virtual environments, SDKs.
var vendorDirs = []string{"node_modules", "site-packages", "dist-packages", "/venv/", ".venv/", "org-dartlang-sdk",
	".pub-cache", "/vendor/", "/usr/lib/", "/usr/local/lib/", "go/pkg/mod", ".cargo/registry", "bower_components",
	".gradle/caches", ".m2/repository", "/Library/Frameworks/"}

// vendored reports a path into installed code ("node_modules/@sveltejs/
// kit/src/…", "venv/lib/python3.12/site-packages/pip/…"), as a stack trace
// pasted into a question names them: a library's file, not one the work
// is on.
func vendored(p string, e Entity) bool {
	from, to := span(p, e.Start, e.End, " \t\n'\"()`")
	token := strings.ReplaceAll(p[from:to], "\\", "/")
	for _, d := range vendorDirs {
		if strings.Contains(token, d) {
			return true
		}
	}
	return false
}

// parameter reports a name of code that is a parameter of a function
// written out in prose ("transfer_matrix(alpha_I, alpha_Q, rho_Q)"): the
// function is what the text works on.
func parameter(p string, e Entity) bool {
	if e.Kind != "identifier" {
		return false
	}
	line := p[strings.LastIndexByte(p[:e.Start], '\n')+1 : e.Start]
	open := strings.LastIndexByte(line, '(')
	if open <= 0 || strings.ContainsRune(line[open:], ')') {
		return false
	}
	c := line[open-1]
	return c == '_' || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c))
}

// definedAbbreviation reports an abbreviation in parentheses just after
// the words it stands for ("Augmented Reality (AR)", "First Meaningful
// Paint (FMP)"): the same thing as they, not one of its own.
func definedAbbreviation(p string, e Entity) bool {
	if e.Kind != "name" || e.Start == 0 || e.End >= len(p) || p[e.Start-1] != '(' || p[e.End] != ')' || strings.ToUpper(e.Text) != e.Text {
		return false
	}
	before := strings.Fields(strings.Trim(p[max(0, e.Start-1-120):e.Start-1], " \"'"))
	if len(before) < len(e.Text) {
		return false
	}
	var initials strings.Builder
	for _, w := range before[len(before)-len(e.Text):] {
		w = strings.Trim(w, "\"'*")
		if w == "" {
			return false
		}
		initials.WriteByte(w[0])
	}
	return strings.EqualFold(initials.String(), e.Text)
}
