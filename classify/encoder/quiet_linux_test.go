package encoder

import (
	"runtime"
	"sync"
	"testing"
)

// TestQuietThread: a quiet thread is quietNice nicer than the caller's,
// and the caller's thread, and the threads the runtime runs goroutines on
// afterwards, are as nice as before.
func TestQuietThread(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, err := threadNice()
	if err != nil {
		t.Fatal(err)
	}
	var quiet int
	var started sync.WaitGroup
	onQuietThread(func() {
		quiet, err = threadNice()
		// Goroutines started from the quiet thread, each on a thread
		// of its own, which the runtime may start here and now.
		for range 4 {
			started.Go(func() {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				if n, err := threadNice(); err != nil || n != before {
					t.Errorf("a thread started from the quiet one: niceness %d, %v; want %d", n, err, before)
				}
			})
		}
	})
	started.Wait()
	if err != nil || quiet != min(19, before+quietNice) {
		t.Errorf("the quiet thread's niceness: %d, %v; want %d", quiet, err, min(19, before+quietNice))
	}
	if after, _ := threadNice(); after != before {
		t.Errorf("the caller's thread: niceness %d after, %d before", after, before)
	}
}
