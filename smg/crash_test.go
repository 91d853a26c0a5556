package smg_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// crashWriterEnv names the memory file the crash writer writes to.
const crashWriterEnv = "SMG_CRASH_WRITER"

// TestCrashWriter is the writer TestCrashInjection kills: run by it in a
// process of its own, it records turns one at a time in the file, and
// saves a fact now and then, through the journal, with a journal limit
// small enough that the whole file is written every few turns; after
// each call returns it prints "ack N", N the number of turns the memory
// then holds. Run alone, it does nothing.
func TestCrashWriter(t *testing.T) {
	name := os.Getenv(crashWriterEnv)
	if name == "" {
		t.Skip("run by TestCrashInjection")
	}
	f, err := smg.OpenFileMemory(name, &smg.FileOptions{
		Create: &smg.Options{NoVectors: true}, Open: smg.OpenOptions{NoVectors: true}, JournalLimit: 3000,
	})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	ctx := context.Background()
	fmt.Println("ready")
	for {
		m, err := f.Memory(t.Context())
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		next := m.Turns() + 1
		if _, err := f.Record(ctx, chat(next, 1), nil); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		if next%7 == 0 {
			if _, err := f.Remember(ctx, smg.Fact{Content: fmt.Sprintf("The order %d ships from Rotterdam", next), Category: "project"}); err != nil {
				fmt.Println("error", err)
				os.Exit(1)
			}
		}
		fmt.Println("ack", next)
	}
}

// TestCrashInjection kills a writer of a memory file (TestCrashWriter) at
// random points, again and again on the same file: mid-append to the
// journal, mid-write of the whole file, between a write and the end of
// the journal. After each kill the memory must open, validate, and hold
// every turn the writer had acknowledged, in order, each once: the old
// state or the new, never a broken one. SMG_CRASH_TRIALS sets the number
// of kills (CI runs hundreds).
func TestCrashInjection(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process per trial")
	}
	trials := 40
	if n, err := strconv.Atoi(os.Getenv("SMG_CRASH_TRIALS")); err == nil && n > 0 {
		trials = n
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	name := filepath.Join(t.TempDir(), "m.smg")
	// The file exists from the start: the writer's changes are appends to
	// its journal and writes of the whole file, not its first creation.
	first, err := smg.OpenFileMemory(name, &smg.FileOptions{Create: &smg.Options{NoVectors: true}, Open: smg.OpenOptions{NoVectors: true}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Record(context.Background(), chat(1, 1), nil); err != nil {
		t.Fatal(err)
	}
	first.Close()
	acked, facts := 1, 0
	window := 150
	if raceEnabled {
		window *= 5 // the writer's steps are several times slower
	}
	for trial := range trials {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashWriter$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashWriterEnv+"="+name)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string)
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		// The clock starts once the writer has opened the memory: a
		// process starts slowly under the race detector.
		var kill <-chan time.Time
		wait := time.Duration(rng.IntN(window)) * time.Millisecond
	read:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break read
				}
				if l == "ready" {
					kill = time.After(wait)
				} else if n, found := strings.CutPrefix(l, "ack "); found {
					k, _ := strconv.Atoi(n)
					acked = max(acked, k)
				} else if strings.HasPrefix(l, "error") {
					t.Fatalf("trial %d: the writer failed: %s", trial, l)
				}
			case <-kill:
				_ = cmd.Process.Signal(syscall.SIGKILL)
				kill = nil
			}
		}
		_ = cmd.Wait()
		if _, err := os.Stat(name); err != nil {
			continue // killed before its first write
		}
		turns, n := checkCrashed(t, trial, name)
		if turns < acked {
			t.Fatalf("trial %d: the memory holds %d turns, but the writer had acknowledged %d", trial, turns, acked)
		}
		if n < facts {
			t.Fatalf("trial %d: the memory holds %d facts, %d before", trial, n, facts)
		}
		acked, facts = turns, n
	}
	if acked < trials/2 {
		t.Errorf("%d turns in %d trials: the writer was killed before it could write", acked, trials)
	}
	t.Logf("%d trials, %d turns, %d facts", trials, acked, facts)
}

// checkCrashed opens the memory a writer was killed writing, checks it,
// and returns how many turns and facts it holds.
func checkCrashed(t *testing.T, trial int, name string) (turns, facts int) {
	t.Helper()
	// The file alone, as a reader of the format reads it, is valid.
	if _, err := format.ValidateFile(name, nil); err != nil {
		t.Fatalf("trial %d: the file: %v", trial, err)
	}
	doc, err := smg.ReadDocument(name, nil)
	if err != nil {
		t.Fatalf("trial %d: the file and its journal: %v", trial, err)
	}
	if err := format.Validate(doc, nil); err != nil {
		t.Fatalf("trial %d: the memory with its journal: %v", trial, err)
	}
	want := 1
	err = graph.EachTurn(doc, nil, func(tu spec.Turn) error {
		if w := chat(want, 1)[0]; tu.Content != w.Content || tu.ExternalID != w.ExternalID {
			return fmt.Errorf("turn %d is %q, want %q", tu.Turn, tu.Content, w.Content)
		}
		want++
		return nil
	})
	if err != nil {
		t.Fatalf("trial %d: %v", trial, err)
	}
	return want - 1, len(graph.Facts(doc, graph.FactFilter{}))
}
