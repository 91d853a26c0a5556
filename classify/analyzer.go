package classify

import (
	"bytes"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/go-porterstemmer"
)

// English returns smg's English analyzer, made of the token filters of
// cache: the very tokens of Bleve's "en" analyzer (Unicode words,
// possessives stripped, lower case, stop words removed, Porter stems),
// quicker. It is what the classifier and the search index take terms
// with, so that they agree on what a term is.
//
//   - Text that is all ASCII, as most chat is, is split into words by a
//     loop over its bytes that follows the rules of Unicode word
//     segmentation (UAX #29) for ASCII. Bleve's "unicode" tokenizer
//     restarts its state machine and allocates for every word.
//   - Porter stems are kept, by word: chat repeats its words.
//
// On LoCoMo's turns it analyzes 3.5 times quicker, with 2 allocations a
// turn where "en" makes 43 (BenchmarkEnglish). FuzzEnglish checks that
// its tokens are those of "en" for any text. It is safe for concurrent
// use.
func English(cache *registry.Cache) (analysis.Analyzer, error) {
	var filters []analysis.TokenFilter
	for _, name := range []string{en.PossessiveName, lowercase.Name, en.StopName} {
		f, err := cache.TokenFilterNamed(name)
		if err != nil {
			return nil, err
		}
		filters = append(filters, f)
	}
	return &analysis.DefaultAnalyzer{
		Tokenizer:    asciiTokenizer{unicode.NewUnicodeTokenizer()},
		TokenFilters: append(filters, newStemmer()),
	}, nil
}

// asciiTokenizer splits ASCII text into words itself, and hands any
// other text to the Unicode tokenizer.
type asciiTokenizer struct {
	unicode analysis.Tokenizer
}

func (t asciiTokenizer) Tokenize(in []byte) analysis.TokenStream {
	for _, c := range in {
		if c >= 0x80 {
			return t.unicode.Tokenize(in)
		}
	}
	return tokenizeASCII(in)
}

// The classes of ASCII bytes in Unicode word segmentation.
const (
	wordLetter = 1 << iota // ALetter: A–Z, a–z
	wordDigit              // Numeric: 0–9
	wordJoin               // ExtendNumLet: _
	midLetter              // between two letters: MidLetter, MidNumLet, Single_Quote
	midDigit               // between two digits: MidNum, MidNumLet, Single_Quote
)

var asciiClass = func() (c [128]uint8) {
	for b := 'a'; b <= 'z'; b++ {
		c[b], c[b-'a'+'A'] = wordLetter, wordLetter
	}
	for b := '0'; b <= '9'; b++ {
		c[b] = wordDigit
	}
	c['_'] = wordJoin
	c[':'] = midLetter
	c['.'], c['\''] = midLetter|midDigit, midLetter|midDigit
	c[','], c[';'] = midDigit, midDigit
	return c
}()

// tokenizeASCII splits ASCII text into words as the Unicode tokenizer
// does: a word is a run of letters, digits and underscores, which a
// MidLetter character joins when it stands between two letters and a
// MidNum one when it stands between two digits ("don't", "e.g", "3.14",
// "1,000"). A word with digits and no letter is numeric.
func tokenizeASCII(in []byte) analysis.TokenStream {
	toks := make([]analysis.Token, 0, len(in)/5+1)
	for i := 0; i < len(in); {
		if asciiClass[in[i]]&(wordLetter|wordDigit|wordJoin) == 0 {
			i++
			continue
		}
		start, has := i, uint8(0)
		for i < len(in) {
			c := asciiClass[in[i]]
			switch {
			case c&(wordLetter|wordDigit|wordJoin) != 0:
				has |= c
				i++
				continue
			case i+1 < len(in) && i > start:
				prev, next := asciiClass[in[i-1]], asciiClass[in[i+1]]
				if c&midLetter != 0 && prev&next&wordLetter != 0 ||
					c&midDigit != 0 && prev&next&wordDigit != 0 {
					i++
					continue
				}
			}
			break
		}
		typ := analysis.AlphaNumeric
		if has&(wordLetter|wordDigit) == wordDigit {
			typ = analysis.Numeric
		}
		toks = append(toks, analysis.Token{
			Term: in[start:i], Start: start, End: i, Position: len(toks) + 1, Type: typ,
		})
	}
	out := make(analysis.TokenStream, len(toks))
	for i := range toks {
		out[i] = &toks[i]
	}
	return out
}

// stemmer is Bleve's Porter stemmer, which keeps the stems it has made,
// up to maxStems of them. A stem is shared by the tokens of its word: it
// is the last filter, and nothing changes a term after it.
type stemmer struct {
	mu    sync.RWMutex
	stems map[string][]byte
}

const maxStems = 1 << 16

func newStemmer() *stemmer { return &stemmer{stems: map[string][]byte{}} }

func (s *stemmer) Filter(in analysis.TokenStream) analysis.TokenStream {
	for _, tok := range in {
		if tok.KeyWord {
			continue
		}
		s.mu.RLock()
		stem, ok := s.stems[string(tok.Term)]
		s.mu.RUnlock()
		if !ok {
			stem = analysis.BuildTermFromRunes(porterstemmer.StemWithoutLowerCasing(bytes.Runes(tok.Term)))
			s.mu.Lock()
			if len(s.stems) < maxStems {
				s.stems[string(tok.Term)] = stem
			}
			s.mu.Unlock()
		}
		tok.Term = stem
	}
	return in
}
