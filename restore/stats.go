package restore

import (
	"errors"
	"fmt"
	"slices"

	"github.com/blevesearch/bleve/v2/analysis"
	bsearch "github.com/blevesearch/bleve/v2/search"
	index "github.com/blevesearch/bleve_index_api"
)

// Bleve's BM25 takes the average length of a document from the sum of its
// segments' dictionary sizes over the number of documents: a term in two
// segments counts twice, and so does a term of a document that was
// replaced or removed, until its segment goes. An index built at once has
// one segment per batch, in a layout fixed by the document (nodes and
// block summaries in batches of graphBatch, by id; turns in batches of
// turnBatch, in order). An index that an engine has updated since holds
// a segment per update as well, and a live memory's scores, and so its
// contexts, drifted from those of the same memory opened afresh: after
// 300 live turns on LoCoMo, 160 contexts of 200 read otherwise.
//
// So, once an engine has updated its index, its searches take these
// statistics from freshStats: the number of terms each batch of an index
// built at once would hold, kept up to date with each update. The same
// memory then gives the same scores, and the same contexts, however its
// index came to be.

// freshStats counts the terms of each batch of an index of the engine's
// documents built at once. It is made at an engine's first update, and
// changed by each, under Engine.upd.
type freshStats struct {
	an analysis.Analyzer
	// terms are the distinct terms of each node and block document, by
	// document id; ids are those ids, sorted: the order of the batches.
	terms map[string][]string
	ids   []string
	graph int // the terms of the batches of nodes and blocks, summed
	// turns is how many turns are counted; full the terms of the full
	// batches of turns, summed; last the terms of the batch being filled.
	turns int
	full  int
	last  map[string]struct{}
	// seen is reused to count the distinct terms of each batch of nodes.
	seen map[string]struct{}
}

func newFreshStats(an analysis.Analyzer) *freshStats {
	return &freshStats{an: an, terms: map[string][]string{}, last: map[string]struct{}{}, seen: map[string]struct{}{}}
}

