package baseline

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/smg-memory/smg/restore"
	"github.com/smg-memory/smg/restore/vec"
)

// rrfK is the constant of reciprocal-rank fusion: a document's fused
// score is the sum over the rankings of 1/(rrfK + its rank), ranks from
// 1. 60 is the value of Cormack, Clarke and Büttcher (2009), and the one
// the outside measurement used.
const rrfK = 60

// Fused ranks documents by reciprocal-rank fusion of BM25 (as [BM25]
// ranks them) and the cosine of their vectors with the question's, as a
// plain retriever of both kinds would: no graph, no neighbours.
type Fused struct {
	bm25 *BM25
	emb  restore.Embedder
	rows [][]float32 // unit vectors, by document; nil for one that has none
}

// NewFused indexes texts for BM25 and embeds them with emb (vectors of
// embed[i], the text a document is embedded as, which may leave out what
// the BM25 text starts with).
func NewFused(ctx context.Context, texts, embed []string, emb restore.Embedder) (*Fused, error) {
	if len(texts) != len(embed) {
		return nil, fmt.Errorf("%d texts and %d texts to embed", len(texts), len(embed))
	}
	vecs, err := emb.Embed(ctx, embed)
	if err != nil {
		return nil, fmt.Errorf("embedding: %w", err)
	}
	if len(vecs) != len(embed) {
		return nil, fmt.Errorf("embedding: %d vectors for %d texts", len(vecs), len(embed))
	}
	b, err := NewBM25(texts)
	if err != nil {
		return nil, err
	}
	rows := make([][]float32, len(vecs))
	for i, v := range vecs {
		rows[i] = vec.Unit(v)
	}
	return &Fused{bm25: b, emb: emb, rows: rows}, nil
}

// Rank returns the indexes of the documents, best first: those BM25
// finds or that have a vector, by their fused score, ties in document
// order.
func (f *Fused) Rank(ctx context.Context, query string) ([]int, error) {
	lexical, err := f.bm25.Rank(ctx, query)
	if err != nil {
		return nil, err
	}
	score := make([]float64, len(f.rows))
	for r, i := range lexical {
		score[i] += 1 / float64(rrfK+r+1)
	}
	qs, err := f.emb.Embed(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("embedding the question: %w", err)
	}
	if len(qs) == 1 {
		if q := vec.Unit(qs[0]); q != nil {
			byCos := make([]int, 0, len(f.rows))
			cos := make([]float64, len(f.rows))
			for i, row := range f.rows {
				if row != nil && len(row) == len(q) {
					cos[i] = float64(vec.Dot(q, row))
					byCos = append(byCos, i)
				}
			}
			slices.SortStableFunc(byCos, func(a, b int) int { return cmp.Compare(cos[b], cos[a]) })
			for r, i := range byCos {
				score[i] += 1 / float64(rrfK+r+1)
			}
		}
	}
	order := make([]int, 0, len(score))
	for i, s := range score {
		if s > 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(score[b], score[a]) })
	return order, nil
}

// Close releases the BM25 index.
func (f *Fused) Close() error { return f.bm25.Close() }
