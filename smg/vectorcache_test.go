package smg_test

import (
	"bytes"
	"context"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smg-memory/smg/restore"
	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
)

// tallyEmbedder makes a vector of each text from its words' hashes, and
// tallies the texts it embeds.
type tallyEmbedder struct {
	mu    sync.Mutex
	texts int
}

func (e *tallyEmbedder) Model() string { return "tally" }

func (e *tallyEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	e.texts += len(texts)
	e.mu.Unlock()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 8)
		h := fnv.New32a()
		h.Write([]byte(t))
		s := h.Sum32()
		for j := range v {
			v[j] = float32((s>>(4*j))&15) + 1
		}
		out[i] = v
	}
	return out, nil
}

func (e *tallyEmbedder) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.texts
}

// embeddedTurns returns the turns whose vectors the document of m holds.
func embeddedTurns(m *smg.Memory) []int {
	doc := m.Document()
	var turns []int
	if vi := doc.DeepArchive.VectorIndex; vi != nil {
		for _, e := range vi.Embeddings {
			if len(turns) == 0 || turns[len(turns)-1] != e.Turn {
				turns = append(turns, e.Turn)
			}
		}
	}
	return turns
}

// TestVectorsKeptInCache: a memory's file holds no vectors; its cache
// folder does, for the file's bytes, and the next open takes them without
// embedding a turn again. A copy of the file alone answers at once and
// makes them again in the background; --with-vectors (WithVectors) keeps
// them in the file, and an encrypted file always holds them.
func TestVectorsKeptInCache(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	name := filepath.Join(dir, "trip.smg")
	emb := &tallyEmbedder{}
	f, err := smg.OpenFileMemory(name, &smg.FileOptions{Create: &smg.Options{Embedder: emb}, Open: smg.OpenOptions{Embedder: emb}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Record(ctx, chat(1, 6), nil); err != nil {
		t.Fatal(err)
	}
	m, err := f.Memory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	if err := f.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	f.Close()
	want := []int{1, 2, 3, 4, 5, 6}

	doc, err := format.ReadFile(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	vi := doc.DeepArchive.VectorIndex
	if vi == nil || vi.Model != "tally" || len(vi.Embeddings) != 0 {
		t.Fatalf("the file's vector index is %+v, want the model named and no vectors", vi)
	}
	if _, err := os.Stat(format.VectorsName(name)); err != nil {
		t.Fatalf("no vectors in the cache: %v", err)
	}
	withCache, err := format.ReadFile(name, &format.DecodeOptions{CachedVectors: true})
	if err != nil || len(withCache.DeepArchive.VectorIndex.Embeddings) != len(want) {
		t.Fatalf("read with its cache, the file has %d vectors (%v), want %d", len(withCache.DeepArchive.VectorIndex.Embeddings), err, len(want))
	}

	// Opened again: the cache's vectors, none embedded again.
	before := emb.count()
	o, err := smg.Open(name, &smg.OpenOptions{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	if got := embeddedTurns(o); !slices.Equal(got, want) || emb.count() != before {
		t.Errorf("opened with its cache: vectors of turns %v, %d texts embedded; want %v and none", got, emb.count()-before, want)
	}
	o.Close()

	// With the index cache: its copy of the document holds no vector
	// (they are in the file's cache), and a memory opened from it has
	// them all, none embedded again.
	cache := format.IndexCacheDir(name)
	for round := range 2 {
		before = emb.count()
		o, err := smg.Open(name, &smg.OpenOptions{Embedder: emb, IndexCache: cache})
		if err != nil {
			t.Fatal(err)
		}
		if err := o.WaitIndex(ctx); err != nil {
			t.Fatal(err)
		}
		if err := o.WaitVectors(ctx); err != nil {
			t.Fatal(err)
		}
		if got := embeddedTurns(o); !slices.Equal(got, want) || emb.count() != before {
			t.Errorf("round %d with the index cache: vectors of turns %v, %d texts embedded; want %v and none", round, got, emb.count()-before, want)
		}
		o.Close()
	}
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := restore.OpenCached(cache, format.IndexKey(raw, smg.Limits{})); !ok {
		t.Error("no index cache")
	} else {
		if vi := c.Document().DeepArchive.VectorIndex; vi == nil || len(vi.Embeddings) != 0 {
			t.Errorf("the index cache's copy of the document has the vector index %+v, want its header alone", vi)
		}
		c.Close()
	}

	// A copy of the file alone: it answers, and embeds every turn again.
	other := filepath.Join(t.TempDir(), "trip.smg")
	if err := os.WriteFile(other, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	before = emb.count()
	c, err := smg.Open(other, &smg.OpenOptions{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	smg.SetGate(c, gate) // the background waits until the context is made
	r, err := c.Context(ctx, "Where did the trip go?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.HasPrefix(w, "the memory's vectors are being made again") }) {
		t.Errorf("the first context of a copy alone does not say its turns wait for their vectors: %q", r.Warnings)
	}
	close(gate)
	if err := c.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	if got := embeddedTurns(c); !slices.Equal(got, want) || emb.count()-before < len(want) {
		t.Errorf("a copy alone: vectors of turns %v, %d texts embedded; want %v, all embedded again", got, emb.count()-before, want)
	}
	c.Close()

	// A file written by another writer, without a cache: the cache made
	// for the old bytes is not taken.
	if err := os.WriteFile(name, append(raw[:len(raw):len(raw)], ' '), 0o600); err == nil {
		if d, err := format.ReadFile(name, &format.DecodeOptions{CachedVectors: true}); err == nil && len(d.DeepArchive.VectorIndex.Embeddings) != 0 {
			t.Errorf("the cache of other bytes gave %d vectors", len(d.DeepArchive.VectorIndex.Embeddings))
		}
	}
	if err := os.WriteFile(name, raw, 0o600); err != nil {
		t.Fatal(err)
	}

	// Asked for in the file: the file holds them, the cache none.
	w, err := smg.OpenFileMemory(name, &smg.FileOptions{Open: smg.OpenOptions{Embedder: emb}, Encode: smg.EncodeOptions{WithVectors: true}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Record(ctx, chat(7, 1), nil); err != nil {
		t.Fatal(err)
	}
	wm, _ := w.Memory(ctx)
	if err := wm.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	w.Close()
	doc, err = format.ReadFile(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(doc.DeepArchive.VectorIndex.Embeddings); n != 7 {
		t.Errorf("written with its vectors, the file holds %d, want 7", n)
	}
	if _, err := os.Stat(format.VectorsName(name)); !os.IsNotExist(err) {
		t.Errorf("the cache still keeps vectors beside a file that holds them: %v", err)
	}
	// The builder's state, resumed to record turn 7, gave it the vectors
	// of turns 1 to 6 without holding them itself.
	if state, err := os.ReadFile(format.StateName(name)); err != nil || bytes.Contains(state, []byte(`"embeddings"`)) {
		t.Errorf("the builder's state holds vectors (%v)", err)
	}

	// Removing the cache loses nothing.
	if err := os.RemoveAll(format.CacheDir(name)); err != nil {
		t.Fatal(err)
	}
	reopened, err := smg.Open(name, &smg.OpenOptions{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	if got := embeddedTurns(reopened); len(got) != 7 {
		t.Errorf("without its cache, the memory has vectors of turns %v", got)
	}
	reopened.Close()
}

// TestEncryptedFileHoldsVectors: nothing beside an encrypted file holds
// what its turns say, so it keeps its vectors in it.
func TestEncryptedFileHoldsVectors(t *testing.T) {
	ctx := context.Background()
	name := filepath.Join(t.TempDir(), "secret.smg")
	emb := &tallyEmbedder{}
	m := smg.New(&smg.Options{Embedder: emb})
	defer m.Close()
	if _, err := m.Record(ctx, chat(1, 3), nil); err != nil {
		t.Fatal(err)
	}
	if err := m.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	pw := []byte("correct horse")
	if err := m.Save(name, &smg.EncodeOptions{Password: pw, KDF: format.KDF{Function: format.DefaultPBKDF2.Function, Iterations: 1000}, InsecureKDF: true}); err != nil {
		t.Fatal(err)
	}
	doc, err := format.ReadFile(name, &format.DecodeOptions{Password: pw})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(doc.DeepArchive.VectorIndex.Embeddings); n != 3 {
		t.Errorf("the encrypted file holds %d vectors, want 3", n)
	}
	if _, err := os.Stat(format.CacheDir(name)); !os.IsNotExist(err) {
		t.Errorf("a cache beside an encrypted file: %v", err)
	}
}

// TestCompactIdle: a memory left idle has its journal ended, so that its
// file alone holds every turn acknowledged; a closed one is left as it is.
func TestCompactIdle(t *testing.T) {
	ctx := context.Background()
	name := filepath.Join(t.TempDir(), "idle.smg")
	f, err := smg.OpenFileMemory(name, &smg.FileOptions{Create: &smg.Options{NoVectors: true}, Open: smg.OpenOptions{NoVectors: true}, CompactIdle: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Record(ctx, chat(1, 2), nil); err != nil {
		t.Fatal(err) // the new file, written whole
	}
	if _, err := f.Record(ctx, chat(3, 2), nil); err != nil {
		t.Fatal(err)
	}
	if !format.HasJournal(name) {
		t.Fatal("the second turns are not in the journal")
	}
	deadline := time.Now().Add(20 * time.Second)
	for format.HasJournal(name) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	doc, err := format.ReadFile(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if format.HasJournal(name) || doc.Metadata.TotalExchanges != 4 {
		t.Fatalf("left idle: journal %v, the file alone holds %d turns of 4", format.HasJournal(name), doc.Metadata.TotalExchanges)
	}

	// Closed before it is idle: nothing is written after.
	if _, err := f.Record(ctx, chat(5, 1), nil); err != nil {
		t.Fatal(err)
	}
	f.Close()
	time.Sleep(100 * time.Millisecond)
	if !format.HasJournal(name) {
		t.Error("the journal was ended after the memory was closed")
	}
}
