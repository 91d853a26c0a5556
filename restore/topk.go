package restore

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/index/scorch"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	"golang.org/x/sync/errgroup"
)

// search returns the best k documents for text, best first, ties by id:
// the hits of Bleve's match query on "text" scored by BM25, sorted by
// score then id. stats, when set, are the statistics BM25 scores with, in
// place of the index's own.
//
// It scores as Bleve does but does not ask Bleve to: Bleve's collector
// scores every document that holds any of the question's terms and looks
// up the id of each to break ties, and on a memory of 38,912 turns whose
// question words are in most of them that took 81% of a context. This
// is MaxScore (Turtle and Flood, 1995): each term's score has a ceiling,
// and once k documents are held, the terms whose ceilings together cannot
// lift a document past the k-th are only looked up, by skipping, in the
// documents the others found. The result is the same documents with the
// same scores (TestSearchIsBleves), and ids are looked up only to break
// a tie.
//
// It reads the postings lists of Bleve's segments (scorch's) itself:
// through Bleve's term reader, which turns each posting into a document
// of the whole index, a warm context took 21 ms at p50 instead of 16.
// On a large index the segments are parted into runs, one per core up to
// searchWorkers, walked at once, each keeping its best k: the best k of
// all are among theirs.
func search(ix bleve.Index, text string, k int, stats *bsearch.BM25Stats) ([]hit, error) {
	return searchIn(ix, text, k, stats, 0)
}

// searchFrom is how many documents an index holds before search parts
// them, and searchWorkers how many parts it makes at most. On the
// 38,912-turn memory, two parts on two cores took warm contexts from
// p50 15.9 to 12.0 ms (the two asked in turn, 600 questions each).
// Parts score more documents in all, each with its own k-th best to
// beat, so a smaller index is searched whole, in a few milliseconds.
const (
	searchFrom    = 50_000
	searchWorkers = 4
)

