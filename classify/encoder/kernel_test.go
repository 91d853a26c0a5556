package encoder

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGemmAgrees checks gemm over packed weights, with the block kernel in
// use (AVX2 where the CPU has it) and the pure-Go one, against a plain
// triple loop, on shapes that leave rows and columns over from every block
// and panel.
func TestGemmAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range [][3]int{{1, 1, 1}, {6, 8, 16}, {5, 7, 3}, {75, 256, 768}, {13, 300, 67}, {1, 512, 512}, {7, 0, 16}, {12, 1536, 40}} {
		n, k, m := s[0], s[1], s[2]
		x := make([]float32, n*k)
		wt := make([]float32, m*k)
		bias := make([]float32, m)
		for _, v := range [][]float32{x, wt, bias} {
			for i := range v {
				v[i] = rng.Float32()*2 - 1
			}
		}
		w := pack(matrix{rows: m, cols: k, data: wt})
		for _, b := range [][]float32{bias, nil} {
			want := make([]float32, n*m)
			for i := 0; i < n; i++ {
				for j := 0; j < m; j++ {
					var s float64
					if b != nil {
						s = float64(b[j])
					}
					for p := 0; p < k; p++ {
						s += float64(x[i*k+p]) * float64(wt[j*k+p])
					}
					want[i*m+j] = float32(s)
				}
			}
			for name, kern := range map[string]func(*[blockRows][]float32, []float32, int, *[blockRows * panelWidth]float32){"in use": blockKernel, "pure Go": blockGo} {
				saved := blockKernel
				blockKernel = kern
				got := make([]float32, n*m)
				for i := range got {
					got[i] = float32(math.NaN()) // every element is written
				}
				gemm(got, x, n, &w, b)
				blockKernel = saved
				for i := range want {
					if d := math.Abs(float64(got[i] - want[i])); !(d <= 1e-4*math.Sqrt(float64(k)+1)) {
						t.Fatalf("%s kernel, %d×%d·%d×%d, bias %v: y[%d] = %v, want %v", name, n, k, k, m, b != nil, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestPackIntoDirtyBuffer checks that packing into a used buffer, as
// attention does for every head, gives what packing into a new one does,
// padding included.
func TestPackIntoDirtyBuffer(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const m, k = 37, 20 // a last panel of 5 columns and 11 of padding
	wt := make([]float32, m*k)
	for i := range wt {
		wt[i] = rng.Float32()
	}
	buf := make([]float32, 4*k*panelWidth)
	for i := range buf {
		buf[i] = float32(math.NaN())
	}
	got := packInto(buf, wt, m, k)
	want := pack(matrix{rows: m, cols: k, data: wt})
	if &got.data[0] != &buf[0] || !slices.Equal(got.data, want.data) {
		t.Fatal("packing into a used buffer differs from packing into a new one")
	}
}
