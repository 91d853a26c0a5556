package classify

import (
	"regexp"
	"strings"
	"unicode"
)

// Problem is an error, a failure or a trouble a turn reports.
type Problem struct {
	// Summary is the sentence or error line that states it.
	Summary string
	// Kind is "error" (an error or failure said in words) or "trace" (a
	// stack trace or error output).
	Kind string
	// Code is the error code or name it carries, when there is one
	// ("HTTP 401", "TypeError", "ENOENT").
	Code string
	// Setup: it is a coding agent's own, of its set-up: its model's
	// provider refused the call (a missing key, an unknown model, a
	// prompt too long). It is the user's problem, but no change of the
	// project's code fixes it.
	Setup bool
}

// Solution is a turn's statement that something is fixed, or how.
type Solution struct {
	Sentence string
	// Confirmation: the sentence says that a fix worked ("that fixed it",
	// "works now"), which makes the fix itself the turn before.
	Confirmation bool
}

var (
	problemCue  = re(`\b(?:errors?|exceptions?|fails?|failed|failing|failures?|crash(?:es|ed|ing)?|bugs?|broken|doesn['’]t work|does not work|isn['’]t working|is not working|not working|won['’]t (?:start|load|compile|build|run|work|connect)|can['’]t (?:connect|find|load|get|open|log in|login)|cannot (?:connect|find|load|open|read|resolve)|unable to|timed? ?out|hangs|freezes|undefined is not|null pointer|segfault|panic:|stack trace|traceback|returns? (?:an? )?[45]\d\d|status(?: code)? [45]\d\d|no such file|permission denied|not found|problem with|struggl(?:e|ed|ing) with)\b`)
	solutionCue = re(`\b(?:fixed|fixes it|fixed it|resolved|solved|works now|working now|it works|now it works|that did it|did the trick|the fix (?:is|was)|here['’]s the fix|to fix (?:this|it)|the solution (?:is|was)|problem solved|got it working|figured it out|that worked|sorted it|no longer (?:fails|crashes|errors))\b`)
	traceStart  = regexp.MustCompile(`(?m)^(?:[\w./-]+\.\w{1,6}:\d+(?::\d+)?:\s*(?:[Ee]rror|ERROR|[Ff]atal)\b.+|Traceback \(most recent call last\):|panic: .+|Exception in thread .+|goroutine \d+ \[|\s+at [\w.$<>]+\(.*:\d+\)|(?:[A-Z]\w*(?:Error|Exception)|Error|ERROR|FATAL|npm ERR!|error(?:\[E\d+\])?)(?::| -) .+)$`)
	confirmCue  = re(`\b(?:that fixed it|fixed it|works now|working now|it works|now it works|that did it|did the trick|problem solved|that worked|got it working|no longer (?:fails|crashes|errors))\b`)
)

// Words that problem, solution, trace and goal sentences contain.
var (
	problemWords  = []string{"error", "exception", "fail", "crash", "bug", "broken", "n't work", "not work", "n’t work", "won't", "won’t", "can't", "can’t", "cannot", "unable", "timed", "timeout", "hangs", "freezes", "undefined", "null", "segfault", "panic", "trace", "4", "5", "no such", "permission", "not found", "problem", "struggl"}
	solutionWords = []string{"fix", "resolv", "solv", "work", "did it", "trick", "solution", "sorted", "no longer", "figured"}
	traceWords    = []string{"Traceback", "panic:", "Exception", " at ", "Error", "ERROR", "FATAL", "npm ERR", "error:", "error ", "error["}
	goalWords     = []string{"need to", "have to", "want to", "like to", "trying to", "planning to", "going to", "hope to", "plan to", "intend to", "aim to", "must", "goal", "aim", "plan", "next", "todo", "to-do", "forget to", "remember to", "let's", "let’s"}

	problemWordSet  = newLiterals(problemWords...)
	solutionWordSet = newLiterals(solutionWords...)
	traceWordSet    = newLiterals(traceWords...)
	goalWordSet     = newLiterals(goalWords...)
)

