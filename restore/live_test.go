package restore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/smg-memory/smg/spec"
)

// buildCache builds an engine of doc that writes its index to dir for
// key, and closes it.
func buildCache(t *testing.T, doc *spec.Document, dir, key string) {
	t.Helper()
	e, err := New(doc, &Config{Cache: dir, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}

// liveCopies lists the copies of the cache in dir.
func liveCopies(t *testing.T, cache string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Dir(cache))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ent := range ents {
		if strings.HasPrefix(ent.Name(), filepath.Base(cache)+liveSuffix) {
			out = append(out, ent.Name())
		}
	}
	return out
}

// The cache of an index built at once keeps the statistics an engine
// that counts its terms from scratch has.
func TestCacheStatsAsCounted(t *testing.T) {
	for _, n := range []int{0, 700, 2 * turnBatch, 2*turnBatch + 300} {
		doc := wordTurns(t, n)[0]
		dir := filepath.Join(t.TempDir(), "index")
		buildCache(t, doc, dir, "k")
		got, ok := readStats(dir)
		if !ok {
			t.Fatalf("%d turns: the cache has no statistics", n)
		}
		e := newEngine(t, doc, nil)
		fs, err := e.countFresh(e.turns)
		if err != nil {
			t.Fatal(err)
		}
		want := fs.stats()
		want.Updated = false
		if got.Cardinality != want.Cardinality || got.Turns != want.Turns || strings.Join(got.Last, " ") != strings.Join(want.Last, " ") || got.Updated {
			t.Errorf("%d turns: the cache keeps %d terms, %d turns, %d of the last batch, updated %v; counted %d, %d, %d",
				n, got.Cardinality, got.Turns, len(got.Last), got.Updated, want.Cardinality, want.Turns, len(want.Last))
		}
	}
}

// An engine that opened its index from the cache updates a copy of it,
// indexing only what is new, and scores as an index built at once of the
// updated document; the cache stays that of its key, and the copy goes
// with the engine.
func TestLiveCopyOfTheCache(t *testing.T) {
	docs := wordTurns(t, 2*turnBatch+300, 2*turnBatch+700, 3*turnBatch+10)
	dir := filepath.Join(t.TempDir(), "index")
	buildCache(t, docs[0], dir, "k")
	e, err := New(docs[0], &Config{Cache: dir, Key: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if !e.fromCache {
		t.Fatal("the cache was not opened")
	}
	for _, doc := range docs[1:] {
		if err := e.Update(doc); err != nil {
			t.Fatal(err)
		}
		if e.live == nil {
			t.Fatal("the engine built its index again rather than update a copy of the cache")
		}
		fresh := newEngine(t, doc, nil)
		if got, want := e.cardinality, bleveCardinality(t, fresh); got != want {
			t.Errorf("after an update to %d turns: counted %d terms, an index built at once has %d", e.turns.n, got, want)
		}
		if n, want := docCount(t, e); n != uint64(len(e.indexed)+want) {
			t.Errorf("the copy holds %d documents, want %d nodes and blocks and %d of turns", n, len(e.indexed), want)
		}
	}
	if again := newEngine(t, docs[0], &Config{Cache: dir, Key: "k"}); !again.fromCache {
		t.Error("the cache changed with the copy")
	}
	if len(liveCopies(t, dir)) != 1 {
		t.Errorf("copies beside the cache: %v", liveCopies(t, dir))
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if left := liveCopies(t, dir); len(left) != 0 {
		t.Errorf("the closed engine left its copy: %v", left)
	}
}

// The contexts of an engine that updated a copy of the cache are those of
// an engine built at once of the same document.
func TestLiveCopyContexts(t *testing.T) {
	docs := checkoutAt(t, 4, 13, 20, 0)
	dir := filepath.Join(t.TempDir(), "index")
	buildCache(t, docs[0], dir, "k")
	e := newEngine(t, docs[0], &Config{Cache: dir, Key: "k"})
	for _, doc := range docs[1:] {
		if err := e.Update(doc); err != nil {
			t.Fatal(err)
		}
	}
	if e.live == nil {
		t.Fatal("the engine did not update a copy of the cache")
	}
	sameContexts(t, e, newEngine(t, docs[len(docs)-1], nil))
}

// An engine writes its updated index to the cache for the file it was
// written to: the next engine opens it in place, scores as one built at
// once, and goes on updating it.
func TestWriteCacheOfAnUpdatedEngine(t *testing.T) {
	docs := wordTurns(t, 2*turnBatch+300, 2*turnBatch+700, 3*turnBatch+10)
	dir := filepath.Join(t.TempDir(), "index")
	buildCache(t, docs[0], dir, "k1")
	e, err := New(docs[0], &Config{Cache: dir, Key: "k1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Update(docs[1]); err != nil {
		t.Fatal(err)
	}
	e.WriteCache(docs[0], "k2", nil) // another document: not written
	e.WriteCache(docs[1], "k2", nil)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	next := newEngine(t, docs[1], &Config{Cache: dir, Key: "k2"})
	if !next.fromCache {
		t.Fatal("the cache written after the update was not opened")
	}
	if got, want := next.cardinality, bleveCardinality(t, newEngine(t, docs[1], nil)); got != want {
		t.Errorf("the opened cache counts %d terms, an index built at once has %d", got, want)
	}
	if err := next.Update(docs[2]); err != nil {
		t.Fatal(err)
	}
	if got, want := next.cardinality, bleveCardinality(t, newEngine(t, docs[2], nil)); got != want || next.live == nil {
		t.Errorf("updated again: counted %d terms, an index built at once has %d (a copy: %v)", got, want, next.live != nil)
	}

	contexts := checkoutAt(t, 4, 13, 0)
	buildCache(t, contexts[0], dir, "c1")
	c := newEngine(t, contexts[0], &Config{Cache: dir, Key: "c1"})
	if err := c.Update(contexts[1]); err != nil {
		t.Fatal(err)
	}
	c.WriteCache(contexts[1], "c2", nil)
	c.Close()
	sameContexts(t, newEngine(t, contexts[1], &Config{Cache: dir, Key: "c2"}), newEngine(t, contexts[1], nil))
}

// A copy that a process left behind, which no engine holds, is removed by
// the next engine that makes one; one in use is not.
func TestLeftCopiesAreRemoved(t *testing.T) {
	docs := checkoutAt(t, 4, 13, 0)
	dir := filepath.Join(t.TempDir(), "index")
	buildCache(t, docs[0], dir, "k")
	left := dir + liveSuffix + "crashed"
	if err := os.MkdirAll(filepath.Join(left, "store"), 0o700); err != nil {
		t.Fatal(err)
	}
	held := dir + liveSuffix + "held"
	if err := os.MkdirAll(held, 0o700); err != nil {
		t.Fatal(err)
	}
	l := flock.New(filepath.Join(held, liveLock))
	if ok, err := l.TryLock(); err != nil || !ok {
		t.Fatal("cannot lock", err)
	}
	defer l.Unlock()
	e := newEngine(t, docs[0], &Config{Cache: dir, Key: "k"})
	if err := e.Update(docs[1]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); err == nil {
		t.Error("the copy left behind is still there")
	}
	if _, err := os.Stat(held); err != nil {
		t.Error("the copy in use was removed")
	}
	if _, err := e.Context(context.Background(), "database locked", Options{Budget: 200}); err != nil {
		t.Fatal(err)
	}
}

// An engine that built its index and put it in the cache answers from the
// cache's, on disk, in place of its own in memory, unless it reads once;
// it updates a copy of it as an engine that opened the cache does.
func TestBuiltIndexTakesTheCache(t *testing.T) {
	docs := checkoutAt(t, 4, 13, 0)
	dir := filepath.Join(t.TempDir(), "index")
	once := newEngine(t, docs[0], &Config{Cache: dir, Key: "k", ReadOnce: true})
	if once.readOnly {
		t.Error("an engine that reads once took its index from the cache")
	}
	e := newEngine(t, docs[0], &Config{Cache: dir, Key: "k2"})
	if !e.readOnly || e.fromCache || e.stats == nil {
		t.Fatalf("the engine kept its index in memory (read-only %v, from the cache %v)", e.readOnly, e.fromCache)
	}
	sameContexts(t, e, newEngine(t, docs[0], nil))
	if err := e.Update(docs[1]); err != nil {
		t.Fatal(err)
	}
	if e.live == nil {
		t.Error("the update did not copy the cache")
	}
	sameContexts(t, e, newEngine(t, docs[1], nil))
}

// A context waits for the turns to be indexed, not for the index to be
// written to the cache; WaitIndex waits for both.
func TestContextDoesNotWaitForTheCache(t *testing.T) {
	doc := checkoutAt(t, 4, 0)[0]
	dir := filepath.Join(t.TempDir(), "index")
	hold := make(chan struct{})
	beforeCache = func() { <-hold }
	defer func() { beforeCache = nil }()
	e := newEngine(t, doc, &Config{Background: true, Cache: dir, Key: "k"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := e.Context(ctx, "database locked", Options{Budget: 200, Wait: true})
	if err != nil || r.Partial {
		t.Fatalf("the context: partial %v, %v", r != nil && r.Partial, err)
	}
	if _, err := os.Stat(filepath.Join(dir, cacheKeyFile)); err == nil {
		t.Fatal("the cache was written while held")
	}
	close(hold)
	if err := e.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, cacheKeyFile)); err != nil {
		t.Errorf("Wait returned before the cache was written: %v", err)
	}
}

// An engine that opened the cache and changed nothing writes the same
// index for another key (the file written again, its graph and turns the
// same), which the next engine opens.
func TestWriteCacheOfAnOpenedCache(t *testing.T) {
	doc := checkoutAt(t, 4, 0)[0]
	dir := filepath.Join(t.TempDir(), "index")
	buildCache(t, doc, dir, "k1")
	e, err := New(doc, &Config{Cache: dir, Key: "k1"})
	if err != nil {
		t.Fatal(err)
	}
	if !e.fromCache {
		t.Fatal("the cache was not opened")
	}
	e.WriteCache(doc, "k2", nil)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	next := newEngine(t, doc, &Config{Cache: dir, Key: "k2"})
	if !next.fromCache {
		t.Fatal("the cache written for k2 was not opened")
	}
	sameContexts(t, next, newEngine(t, doc, nil))
}
