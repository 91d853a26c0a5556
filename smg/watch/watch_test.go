package watch_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/smg/watch"
	"github.com/smg-memory/smg/spec"
)

const testdata = "../importer/testdata"

func memory(t *testing.T, name string) *smg.FileMemory {
	t.Helper()
	f, err := smg.OpenFileMemory(name, &smg.FileOptions{Create: &smg.Options{NoVectors: true}, Open: smg.OpenOptions{NoVectors: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// contents are the contents of the turns of a memory's file, in order.
func contents(t *testing.T, name string) []string {
	t.Helper()
	var out []string
	for _, tu := range smgtest.FileTurns(t, name) {
		out = append(out, tu.Content)
	}
	return out
}

// want are the contents of the turns of a transcript, read whole.
func want(t *testing.T, names ...string) []string {
	t.Helper()
	var out []string
	for _, name := range names {
		res, err := importer.ReadFile(name, importer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Conversations {
			for _, tu := range c.Turns {
				out = append(out, tu.Content)
			}
		}
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func copyFile(t *testing.T, from, to string, n int) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b[:min(n, len(b))], 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestOnceGrowing: a Claude Code session read as it grows, cut in the
// middle of a line, ends as the memory of the whole file, each turn once,
// whatever the watcher saw between; a directory stands for the sessions
// in it.
func TestOnceGrowing(t *testing.T) {
	dir := t.TempDir()
	mem := filepath.Join(dir, "m.smg")
	session := filepath.Join(dir, "s.jsonl")
	src := filepath.Join(testdata, "claude-code-session.jsonl")
	size := fileSize(t, src)
	for _, frac := range []int{1, 3, 5, 7, 8, 10} {
		copyFile(t, src, session, size*frac/10+frac) // mid-line, mostly
		// A new FileMemory each time: a watcher stopped and started
		// again.
		// The line being written is not malformed: it is read whole,
		// later.
		report := func(ev watch.Event) {
			if len(ev.Skipped) > 0 || ev.Err != nil {
				t.Errorf("at %d tenths: %v, skipped %v", frac, ev.Err, ev.Skipped)
			}
		}
		if err := watch.Once(context.Background(), memory(t, mem), []string{dir}, &watch.Options{Report: report}); err != nil {
			t.Fatal(err)
		}
	}
	if got, w := contents(t, mem), want(t, session); !equal(got, w) {
		t.Errorf("the memory holds %d turns:\n%q\nwant the %d of the file:\n%q", len(got), got, len(w), w)
	}
}

// TestOnceRotated: a transcript truncated and written again, or replaced
// by a new file with the same turns and more, adds only its new turns.
func TestOnceRotated(t *testing.T) {
	dir := t.TempDir()
	mem := filepath.Join(dir, "m.smg")
	session := filepath.Join(dir, "s.jsonl")
	src := filepath.Join(testdata, "claude-code-session.jsonl")
	copyFile(t, src, session, 1<<30)
	f := memory(t, mem)
	if err := watch.Once(context.Background(), f, []string{session}, nil); err != nil {
		t.Fatal(err)
	}
	n := len(contents(t, mem))
	if err := os.Truncate(session, 0); err != nil {
		t.Fatal(err)
	}
	if err := watch.Once(context.Background(), f, []string{session}, nil); err != nil {
		t.Fatal(err)
	}
	copyFile(t, src, session+".new", 1<<30)
	b, _ := os.ReadFile(src)
	extra := []byte(`{"type":"user","sessionId":"s-2","uuid":"u-new","timestamp":"2025-06-01T10:00:00Z","message":{"role":"user","content":"One more question."}}` + "\n")
	if err := os.WriteFile(session+".new", append(b, extra...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(session+".new", session); err != nil {
		t.Fatal(err)
	}
	if err := watch.Once(context.Background(), f, []string{session}, nil); err != nil {
		t.Fatal(err)
	}
	got := contents(t, mem)
	if len(got) != n+1 || got[n] != "One more question." {
		t.Errorf("after rotation: %d turns, want %d, the last %q", len(got), n+1, got[len(got)-1])
	}
}

// TestOnceBadFile: a file that cannot be read is reported with its name,
// and the memory keeps what it has.
func TestOnceBadFile(t *testing.T) {
	dir := t.TempDir()
	mem := filepath.Join(dir, "m.smg")
	good := filepath.Join(dir, "good.jsonl")
	copyFile(t, filepath.Join(testdata, "claude-code-session.jsonl"), good, 1<<30)
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("just some words, in no format\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var events []watch.Event
	err := watch.Once(context.Background(), memory(t, mem), []string{bad, good}, &watch.Options{Report: func(ev watch.Event) { events = append(events, ev) }})
	var ie *importer.Error
	if !errors.As(err, &ie) || ie.Name != bad {
		t.Errorf("error %v, want an importer error naming %s", err, bad)
	}
	if len(events) != 2 || events[0].Path != bad || events[0].Err == nil || events[1].Path != good || events[1].Recorded.Added == 0 {
		t.Errorf("events %+v", events)
	}
	if got := contents(t, mem); !equal(got, want(t, good)) {
		t.Errorf("the memory holds %q", got)
	}
}

// TestFollow: Follow records an aider history once it stops changing,
// then the turns written to it later, each whole: a tool's output that
// comes in two pieces is one turn, held back until the file is quiet or
// another turn follows it. It stops when its context ends.
func TestFollow(t *testing.T) {
	dir := t.TempDir()
	mem := filepath.Join(dir, "m.smg")
	history := filepath.Join(dir, ".aider.chat.history.md")
	copyFile(t, filepath.Join(testdata, "aider-basic.md"), history, 1<<30)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	opts := &watch.Options{Interval: 20 * time.Millisecond, Quiet: 300 * time.Millisecond}
	go func() { done <- watch.Follow(ctx, memory(t, mem), []string{dir}, opts) }()
	// until waits for the memory to hold the turns of the file.
	until := func(what string) {
		t.Helper()
		w := want(t, history)
		for range 500 {
			if got := contentsIfAny(mem); equal(got, w) {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("%s: after 5 s the memory holds %q, want %q", what, contentsIfAny(mem), w)
	}
	until("the file as it was")
	appendTo(t, history, "\n#### Run the tests  \n\n> Running go test ./...  \n")
	time.Sleep(100 * time.Millisecond) // read, but not quiet
	appendTo(t, history, "> ok shop 0.01s  \n")
	until("a tool's output in two pieces")
	appendTo(t, history, "\n#### Is the parser done?  \n")
	until("a new question")
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Follow returned %v", err)
	}
	got := contents(t, mem)
	if !slices.Contains(got, "Running go test ./...\nok shop 0.01s") || slices.Contains(got, "Running go test ./...") {
		t.Errorf("the tool's output was not taken whole: %q", got)
	}
}

// contentsIfAny is contents, or nothing before the file is made.
func contentsIfAny(name string) []string {
	doc, err := smg.ReadDocument(name, nil)
	if err != nil {
		return nil
	}
	var out []string
	_ = graph.EachTurn(doc, nil, func(tu spec.Turn) error {
		out = append(out, tu.Content)
		return nil
	})
	return out
}

func appendTo(t *testing.T, name, text string) {
	t.Helper()
	f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

func fileSize(t *testing.T, name string) int {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return int(fi.Size())
}
