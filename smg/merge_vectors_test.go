package smg_test

import (
	"slices"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

// TestMergeExcerptVectors: the merge keys vectors by turn and excerpt, so
// that theirs' excerpts of a turn ours has a vector of come in, and ours'
// vector of an excerpt wins over theirs' of the same one; theirs' vectors
// of another encoding are dropped and counted; an index of ours without
// vectors takes theirs' model and encoding.
func TestMergeExcerptVectors(t *testing.T) {
	turns := smgtest.CheckoutTurns(t)
	base := mergeNewMemory(t, turns[:8])
	ours := mergeGrow(t, base, turns[8:10], nil)
	theirs := mergeGrow(t, base, turns[8:12], nil)
	vec := func(turn, start, end int, x float32) spec.Embedding {
		return spec.Embedding{Turn: turn, Start: start, End: end, Vector: spec.EncodeVectorInt8([]float32{x, 1})}
	}
	index := func(es ...spec.Embedding) *spec.VectorIndex {
		return &spec.VectorIndex{Enabled: true, Model: "m", Dimensions: 2, Encoding: spec.EncodingInt8, Embeddings: es}
	}
	ours.DeepArchive.VectorIndex = index(vec(1, 0, 0, 1), vec(1, 0, 5, 2))
	theirs.DeepArchive.VectorIndex = index(vec(1, 0, 0, 3), vec(1, 0, 5, 4), vec(1, 5, 9, 5), vec(9, 0, 4, 6))
	merged, rep := mergeOK(t, base, ours, theirs, smg.MergeOptions{})
	type key struct{ turn, start, end, x int }
	var got []key
	vi := merged.DeepArchive.VectorIndex
	for _, e := range vi.Embeddings {
		v, err := spec.DecodeVectorAs(vi.Encoding, vi.Dimensions, e.Vector)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, key{e.Turn, e.Start, e.End, int(v[0] + 0.5)})
	}
	// Theirs' turn 9 is turn 11 of the merge.
	if want := []key{{1, 0, 0, 1}, {1, 0, 5, 2}, {1, 5, 9, 5}, {11, 0, 4, 6}}; !slices.Equal(got, want) || vi.Encoding != spec.EncodingInt8 || rep.DroppedEmbeddings != 0 {
		t.Errorf("embeddings (turn, start, end, x) %v in %q, want %v; %d dropped", got, vi.Encoding, want, rep.DroppedEmbeddings)
	}

	// Theirs' in float32, ours' in int8: theirs' are dropped.
	theirs.DeepArchive.VectorIndex = &spec.VectorIndex{Enabled: true, Model: "m", Dimensions: 2, Embeddings: []spec.Embedding{
		{Turn: 2, Vector: spec.EncodeVector([]float32{1, 2})},
	}}
	merged, rep = mergeOK(t, base, ours, theirs, smg.MergeOptions{})
	if vi := merged.DeepArchive.VectorIndex; len(vi.Embeddings) != 2 || vi.Encoding != spec.EncodingInt8 || rep.DroppedEmbeddings != 1 {
		t.Errorf("another encoding: %d embeddings in %q, %d dropped", len(vi.Embeddings), vi.Encoding, rep.DroppedEmbeddings)
	}

	// Ours has an index of another model but no vectors: theirs' model
	// and encoding come with theirs' vectors.
	ours.DeepArchive.VectorIndex = &spec.VectorIndex{Enabled: true, Model: "old", Dimensions: 3, Encoding: spec.EncodingInt8}
	merged, rep = mergeOK(t, base, ours, theirs, smg.MergeOptions{})
	if vi := merged.DeepArchive.VectorIndex; len(vi.Embeddings) != 1 || vi.Model != "m" || vi.Dimensions != 2 || vi.VectorEncoding() != spec.EncodingFloat32 || rep.DroppedEmbeddings != 0 {
		t.Errorf("into an empty index: %+v, %d dropped", vi, rep.DroppedEmbeddings)
	}
}
