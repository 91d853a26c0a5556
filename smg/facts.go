package smg

import (
	"cmp"
	"context"
	"errors"
	"math"
	"strings"
	"time"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/provider"
	"github.com/smg-memory/smg/spec"
)

// Fact is a fact to remember (see [graph.Fact]): its content, category,
// scope, source, the reasoning for saving it and what created it.
type Fact = graph.Fact

// Remembered is what [Memory.Remember] did: saved the fact, or found it
// to be a duplicate of one the memory holds (see [graph.Remembered]).
type Remembered = graph.Remembered

// FactFilter selects facts (see [graph.FactFilter]).
type FactFilter = graph.FactFilter

// FactError is a fact that cannot be saved, with what is wrong in words a
// model can act on.
type FactError = graph.FactError

// Errors of facts: ErrInvalidFact is wrapped by every [*FactError];
// ErrNoNode by the error of an id the memory does not hold (a
// [*format.NotFoundError]); ErrArtifactNode by that of forgetting an artifact's
// node; ErrDisabled by what a memory that is off refuses (see
// [Memory.SetEnabled]).
var (
	ErrInvalidFact  = graph.ErrInvalidFact
	ErrNoNode       = graph.ErrNoNode
	ErrArtifactNode = graph.ErrArtifactNode
	ErrDisabled     = errors.New("memory is off")
)

// DuplicateSimilarity is the similarity from which a fact is taken for one
// the memory holds (see [graph.DuplicateSimilarity]).
const DuplicateSimilarity = graph.DuplicateSimilarity

// Remember saves a fact, or returns the one the memory already holds that
// it duplicates; a fact that contradicts a current one supersedes it (see
// [graph.Builder.Remember]). A fact that cannot be saved is a
// [*FactError]. The fact's time is the memory's clock (Options.Now).
//
// With an [Embedder] given ([Options.Embedder]), a fact whose vector's
// cosine similarity to that of a current fact of the same scope is above
// [DuplicateCosine] is a duplicate too; an embedder that fails leaves the
// decision to the text. The built-in encoder, a memory's default, does not
// judge facts: its vectors of facts that differ by a number or a name are
// nearer than that ("note number 1" and "note number 2": 0.988).
func (m *Memory) Remember(ctx context.Context, f Fact) (Remembered, error) {
	if r, ok := m.embeddedDuplicate(ctx, f); ok {
		return r, nil
	}
	return m.rememberAt(ctx, f, time.Time{})
}

// rememberAt is Remember at the time at (zero: the memory's clock),
// without asking the embedder whether the fact is a duplicate: a
// journal's replay (journal.go).
func (m *Memory) rememberAt(ctx context.Context, f Fact, at time.Time) (Remembered, error) {
	var r Remembered
	err := m.change(ctx, func(b *graph.Builder, now time.Time) error {
		if at.IsZero() {
			at = now
		}
		var err error
		r, err = b.Remember(f, at)
		return err
	})
	return r, err
}

// DuplicateCosine is the cosine similarity of their vectors above which
// two facts are one, with an embedder.
const DuplicateCosine = 0.95

