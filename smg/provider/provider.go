// Package provider holds the optional model providers of smg: an
// [Embedder] turns texts into vectors, so that a context can find the
// turns that share a question's meaning and none of its words, and a
// [Summarizer] writes short summaries. [OpenAI] implements both against any
// server that speaks OpenAI's HTTP API: OpenAI itself, or a local one
// (Ollama at http://localhost:11434/v1, llama.cpp's server, vLLM), which
// needs no key.
//
// Nothing in smg needs a provider: without one, retrieval is full text and
// the graph, and every summary is extractive. The packages that use a
// provider declare the interface they call, with the same methods as the
// ones here (restore.Embedder, smg.Embedder, smg.Summarizer), so that any
// value of this package, or any other with those methods, plugs in; this
// package imports nothing of smg but spec.
//
// Vectors are stored in a memory's file as spec/smg-v1.md §8.3 says, by
// [spec.EncodeVector]; [Cosine] compares two of them.
package provider

import (
	"context"
	"math"
)

// An Embedder turns texts into vectors.
//
// Embed returns one vector per text, in the order of texts, all of one
// length; it splits a long list into requests of a size its model or
// server accepts itself. An empty list gives an empty result and costs
// nothing. Model names the model, as a memory's vectorIndex records it:
// vectors of different models are never compared.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Model() string
}

// A Summarizer writes a summary of text in at most maxWords words.
// ChatModel names the model, as a memory's archive block records it
// (summaryModel).
type Summarizer interface {
	Summarize(ctx context.Context, text string, maxWords int) (string, error)
	ChatModel() string
}

// Cosine returns the cosine similarity of a and b, in [-1, 1]: their dot
// product over the product of their norms, computed in float64. Vectors of
// different lengths, empty vectors and zero vectors have no direction to
// compare: their similarity is 0.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return max(-1, min(1, dot/math.Sqrt(na*nb)))
}
