package restore

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"iter"
	"math"
	"slices"
	"sync"

	"github.com/smg-memory/smg/restore/vec"
	"github.com/smg-memory/smg/spec"
)

// An Embedder turns texts into vectors: one per text, in the order of
// texts, all of one length. Model names the model, as a memory's
// vectorIndex records it (spec §8.3): a memory's vectors are compared with
// a question's only when the two models are the same. It must be safe for
// concurrent use: contexts are.
//
// The method set is the one of package smg/provider's Embedder, which
// restore does not import: its OpenAI client, or any value with these
// methods, is a restore.Embedder.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Model() string
}

// The numbers of vector retrieval.
//
// vectorHits is how many of the turns nearest the question become hits (a
// long turn as near as its nearest passage). Their "vector" part is their
// cosine similarity scaled to [0, 1] between a floor and the nearest turn,
// as the full-text part is a turn's BM25 score over the best one's. The
// floor is the cosine of the first turn left out, or the mean cosine of
// the memory's vectors when that is higher: a turn is near only when it
// is nearer than the memory's average one. Without the mean, every turn of
// a memory of fewer turns than vectorHits was near: in the demo's 20
// turns, "thanks" and "You're welcome" outranked the fix a question asked
// for. On the dev files, whose conversations have 240–700 turns, the mean
// moved beam-dev from 0.641 / 0.812 to 0.646 / 0.805 and LoCoMo not at
// all.
//
// A turn's score is its full-text evidence (search, statement, neighbor)
// plus vectorWeight times its vector part: a sum, not a maximum, so that
// a turn both searches find outranks one that only one finds, and a turn
// only the vectors find (a question that shares no word with its answer)
// still competes. Its vector part lends to the turns around it as its
// search part does (but a long turn's lends nothing: see neighbors).
//
// Measured with the built-in encoder on the dev files (evidence recall
// over categories 1–4, cl100k, at 1,000 / 4,000 tokens; BENCHMARKS.md
// has every variant): weight 1 and 50 hits, the defaults before a model
// could run here, lost 2.3 points on LoCoMo at 1,000 tokens; weight 0.5
// did better, 0.35 and 0.25 best on both files (0.25 a little better on
// LoCoMo, 0.35 on BEAM), 0.15 worse on both. 200 hits did better than 50
// and 100 on both, and 300 no better than 200.
const (
	vectorHits   = 200
	vectorWeight = 0.35
)

// vectorIndex holds a memory's vectors of turns and of passages of long
// turns, as unit vectors, so that a cosine is a dot product.
type vectorIndex struct {
	model string
	dims  int
	enc   string      // the encoding of src
	turns []int       // in the order of the document's embeddings
	spans []Span      // by turns: the excerpt, or zero for the whole turn
	rows  [][]float32 // by turns; unit length
	// src are the bytes each row was decoded from: a later version of the
	// memory that holds the same bytes (its builder shares them) reuses
	// the row.
	src [][]byte
	// int8 are the signed bytes of each row of an int8 index (src
	// without its scale), and inv the inverse of their length, for
	// nearInt8; nil for other encodings, or when a scale is too small
	// or too large for nearInt8's bound to hold.
	int8 [][]byte
	inv  []float64
}

// newVectorIndex reads doc's vector index, float32 or int8 (§8.3). Rows
// of old decoded from the very bytes doc holds are reused, so that an
// update of a live memory decodes only its new vectors. Vectors that are
// not of the length their encoding gives, or are zero, are left out: they
// cannot be compared; so is an index of an encoding §8.3 does not define.
func newVectorIndex(doc *spec.Document, old *vectorIndex) *vectorIndex {
	vi := doc.DeepArchive.VectorIndex
	if vi == nil || vi.Dimensions <= 0 || len(vi.Embeddings) == 0 {
		return nil
	}
	if _, err := spec.VectorSize(vi.Encoding, vi.Dimensions); err != nil {
		return nil
	}
	n := len(vi.Embeddings)
	x := &vectorIndex{model: vi.Model, dims: vi.Dimensions, enc: vi.VectorEncoding(), turns: make([]int, 0, n), spans: make([]Span, 0, n), rows: make([][]float32, 0, n), src: make([][]byte, 0, n)}
	var had map[*byte]int // the first byte of each of old's sources → its row
	if old != nil && old.model == x.model && old.dims == x.dims && old.enc == x.enc {
		had = make(map[*byte]int, len(old.src))
		for i, b := range old.src {
			had[&b[0]] = i
		}
	}
	reuse := make([]int, n)
	fresh := 0
	for i, e := range vi.Embeddings {
		reuse[i] = -1
		if k, ok := had[firstByte(e.Vector)]; ok && len(old.src[k]) == len(e.Vector) {
			reuse[i] = k
		} else {
			fresh++
		}
	}
	if x.enc == spec.EncodingInt8 {
		x.int8, x.inv = make([][]byte, 0, n), make([]float64, 0, n)
	}
	slab := make([]float32, fresh*x.dims)
	for i, e := range vi.Embeddings {
		if k := len(x.turns) - 1; k >= 0 && spec.CompareEmbeddings(spec.Embedding{Turn: x.turns[k], Start: x.spans[k].Start, End: x.spans[k].End}, e) >= 0 {
			continue // the writer's mistake: one vector an excerpt, in order (§8.3, §9.2)
		}
		span := Span{Start: e.Start, End: e.End}
		if k := reuse[i]; k >= 0 {
			inv := 0.0
			if old.inv != nil {
				inv = old.inv[k]
			}
			x.add(e.Turn, span, old.rows[k], e.Vector, inv)
			continue
		}
		row := slab[:x.dims:x.dims]
		slab = slab[x.dims:]
		if unit(row, x.enc, e.Vector) {
			x.add(e.Turn, span, row, e.Vector, 0)
		}
	}
	if len(x.turns) == 0 {
		return nil
	}
	return x
}

