package restore

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/smg-memory/smg/spec"
)

// The kinds of indexed documents, and the prefixes of their ids.
const (
	kindNode  = "n"
	kindTurn  = "t"
	kindBlock = "b"
)

// indexDoc is what the index holds of a node, a turn or a block: its text,
// analyzed as English (Porter stems, stop words).
type indexDoc struct {
	Text string `json:"text"`
}

// NewTextIndex returns an empty in-memory full-text index of documents
// with one field, "text", analyzed as English (Porter stems, stop words)
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
	im.DefaultAnalyzer = en.AnalyzerName
	text := bleve.NewTextFieldMapping()
	text.Analyzer = en.AnalyzerName
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

func turnKey(n int) string { return kindTurn + ":" + strconv.Itoa(n) }

// hit is a search result: what it is, its key (node id, turn number, block
// id) and its BM25 score.
type hit struct {
	kind  string
	key   string
	score float64
}

// search returns the best k documents for text, best first, ties by id.
func search(ix bleve.Index, text string, k int) ([]hit, error) {
	q := query.NewMatchQuery(text)
	q.SetField("text")
	req := bleve.NewSearchRequestOptions(q, k, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	res, err := ix.Search(req)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	out := make([]hit, 0, len(res.Hits))
	for _, h := range res.Hits {
		kind, key, ok := strings.Cut(h.ID, ":")
		if !ok {
			continue
		}
		out = append(out, hit{kind: kind, key: key, score: h.Score})
	}
	return out, nil
}
