package classify

import (
	"regexp"
	"strings"
)

var urlPattern = regexp.MustCompile(`https?://[^\s)>\]"'` + "`" + `]+`)

// findURLs finds the URLs of the prose, their trailing punctuation left
// out of their text. It runs first: nothing is taken yet, and the matches
// of one pattern never overlap.
func findURLs(s *entityScan) {
	if !strings.Contains(s.p, "http") {
		return
	}
	for _, m := range urlPattern.FindAllStringIndex(s.p, -1) {
		s.out = append(s.out, Entity{Text: strings.TrimRight(s.p[m[0]:m[1]], ".,;:!?"), Kind: "url", Start: m[0], End: m[1]})
	}
}
