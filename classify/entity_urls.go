package classify

import (
	"regexp"
	"strings"
)

// localURL is an address of the machine itself.
var localURL = regexp.MustCompile(`^https?://(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])(?:[:/]|$)`)

var urlPattern = regexp.MustCompile(`https?://[^\s)>\]"'` + "`" + `]+`)

// findURLs finds the URLs of the prose, their trailing punctuation left
// out of their text. It runs first: nothing is taken yet, and the matches
// of one pattern never overlap.
func findURLs(s *entityScan) {
	if !strings.Contains(s.p, "http") {
		return
	}
	for _, m := range urlPattern.FindAllStringIndex(s.p, -1) {
		u := strings.TrimRight(s.p[m[0]:m[1]], ".,;:!?")
		if localURL.MatchString(u) {
			continue // a machine's own address: a step, not a thing to look up
		}
		s.add(Entity{Text: u, Kind: "url", Start: m[0], End: m[1]})
	}
}
