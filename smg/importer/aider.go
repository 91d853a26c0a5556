package importer

import (
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/smg-memory/smg/spec"
)

// How aider writes its history (aider's io.py), and so how it is read here:
//
//   - A session starts with "# aider chat started at 2006-01-02 15:04:05".
//   - The user's input is logged after a blank line as "#### LINE" lines,
//     each ending with two spaces (a Markdown line break), so a blank line
//     between two user lines separates two inputs (a /ask command and the
//     question it logs again, an empty input logged as "<blank>"). Older
//     versions put each line of an input in a paragraph of its own: when no
//     two user lines of a file are next to each other, but some are a blank
//     line apart, a run of them is one input.
//   - An assistant's Markdown heading "#### Title" has no trailing spaces:
//     in a file with the two spaces, a "####" line without them is the
//     assistant's.
//   - aider's own messages are prefixed "> " and end with two spaces; a
//     message of several lines gets the prefix on its first line only (in
//     the versions that wrote the bench files), its other lines are as they
//     are, and its last line ends with the two spaces: a failed edit's
//     explanation with the block repeated, a multi-line shell command, an
//     error quoting the model's reply. So a "> " line without the two
//     spaces goes on up to the first non-blank line with them (or up to the
//     next user line or session). A line right after a message, with no
//     blank line between, is more of it too, even when the message's first
//     line ends with spaces: a command shown over several lines can end its
//     first line with spaces of its own ("> cd server   ", "   npm start  ").
//   - The assistant's reply is logged as it is, between blank lines; an
//     architect's plan and the editor's edits are two replies with tool
//     lines between.
//   - Lines inside a fenced code block (``` or ~~~, three or more, up to a
//     fence of the same character at least as long) belong to the reply,
//     whatever they start with. But a reply can stop inside a fence (^C,
//     the model's output limit, a broken edit block); aider then goes on as
//     always, with a blank line and a line with the two spaces: so a blank
//     line followed by a user line or a "> " line that ends with the two
//     spaces, or a session header, ends an open fence.
//
// When a file has no user or tool line with the two trailing spaces (its
// trailing white space was stripped), every "#### " line is a user line and
// every "> " line a tool line of its own, and only a session header ends a
// fence.

// aiderHeader starts a session.
const aiderHeader = "# aider chat started at"

// aiderLine is one line of an aider history, with its carriage returns
// removed.
type aiderLine struct {
	s     string
	brk   bool // ends with two spaces: a Markdown line break
	blank bool
}

// readAider reads an aider chat history as one conversation.
func (r *reader) readAider() error {
	p := newAiderParser(splitAider(string(r.t.data[skipBOM(r.t.data):])))
	if !p.looksLikeAider() {
		return r.errorAt(r.t, 0, 0, "", `not an aider chat history: no "# aider chat started at" line, user line ("#### ") or tool line ("> ")`)
	}
	return r.add(Conversation{Turns: p.parse()})
}

// splitAider splits a history into lines, and reports whether it has user
// or tool lines that end with aider's two spaces.
func splitAider(src string) (lines []aiderLine, strict bool) {
	lines = make([]aiderLine, 0, strings.Count(src, "\n")+1)
	for len(src) > 0 {
		s, rest, _ := strings.Cut(src, "\n")
		src = rest
		s = strings.TrimRight(s, "\r")
		l := aiderLine{s: s, brk: strings.HasSuffix(s, "  "), blank: strings.TrimSpace(s) == ""}
		if l.brk && (strings.HasPrefix(s, "#### ") || strings.HasPrefix(s, "> ")) {
			strict = true
		}
		lines = append(lines, l)
	}
	return lines, strict
}

func newAiderParser(lines []aiderLine, strict bool) *aiderParser {
	p := &aiderParser{lines: lines, strict: strict}
	p.paragraphs = p.paragraphStyle()
	p.fences()
	return p
}

