package classify

import (
	"regexp"
	"strings"
)

// literals is a set of strings that [literals.in] looks for in a text in
// one pass over it, where [hasAny] searches the text once for each. A
// pass tests each pair of adjacent bytes against the pairs the strings
// start with, and compares only the strings that start with a pair
// found: the words a sentence is checked for before a regular
// expression reads it start with pairs few of its bytes begin.
type literals struct {
	// pairs holds, as bits, the first two bytes of each string of two
	// bytes or more; single the strings of one byte.
	pairs  [1 << 16 / 64]uint64
	single [256]bool
	// long are the strings of two bytes or more, by their first byte;
	// empty is set when one of them is "", which every text holds.
	long  [256][]string
	empty bool
}

func newLiterals(words ...string) *literals {
	l := &literals{}
	for _, w := range words {
		switch len(w) {
		case 0:
			l.empty = true
		case 1:
			l.single[w[0]] = true
		default:
			k := uint16(w[0])<<8 | uint16(w[1])
			l.pairs[k/64] |= 1 << (k % 64)
			l.long[w[0]] = append(l.long[w[0]], w)
		}
	}
	return l
}

// in reports whether s contains any of the strings of l, as hasAny does.
func (l *literals) in(s string) bool {
	if l.empty {
		return true
	}
	for i := 0; i < len(s); i++ {
		if l.single[s[i]] {
			return true
		}
		if i+1 == len(s) {
			break
		}
		k := uint16(s[i])<<8 | uint16(s[i+1])
		if l.pairs[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		for _, w := range l.long[s[i]] {
			if strings.HasPrefix(s[i:], w) {
				return true
			}
		}
	}
	return false
}

// folded reports whether text, whose lower case is lower, may hold a
// match of a case-blind expression each match of which, in lower case,
// holds one of the strings of l: whether lower holds one, or text an
// "ſ". Read case-blind, the expression takes "ſ" for an "s", which lower
// case keeps as it is; every other character it takes for a letter of
// ASCII has that letter for its lower case ("K", the Kelvin sign, is
// "k").
func (l *literals) folded(text, lower string) bool {
	return l.in(lower) || strings.Contains(text, "ſ")
}

// gated is a regular expression with a cheap test that every text it
// matches passes (may): MatchString runs the expression only on the
// texts that do. The expressions that read each line of a turn's prose
// as code or not are gated by what code has, and prose seldom ("=",
// "(", "$", a keyword at the start).
type gated struct {
	*regexp.Regexp
	may func(string) bool
}

// MatchString reports whether s holds a match of g.
func (g gated) MatchString(s string) bool { return g.may(s) && g.Regexp.MatchString(s) }

// codeWords are the words codeStart's lines start with.
var codeWords = []string{"import", "export", "const", "let", "var", "def", "class", "interface", "func", "return", "public",
	"private", "protected", "static", "using", "namespace", "#include", "from"}

// hasPrefix reports whether s starts with one of prefixes.
func hasPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
