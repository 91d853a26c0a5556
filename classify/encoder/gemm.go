package encoder

// The dense layers multiply the tokens by weight matrices that never
// change, so the weights are packed once, at load, into panels of
// panelWidth columns laid out along k (packed.data[panel][p][c] is
// W[p][panel·panelWidth+c]), and the kernel computes a block of
// blockRows rows × panelWidth columns of the product as outer products:
// each step of k broadcasts one value of each row of x against one row of
// the panel, into accumulators that stay in registers for the whole of k.
const (
	panelWidth = 16
	blockRows  = 6
)

// packed is a weight matrix W (k×m, y = x·W) in panels of panelWidth
// columns; the last panel is padded with zeros.
type packed struct {
	k, m int
	data []float32
}

// pack packs wt, W transposed (m×k).
func pack(wt matrix) packed {
	return packInto(nil, wt.data, wt.rows, wt.cols)
}

// packInto packs wt, W transposed (m×k), into buf when it is big enough
// (else into a new slice): attention packs its operands, which change with
// every text, into buffers of its own.
func packInto(buf, wt []float32, m, k int) packed {
	size := (m + panelWidth - 1) / panelWidth * k * panelWidth
	if cap(buf) < size {
		buf = make([]float32, size)
	}
	p := packed{k: k, m: m, data: buf[:size]}
	if m%panelWidth != 0 {
		clear(p.data[size-k*panelWidth:]) // the last panel's padding
	}
	for j := 0; j < m; j++ {
		panel := p.data[(j/panelWidth)*k*panelWidth:]
		c := j % panelWidth
		for q, v := range wt[j*k : j*k+k] {
			panel[q*panelWidth+c] = v
		}
	}
	return p
}

// gemm sets y[i][j] = bias[j] + Σ_p x[i][p]·W[p][j] for i < n, j < w.m: x
// is n×w.k and y is n×w.m, row-major; bias may be nil.
func gemm(y, x []float32, n int, w *packed, bias []float32) {
	k, m := w.k, w.m
	if n == 0 || m == 0 {
		return
	}
	_ = y[n*m-1]
	_ = x[:n*k]
	var out [blockRows * panelWidth]float32
	var rows [blockRows][]float32
	for j0 := 0; j0 < m; j0 += panelWidth {
		panel := w.data[(j0/panelWidth)*k*panelWidth : (j0/panelWidth+1)*k*panelWidth]
		nc := min(panelWidth, m-j0)
		for i := 0; i < n; i += blockRows {
			nr := min(blockRows, n-i)
			// A block short of rows repeats its last row; the repeats'
			// results are dropped.
			for r := range rows {
				ri := i + min(r, nr-1)
				rows[r] = x[ri*k : ri*k+k]
			}
			blockKernel(&rows, panel, k, &out)
			for r := 0; r < nr; r++ {
				yr := y[(i+r)*m+j0 : (i+r)*m+j0+nc]
				res := out[r*panelWidth : r*panelWidth+nc]
				if bias != nil {
					b := bias[j0 : j0+nc]
					for c := range yr {
						yr[c] = res[c] + b[c]
					}
				} else {
					copy(yr, res)
				}
			}
		}
	}
}

// blockGo is the kernel in pure Go: out[r][c] = Σ_p rows[r][p]·panel[p][c].
func blockGo(rows *[blockRows][]float32, panel []float32, k int, out *[blockRows * panelWidth]float32) {
	clear(out[:])
	for r, x := range rows {
		x = x[:k]
		acc := (*[panelWidth]float32)(out[r*panelWidth : r*panelWidth+panelWidth])
		for p, v := range x {
			b := (*[panelWidth]float32)(panel[p*panelWidth : p*panelWidth+panelWidth])
			for c := range acc {
				acc[c] += v * b[c]
			}
		}
	}
}
