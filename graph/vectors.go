package graph

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/smg-memory/smg/spec"
)

// ErrInvalidEmbedding reports an embedding the builder cannot keep: for a
// turn it does not have, empty, with a value that is not finite, or with
// another number of values than the index's other vectors of the same
// model.
var ErrInvalidEmbedding = errors.New("invalid embedding")

// SetEmbedding records the embedding of turn, made by model, in the deep
// archive's vectorIndex (spec §8.3), in place of any the turn had. The
// vectors of an index are of one model: a vector of another model than the
// index's replaces the index, as the vectors of two models cannot be
// compared, and the index records the new model. A vector of the index's
// model must have the index's dimensions.
//
// A new index is of the encoding int8 (§8.3: a quarter of float32's
// bytes, the cosines within a thousandth): the builder quantizes vec. An
// index loaded with [Load] keeps its encoding, float32 included, for more
// vectors of its model; an index in an encoding the builder does not know
// is replaced, as by another model.
//
// The index is kept in the document as it is given back by
// [Builder.Document], its embeddings in their order (turn, then excerpt),
// and through [Load].
func (b *Builder) SetEmbedding(turn int, model string, vec []float32) error {
	return b.SetExcerptEmbedding(turn, 0, 0, model, vec)
}

// SetExcerptEmbedding records the embedding of an excerpt of turn, the
// bytes start to end of its content, as [Builder.SetEmbedding] records a
// whole turn's; start and end 0 are the whole turn.
func (b *Builder) SetExcerptEmbedding(turn, start, end int, model string, vec []float32) error {
	switch {
	case turn < 1 || turn > b.turns:
		return fmt.Errorf("%w: turn %d, but the memory has %d turns", ErrInvalidEmbedding, turn, b.turns)
	case start < 0 || end < start || (end == start && start != 0):
		return fmt.Errorf("%w: turn %d: excerpt %d to %d is not a span of bytes", ErrInvalidEmbedding, turn, start, end)
	case len(vec) == 0:
		return fmt.Errorf("%w: turn %d: no values", ErrInvalidEmbedding, turn)
	}
	for i, x := range vec {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%w: turn %d: value %d is not a finite number", ErrInvalidEmbedding, turn, i)
		}
	}
	vi := b.vectors()
	switch {
	case vi.Model != model || len(vi.Embeddings) == 0 || !knownEncoding(vi.Encoding):
		vi.Model, vi.Dimensions, vi.Encoding, vi.Embeddings = model, len(vec), spec.EncodingInt8, nil
	case vi.Dimensions != len(vec):
		return fmt.Errorf("%w: turn %d: %d values, but the index of %q has %d", ErrInvalidEmbedding, turn, len(vec), model, vi.Dimensions)
	}
	vi.Enabled = true
	e := spec.Embedding{Turn: turn, Start: start, End: end, Vector: encodeVector(vi.Encoding, vec)}
	// Turns come in order: the new one is most often last.
	if n := len(vi.Embeddings); n == 0 || spec.CompareEmbeddings(vi.Embeddings[n-1], e) < 0 {
		vi.Embeddings = append(vi.Embeddings, e)
		return nil
	}
	i, found := slices.BinarySearchFunc(vi.Embeddings, e, spec.CompareEmbeddings)
	if found {
		e.Extra = vi.Embeddings[i].Extra
		vi.Embeddings[i] = e
	} else {
		vi.Embeddings = slices.Insert(vi.Embeddings, i, e)
	}
	return nil
}

// vectors returns the builder's own vector index, made or copied from
// the loaded document's the first time it changes.
func (b *Builder) vectors() *spec.VectorIndex {
	if b.ownVectors && b.extra.vectorIndex != nil {
		return b.extra.vectorIndex
	}
	vi := &spec.VectorIndex{}
	if old := b.extra.vectorIndex; old != nil {
		*vi = *old
		vi.Embeddings = sortedEmbeddings(old.Embeddings)
	}
	b.extra.vectorIndex, b.ownVectors = vi, true
	return vi
}

// vectorIndex is the vector index as a document gives it: a copy whose
// list of embeddings the builder will not change. The vectors' bytes are
// shared: neither the builder nor a document's reader changes them.
func (b *Builder) vectorIndex() *spec.VectorIndex {
	if b.extra.vectorIndex == nil {
		return nil
	}
	vi := *b.extra.vectorIndex
	vi.Embeddings = slices.Clone(vi.Embeddings)
	return &vi
}

// sortedEmbeddings returns a copy of es in their order, the first of
// several of one turn and excerpt kept.
func sortedEmbeddings(es []spec.Embedding) []spec.Embedding {
	out := slices.Clone(es)
	slices.SortStableFunc(out, spec.CompareEmbeddings)
	return slices.CompactFunc(out, func(a, b spec.Embedding) bool { return spec.CompareEmbeddings(a, b) == 0 })
}

// knownEncoding reports whether the builder writes vectors of encoding enc.
func knownEncoding(enc string) bool {
	_, err := spec.VectorSize(enc, 0)
	return err == nil
}

// encodeVector gives the bytes of vec in encoding enc, one the builder
// knows.
func encodeVector(enc string, vec []float32) spec.Bytes {
	if enc == spec.EncodingInt8 {
		return spec.EncodeVectorInt8(vec)
	}
	return spec.EncodeVector(vec)
}
