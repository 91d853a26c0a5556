package classify

import (
	"regexp"
	"strings"
)

// A coding agent's tool lines (aider's) say what it did to the project's
// files: an edit applied to a file, a commit made with its message, a
// commit undone. They are the history of the work; the rest of its lines
// (token counts, costs, prompts, notices) are chatter, kept in the archive
// and read for nothing else.

// Commit is a commit an agent made or undid.
type Commit struct {
	Hash, Message string
}

var (
	appliedLine = regexp.MustCompile(`^(?:> )?Applied edit to (\S.*?)\s*$`)
	commitLine  = regexp.MustCompile(`^(?:> )?Commit ([0-9a-f]{7,40}) (\S.*?)\s*$`)
	undoneLine  = regexp.MustCompile(`^(?:> )?Removed: ([0-9a-f]{7,40})(?: (\S.*?))?\s*$`)
)

// readToolLines reads an agent's tool output for the edits it applied,
// the commits it made and those it undid.
func readToolLines(text string, s *Signals) {
	if !strings.Contains(text, "Applied edit to") && !strings.Contains(text, "Commit ") && !strings.Contains(text, "Removed: ") {
		return
	}
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		if m := appliedLine.FindStringSubmatch(line); m != nil {
			if p := cleanPath(m[1]); !contains(s.Applied, p) {
				s.Applied = append(s.Applied, p)
			}
		} else if m := commitLine.FindStringSubmatch(line); m != nil {
			s.Commits = append(s.Commits, Commit{Hash: m[1], Message: m[2]})
		} else if m := undoneLine.FindStringSubmatch(line); m != nil {
			s.Undone = append(s.Undone, Commit{Hash: m[1], Message: m[2]})
		}
	}
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
