// Package memlimit keeps a process's memory near what its heap holds live.
//
// Left to its default (GOGC=100), Go lets the heap grow to twice what it
// held live after the last collection before it collects again: a command
// that holds 150 MB peaks past 300 MB, and its resident size past 400 MB.
// Start sets the runtime's soft memory limit (debug.SetMemoryLimit) to a
// multiple of the live heap, never under a floor, and moves it after each
// collection: the heap then grows by a quarter of what it holds instead of
// doubling, for more frequent collections (twice as many on the
// 38,912-turn ingest, on the other core: BENCHMARKS.md finds their cost
// within the machine's noise). The floor keeps small runs from
// collecting often for nothing; the multiple keeps a heap that holds more
// than the floor from collecting without end, as a fixed limit below the
// live heap would.
//
// GOMEMLIMIT or GOGC in the environment are the user's choice: Start then
// does nothing.
package memlimit

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// Floor and Ratio are what the smg commands use: a limit of 192 MiB, or
// 1.25 times the live heap when that is more.
const (
	Floor = 192 << 20
	Ratio = 1.25
)

// Limit is the memory limit for a live heap of live bytes.
func Limit(live uint64, floor int64, ratio float64) int64 {
	l := ratio * float64(live)
	if l >= math.MaxInt64 {
		return math.MaxInt64
	}
	return max(floor, int64(l))
}

// tuner moves the limit after each collection.
type tuner struct {
	floor   int64
	ratio   float64
	stopped atomic.Bool
	sample  []metrics.Sample
	mu      sync.Mutex
	before  int64 // the limit before Start, set again by stop
}

// Start keeps the runtime's memory limit at Limit(live heap, floor, ratio)
// until stop is called, which sets the limit back as it was. It does
// nothing, and stop nothing, when the environment sets GOMEMLIMIT or GOGC.
func Start(floor int64, ratio float64) (stop func()) {
	if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") != "" {
		return func() {}
	}
	t := &tuner{floor: floor, ratio: ratio, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	t.before = debug.SetMemoryLimit(-1)
	t.adjust()
	t.arm()
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if !t.stopped.Swap(true) {
			debug.SetMemoryLimit(t.before)
		}
	}
}

// adjust sets the limit for the heap live after the last collection.
func (t *tuner) adjust() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped.Load() {
		return
	}
	metrics.Read(t.sample)
	var live uint64
	if t.sample[0].Value.Kind() == metrics.KindUint64 {
		live = t.sample[0].Value.Uint64()
	}
	debug.SetMemoryLimit(Limit(live, t.floor, t.ratio))
}

// sentinel is garbage as soon as it is made: its finalizer runs after the
// collection that finds it, adjusts the limit and makes the next one.
type sentinel struct{ _ [64]byte } // not a tiny allocation, whose finalizer may never run

func (t *tuner) arm() {
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		if !t.stopped.Load() {
			t.adjust()
			t.arm()
		}
	})
}

// Grow is how much of the live heap the heap grows by before the next
// collection while a command opens and indexes a memory (GrowBy): three
// quarters, not Go's default of all of it. Start's quarter costs such a
// build a third more time, as the heap's live part grows from nothing to
// hundreds of megabytes and each collection finds it just under the
// limit. Without the index cache, the 38,912-turn memory's context
// peaked at 508–535 MB at 100%, 451–471 MB at 75% and 392–408 MB at 50%,
// in 7.1–8.7, 7.3–9.3 and 8.0–9.7 s (BENCHMARKS.md).
const Grow = 75

// GrowBy sets the runtime's GC percent (debug.SetGCPercent) to percent
// until stop is called, which sets it back. It does nothing, and stop
// nothing, when the environment sets GOMEMLIMIT or GOGC.
func GrowBy(percent int) (stop func()) {
	if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") != "" {
		return func() {}
	}
	before := debug.SetGCPercent(percent)
	var once sync.Once
	return func() { once.Do(func() { debug.SetGCPercent(before) }) }
}
