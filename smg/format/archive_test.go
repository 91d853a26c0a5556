package format_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

// checkTurns fails the test unless every turn of want reads back through
// the archive with the same number, content (byte for byte), role,
// speaker, timestamp and external id.
func checkTurns(t testing.TB, a *format.Archive, want []spec.Turn) {
	t.Helper()
	for i, w := range want {
		got, err := a.Turn(i + 1)
		if err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
		if got.Turn != i+1 || got.Content != w.Content || got.Role != w.Role || got.Speaker != w.Speaker ||
			!got.Timestamp.Equal(w.Timestamp) || got.ExternalID != w.ExternalID || len(got.ContentRefs) != 0 {
			t.Fatalf("turn %d reads back as\n%+v\nwant\n%+v", i+1, got, w)
		}
	}
}

func TestArchiveCheckout(t *testing.T) {
	turns := smgtest.CheckoutTurns(t)
	doc := checkoutMemory(t).Document()
	a := format.NewArchive(doc, format.Limits{})
	checkTurns(t, a, turns)

	// The code of the assistant's turns is kept once, in the turns: the
	// vault's versions name their places there.
	if info, err := format.Stat(doc); err != nil || info.ArchivedCodeBytes == 0 {
		t.Errorf("no version names its place in a turn (%v)", err)
	}

	for _, n := range []int{0, -1, len(turns) + 1, 1000} {
		if _, err := a.Turn(n); !errors.Is(err, format.ErrNotFound) {
			t.Errorf("turn %d: %v, want ErrNotFound", n, err)
		}
	}
	if _, err := a.Block(a.Len()); !errors.Is(err, format.ErrNotFound) {
		t.Errorf("block %d of %d: %v, want ErrNotFound", a.Len(), a.Len(), err)
	}
	if i, ok := a.BlockOf(7); !ok || i != 0 {
		t.Errorf("BlockOf(7) = %d, %v", i, ok)
	}
	if i, ok := a.BlockIndex("block-0001"); !ok || i != 0 {
		t.Errorf("BlockIndex(block-0001) = %d, %v", i, ok)
	}
	blocks := a.Blocks()
	if len(blocks) != 1 || blocks[0].Number != 1 || blocks[0].FirstTurn != 1 || blocks[0].LastTurn != 20 || blocks[0].TurnCount != 20 ||
		blocks[0].CompressedSize != int64(len(doc.DeepArchive.Blocks[0].CompressedData)) || blocks[0].UncompressedSize == 0 {
		t.Errorf("Blocks: %+v", blocks)
	}
}

// smallBlocks is the checkout memory in blocks of 4 turns: 5 blocks.
func smallBlocks(t testing.TB) (*spec.Document, []spec.Turn) {
	t.Helper()
	turns := smgtest.CheckoutTurns(t)
	m := smg.New(&smg.Options{Config: smg.Config{BlockSize: 4}, NoVectors: true})
	if _, err := m.IngestAll(context.Background(), turns); err != nil {
		t.Fatal(err)
	}
	doc := m.Document()
	if len(doc.DeepArchive.Blocks) != 5 {
		t.Fatalf("%d blocks of 4 turns for %d turns", len(doc.DeepArchive.Blocks), len(turns))
	}
	return doc, turns
}

// damage replaces block i's compressed data with a copy whose middle bytes
// are flipped (the memory shares the original).
func damage(doc *spec.Document, i int) {
	b := &doc.DeepArchive.Blocks[i]
	compressBlock(b)
	data := append(spec.Bytes(nil), b.CompressedData...)
	for k := len(data) / 3; k < len(data)/3+8 && k < len(data); k++ {
		data[k] ^= 0x5a
	}
	b.CompressedData = data
}

// compressBlock puts a block in version 1.0's form: its turns
// compressed.
func compressBlock(b *spec.ArchiveBlock) {
	if b.Turns != nil {
		b.CompressedData, b.Turns = archive.Compress(b.Turns, 5), nil
	}
}

// TestArchiveDamagedBlock damages one block of five: its turns fail with
// an error that names it, the others read.
func TestArchiveDamagedBlock(t *testing.T) {
	doc, turns := smallBlocks(t)
	damage(doc, 2)
	a := format.NewArchive(doc, format.Limits{})
	for round := range 2 { // the damaged block is not cached as read
		for i, w := range turns {
			n := i + 1
			got, err := a.Turn(n)
			if n < 9 || n > 12 {
				if err != nil || got.Content != w.Content {
					t.Fatalf("round %d, turn %d of a healthy block: %v", round, n, err)
				}
				continue
			}
			var be *format.BlockError
			if !errors.As(err, &be) || be.ID != "block-0003" || be.Index != 2 ||
				!strings.Contains(err.Error(), "archive block block-0003") || !errors.Is(err, format.ErrInvalid) {
				t.Fatalf("round %d, turn %d of the damaged block: %v", round, n, err)
			}
		}
	}
	if _, err := a.Block(2); err == nil || !strings.Contains(err.Error(), "block-0003") {
		t.Errorf("Block(2): %v", err)
	}
	for _, i := range []int{0, 1, 3, 4} {
		if got, err := a.Block(i); err != nil || len(got) != 4 || got[0].Turn != 4*i+1 {
			t.Errorf("Block(%d): %d turns, %v", i, len(got), err)
		}
	}
	// ArchivedTurns, which ShowNode uses, reads around it too.
	if got, err := format.ArchivedTurns(doc, []int{20, 1, 8, 13}, format.Limits{}); err != nil || len(got) != 4 {
		t.Errorf("ArchivedTurns around the damaged block: %d turns, %v", len(got), err)
	}
	if _, err := format.ArchivedTurns(doc, []int{1, 10}, format.Limits{}); !errors.Is(err, format.ErrInvalid) || !strings.Contains(err.Error(), "block-0003") {
		t.Errorf("ArchivedTurns of a damaged turn: %v", err)
	}
}

