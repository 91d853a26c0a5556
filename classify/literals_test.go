package classify

import (
	"strings"
	"testing"
)

// literalLists are the lists of words that a literals set stands for in
// place of hasAny.
var literalLists = map[string][]string{
	"cueLiterals":   cueLiterals,
	"problemWords":  problemWords,
	"solutionWords": solutionWords,
	"traceWords":    traceWords,
	"goalWords":     goalWords,
	"decisionWords": append(append([]string{}, cueWords...), "let", "we'll", "we will", "going to", "i'll", "i will", "shall", "agreed", "decision", " from "),
}

func init() {
	for i, dp := range decisionPatterns {
		literalLists["decisionPatterns["+string(rune('0'+i))+"]"] = dp.words
	}
}

// literalsAgree fails t unless each literals set of the package and the
// hasAny of its words agree on s.
func literalsAgree(t *testing.T, s string) {
	t.Helper()
	sets := map[string]*literals{
		"cueLiterals": cueLiteralSet, "problemWords": problemWordSet, "solutionWords": solutionWordSet,
		"traceWords": traceWordSet, "goalWords": goalWordSet, "decisionWords": decisionWords,
	}
	for i := range decisionPatterns {
		sets["decisionPatterns["+string(rune('0'+i))+"]"] = patternWords[i]
	}
	for name, words := range literalLists {
		if got, want := sets[name].in(s), hasAny(s, words...); got != want {
			t.Fatalf("%s.in(%q) = %v, hasAny says %v", name, s, got, want)
		}
	}
}

// TestLiteralsMatchHasAny runs each set of literals the package uses and
// hasAny of its words on every turn of the bench data (../shared/bench),
// on each of its lines and sentences, in lower case too.
func TestLiteralsMatchHasAny(t *testing.T) {
	for _, s := range []string{"", "4", "x5", "error", "err", "n't work", "n’t work", "let’s", " from ", "from", "ab\xff", "\xe2\x80"} {
		literalsAgree(t, s)
	}
	var texts []string
	for _, load := range []func() ([]string, error){locomoTexts, aiderExchanges, func() ([]string, error) { return samplesTexts("../../shared/bench/beam-dev.json") }} {
		ts, err := load()
		if err != nil {
			t.Log("skipped:", err)
			continue
		}
		texts = append(texts, ts...)
	}
	for _, text := range texts {
		literalsAgree(t, text)
		for line := range strings.Lines(text) {
			literalsAgree(t, line)
		}
		for _, s := range sentences(text) {
			literalsAgree(t, s.text)
			literalsAgree(t, s.lower)
		}
	}
}

// FuzzLiterals: a set of literals and hasAny agree on any words (split
// at "|") and any text.
func FuzzLiterals(f *testing.F) {
	f.Add("error|4|n't work", "it doesn't work")
	f.Add("|x", "abc")
	f.Add("ab|abc|b", "xxab")
	f.Add("a", "")
	f.Add("’s|\xe2", "it’s")
	f.Fuzz(func(t *testing.T, words, s string) {
		ws := strings.Split(words, "|")
		if got, want := newLiterals(ws...).in(s), hasAny(s, ws...); got != want {
			t.Fatalf("newLiterals(%q).in(%q) = %v, hasAny says %v", ws, s, got, want)
		}
		for _, w := range literalLists {
			if got, want := newLiterals(w...).in(s), hasAny(s, w...); got != want {
				t.Fatalf("newLiterals(%q).in(%q) = %v, hasAny says %v", w, s, got, want)
			}
		}
	})
}
