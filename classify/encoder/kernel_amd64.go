//go:build amd64 && !purego

package encoder

import "golang.org/x/sys/cpu"

//go:noescape
func dot4x2(x0, x1, x2, x3, w0, w1 *float32, n int, out *[8]float32)

//go:noescape
func block6x16(x *[blockRows]*float32, panel *float32, k int, out *[blockRows * panelWidth]float32)

// kernel is the inner block of matmulT: AVX2 with FMA where the CPU has
// them, else the pure-Go one.
var kernel = pick()

// blockKernel is gemm's kernel: AVX2 with FMA where the CPU has them,
// else the pure-Go one.
var blockKernel = pickBlock()

func pickBlock() func(rows *[blockRows][]float32, panel []float32, k int, out *[blockRows * panelWidth]float32) {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		return blockAVX2
	}
	return blockGo
}

// blockAVX2 is blockGo in AVX2 (block6x16).
func blockAVX2(rows *[blockRows][]float32, panel []float32, k int, out *[blockRows * panelWidth]float32) {
	if k == 0 {
		clear(out[:])
		return
	}
	_ = panel[k*panelWidth-1]
	var x [blockRows]*float32
	for r := range rows {
		x[r] = &rows[r][:k][0]
	}
	block6x16(&x, &panel[0], k, out)
}

func pick() func(y, x []float32, n, k int, wt []float32, m, k0, k1, j0, j1 int) {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		return kernelAVX2
	}
	return kernelGo
}

// kernelAVX2 does kernelGo's work with dot4x2 over the first multiple of
// 8 of k0:k1 and Go over the rest. A block short of four rows or two
// columns repeats its last row or column and drops the repeated results,
// so that every row goes through dot4x2.
func kernelAVX2(y, x []float32, n, k int, wt []float32, m, k0, k1, j0, j1 int) {
	kv := (k1 - k0) &^ 7
	if kv == 0 {
		kernelGo(y, x, n, k, wt, m, k0, k1, j0, j1)
		return
	}
	var out [8]float32
	var rows [4][]float32
	for i := 0; i < n; i += 4 {
		nr := min(4, n-i)
		for r := range rows {
			ri := i + min(r, nr-1)
			rows[r] = x[ri*k+k0 : ri*k+k1]
		}
		for j := j0; j < j1; j += 2 {
			nc := min(2, j1-j)
			w0 := wt[j*k+k0 : j*k+k1]
			w1 := wt[(j+nc-1)*k+k0 : (j+nc-1)*k+k1]
			dot4x2(&rows[0][0], &rows[1][0], &rows[2][0], &rows[3][0], &w0[0], &w1[0], kv, &out)
			for r := 0; r < nr; r++ {
				yr := y[(i+r)*m+j : (i+r)*m+j+nc]
				xt := rows[r][kv:]
				yr[0] += out[2*r] + dot(xt, w0[kv:])
				if nc == 2 {
					yr[1] += out[2*r+1] + dot(xt, w1[kv:])
				}
			}
		}
	}
}
