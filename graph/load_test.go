package graph

import (
	"errors"
	"strings"
	"testing"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/spec"
)

// A turn reader checks each block it decodes: a block whose data does not
// match its hash, or whose turns its range does not describe, fails
// alone, and the others read whole.
func TestTurnReaderChecksBlocks(t *testing.T) {
	var turns []spec.Turn
	for range 12 {
		turns = append(turns, spec.Turn{Role: "user", Content: "We keep the parcels in Rotterdam."})
	}
	b := New(Config{BlockSize: 4}, Options{})
	for _, tu := range turns {
		if err := b.Add(tu); err != nil {
			t.Fatal(err)
		}
	}
	doc := b.Document()
	doc.DeepArchive.Blocks[1].ContentHash = "sha256:" + strings.Repeat("0", 64)
	doc.DeepArchive.Blocks[2].TurnRange = [2]int{9, 11}
	r := NewTurnReader(doc, nil)
	for i, want := range []string{"", "contentHash", "range [9, 11] says 3"} {
		got, err := r.Block(i)
		if want == "" {
			if err != nil || len(got) != 4 || got[0].Turn != 1 {
				t.Errorf("block %d: %d turns, %v", i, len(got), err)
			}
			continue
		}
		var be *archive.BlockError
		if !errors.As(err, &be) || be.Index != i || !strings.Contains(err.Error(), want) {
			t.Errorf("block %d: %v, want a BlockError saying %q", i, err, want)
		}
	}
	if err := EachTurn(doc, nil, func(spec.Turn) error { return nil }); err == nil {
		t.Error("EachTurn read a damaged archive")
	}
}
