package restore

import (
	"strings"
	"unicode"
)

// speakers lowers the turns of the speakers a question does not name,
// when it names one of the speakers gathered: it asks about what they
// said. Such a turn gets a "speaker" part, otherSpeaker, its score's
// factor.
func speakers(g *gathering) {
	words := questionWords(g.query)
	said := map[string]bool{} // speaker → whether the question names them
	named := func(speaker string) bool {
		v, ok := said[speaker]
		if !ok {
			v = names(words, speaker)
			said[speaker] = v
		}
		return v
	}
	one := false
	for n := range g.turns {
		if t, _ := g.e.turn(n); named(t.Speaker) {
			one = true
			break
		}
	}
	if !one {
		return
	}
	for n, parts := range g.turns {
		if t, _ := g.e.turn(n); t.Speaker != "" && !named(t.Speaker) {
			parts["speaker"] = otherSpeaker
		}
	}
}

// questionWords are the words of a question, lower case, split at
// anything but letters and digits ("Melanie's" gives "melanie" and "s").
func questionWords(q string) map[string]bool {
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		words[w] = true
	}
	return words
}

// names reports whether a question of words names a speaker: one of the
// words of the speaker's name, of two letters or more, is one of them.
func names(words map[string]bool, speaker string) bool {
	for w := range questionWords(speaker) {
		if len(w) >= 2 && words[w] {
			return true
		}
	}
	return false
}