// add adds a row decoded from src. inv is the inverse of the length of
// an int8 row's bytes, 0 when it is to be worked out.
func (x *vectorIndex) add(turn int, span Span, row []float32, src []byte, inv float64) {
	x.turns = append(x.turns, turn)
	x.spans = append(x.spans, span)
	x.rows = append(x.rows, row)
	x.src = append(x.src, src)
	if x.int8 == nil {
		return
	}
	// The scale of an int8 row: nearInt8's bound counts on each value,
	// scale times its byte, being rounded as a normal float32 is.
	if sc := math.Float32frombits(binary.LittleEndian.Uint32(src)); !(math.Abs(float64(sc)) >= 0x1p-100 && math.Abs(float64(sc)) <= 0x1p100) {
		x.int8, x.inv = nil, nil
		return
	}
	b := src[4:]
	if inv == 0 {
		var ss int64
		for _, v := range b {
			ss += int64(int8(v)) * int64(int8(v))
		}
		inv = 1 / math.Sqrt(float64(ss))
	}
	x.int8 = append(x.int8, b)
	x.inv = append(x.inv, inv)
}

// firstByte is the address of b's first byte, nil when it has none: a
// document's vectors do not change while an engine uses it, so two
// vectors at one address are the same bytes.
func firstByte(b []byte) *byte {
	if len(b) == 0 {
		return nil
	}
	return &b[0]
}

// unit decodes the values of src, of encoding enc, into row and scales
// them to unit length. It reports false for bytes of another length than
// enc gives, and for a vector that has no direction: zero, or not finite.
func unit(row []float32, enc string, src []byte) bool {
	return spec.DecodeVectorInto(row, enc, src) == nil && vec.Normalize(row)
}

// queryVector is a question's embedding, of the model it was made by,
// scaled to unit length.
type queryVector struct {
	model string
	v     []float32
}

// embedQuery embeds the question, once, when the engine has an embedder
// and the memory has vectors of its model. It never fails: what goes
// wrong (the embedder fails, or its model is not the memory's) is a
// warning, and the context is built from full text alone. It is called
// without e.rw held, as the embedder may take a while.
func (e *Engine) embedQuery(ctx context.Context, query string) (*queryVector, []string) {
	emb := e.cfg.Embedder
	if emb == nil {
		return nil, nil
	}
	e.rw.RLock()
	x := e.vecs
	e.rw.RUnlock()
	if x == nil {
		return nil, nil // nothing to compare with
	}
	model := emb.Model()
	if model != x.model {
		return nil, []string{fmt.Sprintf("the memory's vectors are of model %q, the embedder's of %q: found by full text only", x.model, model)}
	}
	vs, err := emb.Embed(ctx, []string{query})
	if err != nil {
		return nil, []string{fmt.Sprintf("embedding the question: %v: found by full text only", err)}
	}
	if len(vs) != 1 || len(vs[0]) != x.dims {
		n := 0
		if len(vs) > 0 {
			n = len(vs[0])
		}
		return nil, []string{fmt.Sprintf("the embedder gave %d vectors of %d values for the question, the memory's have %d: found by full text only", len(vs), n, x.dims)}
	}
	v := slices.Clone(vs[0])
	if !vec.Normalize(v) {
		return nil, []string{"the question's vector is zero or not finite: found by full text only"}
	}
	return &queryVector{model: model, v: v}, nil
}

// vecHit is what the vectors found of a turn: its vector part, and the
// passage it is of, zero for the whole turn.
type vecHit struct {
	part float64
	span Span
}

