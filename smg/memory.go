package smg

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/restore"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// Turn is one message of a conversation. The memory numbers turns: the
// Turn field of a turn given to [Memory.Ingest] is ignored.
type Turn = spec.Turn

// Config sets the numbers of the write path (block size, working-memory
// size, importance weights, decay…); see [graph.Config]. The zero value is
// the default.
type Config = graph.Config

// ErrInvalidTurn reports a turn the format cannot hold: content that is not
// UTF-8, no role and no speaker, or an unknown role.
var ErrInvalidTurn = graph.ErrInvalidTurn

// Options describe a new memory. The zero value is a memory with an id
// derived from its first turn.
type Options struct {
	ID          string
	ProjectID   string
	ProjectName string
	Description string
	Tags        []string
	Scope       *spec.Scope
	Config      Config
	// Now is the clock, used only for turns that have no timestamp; nil
	// means time.Now.
	Now func() time.Time
	// Embedder embeds every turn ingested and every question (see
	// [Embedder]); nil is the built-in sentence encoder
	// ([BuiltinEmbedder]). It must be safe for concurrent use.
	Embedder Embedder
	// NoVectors, with no Embedder, turns vectors off: the memory embeds
	// nothing, and contexts find turns by full text and the graph alone.
	NoVectors bool
	// EmbedProgress, when set, is told how far the embedding of
	// [Memory.IngestAll] and [Memory.EmbedMissing] has come: done of
	// total turns have their vectors. It is called from the goroutine
	// that called them.
	EmbedProgress func(done, total int)
	// Summarizer, when set, summarizes each archive block as it closes
	// (see [Summarizer]). It must be safe for concurrent use.
	Summarizer Summarizer
}

// Memory is a memory being built and used: turns go in, contexts and a
// document come out. It is safe for concurrent use: ingesting and reading
// are serialized.
//
// A memory opened from a file answers at once: what it replays to
// continue the memory (see [Load]) waits for the first turn ingested.
type Memory struct {
	mu  sync.Mutex
	b   *graph.Builder // nil until an opened memory takes a turn
	doc *spec.Document // the document opened, until b is made from it
	cfg Config
	now func() time.Time // nil: time.Now
	off bool             // memory is off (SetEnabled)
	// factVecs are the vectors of facts, by model and text, for the
	// duplicate test with an embedder.
	factVecs map[string][]float32

	// gen counts the changes to the memory, and engGen the change eng
	// was last brought up to.
	gen, engGen int
	eng         *restore.Engine
	// cache and key are the index cache of an opened file and what it
	// is made for ([format.IndexKey]); empty for a memory built here.
	cache, key string
	// cacheGuard puts an index cache in place while the file is still
	// the one the cache is made for (see [format.CacheGuard]).
	cacheGuard func(put func() error) error
	// cacheBeside: the file holds no vectors, so the index cache's copy
	// of the document need not either (they are in the file's cache).
	cacheBeside bool
	// readOnce is OpenOptions.ReadOnce.
	readOnce bool
	// blocks read the archive's blocks within the limits the file was
	// opened with (the defaults for a memory built here).
	blocks *graph.TurnReaderOptions
	// cached is the index cache, opened with the file, until the engine
	// takes it.
	cached *restore.Cached
	// emb embeds turns and questions; nil: none (embed.go). vw embeds
	// the turns ingested in the background (vectors.go); progress is
	// told how far IngestAll and EmbedMissing have come.
	emb Embedder
	vw  vectorWork
	// factEmb is the embedder given (not the built-in encoder's
	// default), which also tells duplicate facts (facts.go).
	factEmb  Embedder
	progress func(done, total int)
	// sum summarizes archive blocks; nil: none (summarize.go).
	sum Summarizer
	// collabs are the people who share the memory, and priv their
	// private parts, by owner (private.go).
	collabs []Collaborator
	priv    []*privatePart
	// private: m is a collaborator's private part, which has none.
	private bool
	// held indexes the turns the memory holds, for Record; nil until
	// Record needs it (record.go).
	held *heldIndex
	// stateName and stateBase are where the builder's state of the file
	// the memory was opened from is kept, and the hash of the file's
	// bytes it must be made for (journal.go); empty for a memory built
	// here or an encrypted file, and stateBase for a file with neither a
	// state nor a journal beside it.
	stateName, stateBase string
	// unkept counts the vectors made since the memory was last written
	// or opened: [FileMemory.Compact] keeps them in the file's cache.
	unkept int
}