// problemCueWords and solutionCueWords are words one of which, in lower
// case, every match of problemCue and of solutionCue holds: each
// alternative's words up to where it may vary. A sentence with none is
// not run through the expression (literals.folded).
var (
	problemCueWords = newLiterals("error", "exception", "fail", "crash", "bug", "broken", "n't work", "n’t work", "not work",
		"won't ", "won’t ", "can't ", "can’t ", "cannot ", "unable to", "timeout", "time out", "timedout", "timed out", "hangs", "freezes",
		"undefined is not", "null pointer", "segfault", "panic:", "stack trace", "traceback", "return", "status", "no such file",
		"permission denied", "not found", "problem with", "struggl")
	solutionCueWords = newLiterals("fixed", "fixes it", "resolved", "solved", "works now", "working now", "it works", "that did it",
		"did the trick", "the fix", "to fix", "the solution", "got it working", "figured it out", "that worked", "sorted it", "no longer")
)

// findProblems finds the problems of a text: error output (tracebacks,
// error lines) in prose or in code blocks, and the sentences of its prose,
// sents, that report one. Tool output has no sentences to read: sents is
// nil.
func findProblems(text string, sents []sentence, decisions map[string]bool) []Problem {
	var out []Problem
	seen := map[string]bool{}
	add := func(p Problem) {
		key := strings.ToLower(p.Summary)
		if p.Summary != "" && !seen[key] {
			seen[key] = true
			out = append(out, p)
		}
	}
	var traces []string
	if traceWordSet.in(text) {
		// Only the lines that hold a trace word can start a trace: run the
		// expression on them, not on the whole text.
		for line := range strings.Lines(text) {
			if traceWordSet.in(line) || strings.HasPrefix(strings.TrimLeft(line, " \t"), "at ") {
				traces = append(traces, traceStart.FindAllString(strings.TrimRight(line, "\r\n"), -1)...)
			}
		}
	}
	for _, m := range traces {
		line := strings.TrimSpace(m)
		if strings.HasPrefix(line, "at ") || strings.HasPrefix(line, "goroutine ") || strings.HasPrefix(line, "Traceback") {
			continue // the frames; the error line says what happened
		}
		if strings.HasSuffix(line, ":") || strings.ContainsAny(line, "═╡╞─") || strings.Count(line, "[") != strings.Count(line, "]") || !saysWhat(line) {
			continue // "ERROR: Exception:", a banner, a cut line, a bare place: says nothing on its own
		}
		add(Problem{Summary: Clip(line, 200), Kind: "trace", Code: errorCode(line)})
	}
	for _, s := range sents {
		if strings.HasSuffix(s.text, "?") && !strings.Contains(s.lower, "why") || decisions[s.text] {
			continue
		}
		lower := s.lower
		if !problemWordSet.in(lower) || !problemCueWords.folded(s.text, lower) ||
			solutionWordSet.in(lower) && solutionCueWords.folded(s.text, lower) && solutionCue.MatchString(s.text) ||
			!problemCue.MatchString(s.text) || adjectivalFailure(s.text) {
			continue
		}
		if !reportsTrouble(s.text) {
			continue
		}
		add(Problem{Summary: Clip(s.text, 200), Kind: "error", Code: errorCode(s.text)})
	}
	return out
}

// saysWhat reports whether an error line says what went wrong: three words
// besides the error's own words, its place and numbers ("ERROR in
// ./src/App.js 21:37-44" says nothing).
func saysWhat(line string) bool {
	n := 0
	for _, tok := range strings.Fields(line) {
		if strings.ContainsAny(tok, "/\\") || pathLike.MatchString(strings.Trim(tok, ":,;()'\"`")) {
			continue // a file or its place
		}
		for _, w := range strings.FieldsFunc(tok, func(r rune) bool { return !unicode.IsLetter(r) }) {
			switch strings.ToLower(w) {
			case "error", "errors", "exception", "fatal", "in", "at", "on", "line", "col", "column", "file", "detected", "caught", "by":
				continue
			}
			if len(w) > 1 {
				n++
			}
		}
	}
	return n >= 3
}

