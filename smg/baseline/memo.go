package baseline

import (
	"context"
	"fmt"
	"sync"

	"github.com/smg-memory/smg/restore"
)

// Memo is an embedder that embeds each distinct text once: a benchmark
// that builds a memory and a baseline of the same texts (the passages of
// a conversation, its questions) gives both one Memo, and the encoder
// works once for them. It is safe for concurrent use; it keeps every
// vector for its life.
type Memo struct {
	emb  restore.Embedder
	mu   sync.Mutex
	seen map[string][]float32
}

// NewMemo remembers what emb embeds.
func NewMemo(emb restore.Embedder) *Memo {
	return &Memo{emb: emb, seen: map[string][]float32{}}
}

// Model is the model of the embedder it remembers.
func (m *Memo) Model() string { return m.emb.Model() }

// Embed returns the vectors of texts, asking the embedder for those of
// texts it has not seen, in one call.
func (m *Memo) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	var miss []string
	asked := map[string]bool{}
	m.mu.Lock()
	for _, t := range texts {
		if _, ok := m.seen[t]; !ok && !asked[t] {
			asked[t] = true
			miss = append(miss, t)
		}
	}
	m.mu.Unlock()
	if len(miss) > 0 {
		vs, err := m.emb.Embed(ctx, miss)
		if err != nil {
			return nil, err
		}
		if len(vs) != len(miss) {
			return nil, fmt.Errorf("%d vectors for %d texts", len(vs), len(miss))
		}
		m.mu.Lock()
		for j, v := range vs {
			m.seen[miss[j]] = v
		}
		m.mu.Unlock()
	}
	out := make([][]float32, len(texts))
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, t := range texts {
		out[i] = m.seen[t]
	}
	return out, nil
}