type aiderParser struct {
	lines  []aiderLine
	strict bool
	// paragraphs: the file puts each line of a user's message in a
	// paragraph of its own, so blank lines between user lines do not end
	// the message.
	paragraphs bool
	// fenceEnd[i], for a line that opens a fence, is the fence's last line;
	// -1 for other lines.
	fenceEnd []int

	turns   []spec.Turn
	role    string   // of the turn being read; "" when none is
	buf     []string // its lines
	pending []string // blank lines after an assistant's, kept if it goes on
	when    time.Time
}

func (p *aiderParser) header(i int) bool {
	return strings.HasPrefix(p.lines[i].s, aiderHeader)
}

func (p *aiderParser) user(i int) bool {
	l := p.lines[i]
	if !strings.HasPrefix(l.s, "####") || len(l.s) > 4 && l.s[4] != ' ' {
		return false
	}
	return !p.strict || l.brk
}

func (p *aiderParser) tool(i int) bool {
	l := p.lines[i]
	if p.strict {
		return strings.HasPrefix(l.s, "> ") && (l.brk || strings.TrimSpace(l.s[2:]) != "")
	}
	return strings.HasPrefix(l.s, "> ") || l.s == ">"
}

// paragraphStyle reports whether the file's user lines come one per
// paragraph: no two are next to each other, and some are a blank line
// apart. Otherwise (aider's current way) a blank line ends a message.
func (p *aiderParser) paragraphStyle() bool {
	apart := false
	for i := 1; i < len(p.lines); i++ {
		if !p.user(i) {
			continue
		}
		if p.user(i - 1) {
			return false
		}
		apart = apart || i > 1 && p.lines[i-1].blank && p.user(i-2)
	}
	return apart
}

func (p *aiderParser) looksLikeAider() bool {
	empty := true
	for i, l := range p.lines {
		if p.header(i) || p.user(i) || p.tool(i) {
			return true
		}
		empty = empty && l.blank
	}
	return empty
}

// fence returns the fence character and length of a line that could open
// or close a fenced code block (CommonMark: up to three spaces, then three
// or more backticks or tildes), and whether it can close one (nothing but
// white space after the fence) and open one (a backtick fence's info
// string has no backtick).
func fence(s string) (c byte, n int, closes, opens bool) {
	i := 0
	for i < len(s) && i < 3 && s[i] == ' ' {
		i++
	}
	if i == len(s) || s[i] != '`' && s[i] != '~' {
		return 0, 0, false, false
	}
	c = s[i]
	j := i
	for j < len(s) && s[j] == c {
		j++
	}
	if n = j - i; n < 3 {
		return 0, 0, false, false
	}
	rest := s[j:]
	closes = strings.TrimSpace(rest) == ""
	opens = c == '~' || strings.IndexByte(rest, '`') < 0
	return c, n, closes, opens
}

// cut reports whether line i shows that a fence open before it was cut
// off: a session header, or, in a file with the trailing spaces, a blank
// line and then a user line or a tool line that ends with them, which is
// how aider goes on after a reply. (A reply that reached the model's
// output limit, or that the user interrupted, can end inside a fence.)
func (p *aiderParser) cut(i int) bool {
	if p.header(i) {
		return true
	}
	s := p.lines[i].s
	return p.strict && i > 0 && p.lines[i-1].blank && p.lines[i].brk &&
		(strings.HasPrefix(s, "#### ") || strings.HasPrefix(s, "> "))
}

