package smg_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// cachedFile opens the memory of the named file as a server keeps it: with
// its index cache, journaling the turns it records.
func cachedFile(t *testing.T, name string) *smg.FileMemory {
	t.Helper()
	f, err := smg.OpenFileMemory(name, &smg.FileOptions{
		Open: smg.OpenOptions{NoVectors: true, IndexCache: format.IndexCacheDir(name)}, JournalLimit: 1 << 30,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// cacheKeyOf reports whether the index cache of the named file is made for
// its bytes as they are.
func cacheKeyOf(t *testing.T, name string) bool {
	t.Helper()
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	key, err := os.ReadFile(filepath.Join(format.IndexCacheDir(name), "smg-key"))
	return err == nil && bytes.Contains(key, []byte("\n"+format.IndexKey(raw, smg.Limits{})+"\n"))
}

// sameAnswers checks that the memory of f answers as one opened from the
// file afresh, without any cache.
func sameAnswers(t *testing.T, f *smg.FileMemory) {
	t.Helper()
	ctx := context.Background()
	fresh, err := smg.Open(f.Name(), &smg.OpenOptions{NoVectors: true})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	m, err := f.Memory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m.Turns() != fresh.Turns() {
		t.Fatalf("%d turns, the file has %d", m.Turns(), fresh.Turns())
	}
	for _, q := range []string{"order 57", "parcels in Rotterdam", "which carrier ships order 215?", "turn 233"} {
		got, err := m.Context(ctx, q, &smg.ContextOptions{Budget: 300, Wait: true})
		if err != nil {
			t.Fatal(err)
		}
		want, err := fresh.Context(ctx, q, &smg.ContextOptions{Budget: 300, Wait: true})
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != want.Text {
			t.Errorf("%q: the context differs from that of the file opened afresh:\n--- got\n%s\n--- want\n%s", q, got.Text, want.Text)
		}
	}
}

// A memory kept open with its index cache writes the cache again whenever
// its file is written whole, so that the next process opens the index in
// place; one that opened the cache and records turns updates a copy of it
// rather than indexing everything again; and a file whose journal holds
// turns is opened from the cache of its file and brought up to them. The
// answers are those of the file opened afresh throughout.
func TestIndexCacheKeptUpToDate(t *testing.T) {
	ctx := context.Background()
	name := filepath.Join(t.TempDir(), "m.smg")
	f := fileMemory(t, name, 1<<30)
	if _, err := f.Record(ctx, chat(1, 200), nil); err != nil {
		t.Fatal(err)
	}
	f.Close()

	a := cachedFile(t, name)
	m, err := a.Memory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.WaitIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if !cacheKeyOf(t, name) {
		t.Fatal("no cache of the file after its index was built")
	}
	if _, err := a.Record(ctx, chat(201, 30), nil); err != nil {
		t.Fatal(err)
	}
	sameAnswers(t, a)
	if err := a.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	a.Close() // waits for the cache
	if !cacheKeyOf(t, name) {
		t.Fatal("the cache was not written again with the file")
	}

	b := cachedFile(t, name)
	sameAnswers(t, b)
	docOf := func(m *smg.Memory) []byte { return canonical(t, m.Document()) }
	mb, _ := b.Memory(ctx)
	decoded, err := smg.Open(name, &smg.OpenOptions{NoVectors: true})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(docOf(mb), docOf(decoded)) {
		t.Error("the memory opened from the cache is not the file's")
	}
	decoded.Close()
	if _, err := b.Record(ctx, chat(231, 10), nil); err != nil {
		t.Fatal(err)
	}
	sameAnswers(t, b)
	live, _ := filepath.Glob(format.IndexCacheDir(name) + ".live-*")
	if len(live) != 1 {
		t.Errorf("copies of the cache being updated: %v, want one", live)
	}
	if !cacheKeyOf(t, name) {
		t.Error("recording into the journal changed the cache")
	}

	// Another process opens the file, whose journal holds 10 turns: from
	// the cache, which it copies to add them.
	c := cachedFile(t, name)
	sameAnswers(t, c)
	if live, _ := filepath.Glob(format.IndexCacheDir(name) + ".live-*"); len(live) != 2 {
		t.Errorf("copies of the cache being updated: %v, want two", live)
	}
	b.Close()
	c.Close()
	if live, _ := filepath.Glob(format.IndexCacheDir(name) + ".live-*"); len(live) != 0 {
		t.Errorf("copies left after the memories closed: %v", live)
	}
}

// A stored memory compacted makes its whole memory the log's base, and
// writes its index cache for that base, which the next process to open the
// memory opens in place; compacting a memory with no change after its base
// changes nothing.
func TestStoredMemoryCompact(t *testing.T) {
	ctx := context.Background()
	l := newHeldLog(t, smg.New(&smg.Options{NoVectors: true}))
	cache := filepath.Join(t.TempDir(), "index")
	open := func() *smg.StoredMemory { return openCached(t, l, cache, nil) }
	a := open()
	indexedThenCompacted(t, a)
	if len(l.changes) != 0 || l.baseV != l.version {
		t.Fatalf("compacted: %d changes after base %d of version %d, want a base alone", len(l.changes), l.baseV, l.version)
	}
	version := l.version
	if err := a.Compact(ctx); err != nil || l.version != version {
		t.Errorf("a second compaction changed the log: version %d, want %d (%v)", l.version, version, err)
	}
	a.Close() // waits for the cache
	key, err := os.ReadFile(filepath.Join(cache, "smg-key"))
	if err != nil || !bytes.Contains(key, []byte("\n"+format.IndexKey(l.base, smg.Limits{})+"\n")) {
		t.Fatalf("no index cache of the new base: %v", err)
	}
	b := open()
	recordAndAsk(t, b, chat(31, 2), "order 32")
	if live, _ := filepath.Glob(cache + ".live-*"); len(live) != 1 {
		t.Errorf("copies of the cache being updated: %v, want one: the index was built again", live)
	}
}

// A stored memory puts its index cache in place through its CacheGuard,
// at a rebase and for the index it built of its base: a guard that
// refuses leaves no cache, nor the folder made for it (a store's memory
// deleted meanwhile).
func TestStoredMemoryCacheGuard(t *testing.T) {
	ctx := context.Background()
	l := newHeldLog(t, smg.New(&smg.Options{NoVectors: true}))
	folder := filepath.Join(t.TempDir(), "tenant", "memory")
	cache := filepath.Join(folder, "index")
	open := func(allow bool, asked *int) *smg.StoredMemory {
		t.Helper()
		var mu sync.Mutex
		guard := func(put func() error) error {
			mu.Lock()
			defer mu.Unlock()
			*asked++
			if !allow {
				return errors.New("deleted")
			}
			return put()
		}
		return openCached(t, l, cache, guard)
	}
	refused := 0
	a := open(false, &refused)
	indexedThenCompacted(t, a)
	a.Close() // waits for the cache
	if _, err := os.Stat(cache); refused == 0 || err == nil {
		t.Fatalf("the guard was asked %d times; a cache it refused is in place: %v", refused, err == nil)
	}
	if _, err := os.Stat(folder); err == nil {
		t.Errorf("the folder made for a cache the guard refused is left behind")
	}
	allowed := 0
	b := open(true, &allowed)
	defer b.Close()
	mb, err := b.Memory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := mb.WaitIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cache, "smg-key")); allowed == 0 || err != nil {
		t.Errorf("the guard was asked %d times; no index cache where it allows it: %v", allowed, err)
	}
}

// indexedThenCompacted records 30 turns in s, asks it a question, which
// builds its index, and makes the whole memory the log's base.
func indexedThenCompacted(t *testing.T, s *smg.StoredMemory) {
	t.Helper()
	recordAndAsk(t, s, chat(1, 30), "order 12")
	if err := s.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// recordAndAsk records turns in s, then asks it question once every turn
// is indexed.
func recordAndAsk(t *testing.T, s *smg.StoredMemory, turns []spec.Turn, question string) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.Record(ctx, turns, nil); err != nil {
		t.Fatal(err)
	}
	m, err := s.Memory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Context(ctx, question, &smg.ContextOptions{Wait: true}); err != nil {
		t.Fatal(err)
	}
}

// openCached opens the memory l keeps, its index cache in cache, put in
// place through guard; it is closed when the test ends.
func openCached(t *testing.T, l *heldLog, cache string, guard func(put func() error) error) *smg.StoredMemory {
	t.Helper()
	s, err := smg.OpenStoredMemory(context.Background(), l, &smg.StoredOptions{Open: smg.OpenOptions{NoVectors: true, IndexCache: cache}, Name: "held", JournalLimit: 1 << 30, CacheGuard: guard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
