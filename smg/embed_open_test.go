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
