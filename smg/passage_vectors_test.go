package smg_test

import (
	"context"
	"strings"
	"testing"

	"github.com/smg-memory/smg/restore"
	"github.com/smg-memory/smg/smg"
)

// TestLongTurnsEmbedFirstPassages checks what a memory embeds with the
// built-in encoder: a short turn whole, a long one as its first passages,
// each vector keyed by its excerpt's offsets.
func TestLongTurnsEmbedFirstPassages(t *testing.T) {
	long := strings.Repeat("The quarterly report covers budgets, hiring and the office move. ", 40)
	smg.BuiltinOn(t)
	m := smg.New(nil)
	defer m.Close()
	ctx := context.Background()
	if _, err := m.IngestAll(ctx, []smg.Turn{
		{Speaker: "Dana", Content: "Where is the quarterly report?"},
		{Speaker: "Lee", Content: long},
	}); err != nil {
		t.Fatal(err)
	}
	if err := m.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	vi := m.Document().DeepArchive.VectorIndex
	if vi == nil || vi.Model != smg.BuiltinModel {
		t.Fatalf("vector index %+v", vi)
	}
	want := restore.EmbeddedPassages(long)
	if len(want) < 2 || len(restore.Passages(long)) <= len(want) {
		t.Fatalf("the long turn has %d passages, %d embedded: not a test of the first ones", len(restore.Passages(long)), len(want))
	}
	var got []restore.Span
	for _, e := range vi.Embeddings {
		switch e.Turn {
		case 1:
			if e.Start != 0 || e.End != 0 {
				t.Errorf("the short turn's vector is of an excerpt: %d to %d", e.Start, e.End)
			}
		case 2:
			got = append(got, restore.Span{Start: e.Start, End: e.End})
		}
	}
	if len(got) != len(want) {
		t.Fatalf("the long turn's vectors: excerpts %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("the long turn's vectors: excerpts %v, want %v", got, want)
		}
	}
}
