package classify

import (
	"strings"
	"testing"
)

// cueCountsAgree checks that countCues counts what cuePattern finds, in
// text and in each of its lines.
func cueCountsAgree(t testing.TB, text string) {
	t.Helper()
	for _, s := range append(strings.Split(text, "\n"), text) {
		if got, want := countCues(s, strings.ToLower(s)), len(cuePattern.FindAllStringIndex(s, -1)); got != want {
			t.Fatalf("countCues(%q) = %d, cuePattern finds %d", s, got, want)
		}
	}
}

// TestCountCuesMatchesPattern runs the shortcut of countCues and the
// expression on every turn of the bench data (../shared/bench) and on
// words that only a case-blind reading makes cues.
func TestCountCuesMatchesPattern(t *testing.T) {
	for _, s := range []string{"We SWITCHED to Go", "ſwitch to X", "we ſettled on it", "ſwitched from A", "Let'ſ go with it", "let'ſ uſe it", "aſwitch to B", "inſtead of C", "Let's use it", "LET'S USE IT", "A vs. B", "chose", "nothing here", "ﬆ", "K",
		"İover", "overİ", "\u212aover x", "over\u212a", "vſ", "İvs", "vs\u212a", "hangover", "overview", "_vs_", "1vs2"} {
		cueCountsAgree(t, s)
	}
	// The bench data's turns, when ../shared/bench is there (skipped
	// otherwise: the cases above still ran).
	t.Run("bench", func(t *testing.T) {
		texts := benchCorpus(t)
		if texts == nil {
			t.Skip(noBench)
		}
		for _, text := range texts {
			cueCountsAgree(t, text)
			for _, s := range sentences(text) {
				if got, want := countCues(s.text, s.lower), len(cuePattern.FindAllStringIndex(s.text, -1)); got != want {
					t.Fatalf("countCues(%q) = %d, cuePattern finds %d", s.text, got, want)
				}
			}
		}
	})
}

// FuzzCountCues: countCues and cuePattern agree on any text.
func FuzzCountCues(f *testing.F) {
	for _, s := range []string{"we switched from X to Y", "ſwitch", "Over the top", "vs", "RATHER THAN", "let us go with it", "opted for Z",
		"LETS USE it", "let's\tuse", "Switched To Go", "we migrated  from A", "Replaced X with Y", "replace\tX with Y", "optional", "Opt For x", "a vs.b",
		"İover", "overİ", "\u212aover x", "over\u212a", "vſ", "İvs", "vs\u212a", "hangover", "overview", "_vs_", "1vs2"} {
		f.Add(s)
		f.Add(strings.ReplaceAll(s, "s", "ſ"))
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := countCues(s, strings.ToLower(s)), len(cuePattern.FindAllStringIndex(s, -1)); got != want {
			t.Fatalf("countCues(%q) = %d, cuePattern finds %d", s, got, want)
		}
	})
}
