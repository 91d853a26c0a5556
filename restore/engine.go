package restore

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// Engine answers questions from one memory: it holds the memory's graph,
// with edges both ways, its archive, read a block at a time, and a
// full-text index over nodes, block summaries and turns. It is safe for
// concurrent use.
//
// The index of nodes and block summaries is built before [New] returns;
// the index of turns too unless Config.Background asks for it to be built
// in the background, or it comes from the cache (Config.Cache). A context
// asked for before the turns are all indexed is built from what is
// indexed so far, and says so (Result.Partial).
type Engine struct {
	cfg Config

	// rw guards the graph's state and the turn store, which Update
	// replaces: a context reads them under the read lock.
	rw sync.RWMutex
	// gen counts the changes made under rw's write lock: a search made
	// under one read lock stands for one made under the next only while
	// gen is the same (Compose).
	gen   uint64
	doc   *spec.Document
	nodes map[string]*spec.Node
	// adj gives each node's edges, both ways, in the document's order: a
	// node's are those of adjEdges from adjAt[i] to adjAt[i+1], where i is
	// its index in adj. One array, not a slice per node grown edge by
	// edge: on 40,000 edges that took a fifth of a cold open's first
	// context.
	adj      map[string]int32
	adjAt    []int32
	adjEdges []spec.Edge
	// source is the turn a fact, decision, problem or solution was stated
	// in.
	source map[string]int
	// sup are the nodes no longer current, and what replaced them.
	sup superseded
	con conflicts
	fix fixes
	// instr are the current standing instructions (instructions.go), and
	// instrText what their index is made of. instrIx, an index of their
	// texts, and instrTerms, their terms by id, are made when a context
	// first needs them (instructionIndex); instrMu guards them, and
	// instrClosed says the engine is closed.
	instr       []string
	instrText   string
	instrMu     sync.Mutex
	instrIx     bleve.Index
	instrTerms  map[string]map[string]bool
	instrClosed bool
	// always are the nodes a context loads unfound (loadedUnfound), by
	// id.
	always []string
	turns  *turnStore

	ix bleve.Index
	// readOnly is an index opened from the cache, which Update cannot
	// change: it changes a copy of it (live.go). stats are the cache's,
	// for an index opened from one and not updated since; live is the
	// copy, once made.
	readOnly bool
	stats    *cacheStats
	live     *liveIndex
	// fromCache: New opened the index from the cache rather than build
	// it.
	fromCache bool
	// writing are the copies of the index being written to the cache
	// (Engine.WriteCache), which Close waits for.
	writing sync.WaitGroup
	// indexed is what the index holds of each node and block, by
	// document id, so that Update indexes only what changed.
	indexed map[string]string
	// fresh counts the terms of an index built at once of the engine's
	// documents, from its first update on (stats.go); guarded by upd.
	// cardinality is its sum as of the document searches see, guarded
	// by rw; 0 while the index is as built at once.
	fresh       *freshStats
	cardinality int
	// updates counts the updates since the index was built; compacting
	// is the building of it again under way, if any (Engine.compact).
	// Both are guarded by upd.
	updates    int
	compacting *compaction
	// closed is set by Close; guarded by upd.
	closed bool

	// upd serializes updates.
	upd sync.Mutex
	// job is the indexing of turns under way, if any: set under upd,
	// read without it, by contexts, while the job holds upd to write
	// the cache.
	job atomic.Pointer[indexJob]

	// content reads the artifact vault of doc.
	content func(id string, version int) (string, error)

	// vecs are the memory's turn vectors, when cfg.Embedder is set and
	// the memory has some (vectors.go); guarded by rw.
	vecs *vectorIndex

	// counts caches the token counts of candidates other than turns (the
	// turn store keeps those), by tokenizer and key: a node's line is the
	// same for every question until the graph changes, and counting it
	// with a BPE tokenizer costs more than finding it.
	counts sync.Map
	// fanouts are the edges the graph spread follows from a node with
	// many, by node id (Engine.fanout); setGraph forgets them.
	fanouts sync.Map
	// lines are the nodes' lines in a context (Engine.nodeLine), by
	// node id; setGraph forgets them.
	lines sync.Map
}

