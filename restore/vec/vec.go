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
// in eight running sums. A search reads every row once: at 10,000 turns
// of 1,536 values it is bound by the memory's bandwidth (61 MB a
// question), not by the arithmetic, and splitting it among goroutines did
// not make it faster on two cores.
func Dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	for len(a) >= 8 && len(b) >= 8 {
		s0 += a[0] * b[0]
		s1 += a[1] * b[1]
		s2 += a[2] * b[2]
		s3 += a[3] * b[3]
		s4 += a[4] * b[4]
		s5 += a[5] * b[5]
		s6 += a[6] * b[6]
		s7 += a[7] * b[7]
		a, b = a[8:], b[8:]
	}
	for i := range a {
		s0 += a[i] * b[i]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}