// sourceLocation is an error's place in a source file ("lib/main.dart:58:62").
var sourceLocation = regexp.MustCompile(`[\w./-]+\.\w{1,6}:\d+`)

// notTrouble are the phrases where a problem's word names no trouble: a
// feature ("error handling", "error messages"), an idiom ("trial and
// error"), a generality ("failures lead you to success").
var notTrouble = re(`\b(?:errors?|exceptions?|bugs?)[ -](?:handling|handler|handle|messages?|states?|boundary|boundaries|scenarios?|cases?|responses?|codes?|pages?|logging|reporting|tracking|checks?|fixing|fixes|free)\b|\btrial and error\b|\bfailures\b|\bpass/fail\b|\b(?:relative|absolute|standard|mean|squared)\s+errors?\b|\b(?:error|failure|success)\s+rates?\b|\bmargin of error\b|\b(?:handle|handles|handling|catch|catches|catching|log|logs|logging|prevent|prevents|avoid|check|checking|test|testing|any|no|without)\s+(?:\w+\s+)?(?:errors?|exceptions?|bugs?|failures?)\b`)

// requestLead are the words that start a request or an instruction, not a
// report: "fix the errors in…", "to handle this error, implement…".
var requestLead = re(`^(?:[-*+•]\s+|\d{1,3}[.)]\s+)?(?:\*\*)?(?:to|fix|implement|add|added|handle|check|make|update|use|run|test|create|ensure|improve|provide|please|can you|could you|help|let's|let me|don't|remember|if|when|whether|in case|remove|replace|print|reset|move|change|set|look|looking|keep|try|see|here|here's|this should|now let|first|then|next|or|traceback|always|never|include)\b`)

// askingCue is a sentence that asks for help or a review rather than
// reporting what went wrong: "I'm trying to set up X…", "I want to make
// sure I handle errors…", "I'm not sure how to…".
var askingCue = re(`\b(?:i['’]m trying to|i am trying to|i want to|i need to|i['’]d like to|i['’]m not sure|i am not sure|not sure how|how (?:to|can|do|should)|make sure|anticipate)\b`)

// unnamedTrouble is trouble that does not say what it is: "I'm still
// getting this error", "but it's not working".
var unnamedTrouble = re(`\b(?:this|that|the|same) (?:error|issue|problem)\b`)

// vagueTrouble is trouble said of nothing named, whatever the sentence
// quotes: "…, but it's still not working", "there's a subtle bug", "the
// bug is still there".
var vagueTrouble = re(`\b(?:it|that|this)['’]?s (?:still |also )?not working\b|\b(?:it|that|this) (?:still )?(?:doesn['’]t|does not|didn['’]t) work\b|\bthere['’]?s (?:a|an|another)\s+(?:\w+\s+)?(?:bug|problem|issue|error)\b|\b(?:bug|error|issue|problem)\s+(?:is\s+)?still\s+(?:there|here|happening)\b`)

// hedge is the word of a guess or a condition: "this could cause
// errors", "the error might be due to", "if the call fails".
var hedge = re(`\b(?:could|might|may|would|should|likely|perhaps|maybe|probably|possibly|possible|seems?|if|unless|will be|looks like|what looks|must)\b`)

// reportsTrouble reports whether a sentence that has a problem's words
// says that something went wrong: not a request to fix one, a feature
// that handles errors, code, a photo's caption or a heading.
func reportsTrouble(s string) bool {
	t := strings.TrimSpace(s)
	if len(strings.Fields(t)) < 4 || strings.HasPrefix(t, "[") || strings.HasPrefix(t, "**") && strings.HasSuffix(strings.TrimRight(t, ":"), "**") {
		return false
	}
	if strings.ContainsAny(t, "{}│") || hasAny(t, "=>", `":`, `("`, "('", `")`, "')") || strings.HasSuffix(t, ";") {
		return false // a line of code
	}
	if requestLead.MatchString(t) || hedge.MatchString(t) || askingCue.MatchString(t) || strings.HasPrefix(t, "#") {
		return false
	}
	if unnamedTrouble.MatchString(t) && errorCode(t) == "" && !strings.ContainsAny(t, "\"`“") || vagueTrouble.MatchString(t) {
		return false // which error is not said
	}
	if strings.HasSuffix(t, ":") && len(strings.Fields(t)) < 8 || strings.Count(t, "[") != strings.Count(t, "]") || strings.ContainsAny(t, "═╡╞─") || !saysWhat(t) {
		return false // a header, a banner or a line cut short: the error is elsewhere
	}
	// Every cue of trouble must be more than a feature's name.
	rest := notTrouble.ReplaceAllString(t, " ")
	return problemCue.MatchString(rest)
}