// vectorTurns returns the vector parts of the vectorHits turns nearest q,
// by turn: nil without q, or when the memory's vectors are no longer of
// q's model. A long turn is as near as the nearest of its passages, and
// its hit says which. e.rw is held for reading.
func (e *Engine) vectorTurns(q *queryVector) map[int]vecHit {
	x := e.vecs
	if q == nil || x == nil || x.model != q.model || x.dims != len(q.v) {
		return nil
	}
	best, floor := x.nearest(q.v)
	if len(best) == 0 || best[0].cos <= floor {
		return nil
	}
	out := make(map[int]vecHit, len(best))
	for _, n := range best {
		if n.cos > floor {
			out[n.turn] = vecHit{part: float64(n.cos-floor) / float64(best[0].cos-floor), span: n.span}
		}
	}
	return out
}

// near is a turn and its cosine with the question: of its nearest row,
// whose passage span is.
type near struct {
	turn int
	span Span
	cos  float32
}

// nearest returns the vectorHits turns nearest q, nearest first, ties to
// the earlier turn, and the floor of the scale of their vector parts: the
// cosine of the first turn left out, or the mean cosine of the memory's
// rows when that is higher, and at least zero. The cosines are those of
// vec.Dot, to the bit, whether nearInt8 or every row's found them.
func (x *vectorIndex) nearest(q []float32) (best []near, floor float32) {
	best, floor, ok := x.nearInt8(q)
	if !ok {
		best, floor = x.nearEvery(q)
	}
	return best[:min(len(best), vectorHits)], floor
}

// nearEvery is nearest read from the cosines of every row: the
// vectorHits+1 nearest turns and the floor.
func (x *vectorIndex) nearEvery(q []float32) (best []near, floor float32) {
	cos := make([]float32, len(x.rows))
	vec.DotEach(q, x.rows, cos)
	var sum float64 // of the cosines, for their mean
	for _, c := range cos {
		sum += float64(c)
	}
	best = x.nearTurns(func(yield func(int) bool) {
		for i := range x.rows {
			if !yield(i) {
				return
			}
		}
	}, func(i int) float32 { return cos[i] })
	floor = max(0, float32(sum/float64(max(len(x.rows), 1))))
	if len(best) > vectorHits {
		floor = max(floor, best[vectorHits].cos)
	}
	return best, floor
}

// nearTurns returns the vectorHits+1 nearest turns of rows (row indexes,
// in order), nearest first, ties to the earlier turn, cos giving each
// row's cosine. A turn's rows are together (the index goes by turn), so
// each turn is weighed once, by its nearest row.
func (x *vectorIndex) nearTurns(rows iter.Seq[int], cos func(int) float32) []near {
	best := make([]near, 0, vectorHits+1)
	consider := func(n near) {
		if len(best) == cap(best) && n.cos <= best[len(best)-1].cos {
			return
		}
		j, _ := slices.BinarySearchFunc(best, n.cos, func(b near, c float32) int {
			if b.cos >= c {
				return -1
			}
			return 1
		})
		if len(best) == cap(best) {
			best = best[:len(best)-1]
		}
		best = slices.Insert(best, j, n)
	}
	cur := near{turn: -1}
	for i := range rows {
		c := cos(i)
		if x.turns[i] != cur.turn {
			if cur.turn >= 0 {
				consider(cur)
			}
			cur = near{turn: x.turns[i], span: x.spans[i], cos: c}
		} else if c > cur.cos {
			cur.span, cur.cos = x.spans[i], c
		}
	}
	if cur.turn >= 0 {
		consider(cur)
	}
	return best
}

// nearScratch is what nearInt8 works in: the estimates of the rows, and
// each turn's first row and its estimate, the best of its rows'. It is
// kept for the next question (int8Scratch): at 10,000 rows it is 200 kB.
type nearScratch struct {
	est   []float32
	turns []turnEst
}

type turnEst struct {
	first int
	est   float64
}

var int8Scratch sync.Pool

// int8Delta is how far an estimate of nearInt8 may be from vec.Dot's
// cosine, at most, for rows of dims values (see nearInt8).
func int8Delta(dims int) float64 {
	return 2 * (vec.Int8Error(dims) + float64(dims/8+14)*0x1p-24)
}