// searchIn is search in parts ranges of the documents: 0 chooses.
func searchIn(ix bleve.Index, text string, k int, stats *bsearch.BM25Stats, parts int) ([]hit, error) {
	if k <= 0 {
		return nil, nil
	}
	an := ix.Mapping().AnalyzerNamed(analyzerName)
	if an == nil {
		return bleveSearch(ix, text, k, stats)
	}
	toks := an.Analyze([]byte(text))
	if len(toks) == 0 {
		return nil, nil
	}
	adv, err := ix.Advanced()
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer r.Close()
	docs, avg, err := bm25Metrics(r, stats)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if avg <= 0 {
		// Bleve scores an index without lengths by TF-IDF.
		return bleveSearch(ix, text, k, stats)
	}
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return bleveSearch(ix, text, k, stats)
	}
	segs := snap.Segments()
	if len(segs) == 0 {
		return nil, nil
	}
	if parts <= 0 {
		parts = 1
		if docs >= searchFrom {
			parts = min(runtime.GOMAXPROCS(0), searchWorkers)
		}
	}
	ms := partsOf(segs, max(1, min(parts, len(segs))), k, avg, len(toks))
	// The terms' postings lists, each part in its segments; then their
	// weights, which take every part's counts.
	names, of := termsOf(toks)
	g := new(errgroup.Group)
	for _, m := range ms {
		defer m.close()
		g.Go(func() error { return m.open(names) })
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	w := weigh(ms, of, docs, avg)
	for _, m := range ms {
		g.Go(func() error {
			if err := m.start(w); err != nil {
				return err
			}
			return m.run()
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	out, err := bestOf(r, ms, k)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return out, nil
}

// partsOf parts segs, in order, into n runs of about as many documents
// each, and returns a search of each.
func partsOf(segs []*scorch.SegmentSnapshot, n, k int, avg float64, total int) []*maxScore {
	var span uint64
	for _, s := range segs {
		span += uint64(s.FullSize())
	}
	ms := make([]*maxScore, 0, n)
	var at uint64
	m := &maxScore{k: k, avg: avg, total: total}
	for i, s := range segs {
		m.segs = append(m.segs, s)
		m.first = append(m.first, at)
		at += uint64(s.FullSize())
		// A part ends at its share of the documents, or when each part
		// after it needs one of the segments left.
		left, need := len(segs)-i-1, n-len(ms)-1
		if left == need || left > need && at*uint64(n) >= span*uint64(len(ms)+1) {
			ms = append(ms, m)
			m = &maxScore{k: k, avg: avg, total: total}
		}
	}
	return ms
}

// termsOf returns the distinct terms of toks, in order, and which each
// token is.
func termsOf(toks analysis.TokenStream) (names []string, of []int) {
	at := map[string]int{}
	for _, tok := range toks {
		i, ok := at[string(tok.Term)]
		if !ok {
			i = len(names)
			at[string(tok.Term)] = i
			names = append(names, string(tok.Term))
		}
		of = append(of, i)
	}
	return names, of
}

// weights are how the terms score, by term: as Bleve's term scorer, idf
// × saturated frequency, times weight unless that is 1; and the tokens of
// the question that are each, in the order Bleve's disjunction sums them.
type weights struct {
	idf, weight []float64
	slots       [][]int
}

// weigh weighs the terms as Bleve does: a term query per token, in a
// disjunction that orders them by how many documents hold their term
// (stably), takes its query norm and sums a document's scores in that
// order. of tells which term each token is; the documents that hold a
// term are counted over ms's segments.
func weigh(ms []*maxScore, of []int, docs uint64, avg float64) weights {
	n := len(ms[0].terms)
	df := make([]uint64, n)
	for _, m := range ms {
		for i, t := range m.terms {
			df[i] += t.count
		}
	}
	w := weights{idf: make([]float64, n), weight: make([]float64, n), slots: make([][]int, n)}
	for i := range n {
		w.idf[i] = math.Log(1 + (float64(docs)-float64(df[i])+0.5)/(float64(df[i])+0.5))
	}
	order := slices.Clone(of)
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(df[a], df[b]) })
	sumSq := 0.0
	for slot, i := range order {
		w.slots[i] = append(w.slots[i], slot)
		sumSq += w.idf[i] * w.idf[i]
	}
	norm := 1 / math.Sqrt(sumSq)
	for i := range n {
		w.weight[i] = w.idf[i] * norm
	}
	return w
}

// bleveSearch is search by Bleve's own collector.
func bleveSearch(ix bleve.Index, text string, k int, stats *bsearch.BM25Stats) ([]hit, error) {
	q := query.NewMatchQuery(text)
	q.SetField("text")
	req := bleve.NewSearchRequestOptions(q, k, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	if stats != nil {
		req.PreSearchData = map[string]any{bsearch.BM25PreSearchDataKey: stats}
	}
	res, err := ix.Search(req)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	out := make([]hit, 0, len(res.Hits))
	for _, h := range res.Hits {
		if h, ok := hitOf(h.ID, h.Score); ok {
			out = append(out, h)
		}
	}
	return out, nil
}

// bm25Metrics are the number of documents and their average length as
// Bleve's term searcher takes them: from stats when set, else from the
// index, the average rounded up.
func bm25Metrics(r index.IndexReader, stats *bsearch.BM25Stats) (docs uint64, avg float64, err error) {
	var card int
	if stats != nil {
		docs = uint64(stats.DocCount)
		card = stats.FieldCardinality["text"]
	} else {
		if docs, err = r.DocCount(); err != nil {
			return 0, 0, err
		}
		if br, ok := r.(index.BM25Reader); ok {
			if card, err = br.FieldCardinality("text"); err != nil {
				return 0, 0, err
			}
		}
	}
	if docs == 0 {
		return 0, 0, nil
	}
	return docs, math.Ceil(float64(card) / float64(docs)), nil
}

// term is one of the question's terms and where a part of the search
// reads its postings: a list in each of the part's segments.
type term struct {
	name  string
	lists []segment.PostingsList
	count uint64 // the documents of the part's segments that hold it
	first []uint64
	seg   int // the segment it is in, an index into lists
	it    segment.PostingsIterator
	spare segment.PostingsIterator // the last segment's, to use again
	p     segment.Posting          // the posting it is at
	doc   uint64                   // the document it is at, by number in the index
	done  bool
	// idf and weight make a posting's score as Bleve's term scorer does:
	// idf × saturated frequency, times weight unless that is 1.
	idf, weight float64
	slots       []int   // the question's tokens that are this term
	ceil        float64 // the most it adds to a document's sum
}

// next moves to the next posting.
func (t *term) next() error {
	for t.seg < len(t.lists) {
		if ok, err := t.move(false, 0); ok || err != nil {
			return err
		}
	}
	t.done = true
	return nil
}

// advance moves to the first posting at or after document doc, which is
// after the one it is at.
func (t *term) advance(doc uint64) error {
	if j := sort.Search(len(t.first), func(i int) bool { return t.first[i] > doc }) - 1; j > t.seg {
		if t.it != nil {
			t.spare, t.it = t.it, nil
		}
		t.seg = j
	}
	if t.seg < len(t.lists) {
		if ok, err := t.move(true, doc-t.first[t.seg]); ok || err != nil {
			return err
		}
	}
	return t.next()
}

// move moves the iterator of the segment t is in to its next posting,
// or with skip to its first at or after document local of the segment,
// and reports whether it found one; when it found none, t goes on to the
// next segment.
func (t *term) move(skip bool, local uint64) (bool, error) {
	if t.it == nil {
		t.it = t.lists[t.seg].Iterator(true, true, false, t.spare)
	}
	var p segment.Posting
	var err error
	if skip {
		p, err = t.it.Advance(local)
	} else {
		p, err = t.it.Next()
	}
	if err != nil {
		return false, err
	}
	if p == nil {
		t.spare, t.it = t.it, nil
		t.seg++
		return false, nil
	}
	t.p, t.doc = p, t.first[t.seg]+p.Number()
	return true, nil
}

// score is Bleve's BM25 score of the posting t is at.
func (t *term) score(avg float64) float64 {
	tf := math.Sqrt(float64(t.p.Frequency()))
	norm := t.p.Norm()
	length := 1 / (norm * norm)
	s := t.idf * (tf * bsearch.BM25_k1) / (tf + bsearch.BM25_k1*(1-bsearch.BM25_b+(bsearch.BM25_b*length/avg)))
	if t.weight != 1 {
		s *= t.weight
	}
	return s
}

// tfCeiling bounds the saturated frequency of any posting, the factor of
// Bleve's BM25 score that is not the term's idf:
//
//	tf·k1 / (tf + k1·(1−b + b·len/avg)), tf = √freq
//
// It is below k1, and since a document holds a term no more often than
// it has tokens (len ≥ tf²), below the most of
//
//	tf·k1 / (tf + k1·(1−b) + k1·b·tf²/avg)
//
// over tf ≥ 1, which is at tf = √((1−b)·avg/b). Bleve's average length
// is its dictionaries' sizes over its documents, a few tokens, so this is
// about half of k1: a ceiling that low lets the common terms of a
// question be looked up only, early. The length is read back from a
// norm stored in 32 bits, hence the margin.
func tfCeiling(avg float64) float64 {
	k1, b := bsearch.BM25_k1, bsearch.BM25_b
	tf := max(1, math.Sqrt((1-b)*avg/b))
	return tf * k1 / (tf + k1*(1-b) + k1*b*tf*tf*(1-1e-6)/avg) * (1 + 1e-6)
}

// scored is a document held among the best: its number, its score and,
// once bestOf has read it, its id.
type scored struct {
	doc   uint64
	score float64
	id    string
}

// maxScore is one search: the question's terms, cheapest ceiling first,
// and the best k documents found so far, the worst at the top of a heap.
type maxScore struct {
	k     int
	avg   float64
	total int // the question's tokens: Bleve's coordination divides by them
	// segs are the segments it walks, and first the number in the index
	// of each one's first document.
	segs  []*scorch.SegmentSnapshot
	first []uint64
	terms []*term
	best  []scored
	// ties are the documents found that score as the k-th best does and
	// are not in best: which of them rank among the best k is settled by
	// their ids, which bestOf reads once for all. Reading the ids of two
	// documents at each tie as they were found (a stored field each,
	// decompressed) took the warm contexts of the 38,912-turn memory,
	// whose chats are there sixteen times over and tie at every turn,
	// from p50 10.2–11.5 ms to 12.2–13.6.
	ties []scored
	// essential is the index in terms of the first term whose postings
	// are walked; those before it are only looked up.
	essential int
	parts     []float64 // a document's score by token, summed in order
}

func (m *maxScore) close() {
	for _, t := range m.terms {
		for _, l := range t.lists {
			if c, ok := l.(interface{ Close() error }); ok {
				c.Close()
			}
		}
	}
}

// open reads the postings lists of the terms names in m's segments.
func (m *maxScore) open(names []string) error {
	m.terms = make([]*term, len(names))
	for i, name := range names {
		m.terms[i] = &term{name: name, first: m.first, lists: make([]segment.PostingsList, len(m.segs))}
	}
	for j, s := range m.segs {
		d, err := s.Segment().Dictionary("text")
		if err != nil {
			return err
		}
		for _, t := range m.terms {
			l, err := d.PostingsList([]byte(t.name), s.Deleted(), nil)
			if err != nil {
				return err
			}
			t.lists[j] = l
			t.count += l.Count()
		}
	}
	return nil
}

// start weighs the terms by w, puts each at its first posting and orders
// them by ceiling.
func (m *maxScore) start(w weights) error {
	top := tfCeiling(m.avg)
	for i, t := range m.terms {
		t.idf, t.weight, t.slots = w.idf[i], w.weight[i], w.slots[i]
		t.ceil = float64(len(t.slots)) * t.idf * top * t.weight
		if err := t.next(); err != nil {
			return err
		}
	}
	slices.SortStableFunc(m.terms, func(a, b *term) int { return cmp.Compare(a.ceil, b.ceil) })
	m.parts = make([]float64, m.total)
	return nil
}

// run walks the documents of the essential terms in order and keeps the
// best k.
func (m *maxScore) run() error {
	for {
		doc, ok := uint64(0), false
		for _, t := range m.terms[m.essential:] {
			if !t.done && (!ok || t.doc < doc) {
				doc, ok = t.doc, true
			}
		}
		if !ok {
			return nil
		}
		clear(m.parts)
		matched := 0
		sum := 0.0
		for _, t := range m.terms[m.essential:] {
			if t.done || t.doc != doc {
				continue
			}
			m.add(t, &matched, &sum)
			if err := t.next(); err != nil {
				return err
			}
		}
		// The others, the highest ceiling first, while they could still
		// lift the document into the best k.
		rest, restSlots := 0.0, 0
		for _, t := range m.terms[:m.essential] {
			rest += t.ceil
			restSlots += len(t.slots)
		}
		pruned := false
		for i := m.essential - 1; i >= 0; i-- {
			if (sum+rest)*float64(matched+restSlots)/float64(m.total) < m.threshold() {
				pruned = true
				break
			}
			t := m.terms[i]
			if !t.done && t.doc < doc {
				if err := t.advance(doc); err != nil {
					return err
				}
			}
			if !t.done && t.doc == doc {
				m.add(t, &matched, &sum)
			}
			rest -= t.ceil
			restSlots -= len(t.slots)
		}
		if pruned {
			continue
		}
		// Summed in the question's order, as Bleve's disjunction does,
		// so that a document's score does not depend on the walk.
		score := 0.0
		for _, p := range m.parts {
			score += p
		}
		score *= float64(matched) / float64(m.total)
		m.offer(scored{doc: doc, score: score})
	}
}

// add adds t's posting to the document being scored.
func (m *maxScore) add(t *term, matched *int, sum *float64) {
	s := t.score(m.avg)
	for _, i := range t.slots {
		m.parts[i] = s
		*sum += s
	}
	*matched += len(t.slots)
}

// threshold is the score a document must beat to be among the best k,
// or −∞ while fewer are held.
func (m *maxScore) threshold() float64 {
	if len(m.best) < m.k {
		return math.Inf(-1)
	}
	return m.best[0].score
}

// offer keeps d if it is among the best k, or ties with the k-th, and
// lets more terms be only looked up as the k-th best rises.
func (m *maxScore) offer(d scored) {
	switch {
	case len(m.best) < m.k:
		m.best = append(m.best, d)
		m.up(len(m.best) - 1)
		if len(m.best) < m.k {
			return
		}
	case d.score < m.best[0].score:
		return
	case d.score == m.best[0].score:
		m.ties = append(m.ties, d)
		return
	default:
		out := m.best[0]
		m.best[0] = d
		m.down(0)
		if m.best[0].score > out.score {
			m.ties = m.ties[:0] // they all score out.score
		} else {
			m.ties = append(m.ties, out)
		}
	}
	m.lookUpOnly()
}

// lookUpOnly sets essential once k documents are held: the cheapest
// terms whose ceilings together cannot reach the k-th best's score are
// only looked up.
func (m *maxScore) lookUpOnly() {
	θ := m.best[0].score
	ceil, slots := 0.0, 0
	m.essential = len(m.terms)
	for i, t := range m.terms {
		ceil += t.ceil
		slots += len(t.slots)
		if ceil*float64(slots)/float64(m.total) >= θ {
			m.essential = i
			break
		}
	}
}

// worse reports whether a ranks below b in the heap: a lower score, or
// the same and a later number. bestOf ranks the documents that tie by id.
func worse(a, b *scored) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.doc > b.doc
}

func (m *maxScore) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !worse(&m.best[i], &m.best[p]) {
			return
		}
		m.best[i], m.best[p] = m.best[p], m.best[i]
		i = p
	}
}

