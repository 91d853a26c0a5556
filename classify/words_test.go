package classify

import (
	"strings"
	"testing"
	"unicode"
)

// shortcutsAgree fails t unless lastField, allLower and lowerAlready say
// of s what strings.Fields, unicode.IsLower and strings.ToLower do.
func shortcutsAgree(t *testing.T, s string) {
	t.Helper()
	want := ""
	if f := strings.Fields(s); len(f) > 0 {
		want = f[len(f)-1]
	}
	if got := lastField(s); got != want {
		t.Fatalf("lastField(%q) = %q, strings.Fields ends with %q", s, got, want)
	}
	if got, want := allLower(s), strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLower(r) }) < 0; got != want {
		t.Fatalf("allLower(%q) = %v, unicode.IsLower says %v", s, got, want)
	}
	if got, want := lowerAlready(s), s == strings.ToLower(s); got != want {
		t.Fatalf("lowerAlready(%q) = %v, strings.ToLower says %v", s, got, want)
	}
}

// TestShortcutsOfWords compares lastField, allLower and lowerAlready with what they
// stand for on what sentences reads an abbreviation in (the text of each
// turn of the bench data, ../shared/bench, up to each of its periods),
// on its words, and on white space beyond ASCII.
func TestShortcutsOfWords(t *testing.T) {
	for _, s := range []string{"", " ", "a b", "e.g", "x\u00a0y", "x\u2003", "\u3000z", "ab\u0085", "(\"Mr", "ḉa", "ǅ", "ー", "İ", "\u212a", "aB", "\xff a", "a \xe2\x80", "éa"} {
		shortcutsAgree(t, s)
	}
	// The bench data's turns, when ../shared/bench is there (skipped
	// otherwise: the cases above still ran).
	t.Run("bench", func(t *testing.T) {
		texts := benchCorpus(t)
		if texts == nil {
			t.Skip(noBench)
		}
		for _, text := range texts {
			for i := strings.IndexByte(text, '.'); i >= 0; {
				shortcutsAgree(t, text[max(0, i-200):i])
				k := strings.IndexByte(text[i+1:], '.')
				if k < 0 {
					break
				}
				i += k + 1
			}
			ws, _ := words(text)
			for _, w := range ws {
				shortcutsAgree(t, w)
			}
		}
	})
}

// FuzzShortcutsOfWords: lastField, allLower and lowerAlready agree with what they
// stand for on any text.
func FuzzShortcutsOfWords(f *testing.F) {
	for _, s := range []string{"see e.g", "Dr", "x\u00a0y\u2003", "Ünïcode wörds", "\xe2\x80\x83a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { shortcutsAgree(t, s) })
}
