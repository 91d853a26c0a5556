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
		dims := randomDims(r)
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

// checkInt8 checks DotInt8Each, and dotInt8 row by row, against the
// exact dot product of q and each row, within Int8Error.
func checkInt8(t *testing.T, q []float32, rows [][]byte) {
	t.Helper()
	out := make([]float32, len(rows)+1)
	out[len(rows)] = 42
	DotInt8Each(q, rows, out)
	for i, b := range rows {
		var exact, mag float64
		for j, x := range q {
			p := float64(x) * float64(int8(b[j]))
			exact += p
			mag += math.Abs(p)
		}
		bound := Int8Error(len(q)) * mag
		for _, got := range []float32{out[i], dotInt8(q, b)} {
			if d := math.Abs(float64(got) - exact); !(d <= bound) {
				t.Fatalf("%d rows of %d values: row %d: %v, want %v ± %g", len(rows), len(q), i, got, exact, bound)
			}
		}
	}
	if out[len(rows)] != 42 {
		t.Fatalf("DotInt8Each wrote past its %d rows", len(rows))
	}
}

// TestDotInt8Each checks DotInt8Each, the assembly kernel where the CPU
// has one, and the Go code against the exact dot product, over lengths
// that are and are not multiples of eight and numbers of rows that are
// and are not multiples of four, bytes over the whole range of int8.
func TestDotInt8Each(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		dims := randomDims(r)
		q := randomRows(r, 1, dims, 0)[0]
		checkInt8(t, q, randomBytes(r, r.IntN(11), dims, 3))
	}
	// Signed: 0x80 is -128, 0xff is -1.
	q := []float32{1, 1, 1, 1, 1, 1, 1, 1, 1}
	out := make([]float32, 4)
	DotInt8Each(q, [][]byte{{0x80, 0xff, 1, 0, 0, 0, 0, 0, 0x7f}, {0xff, 0, 0, 0, 0, 0, 0, 0, 0}, {}, {}}[:2], out)
	if out[0] != -1 || out[1] != -1 {
		t.Errorf("signed bytes: %v, want -1 and -1", out[:2])
	}
}

// FuzzDotInt8Each reads q and the rows from the fuzzer's bytes: q's values
// from pairs of bytes, each row the next len(q) bytes.
func FuzzDotInt8Each(f *testing.F) {
	f.Add(uint8(9), []byte("0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
	f.Add(uint8(16), make([]byte, 200))
	f.Fuzz(func(t *testing.T, dims uint8, data []byte) {
		n := int(dims)
		if len(data) < 2*n {
			return
		}
		q := make([]float32, n)
		for i := range q {
			q[i] = float32(int16(uint16(data[2*i])<<8|uint16(data[2*i+1]))) / 256
		}
		data = data[2*n:]
		var rows [][]byte
		for n > 0 && len(data) >= n {
			rows, data = append(rows, data[:n]), data[n:]
		}
		checkInt8(t, q, rows)
	})
}

// BenchmarkDotInt8Each is BenchmarkDotEach of the rows as signed bytes.
func BenchmarkDotInt8Each(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	q := randomRows(r, 1, 512, 0)[0]
	rows := randomBytes(r, 10000, 512, 1)
	out := make([]float32, len(rows))
	b.SetBytes(int64(len(rows) * 512))
	for b.Loop() {
		DotInt8Each(q, rows, out)
	}
}

// randomBytes are n rows of dims random bytes and fewer than extra more.
func randomBytes(r *rand.Rand, n, dims, extra int) [][]byte {
	rows := make([][]byte, n)
	for i := range rows {
		rows[i] = make([]byte, dims+r.IntN(extra))
		for j := range rows[i] {
			rows[i][j] = byte(r.IntN(256))
		}
	}
	return rows
}

// randomDims is a number of values: under 70, or about 512 one time in
// four; a multiple of eight or not.
func randomDims(r *rand.Rand) int {
	if r.IntN(4) == 0 {
		return 512 + r.IntN(9)
	}
	return r.IntN(70)
}
