package graph

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/artifacts"
	"github.com/smg-memory/smg/spec"
)

// NewBlock builds the archive block of consecutive turns (spec §8.2) as
// version 1.1 writes it: their canonical JSON itself, with its size and
// hash. The turns are stored as they are given, references and all.
func NewBlock(id string, turns []spec.Turn) (spec.ArchiveBlock, error) {
	b, js, err := blockOf(id, turns)
	b.Turns = js
	return b, err
}

// NewCompressedBlock builds the block as NewBlock does, in the form of
// version 1.0: the canonical JSON Brotli-compressed at quality.
func NewCompressedBlock(id string, turns []spec.Turn, quality int) (spec.ArchiveBlock, error) {
	b, js, err := blockOf(id, turns)
	if err == nil {
		b.CompressedData = archive.Compress(js, quality)
	}
	return b, err
}

// blockOf is the block of turns but its data, and the data.
func blockOf(id string, turns []spec.Turn) (spec.ArchiveBlock, []byte, error) {
	if len(turns) == 0 {
		return spec.ArchiveBlock{}, nil, errors.New("an archive block of no turns")
	}
	js, err := spec.MarshalCanonical(turns)
	if err != nil {
		return spec.ArchiveBlock{}, nil, err
	}
	return spec.ArchiveBlock{
		ID:               id,
		TurnRange:        [2]int{turns[0].Turn, turns[len(turns)-1].Turn},
		FirstTimestamp:   turns[0].Timestamp,
		LastTimestamp:    turns[len(turns)-1].Timestamp,
		TurnCount:        len(turns),
		UncompressedSize: int64(len(js)),
		ContentHash:      artifacts.HashBytes(js),
	}, js, nil
}

// PlainBlocks puts every block of doc in the form version 1.1 writes (see
// [PlainBlock]), as a writer does before it encodes doc. A block that
// does not decompress is left as it is, for validation to report.
func PlainBlocks(doc *spec.Document) {
	for i, b := range doc.DeepArchive.Blocks {
		if b.Turns == nil {
			if p, err := PlainBlock(b); err == nil {
				doc.DeepArchive.Blocks[i] = p
			}
		}
	}
}

// PlainBlock is b in the form version 1.1 writes: its turns' JSON itself
// (a block of version 1.0 is decompressed), sharing nothing with b.
func PlainBlock(b spec.ArchiveBlock) (spec.ArchiveBlock, error) {
	if b.Turns != nil {
		b.Turns = slices.Clone(b.Turns)
		b.KeyPoints = slices.Clone(b.KeyPoints)
		return b, nil
	}
	raw, err := archive.Decompress(b.CompressedData, max(b.UncompressedSize, 1))
	if err != nil {
		return b, err
	}
	b.Turns, b.CompressedData = raw, nil
	b.KeyPoints = slices.Clone(b.KeyPoints)
	return b, nil
}

// blockID is the id of the n-th block (1-based).
func blockID(n int) string { return fmt.Sprintf("block-%04d", n) }

// archiveState is the deep archive being built: the closed blocks, and the
// turns of the block still open, compressed when a document is asked for.
type archiveState struct {
	closed []spec.ArchiveBlock
	open   []spec.Turn
	notes  []note             // what the open block's summary may say
	cache  *spec.ArchiveBlock // the open block, compressed, while no turn is added
}

// note is a sentence of a turn that a block's summary may quote, and how
// much it carries: a decision more than a fact, a fact more than a name.
type note struct {
	turn   int
	text   string
	weight int
}

// The weights of notes.
const (
	noteName     = 1
	noteFact     = 2
	noteGoal     = 2
	noteProblem  = 3
	noteSolution = 3
	noteDecision = 4
)

func (a *archiveState) add(t spec.Turn, cfg Config) {
	a.open = append(a.open, t)
	a.cache = nil
	if len(a.open) == cfg.BlockSize {
		if b, err := a.block(len(a.closed)+1, cfg); err == nil { // turns that passed CheckTurn always encode
			a.closed = append(a.closed, b)
		}
		a.open, a.notes = nil, nil
	}
}

// note records a sentence of the open block for its summary.
func (a *archiveState) note(turn int, text string, weight int) {
	if text = strings.TrimSpace(text); text != "" {
		a.notes = append(a.notes, note{turn, strings.Clone(text), weight})
	}
}

// block is the open block, closed as block n: kept compressed in memory
// (the builder's closed blocks take a fifth of the room so), and given in
// the clear in documents ([archiveState.blocks]).
func (a *archiveState) block(n int, cfg Config) (spec.ArchiveBlock, error) {
	b, err := NewCompressedBlock(blockID(n), a.open, cfg.BlockQuality)
	b.Summary = summary(a.notes, cfg.SummaryBytes)
	return b, err
}

