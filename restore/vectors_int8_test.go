package restore

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/smg-memory/smg/restore/vec"
	"github.com/smg-memory/smg/spec"
)

// int8Index is an int8 index of turns turns of dims values, made to tie:
// the vectors are a few directions with a little noise, some turns have
// the very bytes of another with another scale (their cosines differ only
// by rounding), some the very vector of another (the same cosine), and
// every fifth turn has passages too.
func int8Index(t *testing.T, r *rand.Rand, turns, dims int) *vectorIndex {
	t.Helper()
	bases := make([][]float32, 8)
	for i := range bases {
		bases[i] = randomVector(r, dims)
	}
	doc := spec.New("x", day(2025, 1, 1))
	vi := &spec.VectorIndex{Enabled: true, Model: "m", Dimensions: dims, Encoding: spec.EncodingInt8}
	var prev []byte
	for n := 1; n <= turns; n++ {
		rows := 1
		if n%5 == 0 {
			rows = 3
		}
		for k := range rows {
			var b []byte
			switch {
			case prev != nil && r.IntN(6) == 0: // the same bytes, another scale
				b = append([]byte(nil), prev...)
				binary.LittleEndian.PutUint32(b, math.Float32bits(float32(r.Float64()*3+0.001)))
			case prev != nil && r.IntN(6) == 0: // the same vector
				b = prev
			default:
				v := append([]float32(nil), bases[r.IntN(len(bases))]...)
				for j := range v {
					v[j] += float32(r.NormFloat64() * 0.02)
				}
				b = spec.EncodeVectorInt8(v)
			}
			prev = b
			e := spec.Embedding{Turn: n, Vector: b}
			if k > 0 {
				e.Start, e.End = k*10, k*10+10
			}
			vi.Embeddings = append(vi.Embeddings, e)
		}
	}
	doc.DeepArchive.VectorIndex = vi
	x := newVectorIndex(doc, nil)
	if x == nil || x.int8 == nil || len(x.rows) != len(vi.Embeddings) {
		t.Fatalf("an int8 index of %d vectors read as %+v", len(vi.Embeddings), x)
	}
	return x
}

// TestInt8Delta checks nearInt8's bound: every row's estimate from its
// bytes is within int8Delta of the cosine vec.Dot gives of its row.
func TestInt8Delta(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, dims := range []int{77, 512} {
		x := int8Index(t, r, 300, dims)
		est := make([]float32, len(x.rows))
		for range 20 {
			q := randomVector(r, dims)
			vec.DotInt8Each(q, x.int8, est)
			for i, row := range x.rows {
				// Half the bound: the other half covers the mean.
				if d := math.Abs(float64(est[i])*x.inv[i] - float64(vec.Dot(q, row))); d > int8Delta(dims)/2 {
					t.Fatalf("%d values, row %d: estimate %g off the cosine, over the bound %g", dims, i, d, int8Delta(dims)/2)
				}
			}
		}
	}
}

// TestNearInt8 checks that the nearest turns read from an int8 index's
// bytes are those read from every row's cosine, to the bit, ties and
// floor included, and that it tells when it cannot.
func TestNearInt8(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, dims := range []int{77, 512} {
		x := int8Index(t, r, 3*vectorHits, dims)
		fast := 0
		for i := range 40 {
			var q []float32
			if i%2 == 0 { // near a row
				q = append(q, x.rows[r.IntN(len(x.rows))]...)
				for j := range q {
					q[j] += float32(r.NormFloat64() * 0.01)
				}
				vec.Normalize(q)
			} else {
				q = randomVector(r, dims)
			}
			wantBest, wantFloor := x.nearEvery(q)
			best, floor, ok := x.nearInt8(q)
			if !ok {
				continue
			}
			fast++
			if floor != wantFloor || !reflect.DeepEqual(best, wantBest) {
				t.Fatalf("%d values, question %d: floor %v and %d turns, want %v and %d turns:\n%v\nwant\n%v", dims, i, floor, len(best), wantFloor, len(wantBest), best, wantBest)
			}
		}
		if fast < 10 {
			t.Errorf("%d values: the bytes told the nearest turns of %d questions of 40", dims, fast)
		}
	}
	// No more turns than vectorHits: the mean may be the floor.
	if _, _, ok := int8Index(t, r, vectorHits, 16).nearInt8(randomVector(r, 16)); ok {
		t.Error("the bytes told the nearest of a memory of vectorHits turns")
	}
}