// New returns an empty memory.
func New(opts *Options) *Memory {
	if opts == nil {
		opts = &Options{}
	}
	return &Memory{b: graph.New(opts.Config, graph.Options{
		ID: opts.ID, ProjectID: opts.ProjectID, ProjectName: opts.ProjectName,
		Description: opts.Description, Tags: opts.Tags, Scope: opts.Scope, Now: opts.Now,
	}), cfg: opts.Config, now: opts.Now, emb: defaultEmbedder(opts.Embedder, opts.NoVectors), factEmb: opts.Embedder, progress: opts.EmbedProgress,
		sum: opts.Summarizer, blocks: format.ReadBlocks(Limits{}), held: newHeldIndex()}
}

// Load continues the memory of a document: turns ingested after it are
// numbered after its turns, and the nodes they mention are reactivated.
// Before the first of them it replays the document's archived turns (see
// [graph.Load]), which costs about what ingesting them did; a document
// that cannot be replayed fails that Ingest. Until then, the memory
// answers from the document as it is. The memory keeps doc: it must not
// change.
//
// The memory embeds with the built-in sentence encoder, as [New]'s does,
// unless doc holds vectors of another model (see [OpenOptions.Embedder]);
// the turns doc holds without a vector of its model are embedded in the
// background, as an opened file's are.
func Load(doc *spec.Document, cfg *Config) (*Memory, error) {
	if doc == nil {
		return nil, errors.New("loading the memory: no document")
	}
	return load(doc, cfg, openedEmbedder(doc, nil, false)), nil
}

// load is [Load] of a document, which is set, with the embedder emb: the
// built-in encoder is not loaded for a memory that embeds nothing.
func load(doc *spec.Document, cfg *Config, emb Embedder) *Memory {
	m := &Memory{doc: doc, blocks: format.ReadBlocks(Limits{}), emb: emb}
	m.loadPrivate(doc)
	if cfg != nil {
		m.cfg = *cfg
	}
	m.embedsMissing(doc)
	return m
}

// embedsMissing has the turns doc holds without a vector embedded in the
// background, from the memory's first context, turn or wait on, when
// doc's vectors are of its embedder's model (a memory saved before its
// vectors were ready); not at once: EmbedMissing, called first, embeds
// them itself and counts them. Those of a document without vectors are
// embedded only when asked, as that may take minutes.
func (m *Memory) embedsMissing(doc *spec.Document) {
	upTo, remaking := 0, false
	if vi := doc.DeepArchive.VectorIndex; m.emb != nil && vi != nil && vi.Enabled && vi.Model == m.emb.Model() {
		upTo = doc.Metadata.TotalExchanges
		// No vector at all: a copy of the file alone, without its cache.
		remaking = len(vi.Embeddings) == 0 && upTo > 0
	}
	m.vw.mu.Lock()
	m.vw.missingUpTo, m.vw.remaking = upTo, remaking
	m.vw.mu.Unlock()
}

