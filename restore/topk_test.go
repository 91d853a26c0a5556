package restore

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	bsearch "github.com/blevesearch/bleve/v2/search"
)

// zipfIndex returns an index of n documents of words drawn as words of a
// language are, a few common and most rare, indexed in batches (so the
// index has segments) with some removed. One in twenty documents repeats
// the one before it, so that scores tie and ids break them, and one in
// fifty is a word over and over.
func zipfIndex(t *testing.T, n int, seed uint64) (ix bleve.Index, vocab, repeated []string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	vocab = make([]string, 3000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx", i)
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	ix = textIndex(t)
	texts := make([]string, n)
	b := ix.NewBatch()
	for i := range n {
		switch {
		case i > 0 && i%20 == 0:
			texts[i] = texts[i-1]
		case i%50 == 1:
			// A word said over and over, which scores near the
			// ceiling that MaxScore allows a term.
			w := vocab[zipf.Uint64()]
			repeated = append(repeated, w)
			texts[i] = strings.Repeat(w+" ", 20+rng.IntN(200))
		default:
			words := make([]string, 3+rng.IntN(120))
			for j := range words {
				words[j] = vocab[zipf.Uint64()]
			}
			texts[i] = strings.Join(words, " ")
		}
		if err := b.Index(fmt.Sprintf("t:%d", i), indexDoc{Text: texts[i]}); err != nil {
			t.Fatal(err)
		}
		if b.Size() == 500 || i == n-1 {
			if err := ix.Batch(b); err != nil {
				t.Fatal(err)
			}
			b = ix.NewBatch()
		}
	}
	for i := 3; i < n; i += 97 {
		b.Delete(fmt.Sprintf("t:%d", i))
	}
	if err := ix.Batch(b); err != nil {
		t.Fatal(err)
	}
	return ix, vocab, repeated
}

// search by MaxScore finds what Bleve's collector finds: the same
// documents, in the same order, with the same scores, for questions of
// one word to thirty (some words twice, some in no document), best 1 to
// best 600, with the index's statistics and with others, the documents
// walked whole and in two or three parts at once.
func TestSearchIsBleves(t *testing.T) {
	ix, vocab, repeated := zipfIndex(t, 6000, 1)
	rng := rand.New(rand.NewPCG(3, 4))
	zipf := rand.NewZipf(rng, 1.05, 1, uint64(len(vocab)-1))
	stats := &bsearch.BM25Stats{DocCount: 9000, FieldCardinality: map[string]int{"text": 41000}}
	exact, compared := 0, 0
	for q := range 300 {
		words := make([]string, 1+rng.IntN(30))
		if q%5 == 0 {
			// A word said over and over, and a few others.
			words = []string{repeated[rng.IntN(len(repeated))]}
			for range rng.IntN(3) {
				words = append(words, vocab[zipf.Uint64()])
			}
		}
		for j := range words {
			if q%5 == 0 {
				break
			}
			switch rng.IntN(20) {
			case 0:
				words[j] = "absent" + fmt.Sprint(j)
			case 1:
				words[j] = words[max(j-1, 0)]
			default:
				words[j] = vocab[zipf.Uint64()]
			}
		}
		text := strings.Join(words, " ")
		k := []int{1, 7, 60, 600}[q%4]
		if q%5 == 0 {
			k = 1 + q%3
		}
		var st *bsearch.BM25Stats
		if q%3 == 0 {
			st = stats
		}
		want, err := bleveSearch(ix, text, k, st)
		if err != nil {
			t.Fatal(err)
		}
		got, err := searchIn(ix, text, k, st, 1+q%3)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q, best %d: %d hits, Bleve %d", text, k, len(got), len(want))
		}
		for i := range got {
			compared++
			g, w := got[i], want[i]
			if math.Abs(g.score-w.score) > 1e-9*w.score {
				t.Fatalf("%q, best %d: hit %d scores %v, Bleve %v", text, k, i, g.score, w.score)
			}
			if g.key == w.key {
				exact++
				continue
			}
			// Bleve sums more than ten terms in the order of a heap, so
			// scores a float's last bit apart may swap.
			if len(words) <= 10 {
				t.Fatalf("%q, best %d: hit %d is %s %v, Bleve's %s %v", text, k, i, g.key, g.score, w.key, w.score)
			}
		}
	}
	if exact < compared*95/100 || compared < 20000 {
		t.Errorf("%d of %d hits in Bleve's place", exact, compared)
	}
}

// A term's ceiling bounds every score it gives, and is as low as it can
// be. A hundred documents of sixty words of their own make Bleve's
// average length about fifty; then the documents that are a word said 1,
// 2, … 17 times, in that order, each beat the one before, and the last
// scores what the ceiling allows. A ceiling lower by a tenth stops the
// walk at the second.
func TestSearchCeiling(t *testing.T) {
	ix := textIndex(t)
	b := ix.NewBatch()
	for j := range 100 {
		var words []string
		for i := range 60 {
			words = append(words, fmt.Sprintf("own%dx%d", j, i))
		}
		if err := b.Index(fmt.Sprintf("t:o%03d", j), indexDoc{Text: strings.Join(words, " ")}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Batch(b); err != nil {
		t.Fatal(err)
	}
	const most = 17
	for f := 1; f <= most; f++ {
		b := ix.NewBatch()
		if err := b.Index(fmt.Sprintf("t:%03d", f), indexDoc{Text: strings.Repeat("apple ", f)}); err != nil {
			t.Fatal(err)
		}
		if err := ix.Batch(b); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []int{1, 3} {
		got, err := search(ix, "apple", k, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := bleveSearch(ix, "apple", k, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != k || !reflect.DeepEqual(got, want) || got[0].key != fmt.Sprintf("%03d", most) {
			t.Errorf("best %d of \"apple\": %v, want %v, led by %d", k, got, want, most)
		}
	}
}