// Config sets how an engine builds its index. The zero value builds it
// all before New returns, in memory.
type Config struct {
	// Background indexes the turns in the background: New returns once
	// the nodes and the block summaries are indexed.
	Background bool
	// Cache is a directory for a copy of the index, and Key what
	// identifies the document's content (the hash of its file, say).
	// When the directory holds an index made for Key, New opens it
	// instead of indexing; when it does not, New indexes and then writes
	// the copy there, replacing what it held. Empty Cache: no cache;
	// empty Key: the document is of no file yet, and only
	// [Engine.WriteCache] writes the cache, once it is.
	Cache, Key string
	// Cached, when set, is the cache of Cache and Key, opened already:
	// New uses its index rather than opening the cache again, and closes
	// it with the engine. Its document must be the one New is given.
	Cached *Cached
	// CacheGuard, when set, puts the cache in place: it calls put (which
	// renames the copy written beside Cache into place) when the cache
	// is still wanted, and returns put's error; or returns nil without
	// calling it when the document has changed since, say, so that a
	// cache never outlives what it was made for.
	CacheGuard func(put func() error) error
	// CacheWithoutVectors leaves the vectors out of the copy of the
	// document the cache keeps (the vector index's header stays): the
	// caller keeps them elsewhere (a memory file's cache of vectors), and
	// the cache need not hold them twice.
	CacheWithoutVectors bool
	// Embedder, when set, embeds each question, so that a context or a
	// search finds the turns nearest it in meaning among those the
	// memory holds vectors of, made by the same model (see [Embedder]).
	// When it fails, the context is built from full text and says so
	// (Result.Warnings); a search falls back to full text silently.
	Embedder Embedder
	// Blocks say how archive blocks are read: within which limits (see
	// [graph.TurnReaderOptions]); nil reads them as plain JSON within the
	// default block size.
	Blocks *graph.TurnReaderOptions
	// ReadOnce says that the engine answers a question or two and is
	// closed (a command's run): the archive's blocks it reads to index its
	// turns are not kept for later answers, only those the answers read.
	ReadOnce bool
}

// indexJob is the indexing of turns in the background.
type indexJob struct {
	// indexed is closed when the turns are indexed (err is set then),
	// done when the job ends, its cache written.
	indexed, done chan struct{}
	cancel        context.CancelFunc
	// err stopped the indexing; cacheErr stopped the writing of the
	// cache, after a complete index. Both are set before done is closed.
	err, cacheErr error
}

// count returns the tokens of a candidate's text, counted once.
func (e *Engine) count(tk Tokenizer, key, text string) int {
	k := tk.Name() + "\x00" + key
	if n, ok := e.counts.Load(k); ok {
		return n.(int)
	}
	n := tk.Count(text)
	e.counts.Store(k, n)
	return n
}

// newStore is the turn store of doc for the engine.
func (e *Engine) newStore(doc *spec.Document) *turnStore {
	s := newTurnStore(doc, e.cfg.Blocks)
	s.keep = !e.cfg.ReadOnce
	return s
}

// New indexes a document and returns its engine. The document must not
// change while the engine is in use. cfg may be nil.
func New(doc *spec.Document, cfg *Config) (*Engine, error) {
	e := &Engine{}
	if cfg != nil {
		e.cfg = *cfg
	}
	e.setGraph(doc, e.newStore(doc))
	if c := e.cfg.Cached; c != nil && c.ix != nil {
		e.openedCache(c.ix, c.stats)
		c.ix = nil
		return e, nil
	}
	if e.cfg.Cache != "" && e.cfg.Key != "" {
		if ix, stats, ok := openCache(e.cfg.Cache, e.cfg.Key); ok {
			e.openedCache(ix, stats)
			return e, nil
		}
	}
	ix, err := NewTextIndex()
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	e.ix, e.indexed = ix, map[string]string{}
	if _, err := e.indexGraph(doc); err != nil {
		ix.Close()
		return nil, err
	}
	cache := e.cfg.Cache
	if e.cfg.Key == "" {
		cache = "" // the document is of no file yet
	}
	e.startTurns(e.turns, 1, cache)
	if !e.cfg.Background {
		if err := e.Wait(context.Background()); err != nil {
			e.Close()
			return nil, err
		}
	}
	return e, nil
}

// openedCache makes ix, opened from the cache with its stats, the
// engine's index. e is new.
func (e *Engine) openedCache(ix bleve.Index, stats cacheStats) {
	e.ix, e.readOnly, e.stats, e.fromCache = ix, true, &stats, true
	if stats.Updated {
		e.cardinality = stats.Cardinality
	}
}