// adjectivalFailure reports a sentence whose only problem cue is "failed"
// or "failing" before a plural noun: "failed payments" is a feature, not a
// failure.
func adjectivalFailure(s string) bool {
	locs := problemCue.FindAllStringIndex(s, -1)
	for _, l := range locs {
		cue := strings.ToLower(s[l[0]:l[1]])
		if cue != "failed" && cue != "failing" {
			return false
		}
		prev := strings.Fields(strings.ToLower(s[:l[0]]))
		if len(prev) > 0 && determiners[prev[len(prev)-1]] {
			continue // "the failing build script": which script, not what failed
		}
		next, _, _ := strings.Cut(strings.TrimLeft(s[l[1]:], " "), " ")
		next = strings.ToLower(strings.TrimRight(next, ".,;:!?"))
		if len(next) < 4 || !strings.HasSuffix(next, "s") || next == "this" || next == "its" || strings.HasSuffix(next, "ss") {
			return false
		}
	}
	return len(locs) > 0
}

func errorCode(s string) string {
	if m := httpStatus.FindStringSubmatch(s); m != nil {
		if m[1] != "" {
			return "HTTP " + m[1]
		}
		return "HTTP " + m[2]
	}
	return errorPattern.FindString(s)
}

// findSolutions finds the sentences that say a problem is fixed: a
// confirmation that the fix just given worked ("that fixed it", "works
// now"), from whoever had the problem, or a fix told done ("I fixed it
// by…", "the fix was…", an agent's "I've fixed…"). An assistant's "to fix
// this, …" is advice, "fixed" before a noun ("a fixed width") no fix, and
// "the solution is to:" a lead-in.
func findSolutions(sents []sentence, role string) []Solution {
	var out []Solution
	for _, s := range sents {
		if strings.HasSuffix(s.text, "?") || strings.HasSuffix(s.text, ":") || !solutionWordSet.in(s.lower) ||
			!solutionCueWords.folded(s.text, s.lower) || !solutionCue.MatchString(s.text) {
			continue // a question, or a lead-in to what follows
		}
		confirmed := confirmCue.MatchString(s.text)
		switch {
		case confirmed && role != "assistant" && !hedge.MatchString(s.text) && !strings.Contains(s.lower, "not "):
		case fixTold.MatchString(s.text):
		default:
			continue
		}
		out = append(out, Solution{Sentence: Clip(s.text, 200), Confirmation: confirmed})
	}
	return out
}

// fixTold is a fix told done: "I fixed it by…", "we solved the lock by…",
// "the fix was…", "I've fixed the…".
var fixTold = re(`\b(?:(?:i|we)(?:['’]ve| have)?\s+(?:just\s+|finally\s+|now\s+)?(?:fixed|solved|resolved)\b|the (?:fix|solution) (?:was|is)\b)`)

