package smg

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/restore"
	"github.com/smg-memory/smg/spec"
)

// Embedder turns texts into vectors (see [restore.Embedder]): the OpenAI
// client of package smg/provider is one, and so is any value with its
// methods. A memory given one ([Options], [OpenOptions]) stores a vector
// of every turn it ingests in its file (spec §8.3), and embeds each
// question, so that a context finds the turns nearest it in meaning as
// well as those that share its words.
type Embedder = restore.Embedder

// ErrEmbedding reports turns that could not be embedded. The turns are in
// the memory all the same, without vectors: [Memory.EmbedMissing] embeds
// them later.
var ErrEmbedding = errors.New("embedding")

// ErrInvalidEmbedding reports a vector the memory cannot keep: empty, not
// finite, or of other dimensions than the memory's vectors of the same
// model.
var ErrInvalidEmbedding = graph.ErrInvalidEmbedding

// embedChunk is how many turns IngestAll and EmbedMissing give the
// embedder at a time, storing each chunk's vectors before asking for the
// next: a failure costs one chunk, not the whole call. The embedder
// splits a chunk into requests of its own size.
const embedChunk = 256

// embedTurns embeds the given turns, whose numbers are nums, stores their
// vectors and returns how many turns it stored vectors of. A long turn is
// embedded as the passages a context may show of it (restore.Passages),
// each its own vector; turns with no content but white space get none. It
// is called without m.mu held, after the turns are in: the embedder may
// take a while, and the memory answers meanwhile.
func (m *Memory) embedTurns(ctx context.Context, nums []int, texts []string) (int, error) {
	if m.emb == nil {
		return 0, nil
	}
	var units []embedUnit
	for i, text := range texts {
		units = appendUnits(units, nums[i], text)
	}
	stored := 0
	model := m.emb.Model()
	for start := 0; start < len(units); start += embedChunk {
		end := min(start+embedChunk, len(units))
		chunk := units[start:end]
		batch := make([]string, len(chunk))
		for i, u := range chunk {
			batch[i] = u.text
		}
		vecs, err := m.emb.Embed(ctx, batch)
		if err == nil && len(vecs) != len(chunk) {
			err = fmt.Errorf("%d vectors for %d texts", len(vecs), len(chunk))
		}
		if err != nil {
			return stored, fmt.Errorf("%w %s: %w", ErrEmbedding, unitTurns(units[start:]), err)
		}
		m.mu.Lock()
		var bad []error
		for i, v := range vecs {
			u := chunk[i]
			if err := m.b.SetExcerptEmbedding(u.turn, u.span.Start, u.span.End, model, v); err != nil {
				bad = append(bad, err)
			} else if u.last {
				stored++
			}
		}
		m.gen++
		m.mu.Unlock()
		if len(bad) > 0 {
			return stored, fmt.Errorf("%w %s: %w", ErrEmbedding, unitTurns(chunk), errors.Join(bad...))
		}
	}
	return stored, nil
}

// An embedUnit is a text a memory embeds: a turn, or a passage of a long
// one. last marks the last unit of its turn.
type embedUnit struct {
	turn int
	span restore.Span
	text string
	last bool
}

// appendUnits appends the units of turn n, of content text, to units:
// none when it is only white space, its passages when it is long, itself
// otherwise.
func appendUnits(units []embedUnit, n int, text string) []embedUnit {
	if strings.TrimSpace(text) == "" {
		return units
	}
	ps := restore.Passages(text)
	if ps == nil {
		return append(units, embedUnit{turn: n, text: text, last: true})
	}
	for i, p := range ps {
		units = append(units, embedUnit{turn: n, span: p, text: text[p.Start:p.End], last: i == len(ps)-1})
	}
	return units
}

// unitTurns names the turns of units in an error (see turnList).
func unitTurns(units []embedUnit) string {
	nums := make([]int, 0, len(units))
	for _, u := range units {
		if len(nums) == 0 || nums[len(nums)-1] != u.turn {
			nums = append(nums, u.turn)
		}
	}
	return turnList(nums)
}

// turnList names turns in an error, after ErrEmbedding ("embedding turn
// 7"): "turn 7", "turns 7 to 12" (not all of them, when some had no
// content).
func turnList(nums []int) string {
	if len(nums) == 1 {
		return fmt.Sprintf("turn %d", nums[0])
	}
	return fmt.Sprintf("turns %d to %d", nums[0], nums[len(nums)-1])
}

// EmbedMissing embeds the turns of the memory that have no vector of its
// embedder's model, and returns how many it embedded, even when it fails
// part of the way: the turns of a
// memory made without an embedder, or whose embedding failed, or all of
// them after a change of model (the vectors of the old model are dropped
// then: the vectors of a memory are of one model). Without an embedder it
// does nothing. A memory opened from a file replays it first, as
// [Memory.Ingest] does.
func (m *Memory) EmbedMissing(ctx context.Context) (int, error) {
	if m.emb == nil {
		return 0, nil
	}
	m.mu.Lock()
	b, err := m.builder()
	if err != nil {
		m.mu.Unlock()
		return 0, err
	}
	doc := b.Document()
	m.mu.Unlock()
	has := map[int]bool{}
	if vi := doc.DeepArchive.VectorIndex; vi != nil && vi.Model == m.emb.Model() {
		for _, e := range vi.Embeddings {
			has[e.Turn] = true
		}
	}
	var nums []int
	var texts []string
	err = graph.EachTurn(doc, m.blocks, func(t spec.Turn) error {
		if !has[t.Turn] && strings.TrimSpace(t.Content) != "" {
			nums, texts = append(nums, t.Turn), append(texts, t.Content)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("reading the memory's turns: %w", err)
	}
	return m.embedTurns(ctx, nums, texts)
}