// setGraph makes doc the engine's document. e.rw is held, or e is new.
func (e *Engine) setGraph(doc *spec.Document, turns *turnStore) {
	e.doc, e.turns = doc, turns
	e.content = graph.VaultContent(&doc.ArtifactVault)
	e.nodes = make(map[string]*spec.Node, len(doc.SemanticGraph.Nodes))
	e.source = map[string]int{}
	e.always = nil
	e.fanouts.Clear()
	e.lines.Clear()
	for i := range doc.SemanticGraph.Nodes {
		n := &doc.SemanticGraph.Nodes[i]
		e.nodes[n.ID] = n
		if stated(n.Type) && n.FirstMentioned > 0 {
			e.source[n.ID] = n.FirstMentioned
		}
		if loadedUnfound(n) {
			e.always = append(e.always, n.ID)
		}
	}
	slices.Sort(e.always)
	e.setEdges(doc.SemanticGraph.Edges)
	e.sup = newSuperseded(e.nodes, doc.SemanticGraph.Edges, e.source)
	e.con = newConflicts(doc, e.nodes, e.source)
	e.fix = newFixes(doc, e.nodes)
	e.instr = instructionIDs(e.nodes)
	e.instructionsChanged()
	if e.cfg.Embedder != nil {
		e.vecs = newVectorIndex(doc, e.vecs)
	}
}

// setEdges makes the adjacency of edges: each edge is listed under its
// both ends, a loop twice under its node. e.rw is held, or e is new.
func (e *Engine) setEdges(edges []spec.Edge) {
	e.adj = make(map[string]int32, len(e.nodes))
	var deg []int32
	end := func(id string) int32 {
		i, ok := e.adj[id]
		if !ok {
			i = int32(len(deg))
			e.adj[id] = i
			deg = append(deg, 0)
		}
		deg[i]++
		return i
	}
	ends := make([][2]int32, len(edges))
	for k, ed := range edges {
		ends[k] = [2]int32{end(ed.From), end(ed.To)}
	}
	e.adjAt = make([]int32, len(deg)+1)
	for i, d := range deg {
		e.adjAt[i+1] = e.adjAt[i] + d
	}
	next := slices.Clone(e.adjAt[:len(deg)])
	e.adjEdges = make([]spec.Edge, 2*len(edges))
	for k, ed := range edges {
		for _, i := range ends[k] {
			e.adjEdges[next[i]] = ed
			next[i]++
		}
	}
}

// edgesOf returns node id's edges, both ways. e.rw is held for reading.
func (e *Engine) edgesOf(id string) []spec.Edge {
	i, ok := e.adj[id]
	if !ok {
		return nil
	}
	return e.adjEdges[e.adjAt[i]:e.adjAt[i+1]:e.adjAt[i+1]]
}

// indexGraph brings the index of nodes and block summaries up to doc:
// it indexes what is new or changed since e.indexed and removes what is
// gone.
// It returns how many documents it indexed or removed.
func (e *Engine) indexGraph(doc *spec.Document) (int, error) {
	want := graphDocs(doc)
	changed, gone, err := updateGraph(context.Background(), e.ix, e.indexed, want, 0)
	if err != nil {
		return 0, err
	}
	if e.fresh != nil {
		e.fresh.setGraph(want, changed, gone)
	}
	e.indexed = want
	return len(changed) + len(gone), nil
}

// graphDocs returns the text of each node and block summary of doc that
// has any, by document id.
func graphDocs(doc *spec.Document) map[string]string {
	want := make(map[string]string, len(doc.SemanticGraph.Nodes)+len(doc.DeepArchive.Blocks))
	for i := range doc.SemanticGraph.Nodes {
		n := &doc.SemanticGraph.Nodes[i]
		if t := nodeText(n); t != "" {
			want[kindNode+":"+n.ID] = t
		}
	}
	for _, b := range doc.DeepArchive.Blocks {
		if t := strings.Join(nonEmpty(append([]string{b.Summary}, b.KeyPoints...)), "\n"); t != "" {
			want[kindBlock+":"+b.ID] = t
		}
	}
	return want
}

// updateGraph brings ix, which holds the documents indexed, to want: it
// indexes the documents that are new or changed and removes those that
// are gone, par batches at a time (0: one per core), and returns their
// ids, sorted.
func updateGraph(ctx context.Context, ix bleve.Index, indexed, want map[string]string, par int) (changed, gone []string, err error) {
	// In batches indexed at once, made of a fixed number of documents in
	// the order of their ids: Bleve's BM25 takes its average length of a
	// document from the sizes of each segment's dictionary, so the same
	// documents split otherwise would score otherwise.
	// Only what changed is sorted: an update after a live turn changes a
	// few of the thousands of ids.
	for id, text := range want {
		if indexed[id] != text {
			changed = append(changed, id)
		}
	}
	for id := range indexed {
		if _, ok := want[id]; !ok {
			gone = append(gone, id)
		}
	}
	slices.Sort(changed)
	slices.Sort(gone)
	bt := newBatcher(ctx, ix, graphBatch, par)
	err = func() error {
		for _, id := range changed {
			if err := bt.index(id, want[id]); err != nil {
				return err
			}
		}
		for _, id := range gone {
			if err := bt.delete(id); err != nil {
				return err
			}
		}
		return nil
	}()
	if err := bt.finish(err); err != nil {
		return nil, nil, fmt.Errorf("restore: indexing: %w", err)
	}
	return changed, gone, nil
}