// findGoals finds what a speaker sets out to do: the user's "I want to
// add…", "we need to migrate…", "my goal is to…", anyone's "TODO:…" and
// "next step: …". A goal starts with a verb of work and says on its own
// what is to be done ("add rate limiting to the API"): not "make sure it
// works", "understand why…", "do that"; an assistant's "you should…",
// "let's check…" are advice and steps, not aims.
func findGoals(sents []sentence, role string) []string {
	var out []string
	for _, s := range sents {
		if strings.HasSuffix(s.text, "?") || !goalWordSet.in(s.lower) {
			continue
		}
		text := stripLead(stripListMark(s.text))
		m := planCue.FindStringSubmatchIndex(text)
		plan := m != nil
		if m == nil && role != "assistant" {
			m = aimCue.FindStringSubmatchIndex(text)
		}
		if m == nil || quoted(text[:m[0]]) {
			continue
		}
		if g := goalPhrase(text[m[2]:m[3]], plan); g != "" && !contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

var (
	// planCue is a plan's item, whoever says it.
	planCue = re(`^(?:next,?\s+steps?(?:\s+is|\s+are)?(?:\s+to)?\s*:?|todo\s*:|to-do\s*:|the plan is to|our plan is to)\s*(.+)$`)
	// aimCue is a speaker's aim.
	aimCue = re(`(?:^|\b)(?:(?:i|we)(?:['’](?:m|re|d|ll)\s+|\s+(?:am|are|would|will)\s+|\s+)(?:still\s+|really\s+|also\s+|just\s+|now\s+)?(?:need|have|want|plan|hope|intend|aim|like|trying|planning|going|must)\s+to|(?:my|our|the)\s+(?:main\s+)?(?:goal|aim|plan|objective)\s+is\s+to|don['’]t forget to|remember to|let['’]s)\s+(.+)$`)
	// goalEnd ends a goal's clause.
	goalEnd = re(`\s*(?:[,;:()]|\s-+\s|->|\s(?:and (?:i|we|it|then|also|see|make)|but|so|because|since|which|as|while|when|if|before|after|until|unless|though|although|can you|could you|please|to make sure|to ensure|to see|to verify|to check|to confirm|by the end)\b)`)
)

// goalVerbs are the verbs a goal starts with: work that can be done.
var goalVerbs = set("add", "build", "implement", "create", "write", "finish", "complete", "deploy", "launch", "ship", "release",
	"publish", "fix", "repair", "migrate", "set", "install", "configure", "integrate", "refactor", "rewrite", "redesign", "design",
	"develop", "test", "learn", "study", "practice", "master", "prepare", "organize", "run", "train", "improve", "reduce",
	"increase", "lower", "raise", "optimize", "speed", "boost", "cut", "grow", "expand", "move", "relocate", "buy", "sell",
	"open", "start", "save", "pay", "apply", "submit", "hire", "visit", "travel", "join", "attend", "finalize", "update",
	"upgrade", "replace", "remove", "convert", "document", "automate", "enable", "secure", "validate", "translate",
	"teach", "record", "paint", "draft", "edit", "revise", "host", "volunteer", "adopt", "focus", "switch", "introduce", "extend",
	"merge", "split", "clean", "schedule", "book", "plan", "cover", "track", "monitor", "measure", "benchmark", "profile",
	"debug", "port", "localize", "style", "restructure", "simplify", "present", "pitch", "complete", "earn", "reach",
	"pass", "graduate", "renovate", "compete", "audition", "perform", "produce", "direct", "film", "shoot", "sew", "knit", "cook",
	"bake", "garden", "climb", "hike", "swim", "lose", "gain", "quit", "transition", "modularize", "containerize", "dockerize")

// countOf counts the words of ws in set.
func countOf(ws []string, set map[string]bool) int {
	n := 0
	for _, w := range ws {
		if set[strings.ToLower(w)] {
			n++
		}
	}
	return n
}

// goalFunction are the words of a goal that say nothing of what it is
// about.
var goalFunction = set("the", "a", "an", "of", "to", "for", "with", "and", "or", "in", "on", "at", "by", "from", "my", "our",
	"their", "his", "her", "each", "other", "others", "another", "all", "some", "more", "most", "new", "different",
	"next", "first", "one", "up", "into", "about", "out", "off", "over", "again", "now", "then", "too", "also", "very", "well")

// goalPhrase is a goal from the words after its cue: its clause, when it
// starts with a verb of work, is two to twelve words, names its object
// (no "it", "this", "things") and does not dangle.
func goalPhrase(s string, plan bool) string {
	if loc := goalEnd.FindStringIndex(s); loc != nil {
		s = s[:loc[0]]
	}
	s = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), " .!,"))
	f := strings.Fields(s)
	if plan && len(f) > 2 && determiners[strings.ToLower(f[0])] {
		// A plan's item may name what to make: "Next step: a template
		// for the receipt".
		f = f[1:]
		if content := len(f) - countOf(f, goalFunction); content < 2 || content > 8 || dangling[strings.ToLower(f[len(f)-1])] {
			return ""
		}
		return s
	}
	if len(f) < 2 || len(f) > 12 || !goalVerbs[strings.ToLower(f[0])] || dangling[strings.ToLower(f[len(f)-1])] ||
		strings.EqualFold(f[1], "on") || strings.Count(s, "`")%2 == 1 || strings.Count(s, `"`)%2 == 1 ||
		strings.EqualFold(f[0], "run") && strings.Contains(strings.ToLower(s), "command") {
		return "" // "move on to…" is talk, "run the build command" a step; an open quote is cut short
	}
	content := 0
	for _, w := range f[1:] {
		w = strings.ToLower(strings.Trim(w, `"'.,!`))
		switch w {
		case "it", "this", "that", "them", "these", "those", "something", "anything", "everything", "things", "stuff", "sure", "you", "your", "here", "there", "same", "whatever", "any":
			return ""
		}
		if !goalFunction[w] && !strings.HasSuffix(w, "ly") {
			content++
		}
	}
	if content < 2 {
		return "" // "start with the basics", "join forces": what is to be done is not said
	}
	return s
}

