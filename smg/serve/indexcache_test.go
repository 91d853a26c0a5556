package serve_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/serve"
)

// A server keeps a memory's index on disk, and the next server to open
// the memory (after a restart, or for one that failed) opens it in place
// and updates a copy of it as turns come in, answering as a server that
// indexed everything; deleting the memory deletes its index.
func TestIndexKeptForTheNextServer(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	caches := t.TempDir()
	// A directory's memories keep their indexes beside their files,
	// whatever the folder.
	open := func() serve.Store { return s.anotherWith(t, smg.OpenOptions{NoVectors: true, IndexCache: caches}) }
	cache := format.IndexCacheDir(filepath.Join(s.root, serve.Tenant, "m.smg"))
	if s.postgres() {
		cache = filepath.Join(caches, serve.Tenant, "m", "index")
	}
	turns := func(first, n int) []smg.Turn {
		var out []smg.Turn
		for i := first; i < first+n; i++ {
			out = append(out, smg.Turn{Role: "user", Timestamp: time.Date(2025, 4, 1, 9, i, 0, 0, time.UTC),
				Content: fmt.Sprintf("Turn %d: order %d ships from the Lyon warehouse by rail.", i, 100+i)})
		}
		return out
	}
	ask := func(kept smg.Kept, q string) string {
		t.Helper()
		m, err := kept.Memory(ctx)
		if err != nil {
			t.Fatal(err)
		}
		r, err := m.Context(ctx, q, &smg.ContextOptions{Budget: 200, Wait: true})
		if err != nil {
			t.Fatal(err)
		}
		return r.Text
	}

	first := open()
	kept, done, err := first.Create(ctx, serve.Tenant, "m", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kept.Record(ctx, turns(1, 40), nil); err != nil {
		t.Fatal(err)
	}
	ask(kept, "which warehouse ships order 120?")
	done()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cache, "smg-key")); err != nil {
		t.Fatalf("the first server left no index: %v", err)
	}

	second := open()
	kept, done, err = second.Open(ctx, serve.Tenant, "m")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kept.Record(ctx, turns(41, 3), nil); err != nil {
		t.Fatal(err)
	}
	q := "which warehouse ships order 142?"
	got := ask(kept, q)
	if live, _ := filepath.Glob(cache + ".live-*"); len(live) != 1 {
		t.Errorf("copies of the index being updated: %v, want one: the index was built again", live)
	}
	other, otherDone, err := s.another(t).Open(ctx, serve.Tenant, "m")
	if err != nil {
		t.Fatal(err)
	}
	if want := ask(other, q); got != want {
		t.Errorf("the context differs from that of a server that indexed every turn:\n--- got\n%s\n--- want\n%s", got, want)
	}
	otherDone()
	done()
	if err := second.Delete(ctx, serve.Tenant, "m"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cache); err == nil {
		t.Error("the index of the deleted memory is still there")
	}
}

// A PostgreSQL memory's index is put in place only while the database
// holds the memory: a process that writes it as the memory is deleted (a
// request that used it, rebasing it, or its let-go) does not bring the
// deleted memory's text back to the disk.
func TestDeletedMemoryIndexStaysGone(t *testing.T) {
	ctx := context.Background()
	s := postgresOnly(t)
	caches := t.TempDir()
	st, err := serve.OpenPostgres(ctx, s.url, 0, smg.StoredOptions{Open: smg.OpenOptions{NoVectors: true, IndexCache: caches}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	kept, done, err := st.Create(ctx, serve.Tenant, "gone", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kept.Record(ctx, []smg.Turn{{Role: "user", Content: "The Lisbon office keeps the keys of locker 12."}}, nil); err != nil {
		t.Fatal(err)
	}
	done()
	guard := serve.CacheGuardOf(st, serve.Tenant, "gone")
	put := 0
	if err := guard(func() error { put++; return nil }); err != nil || put != 1 {
		t.Fatalf("the guard of a memory the database holds: put %d times, %v", put, err)
	}
	if err := s.another(t).Delete(ctx, serve.Tenant, "gone"); err != nil {
		t.Fatal(err)
	}
	if err := guard(func() error { put++; return nil }); !errors.Is(err, serve.ErrNotFound) || put != 1 {
		t.Errorf("the guard of a deleted memory: put %d times, %v", put-1, err)
	}
}