// countFresh counts the terms of an index built at once of the documents
// the engine has indexed, or is indexing: its nodes and blocks, and the
// turns of store. e.upd is held.
func (e *Engine) countFresh(store *turnStore) (*freshStats, error) {
	an, err := e.analyzer()
	if err != nil {
		return nil, err
	}
	fs := graphCounted(an, e.indexed)
	for i := range store.ranges {
		turns, err := store.read(i)
		if err != nil {
			return nil, fmt.Errorf("restore: %w", err)
		}
		for _, t := range turns {
			for _, d := range turnDocs(t) {
				fs.addTurn(d.text)
			}
		}
	}
	return fs, nil
}

// graphBatch is how many nodes and block summaries go into a batch of
// the index: 10,000 turns make about 9,000 of them, so two batches, one
// per core here. A constant, so that the same document is indexed in the
// same segments on every machine, and scores the same.
const graphBatch = 5000

// turnBatch is how many turns go into a batch of the index in the
// background, and so what a context asked meanwhile may miss of the
// turns indexed so far: the batches being indexed, one per core.
const turnBatch = 1000

// startTurns indexes the turns of store from turn first on, in the
// background, and then, if cache is set, writes the index there with the
// engine's document, unless an update came first: the cache is of the
// document its key names. e.upd is held, or e is new.
func (e *Engine) startTurns(store *turnStore, first int, cache string) {
	ctx, cancel := context.WithCancel(context.Background())
	job := &indexJob{indexed: make(chan struct{}), done: make(chan struct{}), cancel: cancel}
	e.job.Store(job)
	doc, ix := e.doc, e.ix
	go func() {
		defer close(job.done)
		if beforeTurns != nil {
			beforeTurns()
		}
		job.err = indexTurns(ctx, ix, store, first, nil, 0)
		close(job.indexed)
		if job.err != nil || cache == "" {
			return
		}
		if beforeCache != nil {
			beforeCache()
		}
		e.upd.Lock()
		defer e.upd.Unlock()
		if e.doc != doc {
			return
		}
		placed := false
		guard := func(put func() error) error {
			put2 := func() error {
				err := put()
				placed = err == nil
				return err
			}
			if e.cfg.CacheGuard == nil {
				return put2()
			}
			return e.cfg.CacheGuard(put2)
		}
		write, err := e.cacheCopy(ix, doc, cache, e.cfg.Key, guard)
		if err == nil {
			err = write()
		}
		if err != nil {
			job.cacheErr = fmt.Errorf("%w: %w", ErrIndexCache, err)
			return
		}
		if placed && !e.cfg.ReadOnce {
			e.takeCache(cache)
		}
	}()
}

// takeCache makes the index just put in the cache for the engine's key,
// on disk, the engine's, in place of the same index in memory: a memory
// kept open then holds no more of its index than one opened from the
// cache (on 38,912 turns, a server's memory went from about 500 MB
// resident to 250), and answers as quickly. The cache must still be of
// the key: another process may have replaced it since. e.upd is held.
func (e *Engine) takeCache(dir string) {
	if _, ok := cacheSums(dir, e.cfg.Key); !ok {
		return
	}
	stats, ok := readStats(dir)
	if !ok {
		return
	}
	ix, ok := openIndex(dir)
	if !ok {
		return
	}
	e.rw.Lock()
	old := e.ix
	e.gen++
	e.ix, e.readOnly, e.stats = ix, true, &stats
	// The turns decoded to index them go too: the engine decodes those
	// its answers ask for, as one that opened the cache does, and
	// answers as quickly once they are.
	e.turns = e.newStore(e.doc)
	e.rw.Unlock()
	_ = old.Close() // an index in memory
	// Most of what the indexing took is garbage now, and the heap's next
	// collection is as far off as it was large: collected and given back
	// now, once, rather than held by the process until then.
	debug.FreeOSMemory()
}

// cacheCopy returns what writes ix as it is now, whatever changes it
// after, with doc, the document of its nodes and turns, to the cache
// dir for key, through guard (see [Config.CacheGuard]). e.upd is held.
func (e *Engine) cacheCopy(ix bleve.Index, doc *spec.Document, dir, key string, guard func(put func() error) error) (func() error, error) {
	r, err := copyReader(ix)
	if err != nil {
		return nil, err
	}
	stats, err := e.statsOf(r)
	if err != nil {
		r.CloseCopyReader()
		return nil, err
	}
	if e.cfg.CacheWithoutVectors {
		doc = doc.WithoutVectors()
	}
	return func() error { return writeCache(r, doc, stats, dir, key, guard) }, nil
}

