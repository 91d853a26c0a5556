package restore

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unicode"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/restore/vec"
	"github.com/smg-memory/smg/spec"
)

// meanings are the fake embedder's synonyms: words of one meaning get one
// vector.
var meanings = map[string]string{
	"car": "vehicle", "automobile": "vehicle", "vehicle": "vehicle", "sedan": "vehicle",
	"bought": "buy", "buy": "buy", "purchase": "buy", "purchased": "buy", "acquired": "buy",
	"doctor": "medic", "physician": "medic",
}

// fakeEmbedder embeds a text as a bag of its words' meanings, each hashed
// to one of 64 dimensions: deterministic, and as blind to words it has no
// synonym for as a real model is not.
type fakeEmbedder struct {
	model string
	err   error        // returned by Embed when set
	calls atomic.Int32 // of Embed
}

func (f *fakeEmbedder) Model() string { return f.model }

func (f *fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	f.calls.Add(1)
	if f.err != nil {
		return nil, f.err
	}
	out := make([][]float32, len(texts))
	for i, s := range texts {
		out[i] = fakeVector(s)
	}
	return out, nil
}

var stopWords = map[string]bool{"a": true, "the": true, "i": true, "we": true, "did": true, "which": true, "what": true, "was": true, "last": true, "one": true, "new": true}

func fakeVector(s string) []float32 {
	v := make([]float32, 64)
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if stopWords[w] {
			continue
		}
		if m, ok := meanings[w]; ok {
			w = "meaning:" + m
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%64]++
	}
	v[63] += 0.01 // never zero
	return v
}

// evidenceTurn is the turn that answers vectorQuestion, which shares no
// word with it.
const (
	evidenceTurn   = 30
	vectorQuestion = "Which automobile was purchased?"
)

