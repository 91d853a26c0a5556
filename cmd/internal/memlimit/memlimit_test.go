package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestLimit(t *testing.T) {
	for _, c := range []struct {
		live  uint64
		floor int64
		ratio float64
		want  int64
	}{
		{0, Floor, Ratio, Floor},
		{100 << 20, Floor, Ratio, Floor},
		{200 << 20, Floor, Ratio, 250 << 20},
		{1 << 30, 0, 2, 2 << 30},
		{math.MaxUint64, Floor, Ratio, math.MaxInt64},
	} {
		if got := Limit(c.live, c.floor, c.ratio); got != c.want {
			t.Errorf("Limit(%d, %d, %v) = %d, want %d", c.live, c.floor, c.ratio, got, c.want)
		}
	}
}

// limitAfterGC collects until the tuner has moved the limit off from, and
// returns it: the tuner runs in a finalizer, after a collection.
func limitAfterGC(t *testing.T, from int64) int64 {
	t.Helper()
	for range 200 {
		runtime.GC()
		runtime.Gosched()
		if l := debug.SetMemoryLimit(-1); l != from {
			return l
		}
	}
	t.Fatalf("the limit stayed %d", from)
	return 0
}

// TestStartFollowsTheLiveHeap: the limit is the floor while the heap holds
// less, a quarter over what it holds when more, after each collection;
// stop sets it back.
func TestStartFollowsTheLiveHeap(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	before := debug.SetMemoryLimit(-1)
	const floor = 8 << 20
	stop := Start(floor, Ratio)
	defer stop()
	if l := debug.SetMemoryLimit(-1); l < floor || l > 4*floor {
		t.Fatalf("limit %d at start, want the floor, %d, or a little more", l, floor)
	}
	held := make([][]byte, 64)
	for i := range held {
		held[i] = make([]byte, 1<<20)
	}
	l := limitAfterGC(t, debug.SetMemoryLimit(-1))
	for l < 64<<20*Ratio {
		l = limitAfterGC(t, l)
	}
	if l > (64<<20+32<<20)*Ratio {
		t.Errorf("limit %d for a live heap of 64 MiB and what the test holds", l)
	}
	runtime.KeepAlive(held)
	held = nil
	for l > 4*floor {
		l = limitAfterGC(t, l)
	}
	stop()
	if l := debug.SetMemoryLimit(-1); l != before {
		t.Errorf("after stop the limit is %d, not %d as before", l, before)
	}
	runtime.GC()
	runtime.GC()
	if l := debug.SetMemoryLimit(-1); l != before {
		t.Errorf("the tuner still runs after stop: %d", l)
	}
}

// TestStartLeavesTheUsersChoice: with GOMEMLIMIT or GOGC set, the limit is
// not touched.
func TestStartLeavesTheUsersChoice(t *testing.T) {
	for _, env := range []string{"GOMEMLIMIT", "GOGC"} {
		t.Setenv("GOMEMLIMIT", "")
		t.Setenv("GOGC", "")
		t.Setenv(env, "100")
		before := debug.SetMemoryLimit(-1)
		stop := Start(1<<40, Ratio)
		runtime.GC()
		if l := debug.SetMemoryLimit(-1); l != before {
			t.Errorf("%s set: the limit is %d, not %d", env, l, before)
		}
		stop()
	}
}

// TestGrowBy: the GC percent is the one asked for until stop, then as it
// was; with GOGC or GOMEMLIMIT set it is not touched.
func TestGrowBy(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("GOGC", "")
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	stop := GrowBy(Grow)
	if p := debug.SetGCPercent(Grow); p != Grow {
		t.Errorf("GC percent %d, want %d", p, Grow)
	}
	stop()
	stop()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("after stop the GC percent is %d, not 100 as before", p)
	}
	for _, env := range []string{"GOMEMLIMIT", "GOGC"} {
		t.Setenv(env, "100")
		stop := GrowBy(Grow)
		if p := debug.SetGCPercent(100); p != 100 {
			t.Errorf("%s set: the GC percent is %d, not 100", env, p)
		}
		stop()
		t.Setenv(env, "")
	}
}
