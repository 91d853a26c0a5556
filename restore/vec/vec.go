// Package vec holds the arithmetic of embedding vectors that smg's
// retrieval and its benchmarks share: scaling to unit length and the dot
// product (a cosine, of unit vectors).
package vec

import "math"

// Normalize scales v to unit length, in place, and reports whether it
// could: a zero vector, or one with a value that is not finite, has no
// direction.
func Normalize(v []float32) bool {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 || math.IsNaN(ss) || math.IsInf(ss, 0) {
		return false
	}
	inv := 1 / math.Sqrt(ss)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
	return true
}

// Unit returns a copy of v scaled to unit length, nil when it has no
// direction.
func Unit(v []float32) []float32 {
	out := append([]float32(nil), v...)
	if !Normalize(out) {
		return nil
	}
	return out
}

// Dot is the dot product of two vectors of one length (b may be longer),
// in eight running sums: sum k adds the products of the values at k, k+8,
// k+16…, the values past the last whole eight go to sum 0, and the sums
// are added in pairs. Each product is rounded to float32 before it is
// added (no fused multiply-add), so that the result is the same bits on
// every machine and in [DotEach]'s vector kernel. A search reads every row
// once: at 10,000 turns of 1,536 values it is bound by the memory's
// bandwidth (61 MB a question), not by the arithmetic, and splitting it
// among goroutines did not make it faster on two cores.
func Dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	for len(a) >= 8 && len(b) >= 8 {
		s0 += float32(a[0] * b[0])
		s1 += float32(a[1] * b[1])
		s2 += float32(a[2] * b[2])
		s3 += float32(a[3] * b[3])
		s4 += float32(a[4] * b[4])
		s5 += float32(a[5] * b[5])
		s6 += float32(a[6] * b[6])
		s7 += float32(a[7] * b[7])
		a, b = a[8:], b[8:]
	}
	return finish(&[8]float32{s0, s1, s2, s3, s4, s5, s6, s7}, a, b)
}

// finish is Dot's end: it adds the products of the values past the last
// whole eight, a and b, to the first of the eight sums s, and adds the
// sums up.
func finish(s *[8]float32, a, b []float32) float32 {
	b = b[:len(a)]
	s0 := s[0]
	for i := range a {
		s0 += float32(a[i] * b[i])
	}
	return ((s0 + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}

// DotEach sets out[i] to Dot(q, rows[i]) for each row (out is at least as
// long as rows), the same bits. Where the CPU has AVX it reads four rows
// at a time, eight values of each in one instruction, and is several
// times faster than Dot row by row.
func DotEach(q []float32, rows [][]float32, out []float32) {
	each(q, rows, out, dot4, finish, Dot)
}

// each sets out[i] to the dot product of q and rows[i]: four rows at a
// time with kernel, which gives the eight sums of each over the whole
// eights of values, and fin, which adds the rest and the sums up; without
// a kernel (nil), or for the rows left, with one, row by row.
func each[T float32 | byte](q []float32, rows [][]T, out []float32, kernel func(*float32, *[4]*T, int, *[4][8]float32), fin func(*[8]float32, []float32, []T) float32, one func([]float32, []T) float32) {
	out = out[:len(rows)]
	i := 0
	if kernel != nil && len(q) >= 8 {
		n := len(q) / 8
		var r [4]*T
		var sums [4][8]float32
		for ; i+4 <= len(rows); i += 4 {
			for k := range r {
				r[k] = &rows[i+k][:len(q)][0]
			}
			kernel(&q[0], &r, n, &sums)
			for k := range r {
				out[i+k] = fin(&sums[k], q[n*8:], rows[i+k][n*8:len(q)])
			}
		}
	}
	for ; i < len(rows); i++ {
		out[i] = one(q, rows[i])
	}
}

// Int8Error bounds the rounding of DotInt8Each on vectors of n values:
// its result is within Int8Error(n)·Σ|q[j]·b[j]| of the exact dot
// product. Each of eight float32 sums adds n/8 products, each rounded
// (twice, once as a product and once as a sum, without a fused
// multiply-add), then up to seven more, and the sums are added in three
// rounds: fewer than n/4+16 roundings of at most 2⁻²⁴ of the magnitude
// each.
func Int8Error(n int) float64 {
	return float64(n/4+16) * 0x1p-24
}

// DotInt8Each sets out[i] to the dot product of q and rows[i], whose
// first len(q) bytes are signed bytes (the values of spec §8.3's int8
// encoding), in float32 (out is at least as long as rows). Its result is
// not Dot's bits but within Int8Error of the exact value. Reading a byte
// a value, it reads a quarter of what Dot of the same rows as float32
// reads; where the CPU has AVX2 and FMA it reads four rows at a time.
func DotInt8Each(q []float32, rows [][]byte, out []float32) {
	each(q, rows, out, dot4Int8, finishInt8, dotInt8)
}

// dotInt8 is DotInt8Each of one row, in Go.
func dotInt8(q []float32, b []byte) float32 {
	b = b[:len(q)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	for len(q) >= 8 && len(b) >= 8 {
		s0 += float32(q[0] * float32(int8(b[0])))
		s1 += float32(q[1] * float32(int8(b[1])))
		s2 += float32(q[2] * float32(int8(b[2])))
		s3 += float32(q[3] * float32(int8(b[3])))
		s4 += float32(q[4] * float32(int8(b[4])))
		s5 += float32(q[5] * float32(int8(b[5])))
		s6 += float32(q[6] * float32(int8(b[6])))
		s7 += float32(q[7] * float32(int8(b[7])))
		q, b = q[8:], b[8:]
	}
	return finishInt8(&[8]float32{s0, s1, s2, s3, s4, s5, s6, s7}, q, b)
}

// finishInt8 is finish of a row of signed bytes.
func finishInt8(s *[8]float32, q []float32, b []byte) float32 {
	b = b[:len(q)]
	s0 := s[0]
	for i := range q {
		s0 += float32(q[i] * float32(int8(b[i])))
	}
	return ((s0 + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}
