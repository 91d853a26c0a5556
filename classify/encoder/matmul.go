package encoder

// matmulT sets y[i][j] = bias[j] + Σ_k x[i][k]·wt[j][k] for i < n, j < m:
// x is n×k, wt is m×k (the weight matrix transposed, so that both operands
// are read along k), y is n×m, all row-major; bias may be nil.
//
// The work is blocked so that a panel of wt stays in cache while every row
// of x passes over it, and the inner kernel computes a 4×2 block of y with
// eight accumulators, four rows of x against two rows of wt.
func matmulT(y, x []float32, n, k int, wt []float32, m int, bias []float32) {
	if n == 0 || m == 0 {
		return
	}
	_ = y[n*m-1]
	for i := 0; i < n; i++ {
		row := y[i*m : i*m+m]
		if bias != nil {
			copy(row, bias[:m])
		} else {
			clear(row)
		}
	}
	if k == 0 {
		return
	}
	_ = x[n*k-1]
	_ = wt[m*k-1]
	for k0 := 0; k0 < k; k0 += blockK {
		k1 := min(k0+blockK, k)
		for j0 := 0; j0 < m; j0 += blockM {
			j1 := min(j0+blockM, m)
			kernel(y, x, n, k, wt, m, k0, k1, j0, j1)
		}
	}
}

// The block sizes: a blockM×blockK panel of wt is 64 KB, which stays in L2
// while the rows of x stream by; four rows of x over blockK are 4 KB, in L1.
const (
	blockK = 256
	blockM = 64
)

// kernelGo adds x[:, k0:k1]·wt[j0:j1, k0:k1]ᵀ to y[:, j0:j1], in pure Go.
func kernelGo(y, x []float32, n, k int, wt []float32, m, k0, k1, j0, j1 int) {
	kl := k1 - k0
	i := 0
	for ; i+4 <= n; i += 4 {
		x0 := x[i*k+k0 : i*k+k1]
		x1 := x[(i+1)*k+k0 : (i+1)*k+k1]
		x2 := x[(i+2)*k+k0 : (i+2)*k+k1]
		x3 := x[(i+3)*k+k0 : (i+3)*k+k1]
		j := j0
		for ; j+2 <= j1; j += 2 {
			w0 := wt[j*k+k0 : j*k+k1]
			w1 := wt[(j+1)*k+k0 : (j+1)*k+k1]
			var s00, s01, s10, s11, s20, s21, s30, s31 float32
			x0, x1, x2, x3 := x0[:kl], x1[:kl], x2[:kl], x3[:kl]
			w0, w1 = w0[:kl], w1[:kl]
			for p := range w0 {
				a, b := w0[p], w1[p]
				s00 += x0[p] * a
				s01 += x0[p] * b
				s10 += x1[p] * a
				s11 += x1[p] * b
				s20 += x2[p] * a
				s21 += x2[p] * b
				s30 += x3[p] * a
				s31 += x3[p] * b
			}
			y[i*m+j] += s00
			y[i*m+j+1] += s01
			y[(i+1)*m+j] += s10
			y[(i+1)*m+j+1] += s11
			y[(i+2)*m+j] += s20
			y[(i+2)*m+j+1] += s21
			y[(i+3)*m+j] += s30
			y[(i+3)*m+j+1] += s31
		}
		for ; j < j1; j++ {
			w0 := wt[j*k+k0 : j*k+k1]
			y[i*m+j] += dot(x0, w0)
			y[(i+1)*m+j] += dot(x1, w0)
			y[(i+2)*m+j] += dot(x2, w0)
			y[(i+3)*m+j] += dot(x3, w0)
		}
	}
	for ; i < n; i++ {
		xi := x[i*k+k0 : i*k+k1]
		for j := j0; j < j1; j++ {
			y[i*m+j] += dot(xi, wt[j*k+k0:j*k+k1])
		}
	}
}

// dot is Σ a[p]·b[p] over len(a), with four accumulators.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	p := 0
	for ; p+4 <= len(a); p += 4 {
		s0 += a[p] * b[p]
		s1 += a[p+1] * b[p+1]
		s2 += a[p+2] * b[p+2]
		s3 += a[p+3] * b[p+3]
	}
	for ; p < len(a); p++ {
		s0 += a[p] * b[p]
	}
	return (s0 + s1) + (s2 + s3)
}
