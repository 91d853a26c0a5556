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