// OpenOptions tell how to open a memory's file. The zero value opens an
// unencrypted file with the default limits and keeps no index cache.
type OpenOptions struct {
	// Decode reads the file: its password, its limits.
	Decode DecodeOptions
	// Config sets the numbers of the write path for the turns ingested
	// after opening.
	Config Config
	// IndexCache is a directory where the full-text index of the memory
	// is kept between runs (see [format.IndexCacheDir] for the usual place),
	// with a copy of the document it was made from. When it was made for
	// the file's exact bytes, read under the same limits, Open reads the
	// memory from the copy, about three times quicker than from the
	// file, and reopens the index in about a millisecond; otherwise the
	// index is rebuilt in the background. It is never used for an
	// encrypted file: the index holds the memory's text.
	//
	// A memory kept open ([FileMemory], [StoredMemory]) writes its index
	// to the cache again each time its file, or its base, is written
	// whole, so that the next process to open it opens the index in
	// place; and one that opened the cache and takes turns (its file's
	// journal, or new ones) updates a copy of the cache's index beside
	// it, on disk, rather than indexing every turn again.
	IndexCache string
	// Embedder embeds every turn ingested and every question (see
	// [Embedder]); the file's vectors are used when they are of its
	// model. It must be safe for concurrent use. nil is the built-in
	// sentence encoder ([BuiltinEmbedder]), unless the file holds
	// vectors of another model (a provider's): then the memory embeds
	// nothing, and keeps them; give it BuiltinEmbedder to embed it again.
	//
	// When the file's vectors are of the embedder's model, the turns it
	// holds without one (a memory saved before its vectors were ready)
	// are embedded in the background, as [Memory.Ingest] embeds, from the
	// first context, turn or [Memory.WaitVectors] on; those of
	// a file without vectors are embedded only when asked
	// ([Memory.EmbedMissing]), as that may take minutes.
	Embedder Embedder
	// NoVectors, with no Embedder, turns vectors off: the memory embeds
	// nothing and contexts ignore the file's vectors.
	NoVectors bool
	// EmbedProgress is as [Options.EmbedProgress].
	EmbedProgress func(done, total int)
	// Summarizer, when set, summarizes each archive block as it closes
	// (see [Summarizer]); [Memory.SummarizeBlocks] summarizes the blocks
	// the file has. It must be safe for concurrent use.
	Summarizer Summarizer
	// ReadOnce says that the memory answers a question or two and is
	// closed, as a command does: indexing the file's turns keeps none of
	// the archive's blocks it decodes, only those the answers read. A
	// memory kept open answers quicker for holding them all (on 38,912
	// turns, warm contexts p50 15 ms against 20), one read once takes
	// less memory (there, 560 MB against 740 without the index cache).
	ReadOnce bool
}

