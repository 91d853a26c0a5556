package restore

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/restore/vec"
	"github.com/smg-memory/smg/spec"
)

// TestVectorIndexInt8 checks that int8 vectors (§8.3) decode into unit
// rows within a thousandth of the cosine of their float32 values, and that
// bytes of the wrong length, a zero scale and an unknown encoding are left
// out.
func TestVectorIndexInt8(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const dims = 512
	doc := spec.New("x", day(2025, 1, 1))
	vi := &spec.VectorIndex{Enabled: true, Model: "m", Dimensions: dims, Encoding: spec.EncodingInt8}
	var want [][]float32
	for i := 1; i <= 20; i++ {
		v := randomVector(r, dims)
		want = append(want, v)
		vi.Embeddings = append(vi.Embeddings, spec.Embedding{Turn: i, Vector: spec.EncodeVectorInt8(v)})
	}
	vi.Embeddings = append(vi.Embeddings,
		spec.Embedding{Turn: 21, Vector: spec.EncodeVector(randomVector(r, dims))}, // float32 bytes
		spec.Embedding{Turn: 22, Vector: spec.EncodeVectorInt8(make([]float32, dims))},
	)
	doc.DeepArchive.VectorIndex = vi
	x := newVectorIndex(doc, nil)
	if x == nil || len(x.turns) != 20 || x.turns[19] != 20 {
		t.Fatalf("index of turns %v", x)
	}
	for i, row := range x.rows {
		v := append([]float32(nil), want[i]...)
		vec.Normalize(v)
		if c := vec.Dot(v, row); c < 0.999 || math.Abs(float64(vec.Dot(row, row))-1) > 1e-5 {
			t.Errorf("turn %d: cosine %.5f with its float32 values, length² %.6f", i+1, c, vec.Dot(row, row))
		}
	}
	// Read again as an update: the same bytes, the same rows.
	again := newVectorIndex(doc, x)
	if &again.rows[3][0] != &x.rows[3][0] {
		t.Error("an update decoded the same int8 bytes again")
	}
	vi.Encoding = "float16"
	if x := newVectorIndex(doc, nil); x != nil {
		t.Errorf("an index of an unknown encoding was read: turns %v", x.turns)
	}
	vi.Encoding = spec.EncodingFloat32
	if x := newVectorIndex(doc, nil); x == nil || !reflect.DeepEqual(x.turns, []int{21}) {
		t.Errorf("read as float32: %+v", x)
	}
}

// TestFloat32VectorsFromBefore: a memory written before int8, its
// vectors float32 and its index without an encoding, is read, and its
// vectors find the turn that shares no word with the question; its update
// by a builder adds float32 vectors that are found too.
func TestFloat32VectorsFromBefore(t *testing.T) {
	emb := &fakeEmbedder{model: "fake-64"}
	doc := vectorMemory(t, nil, 40)
	vi := &spec.VectorIndex{Enabled: true, Model: emb.model, Dimensions: len(fakeVector("x"))}
	err := graph.EachTurn(doc, nil, func(tn spec.Turn) error {
		if tn.Turn != evidenceTurn {
			vi.Embeddings = append(vi.Embeddings, spec.Embedding{Turn: tn.Turn, Vector: spec.EncodeVector(fakeVector(tn.Content))})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	doc.DeepArchive.VectorIndex = vi
	e := newEngine(t, doc, &Config{Embedder: emb})
	if e.vecs == nil || len(e.vecs.rows) != 39 {
		t.Fatalf("the float32 vectors were not read: %+v", e.vecs)
	}
	b, err := graph.Load(doc, graph.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SetEmbedding(evidenceTurn, emb.model, fakeVector("I finally bought a sedan, a red car with leather seats.")); err != nil {
		t.Fatal(err)
	}
	updated := b.Document()
	if enc := updated.DeepArchive.VectorIndex.Encoding; enc != "" {
		t.Fatalf("the builder changed the loaded index's encoding to %q", enc)
	}
	if err := e.Update(updated); err != nil {
		t.Fatal(err)
	}
	res, err := e.Context(context.Background(), vectorQuestion, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if it, ok := hasTurnItem(res, evidenceTurn); !ok || it.Parts["vector"] == 0 {
		t.Errorf("turn %d is not found by its float32 vector:\n%s", evidenceTurn, res.Text)
	}
}

// BenchmarkNewVectorIndexEncodings measures reading 15,000 vectors of 512
// values (a long chat's turns and passages) in each encoding.
func BenchmarkNewVectorIndexEncodings(b *testing.B) {
	for _, enc := range []string{spec.EncodingFloat32, spec.EncodingInt8} {
		b.Run(enc, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			doc := spec.New("bench", day(2025, 1, 1))
			vi := &spec.VectorIndex{Enabled: true, Model: "m", Dimensions: 512, Encoding: enc}
			for i := 1; i <= 15000; i++ {
				v := randomVector(r, 512)
				e := spec.Embedding{Turn: i, Vector: spec.EncodeVector(v)}
				if enc == spec.EncodingInt8 {
					e.Vector = spec.EncodeVectorInt8(v)
				}
				vi.Embeddings = append(vi.Embeddings, e)
			}
			doc.DeepArchive.VectorIndex = vi
			b.ResetTimer()
			for b.Loop() {
				if newVectorIndex(doc, nil) == nil {
					b.Fatal("no index")
				}
			}
		})
	}
}
