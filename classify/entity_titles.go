package classify

import (
	"strings"
	"unicode/utf8"
)

// findQuotedTitles finds the titles of works in quotes ("The Lord of the
// Rings", “A Dance with Dragons”): two to eight words in double quotes,
// the first capitalized and every other word capitalized but for short
// stop words, with no sentence's mark inside. A
// title's small words ("of the", "with") would otherwise cut it into
// names of its own ("Lord", "Rings").
func findQuotedTitles(s *entityScan) {
	for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}} {
		for from := 0; ; {
			k := strings.Index(s.p[from:], q[0])
			if k < 0 {
				break
			}
			start := from + k + len(q[0])
			n := strings.Index(s.p[start:], q[1])
			if n < 0 {
				break
			}
			end := start + n
			from = end + len(q[1])
			if q[0] == q[1] && start > len(q[0]) && isWordByte(s.p[start-len(q[0])-1]) {
				from = start // a closing quote ("he said" …): read on from here
				continue
			}
			if title(s.p[start:end], s.stop) && !s.taken(start, end) {
				s.add(Entity{Text: s.p[start:end], Kind: "name", Start: start, End: end})
			}
		}
	}
}

// title reports whether text reads as a title: two to eight words, the
// first capitalized and the others capitalized but for stop words of
// four letters or fewer ("of", "the", "with"), no sentence's mark, no line break.
func title(text string, stop map[string]bool) bool {
	if len(text) > 80 || strings.ContainsAny(text, ".!?:;,\n()[]{}<>=/\\`") {
		return false
	}
	ws := strings.Fields(text)
	if len(ws) < 2 || len(ws) > 8 || !capitalized(ws[0]) {
		return false
	}
	caps := 0
	for _, w := range ws {
		switch {
		case capitalized(w):
			caps++
		case stop[strings.ToLower(w)] && utf8.RuneCountInString(w) <= 4, w == "&":
		default:
			return false
		}
	}
	return caps >= 2
}
