package restore

import (
	"slices"

	"github.com/blevesearch/bleve/v2/analysis"
	bsearch "github.com/blevesearch/bleve/v2/search"
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
