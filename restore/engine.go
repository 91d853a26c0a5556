package restore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/smg-memory/smg/artifacts"
	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// Engine answers questions from one memory: it holds the memory's turns,
// its graph with edges both ways, and a full-text index over nodes, block
// summaries and turns. It is safe for concurrent use.
type Engine struct {
	doc   *spec.Document
	ix    bleve.Index
	nodes map[string]*spec.Node
	// adj gives each node's edges, both ways.
	adj   map[string][]spec.Edge
	turns []spec.Turn // turns[i] is turn i+1
	// source is the turn a fact, decision, problem or solution was stated
	// in.
	source map[string]int
	// always are the current facts of the categories every context
	// loads (identity, preference, relationship), by id.
	always []string

	mu    sync.Mutex        // guards vault, which is not safe for concurrent use
	vault *artifacts.Reader // read lazily

	// counts caches the token counts of candidates, by tokenizer and key:
	// a turn's line is the same for every question, and counting it with
	// a BPE tokenizer costs more than finding it.
	counts sync.Map
}

// count returns the tokens of a candidate's text, counted once.
func (e *Engine) count(tk Tokenizer, key, text string) int {
	k := tk.Name() + "\x00" + key
	if n, ok := e.counts.Load(k); ok {
		return n.(int)
	}
	n := tk.Count(text)
	e.counts.Store(k, n)
	return n
}

// New indexes a document and returns its engine. The document must not
// change while the engine is in use.
func New(doc *spec.Document) (*Engine, error) {
	e := &Engine{
		doc:    doc,
		nodes:  map[string]*spec.Node{},
		adj:    map[string][]spec.Edge{},
		source: map[string]int{},
	}
	ix, err := NewTextIndex()
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	e.ix = ix
	batch := ix.NewBatch()
	add := func(id, text string) error {
		if text == "" {
			return nil
		}
		return batch.Index(id, indexDoc{Text: text})
	}
	for i := range doc.SemanticGraph.Nodes {
		n := &doc.SemanticGraph.Nodes[i]
		e.nodes[n.ID] = n
		if stated(n.Type) && n.FirstMentioned > 0 {
			e.source[n.ID] = n.FirstMentioned
		}
		if alwaysLoaded(n) {
			e.always = append(e.always, n.ID)
		}
		if err := add(kindNode+":"+n.ID, nodeText(n)); err != nil {
			return nil, err
		}
	}
	slices.Sort(e.always)
	for _, ed := range doc.SemanticGraph.Edges {
		e.adj[ed.From] = append(e.adj[ed.From], ed)
		e.adj[ed.To] = append(e.adj[ed.To], ed)
	}
	for _, b := range doc.DeepArchive.Blocks {
		if err := add(kindBlock+":"+b.ID, strings.Join(append([]string{b.Summary}, b.KeyPoints...), "\n")); err != nil {
			return nil, err
		}
	}
	err = graph.EachTurn(doc, func(t spec.Turn) error {
		e.turns = append(e.turns, t)
		return add(turnKey(t.Turn), turnText(t))
	})
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	if err := ix.Batch(batch); err != nil {
		return nil, fmt.Errorf("restore: indexing: %w", err)
	}
	return e, nil
}

// Close releases the index.
func (e *Engine) Close() error { return e.ix.Close() }

// alwaysLoaded reports whether every context loads a node: a current
// fact about who the user is, what they prefer, whom they know.
func alwaysLoaded(n *spec.Node) bool {
	if n.Type != spec.NodeFact || !n.ValidTo.IsZero() {
		return false
	}
	switch n.Category {
	case spec.CategoryIdentity, spec.CategoryPreference, spec.CategoryRelationship:
		return true
	}
	return false
}

// stated reports whether nodes of a type state something a turn said, so
// that the turn is their source.
func stated(t spec.NodeType) bool {
	switch t {
	case spec.NodeFact, spec.NodeDecision, spec.NodeProblem, spec.NodeSolution:
		return true
	}
	return false
}

// turn returns turn n, if the memory has it.
func (e *Engine) turn(n int) (spec.Turn, bool) {
	if n < 1 || n > len(e.turns) {
		return spec.Turn{}, false
	}
	return e.turns[n-1], true
}

// Search returns the nodes and turns that match text best, with their
// BM25 scores, best first.
func (e *Engine) Search(ctx context.Context, text string, limit int) ([]Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	hits, err := search(e.ix, text, limit)
	if err != nil {
		return nil, err
	}
	out := make([]Item, 0, len(hits))
	for _, h := range hits {
		it := Item{Score: h.score, Parts: map[string]float64{"search": h.score}}
		switch h.kind {
		case kindNode:
			it.Kind, it.NodeID = "node", h.key
		case kindTurn:
			n, _ := strconv.Atoi(h.key)
			t, _ := e.turn(n)
			it.Kind, it.Turn, it.ExternalID, it.Timestamp = "turn", n, t.ExternalID, t.Timestamp
		case kindBlock:
			it.Kind, it.NodeID = "block", h.key
		}
		out = append(out, it)
	}
	return out, nil
}

// dateOf formats a turn's date for a context: "8 May 2023", or "" when
// the turn has none.
func dateOf(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2 January 2006")
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// vaultContent returns version v of an artifact, checked against its
// hash.
func (e *Engine) vaultContent(id string, v int) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.vault == nil {
		e.vault = graph.VaultReader(&e.doc.ArtifactVault)
	}
	return e.vault.Content(id, v)
}