func (m *maxScore) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(m.best) {
			return
		}
		c := l
		if r := l + 1; r < len(m.best) && worse(&m.best[r], &m.best[l]) {
			c = r
		}
		if !worse(&m.best[c], &m.best[i]) {
			return
		}
		m.best[i], m.best[c] = m.best[c], m.best[i]
		i = c
	}
}

// bestOf are the best k of the documents ms hold, best first, ties by
// id. Ids are read for those kept, and for those that tie with the k-th.
func bestOf(r index.IndexReader, ms []*maxScore, k int) ([]hit, error) {
	var all []scored
	for _, m := range ms {
		all = append(all, m.best...)
		all = append(all, m.ties...)
	}
	slices.SortFunc(all, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	if len(all) > k {
		last := k
		for last < len(all) && all[last].score == all[k-1].score {
			last++
		}
		all = all[:last]
	}
	for i := range all {
		if all[i].id == "" {
			id, err := r.ExternalID(index.NewIndexInternalID(nil, all[i].doc))
			if err != nil {
				return nil, err
			}
			all[i].id = id
		}
	}
	slices.SortFunc(all, func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	out := make([]hit, 0, min(len(all), k))
	for _, s := range all[:min(len(all), k)] {
		if h, ok := hitOf(s.id, s.score); ok {
			out = append(out, h)
		}
	}
	return out, nil
}
