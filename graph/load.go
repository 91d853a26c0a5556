package graph

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/artifacts"
	"github.com/smg-memory/smg/spec"
)

// maxBlock bounds one archive block's decompressed data unless a reader's
// options say otherwise: the default limit of spec §9.4.
const maxBlock = 64 << 20

// Load returns a builder that continues a saved memory. It replays the
// archived turns, so that what the builder keeps between turns (the names
// that wait to be confirmed, what only the assistant has named so far, the
// options weighed lately) is what it would be had it never stopped, and the memory
// it gives after more turns is the one it would give had it ingested every
// turn in one go. On top of the replay it keeps what the document holds
// beyond its turns: its metadata, pinned nodes, nodes and edges that no
// turn made (facts saved directly, say), the block summaries a model
// wrote, and the members this version does not know (spec §9.3). The
// document's block size and snapshot interval override cfg's.
func Load(doc *spec.Document, cfg Config, blocks *TurnReaderOptions) (*Builder, error) {
	if doc.DeepArchive.BlockSize > 0 {
		cfg.BlockSize = doc.DeepArchive.BlockSize
	}
	if doc.ArtifactVault.SnapshotInterval > 0 {
		cfg.SnapshotInterval = doc.ArtifactVault.SnapshotInterval
	}
	b := newBuilder(cfg)
	b.meta = doc.Metadata
	b.meta.Modified = time.Time{}
	b.meta.Tags = slices.Clone(doc.Metadata.Tags)
	err := EachTurn(doc, blocks, func(t spec.Turn) error {
		if err := b.Add(t); err != nil {
			return fmt.Errorf("turn %d: %w", t.Turn, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if doc.Metadata.Modified.After(b.meta.Modified) {
		b.meta.Modified = doc.Metadata.Modified
	}
	b.meta.Created = doc.Metadata.Created
	b.replayMaintenance(doc)
	b.overlay(doc)
	return b, nil
}

// overlay makes the replayed graph the document's: the document wins.
// What it holds beyond its turns is kept (nodes and edges no turn made,
// facts saved directly, pins, edits), and what the replay made that the
// document does not hold was removed after the turns (a fact forgotten,
// an edge dropped) and stays removed. An edge weaker than the writer
// keeps is not in any document, so the replay's weak edges stay. A closed
// block keeps the document's summary when a model wrote it (spec §8.2.2);
// its keyPoints are the replay's, as the builder always writes them.
func (b *Builder) overlay(doc *spec.Document) {
	inDoc := make(map[string]bool, len(doc.SemanticGraph.Nodes))
	for i := range doc.SemanticGraph.Nodes {
		dn := doc.SemanticGraph.Nodes[i]
		inDoc[dn.ID] = true
		n := b.store.Node(dn.ID)
		if n == nil {
			n = &spec.Node{ID: dn.ID}
			b.store.Put(n)
			info := &nodeInfo{}
			if k, ok := dn.Metadata["kind"].(string); ok {
				info.kind = k
			}
			b.info[dn.ID] = info
		}
		*n = dn
		n.Aliases = slices.Clone(dn.Aliases)
		n.Mentions = slices.Clone(dn.Mentions)
		n.Alternatives = slices.Clone(dn.Alternatives)
		n.PreviousSummaries = slices.Clone(dn.PreviousSummaries)
		n.Metadata = cloneMap(dn.Metadata)
		if n.Type == spec.NodeFact {
			b.info[dn.ID].statement, b.info[dn.ID].topic = nil, nil
			if p := predicateKey(n.Scope, n.Label, ""); p != "" && !slices.Contains(b.factPreds[p], n.ID) {
				b.factPreds[p] = append(b.factPreds[p], n.ID)
			}
		}
	}
	for _, id := range b.store.IDs() {
		if !inDoc[id] && b.store.Node(id).Type != spec.NodeArtifact {
			b.remove(id)
		}
	}
	type edgeKey struct {
		from, to string
		rel      spec.Relation
	}
	docEdges := make(map[edgeKey]bool, len(doc.SemanticGraph.Edges))
	for _, e := range doc.SemanticGraph.Edges {
		docEdges[edgeKey{e.From, e.To, e.Relation}] = true
		if s, ok := b.store.Strength(e.From, e.To, e.Relation); !ok || math.Abs(s-e.Strength) > 1e-4 {
			b.store.Unlink(e.From, e.To, e.Relation) // the document's strength, higher or lower
			b.store.Link(e.From, e.To, e.Relation, e.Strength)
		}
	}
	for _, e := range b.store.Edges() {
		if e.Strength >= b.cfg.MinEdgeStrength && !docEdges[edgeKey{e.From, e.To, e.Relation}] {
			b.store.Unlink(e.From, e.To, e.Relation)
		}
	}
	b.KeepModelSummaries(doc.DeepArchive.Blocks)
	for id, a := range doc.ArtifactVault.Artifacts {
		if b.vault.arts[id] == nil {
			st := &artState{art: a}
			if n := len(a.Versions); n > 0 {
				st.lastTurn = a.Versions[n-1].Turn
			}
			b.vault.arts[id] = st
		}
	}
	b.extra = extras{
		doc:         bytes.Clone(doc.Extra),
		wm:          bytes.Clone(doc.WorkingMemory.Extra),
		graph:       bytes.Clone(doc.SemanticGraph.Extra),
		vault:       bytes.Clone(doc.ArtifactVault.Extra),
		archive:     bytes.Clone(doc.DeepArchive.Extra),
		vectorIndex: doc.DeepArchive.VectorIndex,
	}
}

// EachTurn calls fn with every archived turn of doc, in order, with its
// whole content (spec §8.2.1), and stops at the first error. Blocks are
// read as opts say (nil: [TurnReaderOptions] zero). A block that does not
// decode, turns out of sequence and references that do not resolve are
// errors; fn's error is returned as it is.
func EachTurn(doc *spec.Document, opts *TurnReaderOptions, fn func(spec.Turn) error) error {
	r := NewTurnReader(doc, opts.Uncached())
	next := 1
	for i := range r.Len() {
		turns, err := r.Block(i)
		if err != nil {
			return err
		}
		for _, t := range turns {
			if t.Turn != next {
				return fmt.Errorf("archive block %d: turn %d where %d is due", i, t.Turn, next)
			}
			next++
			if err := fn(t); err != nil {
				return err
			}
		}
	}
	return nil
}

// TurnReaderOptions say how a reader of the archive reads a block.
type TurnReaderOptions struct {
	// CacheSize is how many decoded blocks the reader keeps: 0 is
	// [archive.DefaultCacheSize], a negative number keeps none.
	CacheSize int
	// MaxBlockSize bounds a block's decompressed data; 0 is 64 MiB, the
	// default limit of a reader (spec §9.4).
	MaxBlockSize int64
	// Decode decodes the decompressed data of a block, checked against
	// its hash, into its turns. Package smg/format's decoder applies a
	// reader's limits on JSON text (nesting, strings, lists) as it does;
	// nil is plain JSON decoding, for documents already checked.
	Decode func(raw []byte) ([]spec.Turn, error)
}

// Uncached is o with no cache of decoded blocks, for a reader that reads
// each block once or keeps them itself; o may be nil.
func (o *TurnReaderOptions) Uncached() *TurnReaderOptions {
	u := TurnReaderOptions{}
	if o != nil {
		u = *o
	}
	u.CacheSize = -1
	return &u
}

// NewTurnReader returns the reader of the archive of doc: every path that
// reads archived turns reads them with it. It decodes a block into its
// turns, with their whole content (spec §8.2.1), when one of them is asked
// for: the block is decompressed within opts.MaxBlockSize, checked against
// its contentHash, decoded by opts.Decode, and its turns checked to be
// numbered as its range says, with the references they hold to the
// artifact vault put back in place. A block that fails is an
// [*archive.BlockError]; the others stay readable. opts may be nil. The
// document must not change while the reader is in use.
func NewTurnReader(doc *spec.Document, opts *TurnReaderOptions) *archive.Reader[[]spec.Turn] {
	var o TurnReaderOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxBlockSize <= 0 {
		o.MaxBlockSize = maxBlock
	}
	if o.Decode == nil {
		o.Decode = func(raw []byte) ([]spec.Turn, error) {
			var turns []spec.Turn
			return turns, json.Unmarshal(raw, &turns)
		}
	}
	list := doc.DeepArchive.Blocks
	blocks := make([]archive.Block, len(list))
	for i, b := range list {
		data, plain := b.Data()
		if plain {
			data = compactTurns(data)
		}
		blocks[i] = archive.Block{First: b.TurnRange[0], Last: b.TurnRange[1], Data: data, Size: b.UncompressedSize, Plain: plain}
	}
	content := VaultContent(&doc.ArtifactVault)
	decode := func(i int, raw []byte) ([]spec.Turn, error) {
		raw, err := canonicalData(list[i], raw)
		if err != nil {
			return nil, err
		}
		turns, err := o.Decode(raw)
		if err != nil {
			return nil, err
		}
		return turns, completeTurns(list[i], turns, content)
	}
	return archive.NewReader(blocks, o.MaxBlockSize, decode, &archive.ReaderOptions{CacheSize: o.CacheSize})
}

// BlockData returns the data of an archive block: its turns' JSON in
// compact form, decompressed within maxSize bytes when the block is of
// version 1.0's compressed form (spec §8.2). It is not checked against
// the block's hash: see [NewTurnReader].
func BlockData(b spec.ArchiveBlock, maxSize int64) ([]byte, error) {
	data, plain := b.Data()
	if !plain {
		return archive.Decompress(data, maxSize)
	}
	if int64(len(data)) > maxSize {
		return nil, fmt.Errorf("%w (%d bytes)", archive.ErrTooLarge, maxSize)
	}
	data = compactTurns(data)
	if c, err := canonicalData(b, data); err == nil {
		return c, nil
	}
	return data, nil
}

// canonicalData returns the data of block b, raw, checked against its
// hash. Turns in the clear that a tool wrote in another JSON form than
// the canonical one (escapes, numbers), whose canonical form has the
// hash, are taken in that form.
func canonicalData(b spec.ArchiveBlock, raw []byte) ([]byte, error) {
	err := checkBlockData(b, raw)
	if err == nil || b.Turns == nil || b.ContentHash == "" {
		return raw, err
	}
	c := jsontext.Value(bytes.Clone(raw))
	if c.Canonicalize() != nil || checkBlockData(b, c) != nil {
		return raw, err
	}
	return c, nil
}

// compactTurns is the compact form of a block's turns as a file stores
// them: the same bytes for a compact file, without the white space of an
// indented one (§9.2), which the block's hash is not of. What is not JSON
// is left for the decoder to refuse.
func compactTurns(data []byte) []byte {
	// A string of JSON holds no line feed: one is white space, which
	// only an indented file has.
	if bytes.IndexByte(data, '\n') < 0 {
		return data
	}
	v := jsontext.Value(bytes.Clone(data))
	if err := v.Compact(); err != nil {
		return data
	}
	return v
}

// checkBlockData checks the decompressed data of an archive block against
// the block's uncompressedSize and contentHash (which a reader of a file
// of version 1.3 or later computes: the size is then what is checked).
func checkBlockData(b spec.ArchiveBlock, raw []byte) error {
	if int64(len(raw)) != b.UncompressedSize {
		return fmt.Errorf("the block's turns take %d bytes, its uncompressedSize says %d", len(raw), b.UncompressedSize)
	}
	if artifacts.HashBytes(raw) != b.ContentHash {
		if b.Turns != nil {
			return errors.New("the turns do not match the block's contentHash")
		}
		return errors.New("the decompressed data does not match the block's contentHash")
	}
	return nil
}

// completeTurns checks that turns, decoded from block b, are numbered as
// b's range says, and puts back in place the content they hold as
// references to the vault, which content reads (spec §8.2.1).
func completeTurns(b spec.ArchiveBlock, turns []spec.Turn, content func(id string, version int) (string, error)) error {
	first, last := b.TurnRange[0], b.TurnRange[1]
	if len(turns) != last-first+1 {
		return fmt.Errorf("it holds %d turns, but its range [%d, %d] says %d", len(turns), first, last, last-first+1)
	}
	for j, t := range turns {
		if t.Turn != first+j {
			return fmt.Errorf("its turn at index %d is numbered %d, not %d", j, t.Turn, first+j)
		}
		if len(t.ContentRefs) == 0 {
			continue
		}
		whole, err := t.Expand(content)
		if err != nil {
			return fmt.Errorf("turn %d: %w", t.Turn, err)
		}
		turns[j] = whole
	}
	return nil
}
