package format

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// Archive reads the deep archive of a document (spec §8) a block at a
// time: a block is decompressed, checked against its hash and decoded
// only when one of its turns is asked for, and the last few blocks read
// are kept decoded (see [archive.DefaultCacheSize]). Turns come back with
// their whole content: the pieces stored as references to the artifact
// vault (§8.2.1) are put back, each checked against its version's hash.
//
// A damaged block fails alone, with a [*BlockError]; the others stay
// readable.
//
// An Archive is safe for concurrent use. The document must not change
// while it is in use.
type Archive struct {
	blocks []spec.ArchiveBlock
	lim    Limits
	r      *archive.Reader[[]spec.Turn]
	byID   map[string]int
}

// BlockError reports an archive block that cannot be read: its data does
// not decompress within Limits.MaxBlockSize, does not match its hash, is
// not the block's turns, or has a turn whose references to the artifact
// vault do not resolve. Such a block makes the document invalid (spec
// §11), so a BlockError matches ErrInvalid as well as its cause.
type BlockError struct {
	// ID is the block's id; Index its place in deepArchive.blocks, from 0.
	ID    string
	Index int
	Err   error
}

func (e *BlockError) Error() string { return fmt.Sprintf("archive block %s: %v", e.ID, e.Err) }

func (e *BlockError) Unwrap() []error { return []error{ErrInvalid, e.Err} }

// BlockInfo describes an archive block without decompressing it.
type BlockInfo struct {
	// Number is the block's place in the archive, from 1.
	Number           int       `json:"number"`
	ID               string    `json:"id"`
	FirstTurn        int       `json:"firstTurn"`
	LastTurn         int       `json:"lastTurn"`
	FirstTimestamp   time.Time `json:"firstTimestamp,omitzero"`
	LastTimestamp    time.Time `json:"lastTimestamp,omitzero"`
	TurnCount        int       `json:"turnCount"`
	UncompressedSize int64     `json:"uncompressedSize"`
	CompressedSize   int64     `json:"compressedSize"`
	Summary          string    `json:"summary,omitempty"`
	// SummaryModel names the model that wrote Summary; empty when the
	// writer wrote it (spec §8.2.2).
	SummaryModel string   `json:"summaryModel,omitempty"`
	KeyPoints    []string `json:"keyPoints,omitempty"`
}

// NewArchive returns a reader of the archive of doc. Zero fields of lim
// take their defaults; MaxBlockSize bounds each block's decompressed data,
// and the other limits the JSON text of its turns (spec §9.4).
func NewArchive(doc *spec.Document, lim Limits) *Archive {
	a := &Archive{
		blocks: doc.DeepArchive.Blocks,
		lim:    lim.withDefaults(),
		byID:   make(map[string]int, len(doc.DeepArchive.Blocks)),
	}
	for i, b := range a.blocks {
		if _, dup := a.byID[b.ID]; !dup {
			a.byID[b.ID] = i
		}
	}
	o := ReadBlocks(a.lim)
	o.CacheSize = 0 // archive.DefaultCacheSize
	a.r = graph.NewTurnReader(doc, o)
	return a
}

// Len is the number of blocks.
func (a *Archive) Len() int { return len(a.blocks) }

// Blocks describes every block, in order.
func (a *Archive) Blocks() []BlockInfo {
	out := make([]BlockInfo, len(a.blocks))
	for i, b := range a.blocks {
		out[i] = BlockInfo{
			Number:           i + 1,
			ID:               b.ID,
			FirstTurn:        b.TurnRange[0],
			LastTurn:         b.TurnRange[1],
			FirstTimestamp:   b.FirstTimestamp,
			LastTimestamp:    b.LastTimestamp,
			TurnCount:        b.TurnCount,
			UncompressedSize: b.UncompressedSize,
			CompressedSize:   int64(len(b.CompressedData)), // 0 for a block in the clear
			Summary:          b.Summary,
			SummaryModel:     b.SummaryModel,
			KeyPoints:        slices.Clone(b.KeyPoints),
		}
	}
	return out
}

// BlockOf returns the index (from 0) of the block that holds turn.
func (a *Archive) BlockOf(turn int) (index int, ok bool) { return a.r.Find(turn) }

// BlockIndex returns the index (from 0) of the block with the given id.
func (a *Archive) BlockIndex(id string) (index int, ok bool) {
	i, ok := a.byID[id]
	return i, ok
}

// Block returns the turns of block i (from 0), in order, with their whole
// content. An index out of range is ErrNotFound; a damaged block a
// [*BlockError].
func (a *Archive) Block(i int) ([]spec.Turn, error) {
	if i < 0 || i >= len(a.blocks) {
		return nil, fmt.Errorf("archive block %d of %d: %w", i+1, len(a.blocks), ErrNotFound)
	}
	turns, err := a.block(i)
	return slices.Clone(turns), err
}

// Turn returns turn n with its whole content. A number no block holds is
// ErrNotFound; a turn of a damaged block is a [*BlockError].
func (a *Archive) Turn(n int) (spec.Turn, error) {
	i, ok := a.r.Find(n)
	if !ok {
		return spec.Turn{}, fmt.Errorf("turn %d: %w", n, ErrNotFound)
	}
	turns, err := a.block(i)
	if err != nil {
		return spec.Turn{}, err
	}
	return turns[n-a.blocks[i].TurnRange[0]], nil
}

// block returns the turns of block i as the reader keeps them, shared.
func (a *Archive) block(i int) ([]spec.Turn, error) {
	turns, err := a.r.Block(i)
	if err != nil {
		if be, ok := errors.AsType[*archive.BlockError](err); ok {
			err = be.Err
		}
		return nil, &BlockError{ID: a.blocks[i].ID, Index: i, Err: err}
	}
	return turns, nil
}

// ReadBlocks are the options of reading archive blocks within lim (zero
// fields take their defaults): MaxBlockSize bounds a block's decompressed
// data, and the other limits the JSON text of its turns (spec §9.4), as
// [Decode] applies them to a file. Every reader of archived turns of a
// file's document reads with them: [Archive], and the memory, its index
// and its merges through package smg.
func ReadBlocks(lim Limits) *graph.TurnReaderOptions {
	lim = lim.withDefaults()
	return &graph.TurnReaderOptions{
		MaxBlockSize: lim.MaxBlockSize,
		Decode: func(raw []byte) ([]spec.Turn, error) {
			if err := scanArray(bytes.NewReader(raw), lim); err != nil {
				return nil, err
			}
			var turns []spec.Turn
			if err := json.Unmarshal(raw, &turns); err != nil {
				return nil, unmarshalError(raw, err)
			}
			return turns, nil
		},
	}
}
