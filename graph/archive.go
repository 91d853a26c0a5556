package graph

import (
	"errors"
	"fmt"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/artifacts"
	"github.com/smg-memory/smg/spec"
)

// NewBlock builds the archive block of consecutive turns (spec §8): their
// canonical JSON, Brotli-compressed at quality, with its size and hash.
func NewBlock(id string, turns []spec.Turn, quality int) (spec.ArchiveBlock, error) {
	if len(turns) == 0 {
		return spec.ArchiveBlock{}, errors.New("an archive block of no turns")
	}
	js, err := spec.MarshalCanonical(turns)
	if err != nil {
		return spec.ArchiveBlock{}, err
	}
	return spec.ArchiveBlock{
		ID:               id,
		TurnRange:        [2]int{turns[0].Turn, turns[len(turns)-1].Turn},
		FirstTimestamp:   turns[0].Timestamp,
		LastTimestamp:    turns[len(turns)-1].Timestamp,
		TurnCount:        len(turns),
		UncompressedSize: int64(len(js)),
		ContentHash:      artifacts.Hash(string(js)),
		CompressedData:   archive.Compress(js, quality),
	}, nil
}

// blockID is the id of the n-th block (1-based).
func blockID(n int) string { return fmt.Sprintf("block-%04d", n) }

// archiveState is the deep archive being built: the closed blocks, and the
// turns of the block still open, compressed when a document is asked for.
type archiveState struct {
	closed []spec.ArchiveBlock
	open   []spec.Turn
	cache  *spec.ArchiveBlock // the open block, compressed, while no turn is added
}

func (a *archiveState) add(t spec.Turn, cfg Config) {
	a.open = append(a.open, t)
	a.cache = nil
	if len(a.open) == cfg.BlockSize {
		b, err := NewBlock(blockID(len(a.closed)+1), a.open, cfg.BlockQuality)
		if err == nil { // turns that passed checkTurn always encode
			a.closed = append(a.closed, b)
		}
		a.open = nil
	}
}

// blocks returns every block, the open one included.
func (a *archiveState) blocks(cfg Config) []spec.ArchiveBlock {
	out := append([]spec.ArchiveBlock(nil), a.closed...)
	if len(a.open) > 0 {
		if a.cache == nil {
			if b, err := NewBlock(blockID(len(a.closed)+1), a.open, cfg.BlockQuality); err == nil {
				a.cache = &b
			}
		}
		if a.cache != nil {
			out = append(out, *a.cache)
		}
	}
	return out
}