// blocks returns every block, the open one included, sharing nothing with
// the archive but, unless copyData, the closed blocks' data (compressed or not),
// which the archive never changes: a caller may change the rest.
func (a *archiveState) blocks(cfg Config, copyData bool) []spec.ArchiveBlock {
	out := make([]spec.ArchiveBlock, 0, len(a.closed)+1)
	for _, b := range a.closed {
		// In the form the builder keeps them: compressed as it closes
		// them, and as a document held them for a builder resumed from
		// it ([Resume]). A document is asked for at every context after
		// a turn, and decompressing every block each time would cost
		// that context tens of milliseconds. A writer puts them in the
		// clear ([PlainBlocks]).
		if copyData {
			b.CompressedData, b.Turns = slices.Clone(b.CompressedData), slices.Clone(b.Turns)
		} else {
			b.CompressedData = b.CompressedData[:len(b.CompressedData):len(b.CompressedData)]
			b.Turns = b.Turns[:len(b.Turns):len(b.Turns)]
		}
		b.KeyPoints = slices.Clone(b.KeyPoints)
		out = append(out, b)
	}
	if len(a.open) > 0 {
		if a.cache == nil {
			if b, err := NewBlock(blockID(len(a.closed)+1), a.open); err == nil {
				b.Summary = summary(a.notes, cfg.SummaryBytes)
				a.cache = &b
			}
		}
		if a.cache != nil {
			b := *a.cache
			b.Turns = slices.Clone(b.Turns)
			out = append(out, b)
		}
	}
	return out
}

// ArchiveDocument returns a document of the archive's blocks and the
// artifact vault its turns refer to, as [Builder.SharedDocument] gives
// them, and nothing else: for reading turns ([NewTurnReader]), where
// making the graph's document would be most of the time.
func (b *Builder) ArchiveDocument() *spec.Document {
	doc := spec.New(b.meta.ID, b.meta.Created)
	for id, st := range b.vault.arts {
		a := st.art
		a.Versions = slices.Clone(a.Versions)
		doc.ArtifactVault.Artifacts[id] = a
	}
	doc.DeepArchive.Blocks = b.arch.blocks(b.cfg, false)
	return doc
}

// ErrInvalidSummary reports a block summary the builder cannot keep: for
// a block that is not closed, empty, not UTF-8, or without the name of
// its model.
var ErrInvalidSummary = errors.New("invalid block summary")

// Sealed is the number of closed blocks of the archive: the first Sealed
// blocks of [Builder.Document], each of BlockSize turns, whose turns
// never change.
func (b *Builder) Sealed() int { return len(b.arch.closed) }

// SetBlockSummary makes text, written by model, the summary of the closed
// block with the given id, in place of the extractive one (spec §8.2.2),
// with its summaryModel. The block's keyPoints stay the builder's. The
// summary is kept through [Load] while the block's turns are the same.
func (b *Builder) SetBlockSummary(id, text, model string) error {
	text = strings.TrimSpace(text)
	switch {
	case text == "" || !utf8.ValidString(text):
		return fmt.Errorf("%w: block %s: the summary is empty or not UTF-8", ErrInvalidSummary, id)
	case strings.TrimSpace(model) == "" || !utf8.ValidString(model):
		return fmt.Errorf("%w: block %s: no model named", ErrInvalidSummary, id)
	}
	for i := range b.arch.closed {
		if c := &b.arch.closed[i]; c.ID == id {
			c.Summary, c.SummaryModel = text, model
			return nil
		}
	}
	return fmt.Errorf("%w: block %s is not a closed block of the archive", ErrInvalidSummary, id)
}

// KeepModelSummaries gives each closed block the summary of the block of
// blocks with its id and contentHash, when a model wrote that summary, and
// returns how many closed blocks took one. Where blocks hold the same block
// twice (two memories of one conversation), the first wins. The contentHash
// covers the turns and their numbers, so a summary never goes to other
// turns. An extractive summary is the builder's to write again.
func (b *Builder) KeepModelSummaries(blocks []spec.ArchiveBlock) int {
	type key struct{ id, hash string }
	summarized := make(map[key]*spec.ArchiveBlock, len(blocks))
	for i := range blocks {
		d := &blocks[i]
		k := key{d.ID, d.ContentHash}
		if _, dup := summarized[k]; !dup && d.SummaryModel != "" && d.Summary != "" {
			summarized[k] = d
		}
	}
	kept := 0
	for i := range b.arch.closed {
		c := &b.arch.closed[i]
		if d := summarized[key{c.ID, c.ContentHash}]; d != nil {
			c.Summary, c.SummaryModel = d.Summary, d.SummaryModel
			kept++
		}
	}
	return kept
}

// summary is the extractive summary of a block: the sentences that carry
// most (decisions first, then problems and solutions, facts and goals,
// then sentences that name things), each once, as many as fit in limit
// bytes, in the order of the conversation. A sentence longer than a third
// of the limit is left out: one long paragraph would crowd out the rest.
func summary(notes []note, limit int) string {
	byText := map[string]int{}
	var cands []note
	for _, n := range notes {
		if len(n.text) > limit/3 {
			continue
		}
		if i, ok := byText[n.text]; ok {
			cands[i].weight = max(cands[i].weight, n.weight)
			continue
		}
		byText[n.text] = len(cands)
		cands = append(cands, n)
	}
	slices.SortStableFunc(cands, func(x, y note) int { return cmp.Compare(y.weight, x.weight) })
	var chosen []note
	size := 0
	for _, c := range cands {
		if size+len(c.text)+1 > limit {
			continue
		}
		chosen = append(chosen, c)
		size += len(c.text) + 1
	}
	slices.SortStableFunc(chosen, func(x, y note) int { return cmp.Compare(x.turn, y.turn) })
	var sb strings.Builder
	for i, c := range chosen {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(c.text)
	}
	return sb.String()
}
