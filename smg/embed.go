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

// Embedder turns texts into vectors (see [restore.Embedder]): the
// built-in sentence encoder ([BuiltinEmbedder]) is one, the OpenAI client
// of package smg/provider another, and so is any value with its methods.
// A memory stores a vector of every turn it ingests in its file (spec
// §8.3), and embeds each question, so that a context finds the turns
// nearest it in meaning as well as those that share its words: with the
// built-in encoder unless given another embedder or told NoVectors
// ([Options], [OpenOptions]).
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
// embedded as its first passages (restore.EmbeddedPassages), each its own
// vector; turns with no content but white space get none. It
// is called without m.mu held, after the turns are in: the embedder may
// take a while, and the memory answers meanwhile. progress, when set, is
// told after each chunk how many of the turns with content have their
// vectors. background embeds as background work, with the embedder's
// EmbedSerially when it has one (see [serialEmbedder]).
func (m *Memory) embedTurns(ctx context.Context, nums []int, texts []string, progress func(done, total int), background bool) (int, error) {
	if m.emb == nil {
		return 0, nil
	}
	var units []embedUnit
	for i, text := range texts {
		units = appendUnits(units, nums[i], text)
	}
	stored, total := 0, 0
	for _, u := range units {
		if u.last {
			total++
		}
	}
	if progress != nil && total > 0 {
		progress(0, total)
	}
	model := m.emb.Model()
	for start, end := 0, 0; start < len(units); start = end {
		end = chunkEnd(units, start)
		chunk := units[start:end]
		batch := make([]string, len(chunk))
		for i, u := range chunk {
			batch[i] = u.text
		}
		embed := m.emb.Embed
		if s, ok := m.emb.(serialEmbedder); ok && background {
			embed = s.EmbedSerially
		}
		vecs, err := embed(ctx, batch)
		if err == nil && len(vecs) != len(chunk) {
			err = fmt.Errorf("%d vectors for %d texts", len(vecs), len(chunk))
		}
		if err != nil {
			return stored, fmt.Errorf("%w %s: %w", ErrEmbedding, unitTurns(units[start:]), err)
		}
		m.mu.Lock()
		b, err := m.builder()
		if err != nil {
			m.mu.Unlock()
			return stored, err
		}
		var bad []error
		for i, v := range vecs {
			u := chunk[i]
			if err := b.SetExcerptEmbedding(u.turn, u.span.Start, u.span.End, model, v); err != nil {
				bad = append(bad, err)
			} else if u.last {
				stored++
			}
		}
		m.gen++
		m.unkept += len(vecs) - len(bad)
		m.mu.Unlock()
		if len(bad) > 0 {
			return stored, fmt.Errorf("%w %s: %w", ErrEmbedding, unitTurns(chunk), errors.Join(bad...))
		}
		if progress != nil {
			progress(stored, total)
		}
	}
	return stored, nil
}

// chunkEnd is where the chunk of units from start ends: after at most
// embedChunk units, at the end of a turn's. A failure between chunks then
// leaves each turn with all its vectors or none: a turn with some counts
// as embedded, and the rest would never be made.
func chunkEnd(units []embedUnit, start int) int {
	end := min(start+embedChunk, len(units))
	for e := end; e > start; e-- {
		if units[e-1].last {
			return e
		}
	}
	for end < len(units) && !units[end-1].last {
		end++ // a turn of more units than a chunk holds goes in one
	}
	return end
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
// none when it is only white space, its first passages when it is long,
// itself otherwise.
func appendUnits(units []embedUnit, n int, text string) []embedUnit {
	if strings.TrimSpace(text) == "" {
		return units
	}
	ps := restore.EmbeddedPassages(text)
	if len(ps) == 0 {
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
// [Memory.Ingest] does. The turns waiting for the background embedding
// ([Memory.Ingest]) are among those it embeds: the background leaves them
// to it. It reports its progress to the memory's
// EmbedProgress ([Options], [OpenOptions]).
func (m *Memory) EmbedMissing(ctx context.Context) (int, error) {
	if m.emb == nil {
		return 0, nil
	}
	// It embeds what the background would: not twice.
	m.dropQueue()
	nums, texts, err := m.unembedded()
	if err != nil {
		return 0, err
	}
	return m.embedTurns(ctx, nums, texts, m.progress, false)
}

// unembedded returns the numbers and contents of the memory's turns that
// have content and no vector of its embedder's model. m.emb is set.
func (m *Memory) unembedded() (nums []int, texts []string, err error) {
	var doc *spec.Document
	m.mu.Lock()
	// An opened memory is read as it is: it is replayed only when there
	// is something to embed.
	doc = m.doc
	if m.b != nil {
		doc = m.b.Document()
	}
	m.mu.Unlock()
	has := map[int]bool{}
	if vi := doc.DeepArchive.VectorIndex; vi != nil && vi.Model == m.emb.Model() {
		for _, e := range vi.Embeddings {
			has[e.Turn] = true
		}
	}
	if len(has) >= doc.Metadata.TotalExchanges {
		return nil, nil, nil // every turn has one: no need to read them
	}
	err = graph.EachTurn(doc, m.blocks, func(t spec.Turn) error {
		if !has[t.Turn] && strings.TrimSpace(t.Content) != "" {
			nums, texts = append(nums, t.Turn), append(texts, t.Content)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("reading the memory's turns: %w", err)
	}
	return nums, texts, nil
}
