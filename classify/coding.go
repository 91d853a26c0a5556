package classify

import (
	"regexp"
	"strings"
	"unicode"
)

// A coding agent's tool lines (aider's) say what it did to the project's
// files: an edit applied to a file, a commit made with its message, a
// commit undone. They are the history of the work; the rest of its lines
// (token counts, costs, prompts, notices) are chatter, kept in the archive
// and read for nothing else.

// Commit is a commit an agent made or undid.
type Commit struct {
	Hash, Message string
	// Files are the files it committed, as the tool's lines before it
	// say: the edits applied since the commit before, or the file of the
	// user's own edit it committed first.
	Files []string
	// Own: a commit of the user's own edits, which the agent made before
	// it applied its own.
	Own bool
}

var (
	appliedLine   = regexp.MustCompile(`^(?:> )?Applied edit to (\S.*?)\s*$`)
	committingOwn = regexp.MustCompile(`^(?:> )?Committing (\S.*?) before applying edits\.?\s*$`)
	commitLine    = regexp.MustCompile(`^(?:> )?Commit ([0-9a-f]{7,40}) (\S.*?)\s*$`)
	undoneLine    = regexp.MustCompile(`^(?:> )?Removed: ([0-9a-f]{7,40})(?: (\S.*?))?\s*$`)
)

// readToolLines reads an agent's tool output for the edits it applied,
// the commits it made, each with its files, and those it undid. Edits
// applied after the last commit are uncommitted.
func readToolLines(text string, s *Signals) {
	if !strings.Contains(text, "Applied edit to") && !strings.Contains(text, "Commit") && !strings.Contains(text, "Removed: ") {
		return
	}
	var pending, own []string
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		if m := appliedLine.FindStringSubmatch(line); m != nil {
			p := cleanPath(m[1])
			if !contains(pending, p) {
				pending = append(pending, p)
			}
			if !contains(s.Applied, p) {
				s.Applied = append(s.Applied, p)
			}
		} else if m := committingOwn.FindStringSubmatch(line); m != nil {
			own = append(own, cleanPath(m[1]))
		} else if m := commitLine.FindStringSubmatch(line); m != nil {
			c := Commit{Hash: m[1], Message: m[2], Files: pending}
			if len(own) > 0 && len(pending) == 0 {
				c.Files, c.Own = own, true
			}
			own, pending = nil, nil
			s.Commits = append(s.Commits, c)
		} else if m := undoneLine.FindStringSubmatch(line); m != nil {
			s.Undone = append(s.Undone, Commit{Hash: m[1], Message: m[2]})
		}
	}
	s.Uncommitted = pending
}

// agentCommandLine is a user's line that is a command to the agent, not
// words to it: "/add src/app.py", "/undo", "/run npm test".
var agentCommandLine = regexp.MustCompile(`^/[a-z][\w-]*\b`)

// Request is what a user asked an assistant to do, as the turn says it.
type Request struct {
	// Text is the ask, its first sentence or line, as written.
	Text string
}

// findRequest reads a user's turn to an agent for what it asks to be
// done: not a command to the agent ("/add …", "/undo"), a confirmation
// ("y", "yes"), the agent's own prompt to fix lint errors, or a paste of
// an error with no words around it (a problem, found as such).
func findRequest(text string, sents []sentence) *Request {
	t := strings.TrimSpace(text)
	lower := strings.ToLower(t)
	switch {
	case t == "", agentCommandLine.MatchString(t) && !strings.HasPrefix(lower, "/ask ") && !strings.HasPrefix(lower, "/architect ") && !strings.HasPrefix(lower, "/code "),
		strings.HasPrefix(lower, "# fix any errors below"), confirmation[strings.Trim(lower, ".! ")]:
		return nil
	}
	for _, s := range sents {
		body := strings.TrimSpace(s.text)
		for _, cmd := range []string{"/ask ", "/architect ", "/code "} {
			body = strings.TrimSpace(strings.TrimPrefix(body, cmd))
		}
		if countWords(body) < 2 || traceStart.MatchString(body) {
			continue
		}
		if len(body) > maxRequest {
			body = strings.TrimSpace(body[:strings.LastIndexByte(body[:maxRequest], ' ')]) + "…"
		}
		return &Request{Text: body}
	}
	return nil
}

// maxRequest bounds the text of a request, in bytes.
const maxRequest = 240

// confirmation are the answers to an agent's question that ask nothing.
var confirmation = set("y", "n", "yes", "no", "ok", "okay", "sure", "go ahead", "continue", "proceed", "do it", "yep", "nope", "a", "s", "d", "<blank>")

