package smg_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/artifacts"
	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

// TestEveryReaderOfBlocksHasTheLimits: an archive block whose JSON text
// breaks a reader's limits (a member nested deeper than MaxDepth) but is
// otherwise sound fails alone wherever a memory reads its turns: the
// archive view, the replay of the turns before a memory continues, its
// index, and a merge. Read as plain JSON, the same block reads: the
// limits are what stops it.
func TestEveryReaderOfBlocksHasTheLimits(t *testing.T) {
	ctx := context.Background()
	m := smg.New(&smg.Options{Config: smg.Config{BlockSize: 4}})
	turns := smgtest.CheckoutTurns(t)
	if _, err := m.IngestAll(ctx, turns[:12]); err != nil {
		t.Fatal(err)
	}
	doc := m.Document()
	m.Close()
	if len(doc.DeepArchive.Blocks) != 3 {
		t.Fatalf("%d blocks", len(doc.DeepArchive.Blocks))
	}
	deepen(t, doc, 1, 100)
	if err := graph.EachTurn(doc, nil, func(spec.Turn) error { return nil }); err != nil {
		t.Fatalf("read as plain JSON, the deep block should read: %v", err)
	}
	limited := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, smg.ErrLimit) {
			t.Errorf("%s: %v, want the block's limit error", what, err)
		}
	}

	a := format.NewArchive(doc, format.Limits{})
	_, err := a.Block(1)
	limited("the archive view", err)
	if _, err := a.Block(0); err != nil {
		t.Errorf("the archive view of a sound block: %v", err)
	}

	cont, err := smg.Load(doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = cont.Ingest(ctx, turns[12])
	limited("continuing the memory", err)
	cont.Close()

	idx, err := smg.Load(doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	limited("indexing the memory", idx.WaitIndex(ctx))
	idx.Close()

	fork, err := smg.Fork(doc, smg.ForkOptions{ID: "fork"})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = smg.Merge(doc, doc, fork, smg.MergeOptions{})
	limited("merging the memory", err)
}

// deepen rewrites block i of doc so that its first turn holds a member
// nested depth arrays deep, with the block's hash and size made to match.
func deepen(t *testing.T, doc *spec.Document, i, depth int) {
	t.Helper()
	b := &doc.DeepArchive.Blocks[i]
	var turns []spec.Turn
	raw, err := graph.BlockData(*b, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &turns); err != nil || len(turns) == 0 {
		t.Fatal(err)
	}
	nest := strings.Repeat("[", depth) + strings.Repeat("]", depth)
	js := bytes.Replace(raw, []byte("{"), []byte(`{"deep":`+nest+`,`), 1)
	b.Turns, b.CompressedData = js, nil
	b.ContentHash = artifacts.Hash(string(js))
	b.UncompressedSize = int64(len(js))
}

// TestOpenedLimitsReadTheBlocks: a memory opened under limits reads its
// archive's blocks under them too, not under the defaults.
func TestOpenedLimitsReadTheBlocks(t *testing.T) {
	ctx := context.Background()
	m := smg.New(&smg.Options{Config: smg.Config{BlockSize: 4}})
	turns := smgtest.CheckoutTurns(t)
	if _, err := m.IngestAll(ctx, turns[:12]); err != nil {
		t.Fatal(err)
	}
	name := t.TempDir() + "/m.smg"
	if err := m.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	m.Close()
	for _, tc := range []struct {
		lim  smg.Limits
		fail bool
	}{{smg.Limits{}, false}, {smg.Limits{MaxBlockSize: 64}, true}} {
		o, err := smg.Open(name, &smg.OpenOptions{Decode: smg.DecodeOptions{Limits: tc.lim}})
		if err != nil {
			t.Fatalf("open under %+v: %v", tc.lim, err)
		}
		err = o.Ingest(ctx, turns[12])
		o.Close()
		if got := errors.Is(err, archive.ErrTooLarge); got != tc.fail {
			t.Errorf("continuing a memory opened with MaxBlockSize %d: %v", tc.lim.MaxBlockSize, err)
		}
	}
}
