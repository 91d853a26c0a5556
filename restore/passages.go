package restore

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/smg-memory/smg/spec"
)

// A long turn is indexed, found and shown in passages: windows of
// passageWords words, one every passageStride words, each its own
// document in the index, scored on its own and costing only its own
// tokens in a context. A turn of at most longTurnWords words stays whole.
// A passage found counts for passageShare of its score, and only the best
// passage found of a turn becomes a candidate.
//
// On long project chats (BEAM) the median turn costs 361 tokens and the
// median evidence turn 67, and three quarters of the evidence turns are
// the user's (mostly short): a whole long turn fits a context of 1,000
// tokens once or twice, and BM25 ranks it by every word it holds.
// Measured on the dev files (evidence recall over categories 1–4,
// cl100k, at 1,000 and 4,000 tokens; see the commit that made them):
// with passages at their full score, long assistant turns crowded the
// short user turns out of small contexts (beam-dev 0.584 → 0.47 at
// 1,000 tokens); at half their score, not lending to the turns around
// them and one per turn, 0.569 at 1,000 and 0.727 at 4,000 (was 0.661).
// Overlapping windows (stride 30), a higher length (150, 250 words) and
// two passages per turn each did worse at both budgets; LoCoMo's turns
// are short and its recall did not move.
const (
	longTurnWords = 90
	passageWords  = 60
	passageStride = 60
	passageShare  = 0.5
)

// Span is an excerpt of a turn: the bytes of its content from Start to
// End, content[Start:End].
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Passages returns the passages of a turn's content that the engine
// indexes and shows in its place, as byte offsets into content, in
// order; none when the turn is short enough to stay whole. Each passage
// starts at the start of a word and ends at the end of one.
func Passages(content string) []Span {
	words := wordSpans(content)
	if len(words) <= longTurnWords {
		return nil
	}
	var out []Span
	for first := 0; ; first += passageStride {
		last := min(first+passageWords, len(words)) - 1
		out = append(out, Span{Start: words[first][0], End: words[last][1]})
		if last == len(words)-1 {
			return out
		}
	}
}

// isLong reports whether a turn of content is long: indexed, found and
// shown in passages (Passages gives some).
func isLong(content string) bool {
	words, in := 0, false
	for _, r := range content {
		switch {
		case unicode.IsSpace(r):
			in = false
		case !in:
			in = true
			if words++; words > longTurnWords {
				return true
			}
		}
	}
	return false
}

// embeddedPassages is how many passages of a long turn, from its start,
// a memory embeds. The encoder reads the first 128 tokens of a text, and
// a long turn says what it is about at its start (a question before the
// code it pastes, an answer that restates what it answers); what its later
// passages hold, the full-text search finds. Measured with the built-in
// encoder on beam-dev (evidence recall, categories 1–4, cl100k, 1,000 /
// 4,000 tokens; LoCoMo has no long turns): every passage, 13,929
// vectors, 0.632 / 0.811; the first two, 3,872 vectors, 0.641 / 0.812;
// the first, 0.639 / 0.803; the whole turn (its first 128 tokens), 0.639
// / 0.813, but a turn found by it goes in whole; none, 0.601 / 0.798.
const embeddedPassages = 2

// EmbeddedPassages returns the passages of a turn's content that a memory
// embeds, each as byte offsets into content: the first embeddedPassages
// of a long turn, none of a short one (it is embedded whole).
func EmbeddedPassages(content string) []Span {
	ps := Passages(content)
	return ps[:min(len(ps), embeddedPassages)]
}

// wordSpans returns the byte offsets of the words of s: runs of
// characters other than white space.
func wordSpans(s string) [][2]int {
	var out [][2]int
	start := -1
	for i, r := range s {
		if unicode.IsSpace(r) {
			if start >= 0 {
				out = append(out, [2]int{start, i})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(s)})
	}
	return out
}

// turnDoc is a document of the index made of a turn: the whole turn, or
// one of its passages.
type turnDoc struct {
	id, text string
}

// turnDocs returns the documents a turn is indexed as: itself when it is
// short, its passages when it is long. Each is found by the turn's date
// and speaker as well as by its words.
func turnDocs(t spec.Turn) []turnDoc {
	ps := Passages(t.Content)
	if ps == nil {
		return []turnDoc{{id: turnDocID(t.Turn), text: turnText(t)}}
	}
	head := dateOf(t.Timestamp) + "\n" + t.Speaker + ": "
	out := make([]turnDoc, len(ps))
	for i, p := range ps {
		out[i] = turnDoc{id: passageDocID(t.Turn, p), text: head + t.Content[p.Start:p.End]}
	}
	return out
}

// passageKey is the key of a passage of turn n as a context's candidate,
// "p:n:start:end"; its document in the index is passageDocID's.
func passageKey(n int, p Span) string {
	return kindPassage + ":" + strconv.Itoa(n) + ":" + strconv.Itoa(p.Start) + ":" + strconv.Itoa(p.End)
}

// parsePassage reads the key of a passage hit, "n:start:end".
func parsePassage(key string) (int, Span, bool) {
	parts := strings.Split(key, ":")
	if len(parts) != 3 {
		return 0, Span{}, false
	}
	var v [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 {
			return 0, Span{}, false
		}
		v[i] = x
	}
	if v[1] >= v[2] {
		return 0, Span{}, false
	}
	return v[0], Span{Start: v[1], End: v[2]}, true
}

// excerptOf returns the excerpt p of turn t, if p lies within its
// content on character boundaries.
func excerptOf(t spec.Turn, p Span) (string, bool) {
	c := t.Content
	if p.Start < 0 || p.End > len(c) || p.Start >= p.End {
		return "", false
	}
	if !utf8.RuneStart(c[p.Start]) || (p.End < len(c) && !utf8.RuneStart(c[p.End])) {
		return "", false
	}
	return c[p.Start:p.End], true
}

// excerptLine is an excerpt of a turn as a context shows it:
// "Dana (excerpt): …text…", an ellipsis where the turn goes on.
func excerptLine(t spec.Turn, p Span, text string) string {
	who := t.Speaker
	if who == "" {
		who = t.Role
	}
	var sb strings.Builder
	sb.WriteString(who + " (excerpt): ")
	if strings.TrimSpace(t.Content[:p.Start]) != "" {
		sb.WriteString("…")
	}
	sb.WriteString(shownText(t, text))
	if strings.TrimSpace(t.Content[p.End:]) != "" {
		sb.WriteString("…")
	}
	return sb.String()
}
