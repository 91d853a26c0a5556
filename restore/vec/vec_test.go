package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestNormalizeAndDot(t *testing.T) {
	v := []float32{3, 4, 0, 0, 0, 0, 0, 0, 0, 12}
	if !Normalize(v) {
		t.Fatal("a vector with a direction was refused")
	}
	if d := Dot(v, v); math.Abs(float64(d)-1) > 1e-6 {
		t.Errorf("length² %v after Normalize", d)
	}
	if got := Dot([]float32{1, 2, 3}, []float32{4, 5, 6, 7}); got != 32 {
		t.Errorf("dot %v, want 32", got)
	}
	for _, bad := range [][]float32{{0, 0}, {float32(math.NaN()), 1}, {float32(math.Inf(1)), 1}} {
		if Normalize(append([]float32(nil), bad...)) || Unit(bad) != nil {
			t.Errorf("%v has no direction, but was scaled", bad)
		}
	}
	src := []float32{0, 2}
	if u := Unit(src); u[1] != 1 || src[1] != 2 {
		t.Errorf("Unit %v of %v: not a copy at unit length", u, src)
	}
}

// dotNaive is Dot written out as its comment says, one value at a time:
// the reference of Dot and DotEach.
func dotNaive(a, b []float32) float32 {
	var s [8]float32
	whole := len(a) / 8 * 8
	for i := range whole {
		s[i%8] += float32(a[i] * b[i])
	}
	for i := whole; i < len(a); i++ {
		s[0] += float32(a[i] * b[i])
	}
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}

// randomRows are n rows of dims values, longer than dims by extra
// values (a row may be longer than the question), of magnitudes far
// apart, so that the order of the additions shows in the bits.
func randomRows(r *rand.Rand, n, dims, extra int) [][]float32 {
	rows := make([][]float32, n)
	for i := range rows {
		rows[i] = make([]float32, dims+extra)
		for j := range rows[i] {
			rows[i][j] = float32(r.NormFloat64() * math.Pow(10, float64(r.IntN(7)-3)))
		}
	}
	return rows
}

// TestDotEach checks Dot and DotEach, the assembly kernel where the CPU
// has one, against dotNaive to the bit, over lengths that are and are not
// multiples of eight and numbers of rows that are and are not multiples
// of four.
func TestDotEach(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		dims := r.IntN(70)
		if r.IntN(4) == 0 {
			dims = 512 + r.IntN(9)
		}
		n, extra := r.IntN(11), r.IntN(3)
		q := randomRows(r, 1, dims, 0)[0]
		rows := randomRows(r, n, dims, extra)
		out := make([]float32, n+1)
		out[n] = 42
		DotEach(q, rows, out)
		for i, row := range rows {
			want := dotNaive(q, row[:dims])
			if got := Dot(q, row); math.Float32bits(got) != math.Float32bits(want) {
				t.Fatalf("%d values: Dot %v, want %v", dims, got, want)
			}
			if math.Float32bits(out[i]) != math.Float32bits(want) {
				t.Fatalf("%d rows of %d values (+%d): DotEach's row %d is %v, want %v", n, dims, extra, i, out[i], want)
			}
		}
		if out[n] != 42 {
			t.Fatalf("DotEach wrote past its %d rows", n)
		}
	}
}

func BenchmarkDot(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	q, rows := randomRows(r, 1, 512, 0)[0], randomRows(r, 10000, 512, 0)
	b.SetBytes(int64(len(rows) * 512 * 4))
	for b.Loop() {
		for _, row := range rows {
			Dot(q, row)
		}
	}
}

// BenchmarkDotEach is a question against a memory of 10,000 vectors of
// 512 values, as vectorTurns reads them.
func BenchmarkDotEach(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	q, rows := randomRows(r, 1, 512, 0)[0], randomRows(r, 10000, 512, 0)
	out := make([]float32, len(rows))
	b.SetBytes(int64(len(rows) * 512 * 4))
	for b.Loop() {
		DotEach(q, rows, out)
	}
}