// Open reads the named file and continues its memory, as [Load] does.
// opts may be nil.
func Open(name string, opts *OpenOptions) (*Memory, error) {
	if opts == nil {
		opts = &OpenOptions{}
	}
	raw, err := format.ReadBytes(name, opts.Decode.Limits)
	if err != nil {
		return nil, err
	}
	m, form, err := openBytes(name, raw, opts, true)
	if err != nil || form.Encrypted {
		return m, err
	}
	if !format.HasJournal(name) {
		return m, nil
	}
	// The changes kept in the file's journal since it was written whole.
	entries, _, err := format.ReadJournal(name, m.stateBase, 0)
	if err == nil {
		err = m.replay(context.Background(), format.JournalName(name), entries)
	}
	if err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// openBytes is [Open] of the named file's bytes, raw; it tells the form
// they came in. Bytes of no file (file false: a stored memory's base, name
// naming it in errors) have no builder's state nor journal beside them,
// and their index cache is put in place with no file to check it against.
func openBytes(name string, raw []byte, opts *OpenOptions, file bool) (*Memory, format.Form, error) {
	var key string
	var doc *spec.Document
	var cached *restore.Cached
	if opts.IndexCache != "" {
		// The cache keeps the document it was made from: read instead of
		// the file when it was made from these bytes under these limits.
		key = format.IndexKey(raw, opts.Decode.Limits)
		if c, ok := restore.OpenCached(opts.IndexCache, key); ok {
			cached, doc = c, c.Document()
		}
	}
	var form format.Form
	if doc == nil {
		d, f, err := format.DecodeForm(raw, &opts.Decode)
		if err != nil {
			return nil, form, fmt.Errorf("%s: %w", name, err)
		}
		doc, form = d, f
	} else {
		// Never encrypted: the cache is not kept for an encrypted file.
		form = format.FormOf(raw)
	}
	vi := doc.DeepArchive.VectorIndex
	beside := vi == nil || len(vi.Embeddings) == 0 // the file holds none
	if !form.Encrypted && !opts.NoVectors {
		// The vectors the file's cache keeps for these bytes, when the
		// file holds none: those it lacks are made in the background.
		format.AdoptVectors(name, raw, doc, opts.Decode.Limits)
	}
	m := load(doc, &opts.Config, openedEmbedder(doc, opts.Embedder, opts.NoVectors))
	m.sum = opts.Summarizer
	m.progress, m.factEmb, m.readOnce = opts.EmbedProgress, opts.Embedder, opts.ReadOnce
	m.blocks = format.ReadBlocks(opts.Decode.Limits)
	if key != "" && !form.Encrypted {
		m.cache, m.key, m.cached, m.cacheBeside = opts.IndexCache, key, cached, beside
		if file {
			m.cacheGuard = format.CacheGuard(name, key, opts.Decode.Limits)
		}
	}
	if !file {
		return m, form, nil
	}
	if !form.Encrypted {
		// The file's hash names its builder's state and its journal:
		// taken only when there is either, not at every open.
		m.stateName = format.StateName(name)
		if _, err := os.Stat(m.stateName); err == nil || format.HasJournal(name) {
			m.stateBase = format.FileHash(raw)
		}
	}
	return m, form, nil
}

// builder returns the memory's builder, replaying the opened document the
// first time. m.mu is held.
func (m *Memory) builder() (*graph.Builder, error) {
	if m.b == nil {
		b := m.resume()
		if b == nil {
			var err error
			if b, err = graph.Load(m.doc, m.cfg, m.blocks); err != nil {
				return nil, fmt.Errorf("loading the memory: %w", err)
			}
		}
		m.b, m.doc = b, nil
	}
	return m.b, nil
}

// Ingest adds one turn to the memory. A memory that is off (see
// [Memory.SetEnabled]) stores nothing.
//
// Unless vectors are off, the turn is then embedded in the background:
// Ingest returns once the turn is in. One goroutine a memory embeds the
// turns in order, many at a time when they queue up, and stops when none
// is left. A context asked meanwhile finds the turns not embedded yet by
// full text only, and says so in its warnings ([Memory.PendingVectors]);
// [Memory.WaitVectors] waits for them, and returns the embeddings that
// failed (the turns stay without vectors; [Memory.EmbedMissing] tries
// again). Saving writes the vectors there are: a memory opened from the
// file embeds the rest in the background.
//
// With a [Summarizer], a turn that closes an archive block has the block
// summarized, after the turn is in; a summary that fails leaves the
// block's extractive one, and Ingest returns an error that matches
// ErrSummarizing ([Memory.SummarizeBlocks] tries again).
func (m *Memory) Ingest(ctx context.Context, t Turn) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	first, _, sealed, err := m.add(ctx, []Turn{t}, false)
	if err != nil || first == 0 {
		return err
	}
	if m.emb != nil {
		m.enqueue(pendingTurn{first, t.Content})
	}
	return m.summarizeSealed(ctx, sealed)
}

// IngestDeferred adds one turn as [Memory.Ingest] does, but leaves its
// embedding to [Memory.EmbedMissing], whatever the memory's [Embedder]. A
// program that adds many turns one at a time (an import that reports its
// progress, or skips the turns that fail) calls it for each and
// EmbedMissing once at the end: a few requests to the embedder instead of
// one a turn, and, when the embedder is down, one failure instead of one
// a turn. Until then the turn has no vector, and contexts find it by full
// text only.
func (m *Memory) IngestDeferred(ctx context.Context, t Turn) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	first, _, sealed, err := m.add(ctx, []Turn{t}, false)
	if err != nil || first == 0 {
		return err
	}
	return m.summarizeSealed(ctx, sealed)
}

