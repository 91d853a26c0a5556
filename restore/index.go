package restore

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/registry"
	index "github.com/blevesearch/bleve_index_api"

	"golang.org/x/sync/errgroup"

	"github.com/smg-memory/smg/classify"
	"github.com/smg-memory/smg/spec"
)

// analyzerName names the index's analyzer in Bleve's registry:
// classify.English, the tokens of Bleve's "en", quicker.
const analyzerName = "smg-en"

func init() {
	err := registry.RegisterAnalyzer(analyzerName, func(_ map[string]any, cache *registry.Cache) (analysis.Analyzer, error) {
		return classify.English(cache)
	})
	if err != nil {
		panic(err)
	}
}

// The kinds of indexed documents, and the prefixes of their ids; a
// passage's id has its turn's prefix (turnDocID).
const (
	kindNode    = "n"
	kindTurn    = "t"
	kindBlock   = "b"
	kindPassage = "p" // a passage of a long turn (passages.go)
)

// indexDoc is what the index holds of a node, a turn or a block: its text,
// analyzed as English (Porter stems, stop words).
type indexDoc struct {
	Text string `json:"text"`
}

// NewTextIndex returns an empty in-memory full-text index of documents
// with one field, "text", analyzed as English (Porter stems, stop words:
// the tokens of Bleve's "en" analyzer, made quicker: classify.English)
// and scored by BM25: the engine's index, and the baseline that
// cmd/smg-bench measures it against. Scorch in memory, not
// bleve.NewMemOnly: measured here, the older format builds and searches
// 3–6 times slower.
//
// The index keeps only what a match query scored by BM25 reads: no
// stored text, no term vectors, no doc values (nothing sorts or facets
// on the text) and no "_all" field (every query names its field).
// Bleve makes the last two by default; without them 10,000 turns index
// about 15% quicker.
func NewTextIndex() (bleve.Index, error) {
	im := bleve.NewIndexMapping()
	im.ScoringModel = index.BM25Scoring
	im.DefaultAnalyzer = analyzerName
	text := bleve.NewTextFieldMapping()
	text.Analyzer = analyzerName
	text.Store = false
	text.IncludeTermVectors = false
	text.IncludeInAll = false
	text.DocValues = false
	dm := bleve.NewDocumentMapping()
	dm.AddFieldMappingsAt("text", text)
	dm.AddSubDocumentMapping("_all", bleve.NewDocumentDisabledMapping())
	im.DefaultMapping = dm
	im.StoreDynamic = false
	im.IndexDynamic = false
	return bleve.NewUsing("", im, scorch.Name, scorch.Name, nil)
}

// batcher puts documents into an index in batches of a given size, and
// indexes up to one batch per core at a time (at most four, which bounds
// the batches held in memory): Bleve analyzes a batch's
// documents on every core, but builds its segment on one, so batches
// indexed one after another leave the other cores idle half of the time.
// Measured here, 10,000 turns index about 20% quicker on 2 cores.
// Batches land in any order, so a batcher must be given each id at most
// once: a document indexed and then deleted in a later batch could be
// deleted first and stay. Given that, the index is the same whatever the
// order: every document has its own id, and a search ranks by score and
// then by id.
type batcher struct {
	ix   bleve.Index
	size int
	g    *errgroup.Group
	ctx  context.Context
	b    *bleve.Batch
}

// newBatcher returns a batcher of batches of size documents, which
// indexes up to par batches at a time (0: one per core, at most four).
// When ctx is done, or a batch fails, the batches not yet indexed are
// dropped and finish returns why.
func newBatcher(ctx context.Context, ix bleve.Index, size, par int) *batcher {
	if par <= 0 {
		par = min(runtime.GOMAXPROCS(0), 4)
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(par)
	return &batcher{ix: ix, size: size, g: g, ctx: ctx, b: ix.NewBatch()}
}

// index adds the document id of text to the batch, and hands the batch
// on to be indexed when it is full. It blocks while every core has a
// batch.
func (bt *batcher) index(id, text string) error {
	if err := bt.b.Index(id, indexDoc{Text: text}); err != nil {
		return fmt.Errorf("indexing %s: %w", id, err)
	}
	return bt.full()
}

// delete adds the removal of document id to the batch.
func (bt *batcher) delete(id string) error {
	bt.b.Delete(id)
	return bt.full()
}

func (bt *batcher) full() error {
	if bt.b.Size() < bt.size {
		return nil
	}
	return bt.flush()
}

// flush hands the batch on to be indexed, and starts another.
func (bt *batcher) flush() error {
	if err := bt.ctx.Err(); err != nil {
		return err
	}
	if bt.b.Size() == 0 {
		return nil
	}
	b := bt.b
	bt.b = bt.ix.NewBatch()
	bt.g.Go(func() error {
		if err := bt.ctx.Err(); err != nil {
			return err
		}
		return bt.ix.Batch(b)
	})
	return nil
}

// finish indexes what is left in the batch, unless err tells that the
// documents stopped coming, waits until every batch handed on is indexed,
// and returns the first error: a batch's, or else err.
func (bt *batcher) finish(err error) error {
	if err == nil {
		err = bt.flush()
	}
	if werr := bt.g.Wait(); werr != nil {
		return werr
	}
	return err
}

// nodeText is what a node is found by: its label, aliases, description,
// outcome, rationale and the options it rejected.
func nodeText(n *spec.Node) string {
	parts := []string{n.Label}
	parts = append(parts, n.Aliases...)
	parts = append(parts, n.Description, n.Outcome, n.Rationale)
	for _, a := range n.Alternatives {
		parts = append(parts, a.Option, a.Reason)
	}
	return strings.Join(nonEmpty(parts), "\n")
}

// turnText is what a turn is found by: its date, its speaker and its
// content.
func turnText(t spec.Turn) string {
	return dateOf(t.Timestamp) + "\n" + t.Speaker + ": " + t.Content
}

func nonEmpty(ss []string) []string {
	out := ss[:0:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// turnKey is the key of turn n's candidate in a context, "t:n"; its
// document in the index is turnDocID's.
func turnKey(n int) string { return kindTurn + ":" + strconv.Itoa(n) }

// turnDocID is the id of the document of turn n in the index, and
// passageDocID that of a passage of it: "t:", the number in ten digits at
// least, then a passage's span, "t:0000000012:0:480". Ids so made sort as
// the turns do, and so each batch of turns, indexed after the turns
// before it, holds ids above all of theirs. Scorch looks every id of a
// new batch up in every segment the index holds (to remove the documents
// it replaces) unless the id is above the segment's last: with the
// number as it is written, "t:10000" below "t:9999", the look-ups of a
// build grew with the square of its batches, 2 s of the 13 s of CPU that
// indexed 38,912 turns.
func turnDocID(n int) string { return fmt.Sprintf("%s:%010d", kindTurn, n) }

func passageDocID(n int, p Span) string {
	return turnDocID(n) + ":" + strconv.Itoa(p.Start) + ":" + strconv.Itoa(p.End)
}

// hitOf is the hit of the document id scored score: a passage's id holds
// its turn's kind and a span after its number.
func hitOf(id string, score float64) (hit, bool) {
	kind, key, ok := strings.Cut(id, ":")
	if kind == kindTurn && strings.Contains(key, ":") {
		kind = kindPassage
	}
	return hit{kind: kind, key: key, score: score}, ok
}

// hit is a search result: what it is, its key (node id, turn number, block
// id) and its BM25 score.
type hit struct {
	kind  string
	key   string
	score float64
}
