package classify

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

var codeSpan = regexp.MustCompile("`([^`\n]{2,80})`")

// findCodeSpans finds the names in backticks: a path ("`src/components`")
// or an identifier ("`rb.position`"). A phrase or a line of code in
// backticks is not a name.
func findCodeSpans(s *entityScan) {
	if !strings.Contains(s.p, "`") {
		return
	}
	for _, m := range codeSpan.FindAllStringSubmatchIndex(s.p, -1) {
		if s.taken(m[0], m[1]) {
			continue
		}
		t := s.p[m[2]:m[3]]
		if strings.ContainsAny(t, " \t") || localURL.MatchString(t) {
			continue // a phrase or a line of code in backticks, or the machine's own address: not a name
		}
		kind := "identifier"
		if isPath(t, true) {
			kind = "path"
		}
		s.add(Entity{Text: t, Kind: kind, Start: m[2], End: m[3]})
	}
}

// identifierAt is the wordFinder of code identifiers: it finds one if
// word i is one (see isIdentifier).
func identifierAt(s *entityScan, i int) (int, bool) {
	w, off := s.ws[i], s.offs[i]
	if !isIdentifier(w) {
		return i, false
	}
	s.add(Entity{Text: w, Kind: "identifier", Start: off, End: off + len(w)})
	return i, true
}

// isIdentifier reports whether a word is code: lowerCamelCase or
// snake_case. PascalCase words ("PostgreSQL", "GitHub", "JavaScript") are
// taken for names.
func isIdentifier(w string) bool {
	if len(w) < 4 || strings.IndexByte(w, '\'') >= 0 || strings.Contains(w, "’") {
		return false
	}
	if strings.Contains(strings.Trim(w, "_"), "_") {
		return true
	}
	first, _ := utf8.DecodeRuneInString(w)
	if !unicode.IsLower(first) {
		return false
	}
	for _, r := range w[1:] {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}