// IngestAll adds turns in order. It stops at the first turn that fails, or
// when ctx is done, and returns how many it added. Ingesting turns one at a
// time, or in several calls, gives the same memory. A memory that is off
// stores nothing, and says it took them all.
//
// Unless vectors are off, it then embeds the turns it added before it
// returns, many at a time (the built-in encoder on every core), telling
// EmbedProgress how far it has come ([Options]); an embedding that fails
// leaves its turns without vectors and is returned, matching ErrEmbedding
// ([Memory.EmbedMissing] tries again), and the count is still that of the
// turns added. With a [Summarizer], it then summarizes the archive blocks the
// turns closed, as [Memory.Ingest] does.
func (m *Memory) IngestAll(ctx context.Context, turns []Turn) (int, error) {
	first, n, sealed, err := m.add(ctx, turns, true)
	if n > 0 && first > 0 && m.emb != nil {
		nums, texts := make([]int, n), make([]string, n)
		for i := range n {
			nums[i], texts[i] = first+i, turns[i].Content
		}
		if _, eerr := m.embedTurns(ctx, nums, texts, m.progress, false); eerr != nil {
			err = errors.Join(err, eerr)
		}
	}
	if n > 0 && first > 0 {
		err = errors.Join(err, m.summarizeSealed(ctx, sealed))
	}
	return n, err
}

// add adds turns in order, and returns the number of the first, how many
// it added, and how many archive blocks were closed before them. It stops
// at the first turn that fails, with its error (which names the turn's
// place in turns if numbered), or when ctx is done, with ctx's.
func (m *Memory) add(ctx context.Context, turns []Turn, numbered bool) (first, added, sealed int, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.off {
		return 0, len(turns), 0, ctx.Err() // first 0: nothing stored
	}
	b, err := m.builder()
	if err != nil {
		return 0, 0, 0, err
	}
	first, sealed = b.Turns()+1, b.Sealed()
	for i, t := range turns {
		if err := ctx.Err(); err != nil {
			return first, i, sealed, err
		}
		m.gen++
		t.SameIDAs = 0 // the memory's to set (Record)
		if err := b.Add(t); err != nil {
			if numbered {
				err = fmt.Errorf("turn %d: %w", i+1, err)
			}
			return first, i, sealed, err
		}
		if m.held != nil {
			m.held.add(keyOf(t), b.Turns())
		}
	}
	return first, len(turns), sealed, nil
}

// Turns is the number of turns the memory has taken in.
func (m *Memory) Turns() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.b == nil {
		return lastTurn(m.doc)
	}
	return m.b.Turns()
}

// lastTurn is the number of the last turn a document's archive holds.
func lastTurn(doc *spec.Document) int {
	n := 0
	for _, b := range doc.DeepArchive.Blocks {
		n = max(n, b.TurnRange[1])
	}
	return n
}

// ReadTurns returns up to limit turns from number from on, in order, with
// their whole text, and how many turns the memory holds; a turn removed by
// maintenance is left out. It reads the archive alone: a page of a large
// memory's turns costs the blocks it reads, not a copy of the memory.
func (m *Memory) ReadTurns(from, limit int) ([]spec.Turn, int, error) {
	m.mu.Lock()
	var doc *spec.Document
	var total int
	if m.b == nil {
		doc, total = m.doc, lastTurn(m.doc) // never changed while m.b is nil
	} else {
		doc, total = m.b.ArchiveDocument(), m.b.Turns()
	}
	m.mu.Unlock()
	r := graph.NewTurnReader(doc, m.blocks)
	turns := []spec.Turn{}
	for n := max(from, 1); n < from+limit && n <= total; n++ {
		i, ok := r.Find(n)
		if !ok {
			continue
		}
		block, err := r.Block(i)
		if err != nil {
			return nil, total, err
		}
		turns = append(turns, block[n-doc.DeepArchive.Blocks[i].TurnRange[0]])
	}
	return turns, total, nil
}

