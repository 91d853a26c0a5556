package restore

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/graph/graphtest"
	"github.com/smg-memory/smg/spec"
)

// checkoutAt returns the documents of the bundled coding conversation's
// memory after each of the given numbers of turns (0: all of them), in
// blocks of blockSize turns.
func checkoutAt(t testing.TB, blockSize int, cuts ...int) []*spec.Document {
	t.Helper()
	turns := graphtest.Conversation(t, "checkout.json")
	b := graph.New(graph.Config{BlockSize: blockSize}, graph.Options{})
	var docs []*spec.Document
	for _, cut := range cuts {
		if cut == 0 {
			cut = len(turns)
		}
		for b.Turns() < cut {
			if err := b.Add(turns[b.Turns()]); err != nil {
				t.Fatal(err)
			}
		}
		docs = append(docs, b.Document())
	}
	return docs
}

func newEngine(t testing.TB, doc *spec.Document, cfg *Config) *Engine {
	t.Helper()
	e, err := New(doc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// turnByTurn returns the documents of the checkout conversation's memory
// after each of its turns from the second to the twentieth, as a live
// memory makes them, in blocks of 4 turns.
func turnByTurn(t testing.TB) []*spec.Document {
	t.Helper()
	var cuts []int
	for n := 2; n <= 20; n++ {
		cuts = append(cuts, n)
	}
	return checkoutAt(t, 4, cuts...)
}

// questions about the checkout conversation, from its beginning to its end.
var checkoutQuestions = []string{
	"Why did we choose Stripe Elements?",
	"how was the webhook's 401 fixed?",
	"database locked",
	"what does the retry policy do",
}

// sameContexts checks that two engines give the same context to every
// question.
func sameContexts(t *testing.T, got, want *Engine) {
	t.Helper()
	for _, q := range checkoutQuestions {
		g, err := got.Context(context.Background(), q, Options{Budget: 500, Wait: true})
		if err != nil {
			t.Fatal(err)
		}
		w, err := want.Context(context.Background(), q, Options{Budget: 500, Wait: true})
		if err != nil {
			t.Fatal(err)
		}
		if g.Text != w.Text || !reflect.DeepEqual(g.Items, w.Items) {
			t.Errorf("%q: the contexts differ:\n--- got\n%s\n--- want\n%s", q, g.Text, w.Text)
		}
	}
}

func TestUpdateIndexesWhatChanged(t *testing.T) {
	docs := checkoutAt(t, 4, 6, 13, 0)
	e := newEngine(t, docs[0], nil)
	for _, doc := range docs[1:] {
		if err := e.Update(doc); err != nil {
			t.Fatal(err)
		}
	}
	// Turn 28 came with the last update; a question about it finds it.
	r, err := e.Context(context.Background(), "what does the retry policy do", Options{Budget: 400})
	if err != nil {
		t.Fatal(err)
	}
	if r.Partial {
		t.Error("a context of a complete index says it is partial")
	}
	sameContexts(t, e, newEngine(t, docs[2], nil))
	if n, want := docCount(t, e); n != uint64(len(e.indexed)+want) {
		t.Errorf("the index holds %d documents, want %d nodes and blocks and %d of turns", n, len(e.indexed), want)
	}
}

// docCount returns the documents e's index holds, and how many of its
// turns it should: one per short turn, one per passage of a long one.
func docCount(t testing.TB, e *Engine) (uint64, int) {
	t.Helper()
	n, err := e.ix.DocCount()
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for k := 1; k <= e.turns.n; k++ {
		tu, ok := e.turns.turn(k)
		if !ok {
			t.Fatalf("turn %d is missing", k)
		}
		want += len(turnDocs(tu))
	}
	return n, want
}

// A live memory updates its engine at every turn, and its index grows a
// segment with each: its contexts are those of the same memory opened
// afresh all the same (stats.go).
func TestLiveUpdatesScoreAsBuiltAtOnce(t *testing.T) {
	docs := turnByTurn(t)
	e := newEngine(t, docs[0], nil)
	for _, doc := range docs[1:] {
		if err := e.Update(doc); err != nil {
			t.Fatal(err)
		}
	}
	sameContexts(t, e, newEngine(t, docs[len(docs)-1], nil))
}

func TestBackgroundIndexing(t *testing.T) {
	doc := checkoutAt(t, 4, 0)[0]
	hold := make(chan struct{})
	beforeTurns = func() { <-hold }
	defer func() { beforeTurns = nil }()
	e := newEngine(t, doc, &Config{Background: true})
	if e.Complete() {
		t.Fatal("complete before the turns are indexed")
	}
	r, err := e.Context(context.Background(), "database locked", Options{Budget: 400})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Partial {
		t.Error("a context asked before the turns are indexed does not say it is partial")
	}
	for _, it := range r.Items {
		if it.Parts["search"] > 0 && it.Kind == "turn" {
			t.Errorf("turn %d was found by search before any turn was indexed", it.Turn)
		}
	}
	close(hold)
	r, err = e.Context(context.Background(), "database locked", Options{Budget: 400, Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Partial || !e.Complete() {
		t.Error("partial after waiting for the index")
	}
	sameContexts(t, e, newEngine(t, doc, nil))
}

func TestIndexCache(t *testing.T) {
	// Blocks of two turns: a question's candidates reach few of them.
	doc := checkoutAt(t, 2, 0)[0]
	dir := filepath.Join(t.TempDir(), "memory.index")
	first := newEngine(t, doc, &Config{Cache: dir, Key: "hash-1"})
	if err := first.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if first.fromCache {
		t.Fatal("the first engine did not build its index")
	}
	second := newEngine(t, doc, &Config{Cache: dir, Key: "hash-1"})
	if !second.fromCache || !second.Complete() {
		t.Fatal("the second engine did not open the cache")
	}
	// Only the blocks of the turns the answer used are decoded.
	if _, err := second.Context(context.Background(), "database locked", Options{Budget: 100}); err != nil {
		t.Fatal(err)
	}
	decoded := 0
	for _, b := range second.turns.blocks {
		if b != nil {
			decoded++
		}
	}
	t.Logf("%d of %d blocks decoded", decoded, len(second.turns.blocks))
	if decoded == 0 || decoded == len(second.turns.blocks) {
		t.Errorf("%d of %d blocks decoded after opening the cache", decoded, len(second.turns.blocks))
	}
	sameContexts(t, second, first)

	// Another key is another document: the cache is rebuilt.
	third := newEngine(t, doc, &Config{Cache: dir, Key: "hash-2"})
	if third.fromCache {
		t.Error("a cache made for another key was opened")
	}
	if err := third.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	key, err := os.ReadFile(filepath.Join(dir, cacheKeyFile))
	if err != nil || !strings.Contains(string(key), "hash-2") {
		t.Errorf("the cache's key is %q, %v; want hash-2", key, err)
	}
}

func TestDamagedCacheIsRebuilt(t *testing.T) {
	doc := checkoutAt(t, 4, 0)[0]
	dir := filepath.Join(t.TempDir(), "memory.index")
	if err := os.MkdirAll(filepath.Join(dir, "store"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{cacheKeyFile: string(cacheKey("k")), "store/root.bolt": "not a bolt file", cacheMetaFile: "{"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := newEngine(t, doc, &Config{Cache: dir, Key: "k"})
	if e.fromCache {
		t.Fatal("a damaged cache was opened")
	}
	if err := e.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	sameContexts(t, newEngine(t, doc, &Config{Cache: dir, Key: "k"}), e)
}

func TestUpdateOfACachedIndex(t *testing.T) {
	docs := checkoutAt(t, 4, 13, 0)
	dir := filepath.Join(t.TempDir(), "memory.index")
	if err := newEngine(t, docs[0], &Config{Cache: dir, Key: "k"}).Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, docs[0], &Config{Cache: dir, Key: "k"})
	if !e.fromCache {
		t.Fatal("the cache was not opened")
	}
	if err := e.Update(docs[1]); err != nil {
		t.Fatal(err)
	}
	sameContexts(t, e, newEngine(t, docs[1], nil))
	if e.readOnly {
		t.Error("the updated engine still uses the cache")
	}
}

// A cache that cannot be written costs only the next engine's time: the
// index is complete, and contexts that wait for it are answered.
func TestUnwritableCache(t *testing.T) {
	doc := checkoutAt(t, 4, 0)[0]
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, doc, &Config{Background: true, Cache: filepath.Join(file, "index"), Key: "k"})
	if err := e.Wait(context.Background()); !errors.Is(err, ErrIndexCache) {
		t.Fatalf("Wait: %v, want ErrIndexCache", err)
	}
	r, err := e.Context(context.Background(), "database locked", Options{Budget: 300, Wait: true})
	if err != nil || r.Partial || !e.Complete() {
		t.Fatalf("partial %v, complete %v, %v", r != nil && r.Partial, e.Complete(), err)
	}
}

// A cache whose files changed after it was written is not opened: Bleve
// trusts its files.
func TestTamperedCacheIsRebuilt(t *testing.T) {
	doc := checkoutAt(t, 4, 0)[0]
	dir := filepath.Join(t.TempDir(), "memory.index")
	if err := newEngine(t, doc, &Config{Cache: dir, Key: "k"}).Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	segs, err := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
	if err != nil || len(segs) == 0 {
		t.Fatalf("no segment in the cache: %v", err)
	}
	data, err := os.ReadFile(segs[0])
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(segs[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, doc, &Config{Cache: dir, Key: "k"})
	if e.fromCache {
		t.Fatal("a tampered cache was opened")
	}
	if err := e.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if again := newEngine(t, doc, &Config{Cache: dir, Key: "k"}); !again.fromCache {
		t.Error("the rebuilt cache was not opened")
	}
}

// A turn is found by its date too.
func TestTurnDateIndexed(t *testing.T) {
	b := graph.New(graph.Config{}, graph.Options{})
	for _, tu := range []spec.Turn{
		{Speaker: "Ana", Role: "user", Content: "We went to the beach.", Timestamp: time.Date(2023, 5, 8, 10, 0, 0, 0, time.UTC)},
		{Speaker: "Ana", Role: "user", Content: "We went to the beach.", Timestamp: time.Date(2023, 7, 2, 10, 0, 0, 0, time.UTC)},
	} {
		if err := b.Add(tu); err != nil {
			t.Fatal(err)
		}
	}
	e := newEngine(t, b.Document(), nil)
	found, err := e.Search(context.Background(), "beach in July", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) == 0 || found[0].Kind != "turn" || found[0].Turn != 2 {
		t.Errorf("the turn of July is not found first: %+v", found)
	}
}

// The cache keeps the document it was made from: it reads back as the
// same document, and an engine given the opened cache answers as the one
// that made it, without indexing.
func TestCachedDocument(t *testing.T) {
	doc := checkoutAt(t, 4, 0)[0]
	// Free-form metadata of every JSON kind survives the copy.
	doc.SemanticGraph.Nodes[0].Metadata = map[string]any{"s": "x", "n": 1.5, "b": true, "z": nil, "a": []any{"y", 2.0}, "o": map[string]any{"k": []any{}}}
	dir := filepath.Join(t.TempDir(), "memory.index")
	first := newEngine(t, doc, &Config{Cache: dir, Key: "k"})
	if err := first.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := OpenCached(dir, "another"); ok {
		t.Fatal("a cache made for another key was opened")
	}
	c, ok := OpenCached(dir, "k")
	if !ok {
		t.Fatal("the cache was not opened")
	}
	want, err := spec.MarshalCanonical(doc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := spec.MarshalCanonical(c.Document())
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the cached document differs from the one the cache was made from: %v\n%s\n%s", err, got, want)
	}
	e := newEngine(t, c.Document(), &Config{Cache: dir, Key: "k", Cached: c})
	if !e.fromCache || !e.Complete() {
		t.Fatal("the engine did not take the opened cache's index")
	}
	sameContexts(t, e, first)
	if err := c.Close(); err != nil {
		t.Errorf("closing a cache the engine took: %v", err)
	}

	// A damaged copy of the document is a miss.
	path := filepath.Join(dir, cacheDocFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x20
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if c, ok := OpenCached(dir, "k"); ok {
		c.Close()
		t.Error("a cache whose document changed was opened")
	}
}

// An engine updated while its turns are indexed in the background does
// not write its index to the cache: the cache's key names the document it
// was opened with, and the index holds more.
func TestNoCacheAfterAnUpdate(t *testing.T) {
	docs := checkoutAt(t, 4, 13, 0)
	dir := filepath.Join(t.TempDir(), "memory.index")
	hold := make(chan struct{})
	beforeTurns = func() { <-hold }
	defer func() { beforeTurns = nil }()
	e := newEngine(t, docs[0], &Config{Background: true, Cache: dir, Key: "k"})
	if err := e.Update(docs[1]); err != nil {
		t.Fatal(err)
	}
	close(hold)
	if err := e.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the cache was written after an update: %v", err)
	}
	sameContexts(t, e, newEngine(t, docs[1], nil))
}

// TestEarlySearch checks the search Compose makes while the question is
// embedded: its hits stand for compose's search only while the engine is
// the one they were found in (its gen), and an update makes it another.
func TestEarlySearch(t *testing.T) {
	docs := checkoutAt(t, 4, 10, 0)
	e := newEngine(t, docs[0], nil)
	const q = "what does the retry policy do"
	opts := Options{Budget: 400}
	run := func(early []earlyHits) string {
		e.rw.RLock()
		defer e.rw.RUnlock()
		r, err := compose(context.Background(), q, opts, []Source{{Engine: e}}, []*queryVector{nil}, early)
		if err != nil {
			t.Fatal(err)
		}
		return r.Text
	}
	want := run(nil)
	if got := run(searchEarly(q, []Source{{Engine: e}})); got != want {
		t.Fatalf("with the early search:\n%s\nwant\n%s", got, want)
	}
	none := []earlyHits{{gen: e.gen, ok: true}} // found nothing
	if run(none) == want {
		t.Fatal("the early search's hits were not used")
	}
	g := e.gen
	if err := e.Update(docs[1]); err != nil {
		t.Fatal(err)
	}
	if e.gen == g {
		t.Fatal("an update left gen as it was")
	}
	if got, want := run([]earlyHits{{gen: g, ok: true}}), run(nil); got != want {
		t.Errorf("the hits of the engine before its update were used:\n%s\nwant\n%s", got, want)
	}
}

// TestEarlySearchWhileUpdating asks for contexts, each with its search
// made while the question is embedded, while the engine is updated: run
// with -race, it checks that the search and the updates share the engine
// safely; the contexts after are those of the last document.
func TestEarlySearchWhileUpdating(t *testing.T) {
	docs := checkoutAt(t, 4, 6, 13, 20, 0)
	e := newEngine(t, docs[0], &Config{Embedder: &fakeEmbedder{model: "m"}})
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			for _, q := range checkoutQuestions {
				if _, err := e.Context(context.Background(), q, Options{Budget: 500}); err != nil {
					t.Error(err)
					return
				}
			}
			select {
			case <-done:
				return
			default:
			}
		}
	})
	for _, doc := range docs[1:] {
		if err := e.Update(doc); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	sameContexts(t, e, newEngine(t, docs[len(docs)-1], &Config{Embedder: &fakeEmbedder{model: "m"}}))
}
