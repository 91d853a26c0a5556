package smg_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/smg-memory/smg/smg"
)

// TestEmbedMissingCountsAfterOpen checks that EmbedMissing on a file just
// opened embeds, and counts, every turn the file holds without a vector:
// opening it does not start embedding them behind its back, which left
// EmbedMissing nothing to count ('smg embed' printed "0 turns embedded").
func TestEmbedMissingCountsAfterOpen(t *testing.T) {
	smg.BuiltinOn(t)
	ctx := context.Background()
	m := smg.New(nil)
	if _, err := m.IngestAll(ctx, []smg.Turn{{Speaker: "Ana", Content: "The parcel left the depot."}, {Speaker: "Ana", Content: "It reached Lisbon."}}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := m.IngestDeferred(ctx, smg.Turn{Speaker: "Ana", Content: fmt.Sprintf("Note %d about the parcel.", i)}); err != nil {
			t.Fatal(err)
		}
	}
	name := filepath.Join(t.TempDir(), "parcel.smg")
	if err := m.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	m.Close()
	for round := range 5 {
		o, err := smg.Open(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if smg.Embedding(o) {
			t.Fatalf("round %d: opening the file started embedding", round)
		}
		n, err := o.EmbedMissing(ctx)
		o.Close()
		if err != nil || n != 3 {
			t.Fatalf("round %d: EmbedMissing embedded %d turns (%v), want 3", round, n, err)
		}
	}
}

// TestLoadEmbedsMissing: a memory loaded from a document whose turns are
// not all embedded embeds the rest in the background, from its first
// wait on, as an opened file does.
func TestLoadEmbedsMissing(t *testing.T) {
	smg.BuiltinOn(t)
	ctx := context.Background()
	m := smg.New(nil)
	if _, err := m.IngestAll(ctx, []smg.Turn{{Speaker: "Ana", Content: "The parcel left the depot."}}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := m.IngestDeferred(ctx, smg.Turn{Speaker: "Ana", Content: fmt.Sprintf("Note %d about the parcel.", i)}); err != nil {
			t.Fatal(err)
		}
	}
	doc := m.Document()
	m.Close()
	if n := len(doc.DeepArchive.VectorIndex.Embeddings); n != 1 {
		t.Fatalf("%d vectors before loading, want 1", n)
	}
	l, err := smg.Load(doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(l.Document().DeepArchive.VectorIndex.Embeddings); n != 4 {
		t.Errorf("%d vectors after waiting, want 4", n)
	}
}
