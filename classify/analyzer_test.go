package classify

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/registry"
)

// analyzers returns smg's English analyzer and Bleve's "en", which it
// must agree with.
func analyzers(t testing.TB) (smg, bleveEn analysis.Analyzer) {
	t.Helper()
	cache := registry.NewCache()
	var err error
	if smg, err = English(cache); err != nil {
		t.Fatal(err)
	}
	if bleveEn, err = cache.AnalyzerNamed(en.AnalyzerName); err != nil {
		t.Fatal(err)
	}
	return smg, bleveEn
}

// sameTokens reports whether two token streams are the same.
func sameTokens(got, want analysis.TokenStream) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !reflect.DeepEqual(*got[i], *want[i]) {
			return false
		}
	}
	return true
}

// asciiSeeds are texts at the edges of Unicode word segmentation.
var asciiSeeds = []string{
	"", "a", "_", "__", "1", "_1", "1_", "a_1", "1_a", "a.b", "a..b", "a.", ".a",
	"a:b", "a;b", "1;2", "1:2", "1,000.50", "3.14", "e.g.", "U.S.A.", "don't", "Dana's",
	"a'", "'a", "a_.b", "a._b", "1.a", "a.1", "1a.b", "a1.2", "1_2.3", "x-ray", "c++",
	"foo@bar.com", "http://x.io/a_b?c=1&d=2", "\r\n\tA\x00b\x7fc", "It's 10:30; we're at 1,2,3.",
	"The workers kept hitting \"database is locked\" errors (SQLite).",
	"Café ümlaut – naïve “quotes” don’t", "日本語のテキスト", "emoji 🎉 ok",
}

// englishTexts are the seeds and the turns of the bundled coding
// conversation.
func englishTexts(t testing.TB) []string {
	t.Helper()
	texts := append([]string(nil), asciiSeeds...)
	raw, err := os.ReadFile("../smg/examples/checkout.json")
	if err != nil {
		t.Fatal(err)
	}
	var turns []struct{ Speaker, Content string }
	if err := json.Unmarshal(raw, &turns); err != nil || len(turns) < 15 {
		t.Fatalf("checkout.json: %d turns, %v", len(turns), err)
	}
	for _, tu := range turns {
		texts = append(texts, tu.Speaker+": "+tu.Content)
	}
	return texts
}

func TestEnglishAgreesWithBleve(t *testing.T) {
	smg, bleveEn := analyzers(t)
	agree := func(t *testing.T, texts []string) {
		for _, s := range texts {
			if got, want := smg.Analyze([]byte(s)), bleveEn.Analyze([]byte(s)); !sameTokens(got, want) {
				t.Errorf("%q:\n%s\nwant\n%s", s, got, want)
			}
		}
	}
	agree(t, englishTexts(t))
	for _, bench := range []struct {
		name  string
		texts func() ([]string, error)
	}{{"locomo", locomoTexts}, {"aider", aiderExchanges}} {
		t.Run(bench.name, func(t *testing.T) {
			texts, err := bench.texts()
			if err != nil {
				t.Skip("the benchmark's conversations (../shared/bench):", err)
			}
			agree(t, texts)
		})
	}
}

func FuzzEnglish(f *testing.F) {
	for _, s := range asciiSeeds {
		f.Add(s)
	}
	if data, err := os.ReadFile("../smg/examples/checkout.json"); err == nil {
		f.Add(string(data[:min(len(data), 2000)]))
	}
	smg, bleveEn := analyzers(f)
	f.Fuzz(func(t *testing.T, s string) {
		// The text, and the text made ASCII, which takes the quick
		// path; each twice: the second time, the stems come from the
		// stemmer's store.
		ascii := []byte(s)
		for i := range ascii {
			ascii[i] &= 0x7f
		}
		for _, in := range []string{s, s, string(ascii), string(ascii)} {
			if got, want := smg.Analyze([]byte(in)), bleveEn.Analyze([]byte(in)); !sameTokens(got, want) {
				t.Fatalf("%q:\n%s\nwant\n%s", in, got, want)
			}
		}
	})
}

// BenchmarkEnglish analyzes the turns of LoCoMo with smg's English
// analyzer and with Bleve's "en".
func BenchmarkEnglish(b *testing.B) {
	texts := benchTexts(b)
	smg, bleveEn := analyzers(b)
	for _, a := range []struct {
		name string
		an   analysis.Analyzer
	}{{"smg", smg}, {"bleve-en", bleveEn}} {
		b.Run(a.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				a.an.Analyze([]byte(texts[i%len(texts)]))
			}
		})
	}
}
