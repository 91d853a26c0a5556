package format

import (
	"math"
	"testing"
)

// TestLimitsGrowWithFile: the defaults of a file of up to 2 MB are
// DefaultLimits; a larger file's four growing limits grow in proportion
// to it, up to grownLimits; a limit that is set does not grow.
func TestLimitsGrowWithFile(t *testing.T) {
	for _, n := range []int64{0, 1, 2_000_000} {
		if got := (Limits{}).forFile(n); got != DefaultLimits {
			t.Errorf("a file of %d bytes: %+v, want DefaultLimits %+v", n, got, DefaultLimits)
		}
	}
	got := Limits{}.forFile(40 << 20)
	want := DefaultLimits
	want.MaxDocumentSize = 32 * 40 << 20
	want.MaxNodes = 40 << 20 / 64
	want.MaxEdges = 40 << 20 / 8
	want.MaxListLength = 40 << 20 / 8
	if got != want {
		t.Errorf("a file of 40 MiB:\n got %+v\nwant %+v", got, want)
	}
	for _, n := range []int64{512 << 20, math.MaxInt64} {
		got := Limits{}.forFile(n)
		if got.MaxDocumentSize != grownLimits.MaxDocumentSize || got.MaxNodes != grownLimits.MaxNodes ||
			got.MaxEdges != grownLimits.MaxEdges || got.MaxListLength != grownLimits.MaxListLength {
			t.Errorf("a file of %d bytes: %+v, want grownLimits %+v", n, got, grownLimits)
		}
	}
	if mostLimits != (Limits{}).forFile(512<<20) {
		t.Errorf("mostLimits %+v are not the limits of the largest file", mostLimits)
	}
	set := Limits{MaxDocumentSize: 1000, MaxNodes: 5, MaxEdges: 6, MaxListLength: 7}.forFile(100 << 20)
	if set.MaxDocumentSize != 1000 || set.MaxNodes != 5 || set.MaxEdges != 6 || set.MaxListLength != 7 {
		t.Errorf("limits that are set grew: %+v", set)
	}
	if set.MaxFileSize != DefaultLimits.MaxFileSize || set.MaxDepth != DefaultLimits.MaxDepth {
		t.Errorf("the other limits do not take their defaults: %+v", set)
	}
}
