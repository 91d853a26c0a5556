package classify

import (
	"regexp"
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
	forBenchPieces(t, func(s string) { literalsAgree(t, s) })
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

// cueGates are the case-blind expressions that a set of literals spares
// the sentences they cannot match.
var cueGates = []struct {
	name string
	re   *regexp.Regexp
	may  func(text, lower string) bool
}{{"cuePattern", cuePattern, mayCue}, {"problemCue", problemCue, problemCueWords.folded}, {"solutionCue", solutionCue, solutionCueWords.folded}}

// gatesHold fails t if one of the cueGates would spare s, which its
// expression matches.
func gatesHold(t *testing.T, s string) {
	t.Helper()
	for _, g := range cueGates {
		if g.re.MatchString(s) && !g.may(s, strings.ToLower(s)) {
			t.Fatalf("%s matches %q (%q), which holds none of its words", g.name, s, g.re.FindString(s))
		}
	}
}

// TestCueWordsHoldEveryMatch runs each expression of cueGates on every
// turn of the bench data (../shared/bench), each of its lines and
// sentences, and on the words it matches read case-blind: where it
// matches, the text holds one of its words in lower case, or an "ſ".
func TestCueWordsHoldEveryMatch(t *testing.T) {
	for _, s := range []string{"Returns 404", "STATUS CODE 500", "it timed out", "Time Out", "TIMEDOUT", "won’t start", "Can't Log In",
		"Struggling With it", "PANIC: x", "That Did It", "Here’s the fix", "To Fix This", "problem ſolved", "reſolved", "it wor\u212as",
		"Did the tric\u212a", "ſtack trace", "Null Pointer", "No Such File", "we ſwitched to Go", "picK", "Let'ſ uſe it",
		"İover", "overİ", "\u212aover", "over\u212a", "vſ", "İvs", "vs\u212a", "A vs.B", "_over", "over_", "Over9", "hangover"} {
		gatesHold(t, s)
	}
	forBenchPieces(t, func(s string) { gatesHold(t, s) })
}

// FuzzCueWords: where an expression of cueGates matches any text, the
// text holds one of its words.
func FuzzCueWords(f *testing.F) {
	for _, s := range []string{"it returns a 503", "status 404", "that worked", "no longer crashes", "timed out", "fixed it", "opted for X"} {
		f.Add(s)
		f.Add(strings.ToUpper(s))
		f.Add(strings.ReplaceAll(s, "s", "ſ"))
	}
	f.Fuzz(func(t *testing.T, s string) { gatesHold(t, s) })
}

// forBenchPieces calls f on the text of every turn of the bench data
// (../shared/bench), on each of its lines, and on each of its sentences
// and their lower case.
func forBenchPieces(t *testing.T, f func(string)) {
	texts := benchCorpus(t)
	if texts == nil {
		t.Skip(noBench)
	}
	for _, text := range texts {
		f(text)
		for line := range strings.Lines(text) {
			f(line)
		}
		for _, s := range sentences(text) {
			f(s.text)
			f(s.lower)
		}
	}
}

// noBench is the skip of a test, or a part of one, that walks the bench
// data when there is none.
const noBench = "the bench data (../shared/bench) is absent: its turns are not walked"

// benchCorpus returns the texts of the turns of the bench data
// (../shared/bench); under the race detector, one in 25. Without any, it
// returns nil, and its callers skip (noBench): they walk the bench data
// last, after the cases of their own.
func benchCorpus(t *testing.T) []string {
	var texts []string
	for _, load := range []func() ([]string, error){locomoTexts, aiderExchanges, func() ([]string, error) { return samplesTexts("../../shared/bench/beam-dev.json") }} {
		ts, err := load()
		if err != nil {
			t.Log("not walked:", err)
			continue
		}
		texts = append(texts, ts...)
	}
	if len(texts) == 0 {
		return nil
	}
	if raceEnabled {
		// A sample: the regular expressions run several times slower
		// under the race detector, and every text is walked without it.
		var sample []string
		for i := 0; i < len(texts); i += 25 {
			sample = append(sample, texts[i])
		}
		texts = sample
	}
	return texts
}

// gatedExpressions are the expressions that a cheap test gates.
var gatedExpressions = map[string]gated{
	"codeStart": codeStart, "codeAssign": codeAssign, "dataField": dataField, "codeCall": codeCall,
	"shellPrompt": shellPrompt, "codeFrame": codeFrame, "stackFrame": stackFrame, "agentCommand": agentCommand,
}

// gatedAgree fails t unless each of gatedExpressions, gated and not,
// says the same of s and of s trimmed, as lines are read.
func gatedAgree(t *testing.T, s string) {
	t.Helper()
	for _, s := range []string{s, strings.TrimSpace(s)} {
		for name, g := range gatedExpressions {
			if got, want := g.MatchString(s), g.Regexp.MatchString(s); got != want {
				t.Fatalf("%s gated says %v of %q, the expression %v", name, got, s, want)
			}
		}
	}
}

// TestGatedMatchTheirExpressions runs each of gatedExpressions with its
// gate and without on every turn of the bench data (../shared/bench),
// each of its lines and sentences, and on lines each one matches.
func TestGatedMatchTheirExpressions(t *testing.T) {
	for _, s := range []string{"", "import { Home } from 'x'", "from a.b import c", "#include <x.h>", "functional(x)",
		"chiA, SA = exit_state(0.1)", "print(f\"x\")", "\"area\": \"Training\",", "total_tokens: 37895",
		"@ana ➜ /workspaces/app (main) $", "ana@box:~/app$ npm test", "$ npm install", "> 4 | import x", "12 │ y",
		"at visit (file:///C:/app/x.js:65:25)", "File \"/app/misc.py\", line 3, in main", "/add src/a.py", "/drop"} {
		gatedAgree(t, s)
	}
	forBenchPieces(t, func(s string) { gatedAgree(t, s) })
}

// FuzzGated: each of gatedExpressions says the same of any text with its
// gate and without.
func FuzzGated(f *testing.F) {
	for _, s := range []string{"let x = 1;", "from x import y", "$ ls", "a@b:~/c$ d", "> 1 | x", "at f (a.js:1:2)", "/add a", "k: v", "f(x)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { gatedAgree(t, s) })
}