// In a coding agent's session, what the user pastes or says is broken is
// a problem of the work: an error line of a build, a lint report or a
// log, pasted without a fence as often as with one; a sentence that says
// the program does not do what it should ("single clicks are not
// handled", "the button doesn't open the picker").
var (
	// codingError is a line of output that reports an error.
	codingError = re(`\b(?:error|exception|fails|failed|failure|cannot|can['’]t|couldn['’]t|unable to|not found|is not defined|not defined|undefined|expected|unexpected|invalid|denied|refused|missing|duplicate|already declared|already defined|defined multiple times|isn['’]t defined|no such|timed out|not allowed|not permitted)\b`)
	// errorName is an error's name ("TypeError", "AuthenticationError").
	errorName = regexp.MustCompile(`\b[A-Z]?\w*(?:Error|Exception)\b`)
	// outputLine is a line a program wrote rather than a person: it
	// starts with an error's word, a mark or a place.
	outputLine = regexp.MustCompile(`^(?:[^\pL\s]|(?:[A-Z][\w.]*)?(?:Error|Exception)\b|ERROR|Failed|FAILED|Fatal|FATAL|Uncaught|Unhandled|Warning|WARN|npm ERR|Type error|Syntax error|Module not found|Cannot|error\b|export '|Unexpected)`)
	// lintPlace is a lint report's place in a file: "src/a.tsx(26,25):".
	lintPlace = regexp.MustCompile(`[\w./-]+\.\w{1,6}\(\d+,\d+\)`)
	// sourceExcerpt is a line of source an error shows: "17 │ …",
	// "> 4 | import …".
	sourceExcerpt = regexp.MustCompile(`^(?:>\s*)?\d+\s*[│|]`)
	// fixRequest is a request to fix something named ("fix the sign in
	// error, it says 504 gateway timeout"): what it names is a problem.
	fixRequest = re(`^(?:please\s+)?(?:can you\s+)?(?:fix|resolve|solve|debug)\s+(?:the\s+|this\s+|that\s+)?(.+)$`)
	// troubleWord is a word of what went wrong, which a thing to fix must
	// name beyond "the error".
	troubleWord = re(`\b(?:error|errors|bug|issue|problem|crash|exception|timeout|fails?|failing|broken|\d{3})\b`)
	// bugCue is a sentence that says the program misbehaves.
	bugCue = re(`\b(?:doesn['’]t|does not|isn['’]t|is not|aren['’]t|are not|won['’]t|can['’]t|cannot|not being|never)\s+(?:\w+\s+){0,2}?(?:work|show|display|load|render|draw|drawn|appear|print|printed|open|close|save|update|respond|handle|handled|prompt|trigger|fire|run|compile|build|start|move|scroll|zoom|translate|translated|correct|properly|right|visible|found|defined|recogni[sz]ed)\w*\b|\b(?:wrong|incorrect|broken|not correct|not properly|not working|fails|failing|crash(?:es|ed|ing)?|freezes|hangs|glitch(?:es|y)?|buggy|jumps)\b`)
)

// maxCodingProblems bounds the error lines a pasted log gives.
const maxCodingProblems = 2

// findCodingProblems finds the problems of a turn of a coding session:
// in a tool's output, the error lines that point into a source file or
// name an error; in a user's turn, those and the sentences that say the
// program misbehaves (not an order: "make sure it doesn't crash").
func findCodingProblems(text string, sents []sentence, role string) []Problem {
	var out []Problem
	seen := map[string]bool{}
	add := func(line, kind string) {
		line = clip(strings.TrimSpace(strings.Trim(strings.TrimSpace(line), "│╷╵|>")), 200)
		if k := strings.ToLower(line); line != "" && !seen[k] && len(out) < maxCodingProblems+len(sents) {
			seen[k] = true
			out = append(out, Problem{Summary: line, Kind: kind, Code: errorCode(line)})
		}
	}
	lines := 0
	for line := range strings.Lines(text) {
		l := strings.TrimSpace(strings.Trim(strings.TrimSpace(line), "│╷╵|×>"))
		if lines >= maxCodingProblems || len(l) < 8 || sourceExcerpt.MatchString(strings.TrimSpace(line)) || !codingError.MatchString(l) || countWords(l) < 3 {
			continue
		}
		if sourceLocation.MatchString(l) || lintPlace.MatchString(l) || errorName.MatchString(l) || role == "user" && outputLine.MatchString(l) {
			add(l, "trace")
			lines++
		}
	}
	if role != "user" {
		return out
	}
	for _, s := range sents {
		text := strings.TrimSpace(s.text)
		lower := strings.ToLower(text)
		if m := fixRequest.FindStringSubmatchIndex(text); m != nil && troubleWord.MatchString(lower[m[2]:]) && countWords(text[m[2]:]) >= 3 {
			add(capitalize(text[m[2]:]), "error") // "fix the sign in error, …": the sign in error
			continue
		}
		if bugCue.MatchString(lower) && !imperative(lower) && !strings.HasPrefix(lower, "if ") && countWords(lower) >= 4 {
			add(text, "error")
		}
	}
	return out
}

// capitalize is s with its first letter in upper case.
func capitalize(s string) string {
	r := []rune(s)
	if len(r) > 0 {
		r[0] = unicode.ToUpper(r[0])
	}
	return string(r)
}
