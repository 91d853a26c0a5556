package smg

import (
	"context"
	"errors"
	"fmt"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/restore"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// ContextOptions shape a context: its token budget, the tokenizer that
// counts it, the share of each section, and whether to wait for the whole
// index (see [restore.Options]). The zero value is a context of
// restore.DefaultBudget tokens, counted by the estimator.
type ContextOptions = restore.Options

// ContextResult is a context, its size and the provenance of everything
// in it (see [restore.Result]).
type ContextResult = restore.Result

// Found is one thing a search or a context found, and why (see
// [restore.Item]).
type Found = restore.Item

// Supersession says what replaced something a context includes (see
// [restore.Supersession] and Found.SupersededBy).
type Supersession = restore.Supersession

// FileVersion is a version of a file that a change made (see
// [restore.FileVersion], Found.Files).
type FileVersion = restore.FileVersion

// ErrIndexCache reports an index cache that could not be written (see
// [OpenOptions.IndexCache]): the index is complete, only the next open
// will index again.
var ErrIndexCache = restore.ErrIndexCache

// Context assembles what a model needs to answer query from the memory,
// inside the budget of opts (nil is the zero ContextOptions): working
// memory and the facts always loaded, what full-text search finds, the
// graph around it, the artifacts of the nodes chosen and the turns they
// came from. The result says what went in and why.
//
// The first call builds the memory's index. A memory built here indexes
// everything before it answers; one opened from a file with an index
// cache reopens the cache, and otherwise indexes its nodes at once and
// its turns in the background: until they are indexed, a context is
// built from the rest and says so (Partial), unless opts.Wait. After
// turns are ingested, the next call indexes only what changed: there is
// no save and load between a turn and the next question.
//
// A memory that is off (see [Memory.SetEnabled]) gives an empty context.
func (m *Memory) Context(ctx context.Context, query string, opts *ContextOptions) (*ContextResult, error) {
	if !m.Enabled() {
		return restore.Empty(opts), ctx.Err()
	}
	m.vw.mu.Lock()
	m.startWorker() // the turns an opened file lacks vectors for
	m.vw.mu.Unlock()
	e, err := m.engine()
	if err != nil {
		return nil, err
	}
	var o ContextOptions
	if opts != nil {
		o = *opts
	}
	r, err := e.Context(ctx, query, o)
	if err == nil {
		r.Warnings = appendPending(r.Warnings, m)
	}
	return r, err
}

// appendPending appends to warnings that of the memories whose turns wait
// for their vectors, if any do.
func appendPending(warnings []string, ms ...*Memory) []string {
	n, remaking := 0, false
	for _, m := range ms {
		n += m.PendingVectors()
		remaking = remaking || m.remakingVectors()
	}
	if remaking {
		warnings = append(warnings, remakingWarning)
	}
	if n == 0 {
		return warnings
	}
	return append(warnings, pendingWarning(n))
}

// Search returns the nodes, turns and archive blocks that match text
// best, with their full-text scores and their text (a node's label, a
// turn's content, a block's summary), best first: at most limit of them.
// It does not wait for the turns to be indexed (see [Memory.Context]).
func (m *Memory) Search(ctx context.Context, text string, limit int) ([]Found, error) {
	e, err := m.engine()
	if err != nil {
		return nil, err
	}
	return e.Search(ctx, text, limit)
}

// WaitIndex waits until the memory's index holds every turn, building it
// if need be, and returns the error that stopped the indexing, if one
// did. A failure to write the index cache is returned too, matching
// ErrIndexCache: the index is complete then. Archive blocks that cannot
// be read fail alone: their turns are left out, the others indexed, and
// the error joins a [*format.BlockError] for each (it matches ErrInvalid); the
// memory answers from the rest.
func (m *Memory) WaitIndex(ctx context.Context) error {
	e, err := m.engine()
	if err != nil {
		return err
	}
	err = e.Wait(ctx)
	if d, ok := errors.AsType[*restore.DamagedBlocksError](err); ok {
		return m.blockErrors(d)
	}
	return err
}

// blockErrors names the blocks of a DamagedBlocksError.
func (m *Memory) blockErrors(d *restore.DamagedBlocksError) error {
	doc := m.Document()
	errs := make([]error, 0, len(d.Errs))
	for _, err := range d.Errs {
		be, ok := errors.AsType[*archive.BlockError](err)
		if !ok || be.Index >= len(doc.DeepArchive.Blocks) {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, &format.BlockError{ID: doc.DeepArchive.Blocks[be.Index].ID, Index: be.Index, Err: be.Err})
	}
	return errors.Join(errs...)
}

// Close releases the memory's index and its private parts', stopping the
// indexing under way, and stops the background embedding ([Memory.Ingest])
// once its batch is cancelled: the turns it had not embedded stay in the
// memory without vectors. The memory stays usable: the next context builds
// the index again, and the next turn ingested, or [Memory.WaitVectors],
// embeds those turns.
func (m *Memory) Close() error {
	m.stopVectors()
	m.mu.Lock()
	defer m.mu.Unlock()
	err := m.closePrivate()
	if m.cached != nil {
		err = errors.Join(err, m.cached.Close())
		m.cached = nil
	}
	if m.eng == nil {
		return err
	}
	err = errors.Join(err, m.eng.Close())
	m.eng = nil
	return err
}

// engine returns the memory's engine, made or brought up to date.
func (m *Memory) engine() (*restore.Engine, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.eng != nil && m.engGen == m.gen {
		return m.eng, nil
	}
	doc := m.doc
	if m.b != nil {
		doc = m.b.SharedDocument() // the engine reads its blocks, and keeps them
	}
	if m.eng != nil {
		if err := m.eng.Update(doc); err != nil {
			return nil, fmt.Errorf("indexing the memory: %w", err)
		}
		m.engGen = m.gen
		return m.eng, nil
	}
	cfg := &restore.Config{Embedder: m.emb, Blocks: m.blocks, Cache: m.cache}
	opened := doc
	switch {
	case m.cached != nil:
		// The file's index cache, opened with it: when turns came in
		// after the opening (the file's journal), the engine of the
		// cache is brought up to them.
		opened = m.cached.Document()
		cfg.Key, cfg.Cached, cfg.CacheGuard, cfg.CacheWithoutVectors = m.key, m.cached, m.cacheGuard, m.cacheBeside
	case m.b == nil:
		// An opened file: its turns in the background, so that the first
		// context need not wait for them, and then its cache.
		cfg.Background, cfg.Key, cfg.CacheGuard, cfg.CacheWithoutVectors = true, m.key, m.cacheGuard, m.cacheBeside
	}
	cfg.ReadOnce = m.readOnce && m.b == nil
	m.cached = nil
	e, err := restore.New(opened, cfg)
	if err != nil {
		return nil, fmt.Errorf("indexing the memory: %w", err)
	}
	if opened != doc {
		if err := e.Update(doc); err != nil {
			e.Close()
			return nil, fmt.Errorf("indexing the memory: %w", err)
		}
	}
	m.eng, m.engGen = e, m.gen
	return e, nil
}

// indexWritten writes the memory's index to its cache for the file just
// written from it, doc, whose key is key (see [format.IndexKey]), through
// guard: the next process to open the file opens the index in place
// rather than indexing it again. Only a memory opened from a file with an
// index cache, whose index is built, keeps one.
func (m *Memory) indexWritten(doc *spec.Document, key string, guard func(put func() error) error) {
	m.mu.Lock()
	if m.cache == "" || m.eng == nil {
		m.mu.Unlock()
		return
	}
	m.key, m.cacheGuard = key, guard
	m.mu.Unlock()
	e, err := m.engine() // brought up to the document written
	if err != nil {
		return
	}
	e.WriteCache(doc, key, guard)
}
