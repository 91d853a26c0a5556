//go:build amd64 && !purego

package vec

import "golang.org/x/sys/cpu"

// dot4Kernel sets sums[k][j] to the sum of q[8i+j]·rows[k][8i+j] over the
// first n eights of values, each product rounded before it is added:
// Dot's eight sums, for four rows at once.
//
//go:noescape
func dot4Kernel(q *float32, rows *[4]*float32, n int, sums *[4][8]float32)

// dot4 is DotEach's kernel, nil where the CPU lacks AVX.
var dot4 = pickDot4()

func pickDot4() func(q *float32, rows *[4]*float32, n int, sums *[4][8]float32) {
	if cpu.X86.HasAVX {
		return dot4Kernel
	}
	return nil
}

// dot4Int8Kernel sets sums[k][j] to the sum of q[8i+j]·rows[k][8i+j] over
// the first n eights of values, the bytes of rows signed: DotInt8Each's
// eight sums, for four rows at once, in AVX2 with FMA.
//
//go:noescape
func dot4Int8Kernel(q *float32, rows *[4]*byte, n int, sums *[4][8]float32)

// dot4Int8 is DotInt8Each's kernel, nil where the CPU lacks AVX2 or FMA.
var dot4Int8 = pickDot4Int8()

func pickDot4Int8() func(q *float32, rows *[4]*byte, n int, sums *[4][8]float32) {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		return dot4Int8Kernel
	}
	return nil
}