// distinct returns the distinct terms of text, as the index analyzes it,
// sorted. A document has a few dozen terms at most: sorting them costs
// less than a set.
func (s *freshStats) distinct(text string) []string {
	toks := s.an.Analyze([]byte(text))
	out := make([]string, len(toks))
	for i, tok := range toks {
		out[i] = string(tok.Term)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// setGraph brings the node and block documents to want: those of changed
// are new or have a new text, those of gone are removed.
func (s *freshStats) setGraph(want map[string]string, changed, gone []string) {
	for _, id := range gone {
		delete(s.terms, id)
		if i, ok := slices.BinarySearch(s.ids, id); ok {
			s.ids = slices.Delete(s.ids, i, i+1)
		}
	}
	for _, id := range changed {
		if _, ok := s.terms[id]; !ok {
			i, _ := slices.BinarySearch(s.ids, id)
			s.ids = slices.Insert(s.ids, i, id)
		}
		s.terms[id] = s.distinct(want[id])
	}
	s.graph = 0
	for start := 0; start < len(s.ids); start += graphBatch {
		clear(s.seen)
		for _, id := range s.ids[start:min(start+graphBatch, len(s.ids))] {
			for _, t := range s.terms[id] {
				s.seen[t] = struct{}{}
			}
		}
		s.graph += len(s.seen)
	}
}

// addTurn counts the next turn's document text.
func (s *freshStats) addTurn(text string) {
	if s.turns > 0 && s.turns%turnBatch == 0 {
		s.full += len(s.last)
		clear(s.last)
	}
	s.turns++
	for _, tok := range s.an.Analyze([]byte(text)) {
		if _, ok := s.last[string(tok.Term)]; !ok {
			s.last[string(tok.Term)] = struct{}{}
		}
	}
}

// cardinality is the sum of the dictionary sizes of an index built at
// once: what Bleve's BM25 divides by the number of documents.
func (s *freshStats) cardinality() int { return s.graph + s.full + len(s.last) }

// bm25 returns the statistics the engine's searches score with: nil
// while its index is as built at once, which has them right. e.rw is
// held for reading.
func (e *Engine) bm25() *bsearch.BM25Stats {
	if e.cardinality == 0 {
		return nil
	}
	docs, err := e.ix.DocCount()
	if err != nil {
		return nil
	}
	return &bsearch.BM25Stats{DocCount: float64(docs), FieldCardinality: map[string]int{"text": e.cardinality}}
}

// stats are the statistics a cache of the index keeps (cacheStats): the
// index is not one built at once.
func (s *freshStats) stats() cacheStats {
	last := make([]string, 0, len(s.last))
	for t := range s.last {
		last = append(last, t)
	}
	slices.Sort(last)
	return cacheStats{Cardinality: s.cardinality(), Updated: true, Turns: s.turns, Last: last}
}

// graphCounted counts the terms of the node and block documents indexed,
// by id, as an index built at once of them holds them; no turn yet.
func graphCounted(an analysis.Analyzer, indexed map[string]string) *freshStats {
	fs := newFreshStats(an)
	ids := make([]string, 0, len(indexed))
	for id := range indexed {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	fs.setGraph(indexed, ids, nil)
	return fs
}

// freshFrom counts the terms of an index built at once of the node and
// block documents indexed, by id, and of the turns the statistics of a
// cache (cacheStats) count: only the nodes and blocks are analyzed again.
func freshFrom(an analysis.Analyzer, indexed map[string]string, st cacheStats) (*freshStats, error) {
	fs := graphCounted(an, indexed)
	fs.turns = st.Turns
	for _, t := range st.Last {
		fs.last[t] = struct{}{}
	}
	fs.full = st.Cardinality - fs.graph - len(fs.last)
	if fs.full < 0 || len(st.Last) > 0 && st.Turns == 0 {
		return nil, fmt.Errorf("restore: the index cache counts %d terms, its nodes alone have %d", st.Cardinality, fs.graph+len(fs.last))
	}
	return fs, nil
}

// freshNow counts the terms of an index built at once of the engine's
// documents, its nodes and blocks and the turns of store, at its first
// update: from the index itself, built at once, when it is complete, as
// statsOf does; else from every document, as the index may not hold them
// all yet. e.upd is held.
func (e *Engine) freshNow(store *turnStore) (*freshStats, error) {
	if !e.indexedAll() {
		return e.countFresh(store)
	}
	adv, err := e.ix.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	st, err := e.statsOf(r)
	if err != nil {
		return nil, err
	}
	an, err := e.analyzer()
	if err != nil {
		return nil, err
	}
	return freshFrom(an, e.indexed, st)
}

// statsOf returns the statistics of the index r reads, the engine's:
// those it counted since its first update, those of the cache it opened,
// or else those of an index built at once, as Bleve's reader has them
// and the last batch of turns has its terms. e.upd is held.
func (e *Engine) statsOf(r index.IndexReader) (cacheStats, error) {
	switch {
	case e.fresh != nil:
		return e.fresh.stats(), nil
	case e.stats != nil:
		return *e.stats, nil
	}
	br, ok := r.(index.BM25Reader)
	if !ok {
		return cacheStats{}, errors.New("restore: the index does not count its terms")
	}
	card, err := br.FieldCardinality("text")
	if err != nil {
		return cacheStats{}, err
	}
	docs, err := r.DocCount()
	if err != nil {
		return cacheStats{}, err
	}
	an, err := e.analyzer()
	if err != nil {
		return cacheStats{}, err
	}
	st := cacheStats{Cardinality: card, Turns: int(docs) - len(e.indexed)}
	if st.Turns <= 0 {
		st.Turns = 0
		return st, nil
	}
	texts, err := lastTurnDocs(e.turns, (st.Turns-1)%turnBatch+1)
	if err != nil {
		return cacheStats{}, err
	}
	fs := newFreshStats(an)
	for _, text := range texts {
		fs.addTurn(text)
	}
	return cacheStats{Cardinality: card, Turns: st.Turns, Last: fs.stats().Last}, nil
}

// lastTurnDocs returns the text of the last k documents of the turns of
// store, in order.
func lastTurnDocs(store *turnStore, k int) ([]string, error) {
	var blocks [][]string // from the last
	n := 0
	for i := len(store.ranges) - 1; i >= 0 && n < k; i-- {
		turns, _, err := store.decoded(i)
		if err != nil {
			return nil, err
		}
		var texts []string
		for _, t := range turns {
			for _, d := range turnDocs(t) {
				texts = append(texts, d.text)
			}
		}
		blocks = append(blocks, texts)
		n += len(texts)
	}
	var out []string
	for _, texts := range slices.Backward(blocks) {
		out = append(out, texts...)
	}
	return out[max(len(out)-k, 0):], nil
}