// embeddedDuplicate finds, with the memory's embedder, the current fact
// of f's scope nearest f in meaning, when it is nearer than
// DuplicateCosine. The facts' vectors are kept between calls.
func (m *Memory) embeddedDuplicate(ctx context.Context, f Fact) (Remembered, bool) {
	emb := m.factEmb
	if emb == nil || !m.Enabled() {
		return Remembered{}, false
	}
	m.mu.Lock()
	b, err := m.builder()
	if err != nil {
		m.mu.Unlock()
		return Remembered{}, false
	}
	facts := b.ScopeFacts(cmp.Or(strings.TrimSpace(f.Scope), b.DefaultScope()))
	model := emb.Model()
	texts := []string{f.Content}
	for _, n := range facts {
		if _, ok := m.factVecs[model+"\x00"+FactText(n)]; !ok {
			texts = append(texts, FactText(n))
		}
	}
	m.mu.Unlock()
	if len(facts) == 0 {
		return Remembered{}, false
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil || len(vecs) != len(texts) {
		return Remembered{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.factVecs == nil {
		m.factVecs = map[string][]float32{}
	}
	for i, t := range texts[1:] {
		m.factVecs[model+"\x00"+t] = vecs[i+1]
	}
	best, bestSim := -1, DuplicateCosine
	for i, n := range facts {
		if sim := provider.Cosine(vecs[0], m.factVecs[model+"\x00"+FactText(n)]); sim > bestSim {
			best, bestSim = i, sim
		}
	}
	if best < 0 {
		return Remembered{}, false
	}
	return Remembered{Fact: facts[best], Duplicate: true, Similarity: math.Round(bestSim*1e4) / 1e4}, true
}

// EditFact rewrites a fact, keeping its old text in previousSummaries.
func (m *Memory) EditFact(ctx context.Context, id, content string) (spec.Node, error) {
	var n spec.Node
	err := m.change(ctx, func(b *graph.Builder, at time.Time) error {
		var err error
		n, err = b.EditFact(id, content, at)
		return err
	})
	return n, err
}

// Forgotten is what [Memory.Forget] did: the node it removed, and those
// that node had superseded that are current again (see
// [graph.Builder.Forget]).
type Forgotten = graph.Forgotten

// Forget removes a node, a fact usually, and its edges; what it
// superseded is current again (forgetting "User lives in Berlin" brings
// back "User lives in Paris"), as the result says. An id the memory does
// not hold is a [*format.NotFoundError]; an artifact's node is not forgotten
// ([ErrArtifactNode]).
func (m *Memory) Forget(ctx context.Context, id string) (Forgotten, error) {
	var f Forgotten
	err := m.change(ctx, func(b *graph.Builder, at time.Time) error {
		var err error
		f, err = b.Forget(id, at)
		return noNodeOf(b, id, err)
	})
	return f, err
}

// noNodeOf is err, or, when it says the builder holds no node id, a
// [*format.NotFoundError] with the ids the caller may have meant.
func noNodeOf(b *graph.Builder, id string, err error) error {
	if errors.Is(err, ErrNoNode) {
		return format.NodeNotFound(b.Document().SemanticGraph.Nodes, id)
	}
	return err
}

// ClearFacts forgets every fact of scope, or within it ("user" clears
// "user:dana" too; "" clears them all), and returns their ids.
func (m *Memory) ClearFacts(ctx context.Context, scope string) ([]string, error) {
	var gone []string
	err := m.change(ctx, func(b *graph.Builder, at time.Time) error {
		gone = b.ClearFacts(scope, at)
		return nil
	})
	return gone, err
}

// Pin makes a node always loaded into context; Unpin undoes it. An id
// the memory does not hold is a [*format.NotFoundError].
func (m *Memory) Pin(ctx context.Context, id string) error {
	return m.change(ctx, func(b *graph.Builder, at time.Time) error { return noNodeOf(b, id, b.Pin(id, true, at)) })
}

// Unpin undoes [Memory.Pin].
func (m *Memory) Unpin(ctx context.Context, id string) error {
	return m.change(ctx, func(b *graph.Builder, at time.Time) error { return noNodeOf(b, id, b.Pin(id, false, at)) })
}

// Facts returns the memory's facts that f selects, by category from
// identity to context, then by importance.
func (m *Memory) Facts(f FactFilter) []spec.Node {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.b == nil {
		return graph.Facts(m.doc, f)
	}
	return graph.Facts(m.b.Document(), f)
}

// Conflicts are the current nodes in conflict: for each, by id, the
// current nodes it contradicts or that contradict it, neither having
// replaced the other (spec §6.1). A person settles a conflict by
// forgetting or editing one side.
func (m *Memory) Conflicts() map[string][]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.b == nil {
		return graph.Conflicts(m.doc)
	}
	return graph.Conflicts(m.b.Document())
}

// FactText is a fact's whole text: its label, or its description when the
// label is the description cut short (a fact found in a turn has for
// description the sentence as written).
func FactText(n spec.Node) string { return graph.FactText(&n) }

// SetEnabled turns the memory on or off, as a chat client's memory
// setting does. A memory that is off adds nothing to a context (it is
// empty), stores no turn (Ingest does nothing) and refuses to save facts
// ([ErrDisabled]); what it holds stays, and reading it (Facts, Document,
// Search) still works. A memory starts on.
func (m *Memory) SetEnabled(on bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.off = !on
}

// Enabled reports whether the memory is on.
func (m *Memory) Enabled() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return !m.off
}

// change applies one change to the memory's builder, at the memory's
// clock.
func (m *Memory) change(ctx context.Context, fn func(b *graph.Builder, at time.Time) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.off {
		return ErrDisabled
	}
	b, err := m.builder()
	if err != nil {
		return err
	}
	if err := fn(b, m.clock()); err != nil {
		return err
	}
	m.gen++
	return nil
}

// clock is the time of a change: the memory's clock, to the second.
func (m *Memory) clock() time.Time {
	now := time.Now
	if m.now != nil {
		now = m.now
	}
	return now().UTC().Truncate(time.Second)
}
