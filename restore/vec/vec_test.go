package vec

import (
	"math"
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
