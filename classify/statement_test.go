package classify

import (
	"slices"
	"testing"
)

func TestStatement(t *testing.T) {
	a := New()
	for _, tc := range []struct {
		in, text, category string
		terms              []string
		negative           bool
	}{
		{"I prefer dark mode", "User prefers dark mode", "preference", []string{"dark", "mode"}, false},
		{"I don't like TypeScript", "User doesn't like TypeScript", "preference", []string{"typescript"}, true},
		{"User dislikes TypeScript", "User dislikes TypeScript", "preference", []string{"typescript"}, true},
		{"User no longer uses Vim", "User no longer uses Vim", "", []string{"vim"}, true},
		{"User wants longer answers", "User wants longer answers", "", []string{"answer", "longer"}, false},
		{"I'm allergic to peanuts", "User is allergic to peanuts", "identity", []string{"allerg", "peanut"}, false},
		{"User is vegan", "User is vegan", "identity", []string{"vegan"}, false},
		{"User's wife is called Anna", "User's wife is called Anna", "relationship", []string{"anna", "wife"}, false},
		{"My wife is Anna", "User's wife is Anna", "relationship", []string{"anna", "wife"}, false},
		{"I'm working on a crawler in Go", "User is working on a crawler in Go", "project", []string{"crawler", "go", "work"}, false},
		{"User always uses tabs", "User always uses tabs", "preference", []string{"tab"}, false},
	} {
		s := a.Statement(tc.in, "User")
		if s.Text != tc.text || s.Category != tc.category || !slices.Equal(s.Terms, tc.terms) || s.Negative != tc.negative {
			t.Errorf("Statement(%q) = %q %q %v negative %v, want %q %q %v %v", tc.in, s.Text, s.Category, s.Terms, s.Negative, tc.text, tc.category, tc.terms, tc.negative)
		}
	}
}

func TestSimilarity(t *testing.T) {
	a := New()
	for _, tc := range []struct {
		x, y string
		want float64
	}{
		{"User likes TypeScript", "User prefers using TypeScript for all projects", 1},
		{"User likes TypeScript", "User dislikes TypeScript", 1},
		{"User lives in Paris", "User lives in Paris with his wife Anna", 2 * 2.0 / 6},
		{"User prefers dark mode", "User prefers light mode", 0.5},
		{"User likes tea", "User plays chess", 0},
		{"I like it", "i like it!", 1}, // no terms: the same words
		{"I like it", "I love it", 0},
	} {
		if got := Similarity(a.Statement(tc.x, "User"), a.Statement(tc.y, "User")); got != tc.want {
			t.Errorf("Similarity(%q, %q) = %v, want %v", tc.x, tc.y, got, tc.want)
		}
	}
}

// FuzzStatement: any text reads into a statement without a panic, whose
// terms are sorted and unique, and which is as similar to itself as it can
// be.
func FuzzStatement(f *testing.F) {
	a := New()
	for _, s := range []string{"I prefer dark mode", "User's wife is called Anna", "I don't like it", "I'm", "i", "User ies", "’s’s", "User always"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s := a.Statement(text, "User")
		if !slices.IsSorted(s.Terms) || len(slices.Compact(slices.Clone(s.Terms))) != len(s.Terms) {
			t.Fatalf("%q: terms %q", text, s.Terms)
		}
		if sim := Similarity(s, s); len(s.Terms) > 0 && sim != 1 {
			t.Fatalf("%q: similar to itself %v", text, sim)
		}
	})
}