// fences finds, for every line that opens a fence, the last line of the
// fence: the first closer after it, or, when a cut comes first, the line
// before the cut. Going backwards, it keeps for each fence character the
// closers before the next cut that no nearer closer is at least as long
// as: their lengths grow with their distance, so the first one long
// enough is found by binary search.
func (p *aiderParser) fences() {
	p.fenceEnd = make([]int, len(p.lines))
	type closer struct{ n, line int }
	stairs := map[byte][]closer{} // the nearest last
	next := len(p.lines)          // the next cut
	for i := len(p.lines) - 1; i >= 0; i-- {
		p.fenceEnd[i] = -1
		if p.cut(i) {
			clear(stairs)
			next = i
			continue
		}
		c, n, closes, opens := fence(p.lines[i].s)
		if c == 0 {
			continue
		}
		st := stairs[c]
		if opens {
			p.fenceEnd[i] = next - 1
			// st[k].n decreases with k: find the last k with st[k].n >= n.
			if k := sort.Search(len(st), func(k int) bool { return st[k].n < n }) - 1; k >= 0 {
				p.fenceEnd[i] = st[k].line
			}
		}
		if closes {
			for len(st) > 0 && st[len(st)-1].n <= n {
				st = st[:len(st)-1]
			}
			stairs[c] = append(st, closer{n, i})
		}
	}
}

// parse reads the lines into turns.
func (p *aiderParser) parse() []spec.Turn {
	for i := 0; i < len(p.lines); {
		l := p.lines[i]
		switch {
		case p.header(i):
			p.flush()
			rest := strings.TrimSpace(strings.TrimPrefix(l.s, aiderHeader))
			p.when, _ = time.Parse(time.DateTime, rest) // no time when it does not parse
			i++
		case p.user(i):
			p.start("user")
			s := strings.TrimPrefix(l.s, "####")
			p.buf = append(p.buf, strings.TrimRight(strings.TrimPrefix(s, " "), " \t"))
			i++
		case p.tool(i):
			p.start("tool")
			s := strings.TrimPrefix(l.s, ">")
			p.buf = append(p.buf, strings.TrimRight(strings.TrimPrefix(s, " "), " \t"))
			i++
			if p.strict && !l.brk {
				// A message of several lines: up to the one with the break.
				for i < len(p.lines) && !p.header(i) && !p.user(i) {
					p.buf = append(p.buf, strings.TrimRight(p.lines[i].s, " \t"))
					i++
					if l := p.lines[i-1]; l.brk && !l.blank {
						break
					}
				}
			}
			if p.strict {
				// A line right after a message, with no blank line
				// between, is more of it, up to an empty line: aider's
				// reply starts after one, and a command it shows over
				// several lines pads them all with spaces, blank ones
				// too ("> cd server   " then "   npm start  ").
				for i < len(p.lines) && p.lines[i].s != "" && !p.header(i) && !p.user(i) && !p.tool(i) {
					p.buf = append(p.buf, strings.TrimRight(p.lines[i].s, " \t"))
					i++
				}
			}
		case l.blank:
			switch {
			case p.role == "assistant":
				p.pending = append(p.pending, l.s)
			case p.role == "user" && !p.paragraphs:
				p.flush()
			}
			i++
		default:
			p.start("assistant")
			p.buf = append(p.buf, p.pending...)
			p.pending = p.pending[:0]
			p.buf = append(p.buf, l.s)
			end := p.fenceEnd[i]
			if end < 0 {
				i++
				continue
			}
			for i++; i <= end; i++ {
				p.buf = append(p.buf, p.lines[i].s)
			}
		}
	}
	p.flush()
	return p.turns
}

// start makes role the turn being read, ending another one.
func (p *aiderParser) start(role string) {
	if p.role != role {
		p.flush()
		p.role = role
	}
}

// flush ends the turn being read; a turn with no text is left out.
func (p *aiderParser) flush() {
	lines := p.buf
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > 0 {
		content := strings.Join(lines, "\n")
		if !utf8.ValidString(content) {
			content = strings.ToValidUTF8(content, "\uFFFD")
		}
		p.turns = append(p.turns, spec.Turn{Timestamp: p.when, Role: p.role, Content: content})
	}
	p.role, p.buf, p.pending = "", p.buf[:0], p.pending[:0]
}
