package serve

import (
	"context"
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
	d.open.close = func(f smg.Kept) error { closed[f]++; return f.(*smg.FileMemory).Close() }
	ctx := context.Background()
	kept, doneA, err := d.Create(ctx, Tenant, "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	a := kept.(*smg.FileMemory)
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
