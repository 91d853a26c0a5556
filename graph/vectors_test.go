package graph

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/smg-memory/smg/spec"
)

// vectorsOf returns a document's embeddings as turn → values.
func vectorsOf(t *testing.T, doc *spec.Document) map[int][]float32 {
	t.Helper()
	out := map[int][]float32{}
	vi := doc.DeepArchive.VectorIndex
	if vi == nil {
		return out
	}
	for i, e := range vi.Embeddings {
		if i > 0 && vi.Embeddings[i-1].Turn >= e.Turn {
			t.Fatalf("embeddings not sorted by turn: %d after %d", e.Turn, vi.Embeddings[i-1].Turn)
		}
		v, err := spec.DecodeVector(e.Vector)
		if err != nil || len(v) != vi.Dimensions {
			t.Fatalf("turn %d: %d values of %d, %v", e.Turn, len(v), vi.Dimensions, err)
		}
		out[e.Turn] = v
	}
	return out
}

func addTurns(t *testing.T, b *Builder, n int) {
	t.Helper()
	for range n {
		if err := b.Add(spec.Turn{Role: "user", Content: "We ship the parcels from Rotterdam on Mondays."}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSetEmbedding(t *testing.T) {
	b := New(Config{BlockSize: 2}, Options{})
	if doc := b.Document(); doc.DeepArchive.VectorIndex != nil {
		t.Fatalf("a new memory has a vector index: %+v", doc.DeepArchive.VectorIndex)
	}
	addTurns(t, b, 5)
	for _, turn := range []int{4, 1, 5, 2} { // out of order, and 3 without one
		if err := b.SetEmbedding(turn, "m1", []float32{float32(turn), 0.5, -1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.SetEmbedding(4, "m1", []float32{40, 0, 0}); err != nil { // replaced
		t.Fatal(err)
	}
	doc := b.Document()
	vi := doc.DeepArchive.VectorIndex
	if vi == nil || !vi.Enabled || vi.Model != "m1" || vi.Dimensions != 3 {
		t.Fatalf("vector index %+v", vi)
	}
	got := vectorsOf(t, doc)
	want := map[int][]float32{1: {1, 0.5, -1}, 2: {2, 0.5, -1}, 4: {40, 0, 0}, 5: {5, 0.5, -1}}
	if len(got) != len(want) {
		t.Fatalf("embeddings of turns %v", got)
	}
	for turn, v := range want {
		if !slices.Equal(got[turn], v) {
			t.Errorf("turn %d: %v, want %v", turn, got[turn], v)
		}
	}

	// The document is the caller's.
	doc.DeepArchive.VectorIndex.Embeddings[0].Turn = 99
	doc.DeepArchive.VectorIndex.Model = "changed"
	if again := b.Document(); again.DeepArchive.VectorIndex.Model != "m1" || again.DeepArchive.VectorIndex.Embeddings[0].Turn != 1 {
		t.Errorf("changing a document changed the builder's index")
	}

	for _, tc := range []struct {
		turn  int
		model string
		vec   []float32
	}{
		{0, "m1", []float32{1, 2, 3}},
		{6, "m1", []float32{1, 2, 3}},
		{1, "m1", nil},
		{1, "m1", []float32{1, 2}},
		{1, "m1", []float32{1, float32(math.NaN()), 3}},
		{1, "m1", []float32{1, float32(math.Inf(1)), 3}},
	} {
		if err := b.SetEmbedding(tc.turn, tc.model, tc.vec); !errors.Is(err, ErrInvalidEmbedding) {
			t.Errorf("SetEmbedding(%d, %q, %v) = %v, want ErrInvalidEmbedding", tc.turn, tc.model, tc.vec, err)
		}
	}

	// Another model replaces the index.
	if err := b.SetEmbedding(3, "m2", []float32{1, 2}); err != nil {
		t.Fatal(err)
	}
	doc = b.Document()
	if vi := doc.DeepArchive.VectorIndex; vi.Model != "m2" || vi.Dimensions != 2 || len(vi.Embeddings) != 1 || vi.Embeddings[0].Turn != 3 {
		t.Errorf("after another model: %+v", vi)
	}
}

// TestEmbeddingsThroughLoad checks that a loaded memory keeps its vectors,
// takes more, and leaves the loaded document as it was.
func TestEmbeddingsThroughLoad(t *testing.T) {
	b := New(Config{BlockSize: 2}, Options{})
	addTurns(t, b, 3)
	for turn := 1; turn <= 3; turn++ {
		if err := b.SetEmbedding(turn, "m", []float32{float32(turn), 1}); err != nil {
			t.Fatal(err)
		}
	}
	doc := b.Document()
	doc.DeepArchive.VectorIndex.Extra = []byte(`{"x-note":"kept"}`)
	before, err := spec.MarshalCanonical(doc)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Load(doc, Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := vectorsOf(t, l.Document()); len(got) != 3 || !slices.Equal(got[2], []float32{2, 1}) {
		t.Fatalf("after Load: %v", got)
	}
	addTurns(t, l, 2)
	if err := l.SetEmbedding(5, "m", []float32{5, 1}); err != nil {
		t.Fatal(err)
	}
	if err := l.SetEmbedding(1, "m", []float32{10, 1}); err != nil {
		t.Fatal(err)
	}
	out := l.Document()
	got := vectorsOf(t, out)
	if len(got) != 4 || !slices.Equal(got[1], []float32{10, 1}) || !slices.Equal(got[5], []float32{5, 1}) {
		t.Errorf("after more turns: %v", got)
	}
	if string(out.DeepArchive.VectorIndex.Extra) != `{"x-note":"kept"}` {
		t.Errorf("the index's unknown members: %s", out.DeepArchive.VectorIndex.Extra)
	}
	after, err := spec.MarshalCanonical(doc)
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) {
		t.Error("Load and SetEmbedding changed the loaded document")
	}
}
