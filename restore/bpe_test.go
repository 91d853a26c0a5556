package restore

import (
	"strings"
	"testing"
)

// cl100kSamples exercise every alternative of cl100k's pattern and their
// edges: contractions in any case, a letter run after punctuation or a
// tab, digits in threes, punctuation with and without a space and with
// newlines after it, runs of spaces before words, newlines and the end,
// non-ASCII letters, digits, spaces and marks.
var cl100kSamples = []string{
	"hello world", "", " ", "  ", "\n", " \n ", "a  b", "a \t b", "a\t\tb", "x   ", "x \n\n y",
	"I'm can't we'LL they'Re you've it'S 'D 'l 'lx 'ret ''s", "don't!\n\nOK", "'", "''", "'\n",
	"1234567 12 1,000.50 ٣٤٥ Ⅻ ½", "(version 2):\n```go\nfunc main() {}\n```", "a.\r\n\r\nb", "?!\n",
	"naïve café e\u0301t\u00e9 日本語のテキスト 😀 emoji👍🏽", "\u00a0x\u2003y\u3000z \u2028 w", "tab\tsep\tvalues",
	"## From earlier conversations\n\n[8 May 2023]\nCaroline: I went to a LGBTQ support group yesterday.\n",
	"  leading and trailing  ", "ſ 'ſ 'K 'İ", "a\u0085b", "\x00\x01 \x7f", "http://example.com/a_b?c=d&e=f",
}

func cl100k(t testing.TB) bpeTokenizer {
	t.Helper()
	tk, err := NewTokenizer(CL100K)
	if err != nil {
		t.Fatal(err)
	}
	b := tk.(bpeTokenizer)
	if b.ranks == nil {
		t.Fatal("cl100k has no ranks: it counts with tiktoken-go's regular expression")
	}
	return b
}

// TestCL100KPieces checks the fast count against tiktoken-go's on the
// samples. TestCL100KOnLoCoMo, in smg/importer, checks it on every turn of
// the LoCoMo dev file.
func TestCL100KPieces(t *testing.T) {
	tk := cl100k(t)
	check := func(s string) {
		t.Helper()
		if got, want := tk.Count(s), len(tk.enc.EncodeOrdinary(s)); got != want {
			t.Errorf("Count(%q) = %d, tiktoken-go %d", s, got, want)
		}
	}
	for _, s := range cl100kSamples {
		check(s)
		check(strings.ToUpper(s))
	}
}

// FuzzCL100K checks the fast count against tiktoken-go's.
func FuzzCL100K(f *testing.F) {
	for _, s := range cl100kSamples {
		f.Add(s)
	}
	tk := cl100k(f)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := tk.Count(s), len(tk.enc.EncodeOrdinary(s)); got != want {
			t.Errorf("Count(%q) = %d, tiktoken-go %d", s, got, want)
		}
	})
}
