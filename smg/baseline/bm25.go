// Package baseline holds what smg's benchmarks compare its contexts with:
// BM25 over single turns, indexed with the English analyzer smg's engine
// uses (stop words, Porter stemming), so that a difference in recall is
// the engine's, not the analyzer's.
package baseline

import (
	"context"
	"fmt"
	"strconv"

	"github.com/blevesearch/bleve/v2"

	"github.com/smg-memory/smg/restore"
)

// BM25 ranks lines of text by Okapi BM25 (k1 = 1.2, b = 0.75), the query
// being a match query of any of its terms.
type BM25 struct {
	idx bleve.Index
	n   int
}

// NewBM25 indexes lines.
func NewBM25(lines []string) (*BM25, error) {
	idx, err := restore.NewTextIndex()
	if err != nil {
		return nil, err
	}
	batch := idx.NewBatch()
	for i, line := range lines {
		if err := batch.Index(docID(i), map[string]any{"text": line}); err != nil {
			idx.Close()
			return nil, err
		}
	}
	if err := idx.Batch(batch); err != nil {
		idx.Close()
		return nil, err
	}
	return &BM25{idx: idx, n: len(lines)}, nil
}

// Rank returns the indexes of the lines that match query, best first, ties
// in the order of the lines.
func (b *BM25) Rank(ctx context.Context, query string) ([]int, error) {
	mq := bleve.NewMatchQuery(query)
	mq.SetField("text")
	req := bleve.NewSearchRequestOptions(mq, b.n, 0, false)
	req.SortBy([]string{"-_score", "_id"}) // ties in line order
	sr, err := b.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, err
	}
	order := make([]int, 0, len(sr.Hits))
	for _, h := range sr.Hits {
		i, err := strconv.Atoi(h.ID)
		if err != nil || i < 0 || i >= b.n {
			return nil, fmt.Errorf("unexpected hit %q", h.ID)
		}
		order = append(order, i)
	}
	return order, nil
}

// Close releases the index.
func (b *BM25) Close() error { return b.idx.Close() }

// docID is the Bleve id of the i-th line, padded so that ids sort in line
// order.
func docID(i int) string { return fmt.Sprintf("%07d", i) }