// Document returns the memory as a document, as of its last turn. The
// document is the caller's: the memory keeps no reference to it. Its
// archive blocks may be in either form of spec §8.2 (the closed ones as
// the memory keeps them, compressed); a writer puts them in the clear.
//
// A private part sealed with its owner's password (see [Memory.Private])
// is sealed again when it changed; should that fail, the document holds
// the part as it was last sealed, and [Memory.Marshal] and [Memory.Save]
// return the error.
func (m *Memory) Document() *spec.Document {
	doc, _, _ := m.document(false)
	return doc
}

// ReadDocument calls fn with the memory's document as it is, shared
// rather than copied as [Memory.Document] copies it (without the private
// parts): a view of a large memory reads it in milliseconds rather than
// copying it in hundreds. The memory is locked while fn runs: fn must
// neither change the document nor keep any of it, and must not call the
// memory's methods.
func (m *Memory) ReadDocument(fn func(doc *spec.Document)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.b == nil {
		fn(m.doc)
		return
	}
	fn(m.b.SharedDocument())
}

// document is [Memory.Document] and the error of sealing a private part.
// A shared document's archive blocks are the memory's own, for a writer
// that reads them and does not change them (see
// [graph.Builder.SharedDocument]).
func (m *Memory) document(shared bool) (*spec.Document, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var doc *spec.Document
	switch {
	case m.b == nil:
		doc = format.Clone(m.doc)
	case shared:
		doc = m.b.SharedDocument()
	default:
		doc = m.b.Document()
	}
	if m.emb != nil && doc.DeepArchive.VectorIndex == nil && m.PendingVectors() > 0 {
		// No turn embedded yet: the index says which model the memory
		// keeps vectors of, so that it is opened again embedding them.
		doc.DeepArchive.VectorIndex = &spec.VectorIndex{Enabled: true, Model: m.emb.Model()}
	}
	return doc, m.unkept, m.withPrivate(doc)
}

// Marshal returns the memory's file: its document in canonical form,
// encoded with opts, once (without metadata.compressionRatio, spec §4.2),
// without its vectors unless opts ask for them ([EncodeOptions.WithVectors]).
func (m *Memory) Marshal(opts *EncodeOptions) ([]byte, error) {
	doc, _, err := m.document(true)
	if err != nil {
		return nil, err
	}
	doc.Metadata.CompressionRatio = 0
	return format.MarshalClear(format.WithoutVectors(doc, opts), opts)
}

// WriteTo writes the memory's file, Brotli-compressed, to w.
func (m *Memory) WriteTo(w io.Writer) (int64, error) {
	b, err := m.Marshal(nil)
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

// Save writes the memory's file atomically (see [format.WriteFile]), taking no
// lock: [FileMemory] keeps a memory in a file that other processes write
// too. Unless opts ask for them in the file ([EncodeOptions.WithVectors]),
// the memory's vectors are kept in the file's cache ([format.KeepVectors]).
func (m *Memory) Save(name string, opts *EncodeOptions) error {
	b, doc, _, err := m.marshalValid(opts)
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return format.WriteMemoryBytes(name, b, doc.DeepArchive.VectorIndex, opts)
}

// marshalValid is [Memory.Marshal] of a memory that passes the checks a
// writer makes (see [format.MarshalMemory]), with the document written,
// vectors and all (its vector index is for its file's cache), and how
// many vectors made since the last write it holds.
func (m *Memory) marshalValid(opts *EncodeOptions) ([]byte, *spec.Document, int, error) {
	doc, unkept, err := m.document(true)
	if err != nil {
		return nil, nil, 0, err
	}
	b, err := format.MarshalMemory(doc, opts)
	return b, doc, unkept, err
}