// vectorMemory is a memory of 40 turns about other things, whose turn 20
// says what was bought, with the fake's vectors of every turn when emb is
// set.
func vectorMemory(t testing.TB, emb *fakeEmbedder, turns int) *spec.Document {
	t.Helper()
	topics := []string{
		"The garden needs watering twice a week in summer.",
		"My sister plays the violin in an orchestra.",
		"We purchased groceries for the picnic on Saturday.",
		"The museum opens at nine and closes at five.",
		"Painting the fence took the whole afternoon.",
		"The recipe calls for two cups of flour.",
		"Our team won the chess tournament again.",
		"The train to the coast was delayed by an hour.",
	}
	b := graph.New(graph.Config{BlockSize: 10}, graph.Options{ID: "vectors"})
	for i := 1; i <= turns; i++ {
		content := topics[i%len(topics)]
		if i == evidenceTurn {
			content = "I finally bought a sedan, a red car with leather seats."
		}
		speaker := "Caroline"
		if i%2 == 0 {
			speaker = "Melanie"
		}
		if err := b.Add(spec.Turn{Speaker: speaker, Content: content}); err != nil {
			t.Fatal(err)
		}
		if emb != nil {
			if err := b.SetEmbedding(i, emb.model, fakeVector(content)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return b.Document()
}

func hasTurnItem(r *Result, n int) (Item, bool) {
	for _, it := range r.Items {
		if it.Kind == "turn" && it.Turn == n {
			return it, true
		}
	}
	return Item{}, false
}

// TestVectorsFindTheMeaning checks that a question sharing no word with its
// evidence finds it with an embedder only.
func TestVectorsFindTheMeaning(t *testing.T) {
	emb := &fakeEmbedder{model: "fake-64"}
	doc := vectorMemory(t, emb, 40)
	opts := Options{Budget: 400}

	plain, err := newEngine(t, doc, nil).Context(context.Background(), vectorQuestion, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := hasTurnItem(plain, evidenceTurn); ok {
		t.Fatalf("full text alone found turn %d:\n%s", evidenceTurn, plain.Text)
	}
	if emb.calls.Load() != 0 {
		t.Errorf("an engine without an embedder embedded")
	}

	e := newEngine(t, doc, &Config{Embedder: emb})
	r, err := e.Context(context.Background(), vectorQuestion, opts)
	if err != nil {
		t.Fatal(err)
	}
	it, ok := hasTurnItem(r, evidenceTurn)
	if !ok {
		t.Fatalf("the embedder did not find turn %d:\n%s", evidenceTurn, r.Text)
	}
	if it.Parts["vector"] != 1 {
		t.Errorf("the nearest turn's parts: %v", it.Parts)
	}
	if !strings.Contains(r.Text, "red car with leather seats") || len(r.Warnings) != 0 || r.Tokens > opts.Budget {
		t.Errorf("context (%d tokens, warnings %q):\n%s", r.Tokens, r.Warnings, r.Text)
	}
	if n := emb.calls.Load(); n != 1 {
		t.Errorf("%d calls of Embed for one context, want 1", n)
	}
	again, err := e.Context(context.Background(), vectorQuestion, opts)
	if err != nil {
		t.Fatal(err)
	}
	if again.Text != r.Text || !reflect.DeepEqual(again.Items, r.Items) {
		t.Error("the same question gave another context")
	}

	// Search: the turn only the vectors find scores vectorWeight, below
	// the turns that share a word with the question and are near it too.
	found, err := e.Search(context.Background(), vectorQuestion, 8)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(found, func(it Item) bool {
		return it.Kind == "turn" && it.Turn == evidenceTurn && it.Parts["vector"] == 1 && it.Score == vectorWeight && strings.Contains(it.Text, "red car")
	}) {
		t.Errorf("Search did not find turn %d: %+v", evidenceTurn, found)
	}
	if len(found) > 8 {
		t.Errorf("Search gave %d items for a limit of 8", len(found))
	}
}

// TestVectorsWarn checks that a context is built from full text, with a
// warning, when the question cannot be compared with the memory's
// vectors.
func TestVectorsWarn(t *testing.T) {
	doc := vectorMemory(t, &fakeEmbedder{model: "fake-64"}, 40)
	opts := Options{Budget: 400}
	plain, err := newEngine(t, doc, nil).Context(context.Background(), vectorQuestion, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		emb  *fakeEmbedder
		want string
	}{
		{"embedder fails", &fakeEmbedder{model: "fake-64", err: errors.New("connection reset")}, "connection reset"},
		{"another model", &fakeEmbedder{model: "fake-other"}, `"fake-other"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEngine(t, doc, &Config{Embedder: tc.emb})
			r, err := e.Context(context.Background(), vectorQuestion, opts)
			if err != nil {
				t.Fatalf("a context failed for an optional provider: %v", err)
			}
			if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], tc.want) {
				t.Errorf("warnings %q, want one saying %s", r.Warnings, tc.want)
			}
			if r.Text != plain.Text || !reflect.DeepEqual(r.Items, plain.Items) {
				t.Errorf("the context is not the full-text one:\n%s", r.Text)
			}
			if _, err := e.Search(context.Background(), vectorQuestion, 5); err != nil {
				t.Errorf("Search: %v", err)
			}
		})
	}

	// A memory without vectors: nothing to compare with, nothing asked.
	emb := &fakeEmbedder{model: "fake-64"}
	r, err := newEngine(t, vectorMemory(t, nil, 40), &Config{Embedder: emb}).Context(context.Background(), vectorQuestion, opts)
	if err != nil || len(r.Warnings) != 0 || emb.calls.Load() != 0 {
		t.Errorf("without vectors: %v, warnings %q, %d calls", err, r.Warnings, emb.calls.Load())
	}

	// A cancelled context is an error, as without an embedder.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := newEngine(t, doc, &Config{Embedder: &fakeEmbedder{model: "fake-64", err: context.Canceled}}).Context(ctx, vectorQuestion, opts); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestVectorsUpdate checks that an update brings new vectors in and reuses
// the rows of the vectors it had.
func TestVectorsUpdate(t *testing.T) {
	emb := &fakeEmbedder{model: "fake-64"}
	before := vectorMemory(t, emb, evidenceTurn-1)
	e := newEngine(t, before, &Config{Embedder: emb})
	r, err := e.Context(context.Background(), vectorQuestion, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := hasTurnItem(r, evidenceTurn); ok {
		t.Fatal("found a turn the memory does not have yet")
	}
	old := e.vecs
	// The same builder's document shares the bytes of the old vectors.
	b, err := graph.Load(before, graph.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := evidenceTurn; i <= evidenceTurn+5; i++ {
		content := "Nothing new about the garden."
		if i == evidenceTurn {
			content = "I finally bought a sedan, a red car with leather seats."
		}
		if err := b.Add(spec.Turn{Speaker: "Caroline", Content: content}); err != nil {
			t.Fatal(err)
		}
		if err := b.SetEmbedding(i, emb.model, fakeVector(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Update(b.Document()); err != nil {
		t.Fatal(err)
	}
	if len(e.vecs.turns) != evidenceTurn+5 {
		t.Fatalf("%d vectors after the update", len(e.vecs.turns))
	}
	for i := range old.rows {
		if &e.vecs.rows[i][0] != &old.rows[i][0] {
			t.Errorf("the row of turn %d was decoded again", old.turns[i])
		}
	}
	r, err = e.Context(context.Background(), vectorQuestion, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := hasTurnItem(r, evidenceTurn); !ok {
		t.Errorf("the update's turn %d is not found:\n%s", evidenceTurn, r.Text)
	}
}

// TestVectorTurnsScale checks the scale of the vector part: the nearest
// turn 1, the first turn left out 0, and nothing but the vectorHits
// nearest (the memory's far turns keep its mean cosine below the first
// turn left out).
func TestVectorTurnsScale(t *testing.T) {
	x := &vectorIndex{model: "m", dims: 2}
	for i := range vectorHits + 10 {
		row := []float32{float32(vectorHits + 10 - i), 10} // nearer (1, 0) the earlier
		vec.Normalize(row)
		x.add(i+1, Span{}, row, nil, 0)
	}
	for i := range 2 * vectorHits {
		x.add(vectorHits+11+i, Span{}, []float32{-1, 0}, nil, 0) // away from (1, 0)
	}
	e := &Engine{vecs: x}
	q := &queryVector{model: "m", v: []float32{1, 0}}
	hits := e.vectorTurns(q)
	got := map[int]float64{}
	for n, h := range hits {
		got[n] = h.part
	}
	if len(hits) != vectorHits {
		t.Fatalf("%d turns, want %d", len(hits), vectorHits)
	}
	if got[1] != 1 || got[vectorHits] <= 0 || got[vectorHits+1] != 0 {
		t.Errorf("parts: turn 1 %v, turn %d %v, turn %d %v", got[1], vectorHits, got[vectorHits], vectorHits+1, got[vectorHits+1])
	}
	for n := 2; n <= vectorHits; n++ {
		if got[n] >= got[n-1] {
			t.Fatalf("turn %d: %v after %v", n, got[n], got[n-1])
		}
	}
	if e.vectorTurns(&queryVector{model: "other", v: []float32{1, 0}}) != nil || e.vectorTurns(nil) != nil {
		t.Error("vectors of another model were compared")
	}
}

// TestVectorTurnsAboveTheMean checks that in a memory of fewer turns than
// vectorHits only the turns nearer than the average one are near: the
// others, though not far, get no vector part.
func TestVectorTurnsAboveTheMean(t *testing.T) {
	x := &vectorIndex{model: "m", dims: 2}
	x.add(1, Span{}, []float32{1, 0}, nil, 0)
	for n := 2; n <= 5; n++ {
		row := []float32{0.3, 1} // cosine 0.29 with (1, 0); the mean is 0.43
		vec.Normalize(row)
		x.add(n, Span{}, row, nil, 0)
	}
	e := &Engine{vecs: x}
	hits := e.vectorTurns(&queryVector{model: "m", v: []float32{1, 0}})
	if len(hits) != 1 || hits[1].part != 1 {
		t.Errorf("hits %+v, want turn 1 alone", hits)
	}
}

// TestVectorIndexSkipsBadVectors checks that vectors a writer got wrong
// are left out, not fatal.
func TestVectorIndexSkipsBadVectors(t *testing.T) {
	doc := spec.New("x", day(2025, 1, 1))
	doc.DeepArchive.VectorIndex = &spec.VectorIndex{Enabled: true, Model: "m", Dimensions: 2, Embeddings: []spec.Embedding{
		{Turn: 1, Vector: spec.EncodeVector([]float32{1, 0})},
		{Turn: 2, Vector: spec.EncodeVector([]float32{1, 0, 0})}, // 3 values
		{Turn: 3, Vector: spec.EncodeVector([]float32{0, 0})},    // zero
		{Turn: 3, Vector: spec.EncodeVector([]float32{0, 1})},    // a second of turn 3
		{Turn: 4, Vector: spec.EncodeVector([]float32{0, 2})},
		{Turn: 4, Vector: spec.EncodeVector([]float32{0, 1})}, // a second of turn 4
	}}
	x := newVectorIndex(doc, nil)
	if x == nil || !reflect.DeepEqual(x.turns, []int{1, 3, 4}) || x.rows[2][1] != 1 {
		t.Fatalf("index %+v", x)
	}
}

// BenchmarkVectorTurns measures the brute-force search of the nearest
// turns of a memory of 10,000 turns, of vectors in float32 and in int8
// (read from their bytes, nearInt8).
func BenchmarkVectorTurns(b *testing.B) {
	for _, enc := range []string{spec.EncodingFloat32, spec.EncodingInt8} {
		for _, dims := range []int{384, 512, 768, 1536} {
			b.Run(fmt.Sprintf("%s/10000x%d", enc, dims), func(b *testing.B) {
				benchmarkVectorTurns(b, enc, dims)
			})
		}
	}
}

func benchmarkVectorTurns(b *testing.B, enc string, dims int) {
	doc := randomVectors(10000, dims)
	if enc == spec.EncodingInt8 {
		vi := doc.DeepArchive.VectorIndex
		vi.Encoding = enc
		for i, e := range vi.Embeddings {
			v, _ := spec.DecodeVector(e.Vector)
			vi.Embeddings[i].Vector = spec.EncodeVectorInt8(v)
		}
	}
	e := &Engine{vecs: newVectorIndex(doc, nil)}
	q := &queryVector{model: "m", v: randomVector(rand.New(rand.NewPCG(9, 9)), dims)}
	vec.Normalize(q.v)
	for b.Loop() {
		if len(e.vectorTurns(q)) != vectorHits {
			b.Fatal("too few hits")
		}
	}
}

// BenchmarkNewVectorIndex measures reading the vectors of a memory of
// 10,000 turns of 1,536 values, and an update's reading of the same
// vectors again.
func BenchmarkNewVectorIndex(b *testing.B) {
	doc := randomVectors(10000, 1536)
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			newVectorIndex(doc, nil)
		}
	})
	b.Run("update", func(b *testing.B) {
		old := newVectorIndex(doc, nil)
		for b.Loop() {
			newVectorIndex(doc, old)
		}
	})
}

func randomVectors(n, dims int) *spec.Document {
	r := rand.New(rand.NewPCG(1, 2))
	doc := spec.New("bench", day(2025, 1, 1))
	vi := &spec.VectorIndex{Enabled: true, Model: "m", Dimensions: dims}
	for i := 1; i <= n; i++ {
		vi.Embeddings = append(vi.Embeddings, spec.Embedding{Turn: i, Vector: spec.EncodeVector(randomVector(r, dims))})
	}
	doc.DeepArchive.VectorIndex = vi
	return doc
}

func randomVector(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}
