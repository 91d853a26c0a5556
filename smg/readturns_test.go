package smg_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/spec"
)

// TestReadTurns: pages of turns, across closed blocks and the open one,
// are the turns the memory's document archives, of a memory being built
// and of one read from its file; past the end, a page is short or empty.
func TestReadTurns(t *testing.T) {
	ctx := context.Background()
	// A chat whose turns hold code: the archive refers to the vault.
	res, err := importer.ReadFile("examples/checkout.json", importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	built := smg.New(&smg.Options{NoVectors: true, Config: smg.Config{BlockSize: 4}})
	if _, err := built.IngestAll(ctx, res.Conversations[0].Turns[:10]); err != nil {
		t.Fatal(err)
	}
	if len(built.Document().ArtifactVault.Artifacts) == 0 {
		t.Fatal("the chat made no artifact")
	}
	name := filepath.Join(t.TempDir(), "m.smg")
	if err := built.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	read, err := smg.Open(name, &smg.OpenOptions{NoVectors: true})
	if err != nil {
		t.Fatal(err)
	}
	defer read.Close()
	for what, m := range map[string]*smg.Memory{"built": built, "read": read} {
		arch := format.NewArchive(m.Document(), format.Limits{})
		for _, page := range []struct{ from, limit, want int }{{1, 3, 3}, {3, 4, 4}, {4, 100, 7}, {10, 5, 1}, {11, 5, 0}} {
			turns, total, err := m.ReadTurns(page.from, page.limit)
			if err != nil || total != 10 || len(turns) != page.want {
				t.Errorf("%s, %d from %d: %d turns of %d, %v; want %d of 10", what, page.limit, page.from, len(turns), total, err, page.want)
				continue
			}
			for i, got := range turns {
				want, err := arch.Turn(page.from + i)
				if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s, turn %d: %+v, want %+v (%v)", what, page.from+i, got, want, err)
				}
			}
		}
	}
}

// TestReadDocument: ReadDocument shows the document Document copies, for a
// memory opened from its file and once it changed, and a reader and a
// writer at once do not race.
func TestReadDocument(t *testing.T) {
	ctx := context.Background()
	m, err := smg.Open("../testdata/conversations/checkout.smg", &smg.OpenOptions{NoVectors: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	same := func(when string) {
		t.Helper()
		want := m.Document()
		m.ReadDocument(func(doc *spec.Document) {
			if len(doc.SemanticGraph.Nodes) != len(want.SemanticGraph.Nodes) || len(doc.SemanticGraph.Edges) != len(want.SemanticGraph.Edges) ||
				len(doc.DeepArchive.Blocks) != len(want.DeepArchive.Blocks) {
				t.Errorf("%s: %d nodes, %d edges, %d blocks; Document has %d, %d, %d", when, len(doc.SemanticGraph.Nodes), len(doc.SemanticGraph.Edges),
					len(doc.DeepArchive.Blocks), len(want.SemanticGraph.Nodes), len(want.SemanticGraph.Edges), len(want.DeepArchive.Blocks))
			}
		})
	}
	same("opened")
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 20 {
			m.ReadDocument(func(doc *spec.Document) {
				if len(doc.SemanticGraph.Nodes) == 0 {
					t.Errorf("read %d: no node", i)
				}
			})
		}
	})
	if _, err := m.IngestAll(ctx, []smg.Turn{{Role: "user", Content: "We moved the webhook to Kubernetes on Tuesday.", Speaker: "Dana"}}); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	same("changed")
}
