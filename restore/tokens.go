package restore

import (
	"fmt"
	"math"
	"sync"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// A Tokenizer counts the tokens of a text the way a model would.
type Tokenizer interface {
	// Name is the tokenizer's name: cl100k, o200k or estimate.
	Name() string
	// Count returns the number of tokens of s.
	Count(s string) int
}

// Tokenizer names.
const (
	CL100K   = "cl100k"   // OpenAI's cl100k_base (GPT-4, GPT-3.5)
	O200K    = "o200k"    // OpenAI's o200k_base (GPT-4o and later)
	Estimate = "estimate" // no model: a calibrated estimate
)

// NewTokenizer returns the named tokenizer ("" is Estimate). The BPE
// tables are embedded (github.com/pkoukk/tiktoken-go-loader): nothing is
// fetched. A table is read once, on first use, and shared; it takes
// 80–260 ms and tens of megabytes, which a caller that does not need exact
// counts saves with Estimate.
func NewTokenizer(name string) (Tokenizer, error) {
	switch name {
	case "", Estimate:
		return estimator{}, nil
	case CL100K, "cl100k_base":
		return bpe(CL100K, "cl100k_base")
	case O200K, "o200k_base":
		return bpe(O200K, "o200k_base")
	}
	return nil, fmt.Errorf("unknown tokenizer %q: cl100k, o200k or estimate", name)
}

var (
	loaderOnce sync.Once
	loader     *rankLoader
	encMu      sync.Mutex
	encodings  = map[string]*tiktoken.Tiktoken{}
)

func bpe(name, encoding string) (Tokenizer, error) {
	// tiktoken-go's default loader downloads the tables; ours are embedded.
	loaderOnce.Do(func() {
		loader = &rankLoader{inner: tiktoken_loader.NewOfflineLoader()}
		tiktoken.SetBpeLoader(loader)
	})
	encMu.Lock()
	defer encMu.Unlock()
	enc := encodings[encoding]
	if enc == nil {
		var err error
		if enc, err = tiktoken.GetEncoding(encoding); err != nil {
			return nil, fmt.Errorf("tokenizer %s: %w", name, err)
		}
		encodings[encoding] = enc
	}
	tk := bpeTokenizer{name: name, enc: enc}
	if encoding == "cl100k_base" {
		tk.ranks = loader.loaded(encoding)
	}
	return tk, nil
}

type bpeTokenizer struct {
	name string
	enc  *tiktoken.Tiktoken
	// ranks, when set, count valid UTF-8 without tiktoken-go's regular
	// expression (bpe.go): cl100k's.
	ranks map[string]int
}

func (t bpeTokenizer) Name() string { return t.name }

func (t bpeTokenizer) Count(s string) int {
	if t.ranks != nil && utf8.ValidString(s) {
		return countCL100K(s, t.ranks)
	}
	return len(t.enc.EncodeOrdinary(s))
}

// estimator counts tokens from words and punctuation, calibrated against
// cl100k on chat text. It is an estimate: a context packed with it keeps
// the margin of its budget for the difference.
type estimator struct{}

func (estimator) Name() string { return Estimate }

func (estimator) Count(s string) int {
	if s == "" {
		return 0
	}
	words, other := 0, 0
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
		switch {
		case letter && !in:
			words++
			in = true
		case !letter:
			in = false
			if c != ' ' {
				other++
			}
		}
	}
	return int(math.Ceil(wordTokens*float64(words) + otherTokens*float64(other)))
}

// The estimator's weights: a token per word (a run of letters, digits or
// non-ASCII bytes) and per punctuation mark, fitted by least squares to
// cl100k's counts of the turns of LoCoMo (1.02 and 0.85) and of two aider
// histories (0.91–1.32 and 0.59–0.97). TestEstimate measures the error.
const (
	wordTokens  = 1.05
	otherTokens = 0.8
)
