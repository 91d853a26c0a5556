package serve

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg"
)

// TestDirClosesWhenDone: a memory that leaves the LRU while a request uses
// it stays open until the request is done, then is closed; done twice
// counts once.
func TestDirClosesWhenDone(t *testing.T) {
	d, err := NewDir(t.TempDir(), 1, smg.FileOptions{Open: smg.OpenOptions{NoVectors: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	closed := map[smg.Kept]int{}
	d.open.close = func(f smg.Kept) error { closed[f]++; return f.(*dirMemory).Close() }
	ctx := context.Background()
	kept, doneA, err := d.Create(ctx, Tenant, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	a := kept.(*dirMemory)
	om := d.open.open[Tenant+"/a"].Value.(*openMemory)
	_, doneB, err := d.Create(ctx, Tenant, "b", nil) // a leaves the LRU
	if err != nil {
		t.Fatal(err)
	}
	doneB()
	if _, ok := d.open.open[Tenant+"/a"]; ok || !om.evicted || om.refs != 1 || closed[a] != 0 {
		t.Fatalf("a: in the LRU %v, evicted %v, refs %d, closed %d times while in use", ok, om.evicted, om.refs, closed[a])
	}
	doneA()
	doneA()
	if om.refs != 0 || closed[a] != 1 {
		t.Errorf("refs %d after done, twice; closed %d times", om.refs, closed[a])
	}
	// Opened again, it is a new open memory.
	_, done, err := d.Open(ctx, Tenant, "a")
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	if again := d.open.open[Tenant+"/a"].Value.(*openMemory); again == om || again.refs != 1 {
		t.Errorf("reopened: the same %v, refs %d", again == om, again.refs)
	}
}

// TestCaseOfNames: names that differ only in case are one folder or one
// file on some file systems, so a directory store never holds two such
// tenants or memories; where the file system folds case, a memory is
// opened and deleted by its own name only.
func TestCaseOfNames(t *testing.T) {
	root := t.TempDir()
	d, err := NewDir(root, 0, smg.FileOptions{Open: smg.OpenOptions{NoVectors: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.foldsCase {
		t.Log("this file system folds case")
	}
	ctx := context.Background()
	_, done, err := d.Create(ctx, "acme", "dana", nil)
	if err != nil {
		t.Fatal(err)
	}
	done()
	if _, _, err := d.Create(ctx, "acme", "Dana", nil); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "differ only in case") {
		t.Errorf("a memory Dana beside dana: %v", err)
	}
	if _, _, err := d.Import(ctx, "ACME", "other", nil); err == nil {
		t.Error("an import into the tenant ACME beside acme was taken")
	}
	if _, _, err := d.Create(ctx, "ACME", "other", nil); !errors.Is(err, ErrInvalidID) {
		t.Errorf("a tenant ACME beside acme: %v", err)
	}
	for _, k := range []Key{{Tenant: "ACME", Scope: ScopeRead}, {Tenant: "Default", Scope: ScopeRead}} {
		if _, _, err := d.Keys().Add(ctx, Key{Tenant: "acme", Scope: ScopeRead}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := d.Keys().Add(ctx, k); !errors.Is(err, ErrInvalidID) {
			t.Errorf("a key of the tenant %s: %v", k.Tenant, err)
		}
	}

	// As on a file system that folds case: the memory is there under its
	// own name only.
	d.foldsCase = true
	for _, c := range []struct {
		tenant, id string
		want       bool
	}{{"acme", "dana", true}, {"acme", "DANA", false}, {"ACME", "dana", false}, {"acme", "nobody", false}} {
		if got := d.exact(c.tenant, c.id); got != c.want {
			t.Errorf("%s/%s there under its own name: %v, want %v", c.tenant, c.id, got, c.want)
		}
	}
}