// WriteCache writes the engine's index to its cache (Config.Cache) for
// key, with doc, in the background: doc is the document of the file key
// names, just written from the engine's own, so that an engine that
// opens the file next opens the index in place rather than indexing it
// again. It writes through guard, as [Config.CacheGuard] says. Nothing is
// written while the turns are being indexed (that indexing writes the
// cache of the document it indexes), nor for a doc that is not of the
// engine's nodes and turns. Close waits for the writing. A cache that
// cannot be written costs the next engine its time, and is no error.
func (e *Engine) WriteCache(doc *spec.Document, key string, guard func(put func() error) error) {
	e.upd.Lock()
	defer e.upd.Unlock()
	if e.cfg.Cache == "" || key == "" || e.closed || !e.indexedAll() || !sameContent(doc, e.doc) {
		return
	}
	write, err := e.cacheCopy(e.ix, doc, e.cfg.Cache, key, guard)
	if err != nil {
		return
	}
	e.cfg.Key = key
	e.writing.Go(func() { _ = write() })
}

// sameContent reports whether a and b hold as many nodes, edges, blocks
// and turns, and the same last turn: a document written from an engine's
// own, not another memory's.
func sameContent(a, b *spec.Document) bool {
	ga, gb, da, db := &a.SemanticGraph, &b.SemanticGraph, &a.DeepArchive, &b.DeepArchive
	return len(ga.Nodes) == len(gb.Nodes) && len(ga.Edges) == len(gb.Edges) && len(da.Blocks) == len(db.Blocks) &&
		(len(da.Blocks) == 0 || da.Blocks[len(da.Blocks)-1].TurnRange == db.Blocks[len(db.Blocks)-1].TurnRange)
}

// beforeTurns, when set, is called before the turns are indexed in the
// background, and beforeCache before the index is written to the cache:
// tests hold the job with them.
var beforeTurns, beforeCache func()

// indexTurns adds the turns of store from turn first on to ix, par
// batches at a time (0: one per core), and counts them in fs, when it is
// set.
//
// A block that cannot be read is left out and the others indexed: the
// error is then a [*DamagedBlocksError] that names each such block.
func indexTurns(ctx context.Context, ix bleve.Index, store *turnStore, first int, fs *freshStats, par int) error {
	bt := newBatcher(ctx, ix, turnBatch, par)
	var damaged []error
	err := func() error {
		for i, rg := range store.ranges {
			if rg[1] < first {
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			turns, err := store.read(i)
			if errors.As(err, new(*archive.BlockError)) {
				damaged = append(damaged, err)
				continue
			}
			if err != nil {
				return err
			}
			for _, t := range turns {
				if t.Turn < first {
					continue
				}
				for _, d := range turnDocs(t) {
					if err := bt.index(d.id, d.text); err != nil {
						return err
					}
					if fs != nil {
						fs.addTurn(d.text)
					}
				}
			}
		}
		return nil
	}()
	if err := bt.finish(err); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("restore: indexing turns: %w", err)
	}
	if len(damaged) > 0 {
		return &DamagedBlocksError{Errs: damaged}
	}
	return nil
}

// DamagedBlocksError reports the archive blocks whose turns are not
// indexed because the blocks could not be read; the turns of every other
// block are. Each of Errs is an [*archive.BlockError]. An engine whose
// indexing ended with it answers from the rest (Result.Partial is set) and
// writes no index cache, so that the next engine reports the blocks too.
type DamagedBlocksError struct {
	Errs []error
}

func (e *DamagedBlocksError) Error() string {
	msgs := make([]string, len(e.Errs))
	for i, err := range e.Errs {
		msgs[i] = err.Error()
	}
	return "restore: turns not indexed: " + strings.Join(msgs, "; ")
}

func (e *DamagedBlocksError) Unwrap() []error { return e.Errs }

// ErrIndexCache reports an index cache that could not be written. The
// index is complete: only the next engine will index again.
var ErrIndexCache = errors.New("restore: writing the index cache")

// Wait waits until every turn is indexed, or ctx is done, and returns the
// error that stopped the indexing, if one did (a block that could not be
// read, say), or else one that matches ErrIndexCache when the index cache
// could not be written.
func (e *Engine) Wait(ctx context.Context) error { return e.wait(ctx, true) }

// waitIndexed is Wait, but for the index alone: a context need not wait
// for the cache to be written (on 38,912 turns, 3-5 s of a server's
// first context).
func (e *Engine) waitIndexed(ctx context.Context) error { return e.wait(ctx, false) }