// Clip shortens s to at most n bytes, at a word boundary, and marks the cut
// with "…".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut < n/2 {
		cut = n
	}
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return strings.TrimSpace(s[:cut]) + "…"
}

// Fix reads the fix a reply gives, for a confirmation ("that fixed it")
// to name: of the prose before the reply's first code block, the first
// sentence that says what to do ("Read the body once, verify it with
// webhook.ConstructEvent, then use the event"), or, when none does, the
// first sentence; and the rest of that prose, clipped (the cause: "The
// signature covers the raw body, but the handler never verifies it."). A
// reply that explains before it tells is named by its fix, not its
// diagnosis.
func Fix(reply string) (fix, rest string) {
	if k := strings.Index(reply, "```"); k >= 0 {
		reply = reply[:k]
	}
	sents := sentences(reply)
	if len(sents) == 0 {
		return "", ""
	}
	at := 0
	for i, s := range sents {
		if tells(stripListMark(s.text)) {
			at = i
			break
		}
	}
	trim := func(s string) string { return strings.TrimSpace(strings.TrimRight(s, ": ")) }
	var others []string
	for i, s := range sents {
		if i != at {
			others = append(others, s.text)
		}
	}
	return trim(stripListMark(sents[at].text)), Clip(trim(strings.Join(strings.Fields(strings.Join(others, " ")), " ")), 400)
}

// tells reports whether a sentence says what to do: it starts with a verb
// of change ("Read…", "Verify…", "Change…") or with "you need to" and the
// like.
func tells(s string) bool {
	lower := strings.ToLower(s)
	for _, lead := range []string{"you need to ", "you have to ", "you should ", "you must ", "just "} {
		lower = strings.TrimPrefix(lower, lead)
	}
	end := strings.IndexFunc(lower, func(r rune) bool { return !unicode.IsLetter(r) })
	if end <= 0 {
		return false
	}
	return goalVerbs[lower[:end]] || fixVerbs[lower[:end]]
}

// fixVerbs are the verbs of a fix's steps that goalVerbs lacks.
var fixVerbs = set("read", "verify", "use", "call", "pass", "check", "wrap", "return", "handle", "catch", "escape", "encode",
	"decode", "parse", "drop", "delete", "keep", "make", "put", "change", "swap", "rename", "register", "import", "load",
	"close", "flush", "restart", "reinstall", "downgrade", "pin", "allow", "disable", "point", "export", "mount", "grant",
	"decrease", "limit", "await", "initialize", "reset", "clear", "sort", "quote", "declare", "define", "mark")