// nearInt8 is nearest read from an int8 index's bytes, a quarter of its
// float32 rows: every row's cosine is estimated from its bytes
// (vec.DotInt8Each), and only the turns whose estimate could put them
// among the vectorHits+1 nearest have their rows' cosines worked out, as
// nearest would, and ranked. ok is false when it cannot tell: the index
// is not int8, the memory has no more turns than vectorHits, or the mean
// cosine is too near the first turn left out to tell which is the floor.
//
// An estimate is within delta of the cosine vec.Dot gives: the estimate
// within vec.Int8Error of the exact cosine of the bytes (q and the bytes
// scaled to unit length have a dot product of at most one), and Dot's
// within 3 roundings of each value (scale × byte, the length, to float32)
// and (n/8+11) of its sums; delta is twice their sum. So the cosine of the
// (vectorHits+1)th nearest turn is at least T−delta, T the (vectorHits+1)th
// estimate, and a turn among the nearest has an estimate of at least
// T−2·delta: the turns ranked hold every turn of nearest's list, in their
// order, and give the same list.
func (x *vectorIndex) nearInt8(q []float32) (best []near, floor float32, ok bool) {
	if x.int8 == nil {
		return nil, 0, false
	}
	sc, _ := int8Scratch.Get().(*nearScratch)
	if sc == nil {
		sc = &nearScratch{}
	}
	defer int8Scratch.Put(sc)
	est := slices.Grow(sc.est[:0], len(x.int8))[:len(x.int8)]
	sc.est = est
	vec.DotInt8Each(q, x.int8, est)
	delta := int8Delta(x.dims)
	turns := slices.Grow(sc.turns[:0], len(est))
	defer func() { sc.turns = turns }()
	var sum float64 // of the estimates, for the mean
	for i, c := range est {
		a := float64(c) * x.inv[i]
		sum += a
		if i == 0 || x.turns[i] != x.turns[i-1] {
			turns = append(turns, turnEst{first: i, est: a})
		} else {
			turns[len(turns)-1].est = max(turns[len(turns)-1].est, a)
		}
	}
	if len(turns) <= vectorHits {
		return nil, 0, false
	}
	// The (vectorHits+1)th estimate: the least of a min-heap of the
	// vectorHits+1 best.
	h := make([]float64, 0, vectorHits+1)
	for _, t := range turns {
		if len(h) < cap(h) {
			h = append(h, t.est)
			for j := len(h) - 1; j > 0 && h[(j-1)/2] > h[j]; j = (j - 1) / 2 {
				h[j], h[(j-1)/2] = h[(j-1)/2], h[j]
			}
			continue
		}
		if t.est <= h[0] {
			continue
		}
		h[0] = t.est
		for j := 0; ; {
			m := j
			if l := 2*j + 1; l < len(h) && h[l] < h[m] {
				m = l
			}
			if r := 2*j + 2; r < len(h) && h[r] < h[m] {
				m = r
			}
			if m == j {
				break
			}
			h[j], h[m] = h[m], h[j]
			j = m
		}
	}
	least := h[0] - 2*delta
	best = x.nearTurns(func(yield func(int) bool) {
		for k, t := range turns {
			if t.est < least {
				continue
			}
			end := len(x.rows)
			if k+1 < len(turns) {
				end = turns[k+1].first
			}
			for i := t.first; i < end; i++ {
				if !yield(i) {
					return
				}
			}
		}
	}, func(i int) float32 { return vec.Dot(q, x.rows[i]) })
	if len(best) <= vectorHits || !(sum/float64(len(est))+delta < float64(best[vectorHits].cos)) {
		return nil, 0, false
	}
	return best, max(0, best[vectorHits].cos), true
}

// withVectors adds to a search's items the turns near the question: a
// turn both searches found keeps its item, the others come in as turns
// with a vector part only. The score of every item is then on the
// context's scale: its BM25 score over the best one's, plus vectorWeight
// times its vector part; the "search" part stays the BM25 score. The best
// limit items are kept, best first. e.rw is held for reading.
func (e *Engine) withVectors(items []Item, q *queryVector, limit int) []Item {
	vec := e.vectorTurns(q)
	if vec == nil {
		return items
	}
	best := 0.0
	for _, it := range items {
		best = max(best, it.Parts["search"])
	}
	seen := map[int]bool{}
	for i := range items {
		it := &items[i]
		s := 0.0
		if best > 0 {
			s = it.Parts["search"] / best
		}
		if v, ok := vec[it.Turn]; ok && it.Kind == "turn" {
			it.Parts["vector"] = round4(v.part)
			s += vectorWeight * v.part
			seen[it.Turn] = true
		}
		it.Score = round4(s)
	}
	for _, n := range sortedKeysInt(vec) {
		if seen[n] {
			continue
		}
		t, ok := e.turn(n)
		if !ok {
			continue
		}
		items = append(items, Item{
			Kind: "turn", Turn: n, ExternalID: t.ExternalID, Timestamp: t.Timestamp, Text: t.Content,
			Score: round4(vectorWeight * vec[n].part), Parts: map[string]float64{"vector": round4(vec[n].part)},
		})
	}
	slices.SortStableFunc(items, func(a, b Item) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Turn, b.Turn), cmp.Compare(a.NodeID, b.NodeID))
	})
	if limit > 0 && len(items) > limit {
		items = items[:limit]
	}
	return items
}
