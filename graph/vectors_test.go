package graph

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/smg-memory/smg/spec"
)

// vectorsOf returns a document's embeddings of whole turns as turn →
// values, decoded in the index's encoding.
func vectorsOf(t *testing.T, doc *spec.Document) map[int][]float32 {
	t.Helper()
	out := map[int][]float32{}
	vi := doc.DeepArchive.VectorIndex
	if vi == nil {
		return out
	}
	for i, e := range vi.Embeddings {
		if i > 0 && spec.CompareEmbeddings(vi.Embeddings[i-1], e) >= 0 {
			t.Fatalf("embeddings not in order: %+v after %+v", e, vi.Embeddings[i-1])
		}
		v, err := spec.DecodeVectorAs(vi.Encoding, vi.Dimensions, e.Vector)
		if err != nil {
			t.Fatalf("turn %d: %v", e.Turn, err)
		}
		if e.Start == 0 && e.End == 0 {
			out[e.Turn] = v
		}
	}
	return out
}

// near reports whether got is want as int8 keeps it: each value within
// half a step of the largest magnitude / 127.
func near(got, want []float32) bool {
	if len(got) != len(want) {
		return false
	}
	var most float64
	for _, x := range want {
		most = max(most, math.Abs(float64(x)))
	}
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > most/254*1.0001 {
			return false
		}
	}
	return true
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
	if vi == nil || !vi.Enabled || vi.Model != "m1" || vi.Dimensions != 3 || vi.Encoding != spec.EncodingInt8 {
		t.Fatalf("vector index %+v", vi)
	}
	got := vectorsOf(t, doc)
	want := map[int][]float32{1: {1, 0.5, -1}, 2: {2, 0.5, -1}, 4: {40, 0, 0}, 5: {5, 0.5, -1}}
	if len(got) != len(want) {
		t.Fatalf("embeddings of turns %v", got)
	}
	for turn, v := range want {
		if !near(got[turn], v) {
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
	if got := vectorsOf(t, l.Document()); len(got) != 3 || !near(got[2], []float32{2, 1}) {
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
	if len(got) != 4 || !near(got[1], []float32{10, 1}) || !near(got[5], []float32{5, 1}) {
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

// TestExcerptEmbeddings: excerpts of a turn are kept beside its whole
// vector, in the order (turn, start, end), one each; an excerpt is
// replaced by a vector of the same span, and a span that is not one is
// refused.
func TestExcerptEmbeddings(t *testing.T) {
	b := New(Config{}, Options{})
	addTurns(t, b, 3)
	for _, x := range []struct{ turn, start, end int }{{2, 10, 20}, {2, 0, 10}, {1, 0, 0}, {2, 0, 0}, {2, 10, 15}, {3, 5, 9}, {2, 10, 20}} {
		if err := b.SetExcerptEmbedding(x.turn, x.start, x.end, "m", []float32{float32(x.start), float32(x.end)}); err != nil {
			t.Fatal(err)
		}
	}
	var got [][3]int
	for _, e := range b.Document().DeepArchive.VectorIndex.Embeddings {
		got = append(got, [3]int{e.Turn, e.Start, e.End})
	}
	want := [][3]int{{1, 0, 0}, {2, 0, 0}, {2, 0, 10}, {2, 10, 15}, {2, 10, 20}, {3, 5, 9}}
	if !slices.Equal(got, want) {
		t.Errorf("embeddings %v, want %v", got, want)
	}
	for _, x := range []struct{ start, end int }{{-1, 4}, {5, 4}, {4, 4}, {0, -2}} {
		if err := b.SetExcerptEmbedding(2, x.start, x.end, "m", []float32{1, 2}); !errors.Is(err, ErrInvalidEmbedding) {
			t.Errorf("excerpt %d to %d: %v, want ErrInvalidEmbedding", x.start, x.end, err)
		}
	}
}

// TestLoadedEncodingKept: a loaded float32 index takes more vectors of
// its model in float32 and shares the bytes of the ones it had; another
// model, or an encoding the builder does not know, starts an int8 index.
func TestLoadedEncodingKept(t *testing.T) {
	b := New(Config{}, Options{})
	addTurns(t, b, 4)
	doc := b.Document()
	old := spec.EncodeVector([]float32{0.1, 0.2, 0.3})
	doc.DeepArchive.VectorIndex = &spec.VectorIndex{Enabled: true, Model: "m", Dimensions: 3,
		Embeddings: []spec.Embedding{{Turn: 1, Vector: old}}}
	l, err := Load(doc, Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.SetExcerptEmbedding(2, 3, 9, "m", []float32{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	vi := l.Document().DeepArchive.VectorIndex
	if vi.Encoding != "" || len(vi.Embeddings) != 2 || len(vi.Embeddings[1].Vector) != 12 {
		t.Fatalf("a float32 index took a vector as %+v", vi)
	}
	if &vi.Embeddings[0].Vector[0] != &old[0] {
		t.Error("the loaded vector's bytes are not shared")
	}
	if v, _ := spec.DecodeVector(vi.Embeddings[1].Vector); !slices.Equal(v, []float32{1, 2, 3}) {
		t.Errorf("float32 vector %v", v)
	}

	if err := l.SetEmbedding(3, "m2", []float32{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	vi = l.Document().DeepArchive.VectorIndex
	if vi.Encoding != spec.EncodingInt8 || vi.Model != "m2" || len(vi.Embeddings) != 1 || len(vi.Embeddings[0].Vector) != 8 {
		t.Errorf("another model: %+v", vi)
	}

	doc.DeepArchive.VectorIndex.Encoding = "float16"
	l, err = Load(doc, Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.SetEmbedding(3, "m", []float32{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	vi = l.Document().DeepArchive.VectorIndex
	if vi.Encoding != spec.EncodingInt8 || len(vi.Embeddings) != 1 || vi.Embeddings[0].Turn != 3 {
		t.Errorf("after an unknown encoding: %+v", vi)
	}
}