// wait waits for the job's turns to be indexed, and for its cache to be
// written too when cached.
func (e *Engine) wait(ctx context.Context, cached bool) error {
	job := e.job.Load()
	if job == nil {
		return nil
	}
	ch := job.indexed
	if cached {
		ch = job.done
	}
	select {
	case <-ch:
		if job.err != nil || !cached {
			return job.err
		}
		return job.cacheErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// analyzer is the analyzer of the engine's index, which its statistics
// count terms with.
func (e *Engine) analyzer() (analysis.Analyzer, error) {
	an := e.ix.Mapping().AnalyzerNamed(analyzerName)
	if an == nil {
		return nil, fmt.Errorf("restore: the index has no analyzer %q", analyzerName)
	}
	return an, nil
}

// Complete reports whether every turn is indexed.
func (e *Engine) Complete() bool {
	job := e.job.Load()
	if job == nil {
		return true
	}
	select {
	case <-job.indexed:
		return job.err == nil
	default:
		return false
	}
}

// Update makes doc, a later version of the engine's document (the same
// memory with more turns, say), the one it answers from. It indexes only
// what changed: the nodes and block summaries that are new or changed,
// and the new turns. The engine keeps doc: it must not change while the
// engine is in use.
//
// The contexts are those an engine built at once of doc would give (the
// statistics of stats.go), and every compactAfter updates the engine
// builds its index again in the background, so that a live memory's
// index does not grow a segment per turn for ever.
func (e *Engine) Update(doc *spec.Document) error {
	e.upd.Lock()
	defer e.upd.Unlock()
	if e.readOnly {
		if err := e.goLive(); err != nil {
			return e.rebuild(doc)
		}
	}
	e.rw.RLock()
	old := e.turns
	e.rw.RUnlock()
	if e.fresh == nil {
		fs, err := e.freshNow(old)
		if err != nil {
			return err
		}
		e.fresh = fs
	}
	store := e.newStore(doc)
	store.carry(old)
	changed, err := e.indexGraph(doc)
	if err != nil {
		return err
	}
	if changed > 0 || store.n > old.n {
		e.updates++ // a segment or two more
	}
	if store.n > old.n {
		// The turns the engine had are being indexed, or are: these
		// are the ones after them.
		if err := indexTurns(context.Background(), e.ix, store, old.n+1, e.fresh, 0); err != nil {
			e.fresh = nil // it counted turns the engine does not have: count again
			return err
		}
	}
	e.rw.Lock()
	e.gen++
	e.cardinality = e.fresh.cardinality()
	e.setGraph(doc, store)
	e.counts.Clear() // the nodes' lines may have changed; the turns' counts are the store's
	e.rw.Unlock()
	e.compact()
	return nil
}

// compactAfter is how many updates that change an engine's index it
// takes before the engine builds it again, in the background (a variable
// for tests). Each update adds a segment or two, and a search reads
// every segment: on a memory of 1,000 LoCoMo turns, a context took 6.5 ms
// on an index built at once, 13.5 ms after 250 live turns and 34 ms after
// 1,000. Building the index of 10,000 turns again costs about 1 s of CPU,
// some 20 ms for each of the updates it follows.
var compactAfter = 50

// compaction is the building of an engine's index again, in the
// background.
type compaction struct {
	done   chan struct{} // closed when it ends
	cancel context.CancelFunc
}

// beforeSwap, when set, is called when a compaction has built its index,
// before it brings it up to date and puts it in place: tests update the
// engine meanwhile with it.
var beforeSwap func()

// compact builds the index again in the background, once compactAfter
// updates have made it, when the turns are all indexed and no compaction
// is under way; then, under e.upd, it indexes what the updates made
// meanwhile changed, and puts the new index in place of the old. The
// scores stay those of an index built at once (e.fresh), whatever the
// index's segments. e.upd is held.
func (e *Engine) compact() {
	if e.updates < compactAfter || e.compacting != nil || !e.indexedAll() || e.live != nil {
		// An index on disk (live.go) has Bleve merge its segments.
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &compaction{done: make(chan struct{}), cancel: cancel}
	e.compacting, e.updates = c, 0
	// An update replaces e.indexed, never changes it: the map stays that
	// of the turns of store.
	indexed, store := e.indexed, e.turns
	go func() {
		defer close(c.done)
		ix, err := buildIndex(ctx, indexed, store)
		if beforeSwap != nil {
			beforeSwap()
		}
		e.upd.Lock()
		defer e.upd.Unlock()
		e.compacting = nil
		if err == nil {
			err = ctx.Err() // the engine is closing
		}
		if err == nil {
			err = e.swap(ix, indexed, store)
		}
		if err != nil && ix != nil {
			ix.Close() // the old index stays, and a later update tries again
		}
	}()
}

// buildIndex indexes the nodes and block summaries of docs (their text,
// by document id) and the turns of store in a new index, as New does but
// a batch at a time, so that the memory's own work keeps a core, and
// returns it; the index, if it made one, even when it fails.
func buildIndex(ctx context.Context, docs map[string]string, store *turnStore) (bleve.Index, error) {
	ix, err := NewTextIndex()
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	if _, _, err := updateGraph(ctx, ix, nil, docs, 1); err != nil {
		return ix, err
	}
	if err := indexTurns(ctx, ix, store, 1, nil, 1); err != nil {
		return ix, err
	}
	return ix, nil
}

// swap brings ix, built for the turns of store and the nodes and blocks
// of indexed, up to the engine's document and puts it in place of the
// engine's index. e.upd is held.
func (e *Engine) swap(ix bleve.Index, indexed map[string]string, store *turnStore) error {
	// What the engine's index holds of the nodes and blocks now: those
	// of its document.
	if _, _, err := updateGraph(context.Background(), ix, indexed, e.indexed, 0); err != nil {
		return err
	}
	if e.turns.n > store.n {
		if err := indexTurns(context.Background(), ix, e.turns, store.n+1, nil, 0); err != nil {
			return err
		}
	}
	e.rw.Lock()
	e.gen++
	old := e.ix
	e.ix = ix
	e.rw.Unlock()
	return old.Close()
}

// indexedAll reports whether the indexing of turns in the background,
// if any, has ended. e.upd is held.
func (e *Engine) indexedAll() bool {
	job := e.job.Load()
	if job == nil {
		return true
	}
	select {
	case <-job.done:
		return true
	default:
		return false
	}
}

// goLive replaces an index opened from the cache, which cannot change, by
// a copy of it that can (live.go), and counts its terms from the cache's
// statistics (stats.go): an update then indexes only what changed. e.upd
// is held.
func (e *Engine) goLive() error {
	if e.stats == nil || e.cfg.Cache == "" {
		return errors.New("restore: no cache to copy")
	}
	an, err := e.analyzer()
	if err != nil {
		return err
	}
	indexed := graphDocs(e.doc)
	fs, err := freshFrom(an, indexed, *e.stats)
	if err != nil {
		return err
	}
	ix, live, err := openLive(e.cfg.Cache)
	if err != nil {
		return err
	}
	e.rw.Lock()
	old := e.ix
	e.gen++
	e.ix, e.readOnly, e.stats, e.live, e.indexed, e.fresh = ix, false, nil, live, indexed, fs
	// Bleve merges the copy's segments from now on: searches score as
	// the cache's index did.
	e.cardinality = fs.cardinality()
	e.rw.Unlock()
	// The copy is the engine's index now, whatever closing the cache's
	// read-only one says.
	_ = old.Close()
	return nil
}

// rebuild replaces an index opened from the cache, which cannot change,
// by one built for doc. e.upd is held.
func (e *Engine) rebuild(doc *spec.Document) error {
	ix, err := NewTextIndex()
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	store := e.newStore(doc)
	e.rw.Lock()
	defer e.rw.Unlock()
	e.gen++
	store.carry(e.turns)
	old := e.ix
	e.ix, e.readOnly, e.stats, e.indexed = ix, false, nil, map[string]string{}
	e.fresh, e.cardinality, e.updates = nil, 0, 0 // built at once
	if _, err := e.indexGraph(doc); err != nil {
		e.ix, e.readOnly = old, true
		ix.Close()
		return err
	}
	old.Close()
	e.setGraph(doc, store)
	e.counts.Clear() // the nodes' lines may have changed; the turns' counts are the store's
	e.startTurns(store, 1, "")
	return nil
}

// Close stops the indexing, if it is under way, and releases the index.
// A second call does nothing.
func (e *Engine) Close() error {
	e.upd.Lock()
	job, c := e.job.Load(), e.compacting
	e.upd.Unlock()
	if job != nil {
		job.cancel()
		<-job.done
	}
	if c != nil {
		c.cancel()
		<-c.done
	}
	e.upd.Lock()
	defer e.upd.Unlock()
	if e.closed {
		return nil // Bleve panics when an index is closed twice
	}
	e.closed = true
	e.writing.Wait()
	err := e.ix.Close()
	e.instrMu.Lock()
	if e.instrIx != nil {
		err = errors.Join(err, e.instrIx.Close())
	}
	e.instrIx, e.instrClosed = nil, true
	e.instrMu.Unlock()
	if e.live != nil {
		err = errors.Join(err, e.live.remove())
	}
	return err
}

// alwaysLoaded reports whether a node is of what a context loads without
// a question's finding it: a pinned node, or a current fact about who the
// user is, what they prefer, whom they know; facts takes of those facts
// the ones the user gave to keep (given).
func alwaysLoaded(n *spec.Node) bool {
	if n.Pinned && n.ValidTo.IsZero() {
		return true
	}
	if n.Type != spec.NodeFact || !n.ValidTo.IsZero() {
		return false
	}
	switch n.Category {
	case spec.CategoryIdentity, spec.CategoryPreference, spec.CategoryRelationship:
		return true
	}
	return false
}

// guaranteed reports whether a node goes into every context, before
// anything else, as long as the fact budget lasts: a pinned node, and a
// fact about the user (aboutUser) of a category always loaded that was
// saved rather than found in a turn (no turn mentions it). Facts found
// in the conversation are many (a LoCoMo memory holds hundreds), and
// facts about other people are about someone a question may not be
// about: they compete, and go in when the question finds them.
func guaranteed(n *spec.Node) bool {
	return alwaysLoaded(n) && (n.Pinned || n.FirstMentioned == 0 && aboutUser(n))
}

// aboutUser reports whether a fact is about the user the memory serves:
// saved in the first person ("I prefer short answers"), it says "User
// prefers short answers"; in the scope of a named user ("user:alice"),
// it may name them ("Alice prefers bullet lists"). In the scope "user",
// "Ana lives in Lisbon" is about Ana, and "Dana prefers Go" about Dana,
// whoever the user is.
func aboutUser(n *spec.Node) bool {
	if subjectIs(n.Label, graph.FactSubject) {
		return true
	}
	kind, id, _ := strings.Cut(n.Scope, ":")
	return kind == spec.ScopeUser && id != "" && subjectIs(n.Label, id)
}

// subjectIs reports whether text starts with the word subject, or its
// possessive, whatever their case.
func subjectIs(text, subject string) bool {
	if len(text) <= len(subject) || !strings.EqualFold(text[:len(subject)], subject) {
		return false
	}
	return text[len(subject)] == ' ' || text[len(subject)] == '\''
}

// stated reports whether nodes of a type state something a turn said, so
// that the turn is their source.
func stated(t spec.NodeType) bool {
	switch t {
	case spec.NodeFact, spec.NodeDecision, spec.NodeProblem, spec.NodeSolution:
		return true
	}
	return false
}

// turn returns turn n, if the memory has it. e.rw is held for reading.
func (e *Engine) turn(n int) (spec.Turn, bool) { return e.turns.turn(n) }

// Search returns the nodes, turns and archive blocks that match text
// best, with their BM25 scores and their text, best first. With an
// Embedder and vectors of its model, the turns nearest text in meaning
// are found too, and scores are on a context's scale (see vectorWeight).
func (e *Engine) Search(ctx context.Context, text string, limit int) ([]Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	qv, _ := e.embedQuery(ctx, text)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e.rw.RLock()
	defer e.rw.RUnlock()
	hits, err := search(e.ix, text, limit, e.bm25())
	if err != nil {
		return nil, err
	}
	out := make([]Item, 0, len(hits))
	for _, h := range hits {
		it := Item{Score: h.score, Parts: map[string]float64{"search": h.score}}
		switch h.kind {
		case kindNode:
			n := e.nodes[h.key]
			if n == nil {
				continue // indexed by an update under way
			}
			it.Kind, it.NodeID, it.Text = "node", h.key, n.Label
		case kindTurn:
			n, _ := strconv.Atoi(h.key)
			t, ok := e.turn(n)
			if !ok {
				continue
			}
			it.Kind, it.Turn, it.ExternalID, it.Timestamp, it.Text = "turn", n, t.ExternalID, t.Timestamp, t.Content
		case kindPassage:
			n, p, ok := parsePassage(h.key)
			if !ok {
				continue
			}
			t, ok := e.turn(n)
			if !ok {
				continue
			}
			text, ok := excerptOf(t, p)
			if !ok {
				continue
			}
			it.Kind, it.Turn, it.ExternalID, it.Timestamp, it.Text, it.Excerpt = "turn", n, t.ExternalID, t.Timestamp, text, &p
		case kindBlock:
			it.Kind, it.NodeID = "block", h.key
			for _, b := range e.doc.DeepArchive.Blocks {
				if b.ID == h.key {
					it.Text = b.Summary
				}
			}
		}
		out = append(out, it)
	}
	return e.withVectors(out, qv, limit), nil
}

// dateOf formats a turn's date for a context: "8 May 2023", or "" when
// the turn has none.
func dateOf(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2 January 2006")
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
