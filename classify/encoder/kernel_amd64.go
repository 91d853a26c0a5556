//go:build amd64 && !purego

package encoder

import "golang.org/x/sys/cpu"

//go:noescape
func block6x16(x *[blockRows]*float32, panel *float32, k int, out *[blockRows * panelWidth]float32)

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
