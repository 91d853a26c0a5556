package encoder

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func checkVector(t testing.TB, text string, v []float32) {
	t.Helper()
	if len(v) != Dim {
		t.Fatalf("%q: %d floats, want %d", text, len(v), Dim)
	}
	var ss float64
	for _, f := range v {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			t.Fatalf("%q: vector holds %v", text, f)
		}
		ss += float64(f) * float64(f)
	}
	if math.Abs(ss-1) > 1e-4 {
		t.Fatalf("%q: squared norm %v, want 1", text, ss)
	}
}

// FuzzEncode checks that any string gets 512 finite floats of unit norm.
func FuzzEncode(f *testing.F) {
	for _, s := range []string{"", " ", "hello", "\xff\xfe", "😀😀", "a\u0301", "\x00", "▁▁"} {
		f.Add(s)
	}
	e, err := New()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := e.Embed(context.Background(), []string{s})
		if err != nil {
			t.Fatal(err)
		}
		checkVector(t, s, v[0])
	})
}

// TestEmptyText checks that the empty text, which the original fails on,
// gets a unit vector of its own.
func TestEmptyText(t *testing.T) {
	e, err := New()
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.Embed(context.Background(), []string{"", "hello"})
	if err != nil {
		t.Fatal(err)
	}
	checkVector(t, "", v[0])
	if slices.Equal(v[0], v[1]) {
		t.Error("the empty text and hello got the same vector")
	}
}

// TestLongTextIsCut checks that only the first 128 tokens count.
func TestLongTextIsCut(t *testing.T) {
	e, err := New()
	if err != nil {
		t.Fatal(err)
	}
	var long string
	for range 200 {
		long += "word "
	}
	v, err := e.Embed(context.Background(), []string{long, long + "and a different ending entirely"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v[0], v[1]) {
		t.Error("words after the 128th token changed the vector")
	}
}

// TestConcurrentEmbed checks that goroutines sharing an encoder get the
// vectors one goroutine gets (run it with -race).
func TestConcurrentEmbed(t *testing.T) {
	e, err := New()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"How old are your kids?", "We decided to use PostgreSQL.", passage}
	want, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			got, err := e.Embed(context.Background(), texts)
			if err != nil {
				t.Error(err)
				return
			}
			for i := range got {
				if !slices.Equal(got[i], want[i]) {
					t.Errorf("%q: another vector when run concurrently", texts[i])
				}
			}
		})
	}
	wg.Wait()
}

// TestEmbedCancelled checks that a done context stops Embed with its error.
func TestEmbedCancelled(t *testing.T) {
	e, err := New()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, []string{"hello"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed with a cancelled context: %v, want context.Canceled", err)
	}
}

// TestNewIsShared checks that New decodes the weights once.
func TestNewIsShared(t *testing.T) {
	a, err := New()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := New()
	if a != b {
		t.Error("New returned two encoders")
	}
	if a.Model() != "use-lite-int8@energetic-ai-0.2.0" {
		t.Errorf("Model() = %q", a.Model())
	}
}

// TestBadWeights checks that a damaged weights file is a typed error, not
// a panic.
func TestBadWeights(t *testing.T) {
	for _, cut := range []int{0, 7, 8, 12, 100, len(weightsFile) / 2, len(weightsFile) - 1} {
		if _, err := load(weightsFile[:cut], vocabFile); !errors.Is(err, ErrWeights) {
			t.Errorf("weights cut at %d bytes: %v, want ErrWeights", cut, err)
		}
	}
}

// TestBatchIsEachAlone checks that the vectors of a batch, which Embed
// shares out among goroutines, are those of each text embedded alone, in
// the order of the texts.
func TestBatchIsEachAlone(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	e, err := New()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for i := range 37 {
		texts = append(texts, strings.Repeat("word ", i%9)+fmt.Sprintf("text number %d about %s", i, []string{"kids", "PostgreSQL", "the nightly import", "a webhook's 401"}[i%4]))
	}
	got, err := e.Embed(context.Background(), texts)
	if err != nil || len(got) != len(texts) {
		t.Fatalf("%d vectors for %d texts: %v", len(got), len(texts), err)
	}
	for i, text := range texts {
		alone, err := e.Embed(context.Background(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got[i], alone[0]) {
			t.Fatalf("text %d of the batch: not its vector alone", i)
		}
	}
}

// Frequent words are pieces of the vocabulary; rare names are not.
func TestFrequent(t *testing.T) {
	for w, want := range map[string]bool{"first": true, "Result": true, "location": true, "Catan": false, "iguodala": false, "flake8": false} {
		if got := Frequent(w); got != want {
			t.Errorf("Frequent(%q) = %v, want %v", w, got, want)
		}
	}
}

// TestEmbedSerially: the vectors are Embed's, made on the caller's
// goroutine alone. The caller runs with a profiler label, which any
// goroutine it starts inherits; a watcher counts the labelled goroutines
// while it embeds. (Counting all goroutines is not enough: the runtime's
// finalizer and cleanup goroutines count as the program's while they run.)
func TestEmbedSerially(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	e, err := New()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"We ship with DHL.", "", "The nightly import failed with a 401 from the webhook."}
	want, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	var most atomic.Int64
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			select {
			case <-stop:
				return
			default:
				most.Store(max(most.Load(), int64(labelled(t, "embed", "serially"))))
			}
		}
	}()
	var got [][]float32
	pprof.Do(context.Background(), pprof.Labels("embed", "serially"), func(ctx context.Context) {
		got, err = e.EmbedSerially(ctx, texts)
	})
	close(stop)
	<-watched
	if most.Load() > 1 {
		t.Errorf("%d goroutines besides the caller's while it embedded, want none", most.Load()-1)
	}
	if err != nil || len(got) != len(want) {
		t.Fatalf("%d vectors, %v", len(got), err)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("text %d: not Embed's vector", i)
		}
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.EmbedSerially(cancelled, texts); err == nil {
		t.Error("EmbedSerially with a cancelled context: no error")
	}
}

// labelled counts the goroutines that carry the profiler label key=value.
func labelled(t *testing.T, key, value string) int {
	var b strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		t.Error(err)
		return 0
	}
	// debug=1 groups goroutines by stack: "N @ pc pc…", then
	// "# labels: {…}" when they carry labels.
	n, count := 0, 0
	want := fmt.Sprintf("%q:%q", key, value)
	for line := range strings.Lines(b.String()) {
		if head, _, ok := strings.Cut(line, " @ "); ok {
			count, _ = strconv.Atoi(head)
		} else if strings.HasPrefix(line, "# labels: ") && strings.Contains(line, want) {
			n += count
		}
	}
	return n
}