// TestArchiveBrokenBlocks: each way a block can be broken fails that
// block with its cause, and only that block.
func TestArchiveBrokenBlocks(t *testing.T) {
	tests := []struct {
		name   string
		lim    format.Limits
		mutate func(doc *spec.Document)
		want   error  // the cause, when there is a sentinel for it
		msg    string // what the error says after the block's id
	}{
		{"cut short", format.Limits{}, func(doc *spec.Document) {
			b := &doc.DeepArchive.Blocks[1]
			compressBlock(b)
			b.CompressedData = append(spec.Bytes(nil), b.CompressedData[:len(b.CompressedData)/2]...)
		}, archive.ErrCorrupt, "archive block is corrupt"},
		{"another block's data", format.Limits{}, func(doc *spec.Document) {
			compressBlock(&doc.DeepArchive.Blocks[0])
			compressBlock(&doc.DeepArchive.Blocks[1])
			doc.DeepArchive.Blocks[1].CompressedData = doc.DeepArchive.Blocks[0].CompressedData
		}, nil, "the block's turns take 1522 bytes, its uncompressedSize says 2275"},
		{"another block's turns, in the clear", format.Limits{}, func(doc *spec.Document) {
			graph.PlainBlocks(doc)
			doc.DeepArchive.Blocks[1].Turns = doc.DeepArchive.Blocks[0].Turns
		}, nil, "the block's turns take 1522 bytes, its uncompressedSize says 2275"},
		{"a letter changed, in the clear", format.Limits{}, func(doc *spec.Document) {
			graph.PlainBlocks(doc)
			b := &doc.DeepArchive.Blocks[1]
			b.Turns = bytes.Replace(bytes.Clone(b.Turns), []byte("the"), []byte("thx"), 1)
		}, nil, "the turns do not match the block's contentHash"},
		{"over MaxBlockSize", format.Limits{MaxBlockSize: 100}, func(doc *spec.Document) {}, archive.ErrTooLarge, "archive block exceeds the size limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, turns := smallBlocks(t)
			tt.mutate(doc)
			a := format.NewArchive(doc, tt.lim)
			failed := map[int]bool{}
			for i := range a.Len() {
				_, err := a.Block(i)
				if err == nil {
					continue
				}
				failed[i] = true
				if msg := "archive block " + doc.DeepArchive.Blocks[i].ID + ": " + tt.msg; !strings.HasPrefix(err.Error(), msg) ||
					!errors.Is(err, format.ErrInvalid) || (tt.want != nil && !errors.Is(err, tt.want)) {
					t.Errorf("block %d: %v\nwant %q…, wrapping ErrInvalid and %v", i, err, msg, tt.want)
				}
			}
			if tt.lim.MaxBlockSize == 0 && len(failed) != 1 {
				t.Errorf("blocks %v failed, want one", failed)
			}
			if len(failed) == a.Len() {
				return
			}
			for i, w := range turns {
				if b, _ := a.BlockOf(i + 1); failed[b] {
					continue
				}
				if got, err := a.Turn(i + 1); err != nil || got.Content != w.Content {
					t.Errorf("turn %d of a healthy block: %v", i+1, err)
				}
			}
		})
	}
}

// TestArchiveConcurrent reads every turn from several goroutines at once,
// through one Archive whose cache holds fewer blocks than there are; run
// it with -race.
func TestArchiveConcurrent(t *testing.T) {
	doc, turns := smallBlocks(t)
	a := format.NewArchive(doc, format.Limits{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for k := range 100 {
				n := (g*7+k*3)%len(turns) + 1
				got, err := a.Turn(n)
				if err != nil || got.Content != turns[n-1].Content {
					errs <- fmt.Errorf("turn %d: %v", n, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func ExampleArchive() {
	m := smg.New(&smg.Options{Config: smg.Config{BlockSize: 2}, NoVectors: true})
	_, _ = m.IngestAll(context.Background(), []smg.Turn{
		{Role: "user", Content: "Where do we keep the orders?"},
		{Role: "assistant", Content: "In PostgreSQL."},
		{Role: "user", Content: "Why not SQLite?"},
	})
	a := format.NewArchive(m.Document(), format.Limits{})
	for _, b := range a.Blocks() {
		fmt.Printf("%s: turns %d-%d\n", b.ID, b.FirstTurn, b.LastTurn)
	}
	t, err := a.Turn(2)
	fmt.Println(t.Role, t.Content, err)
	// Output:
	// block-0001: turns 1-2
	// block-0002: turns 3-3
	// assistant In PostgreSQL. <nil>
}
