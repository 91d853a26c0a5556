package format

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/smg-memory/smg/spec"
)

// ExportFormat names a format [Export] writes.
type ExportFormat string

// The export formats.
const (
	// ExportJSONLD is the document in expanded JSON-LD ([ExpandJSONLD]).
	ExportJSONLD ExportFormat = "jsonld"
	// ExportNQuads is the document as RDF N-Quads ([NQuads]).
	ExportNQuads ExportFormat = "nquads"
	// ExportMarkdown is a report a person reads ([Markdown]).
	ExportMarkdown ExportFormat = "markdown"
	// ExportDOT is the semantic graph in Graphviz's DOT language ([DOT]).
	ExportDOT ExportFormat = "dot"
	// ExportCytoscape is the semantic graph as Cytoscape.js elements JSON
	// ([Cytoscape]).
	ExportCytoscape ExportFormat = "cytoscape"
)

// ExportFormats lists the export formats: the linked-data ones, then the
// report, then the graph drawings.
var ExportFormats = []ExportFormat{ExportJSONLD, ExportNQuads, ExportMarkdown, ExportDOT, ExportCytoscape}

// Selects reports whether the options' MinImportance and Types apply to
// format f: they do to the markdown report and the graph drawings, not
// to the linked-data formats, which are the whole document.
func (f ExportFormat) Selects() bool {
	return f == ExportMarkdown || f == ExportDOT || f == ExportCytoscape
}

// DefaultContentLimit is the size in bytes up to which the markdown report
// shows an artifact's latest version in full, when
// [ExportOptions.ContentLimit] is 0.
const DefaultContentLimit = 4096

// ExportOptions configure [Export]. The zero value exports every node and
// shows artifacts of up to DefaultContentLimit bytes in the markdown
// report.
type ExportOptions struct {
	// MinImportance leaves out the nodes less important than it, and the
	// edges to and from them (markdown, dot and cytoscape). It is in
	// [0, 1].
	MinImportance float64
	// Types keeps the nodes of these types only; none keeps all (markdown,
	// dot and cytoscape).
	Types []spec.NodeType
	// ContentLimit is the size in bytes up to which the markdown report
	// shows the latest version of an artifact in a fenced block: 0 means
	// DefaultContentLimit, a negative value shows none.
	ContentLimit int
}

// ErrBadExport reports an export that asks for what does not exist: an
// unknown format or node type, or an importance outside [0, 1].
var ErrBadExport = errors.New("bad export")

// Check reports options that select nothing meaningful: an importance
// outside [0, 1] or an unknown node type, as ErrBadExport. A nil
// ExportOptions is good.
func (o *ExportOptions) Check() error {
	if o == nil {
		return nil
	}
	if math.IsNaN(o.MinImportance) || o.MinImportance < 0 || o.MinImportance > 1 {
		return fmt.Errorf("%w: minimum importance %v is not in [0, 1]", ErrBadExport, o.MinImportance)
	}
	for _, t := range o.Types {
		if !slices.Contains(spec.NodeTypes, t) {
			return fmt.Errorf("%w: node type %q is not one of %v", ErrBadExport, t, spec.NodeTypes)
		}
	}
	return nil
}

// Export returns doc in format f. The output depends only on the document
// and the options: the same memory always exports to the same bytes.
// An unknown format, or options that select nothing meaningful, are
// ErrBadExport. [WriteBytes] puts an export into a file atomically.
func Export(doc *spec.Document, f ExportFormat, opts *ExportOptions) ([]byte, error) {
	if err := checkExport(doc, opts); err != nil {
		return nil, err
	}
	switch f {
	case ExportJSONLD:
		return ExpandJSONLD(doc)
	case ExportNQuads:
		s, err := NQuads(doc)
		return []byte(s), err
	case ExportMarkdown:
		return Markdown(doc, opts)
	case ExportDOT:
		return DOT(doc, opts)
	case ExportCytoscape:
		return Cytoscape(doc, opts)
	}
	return nil, fmt.Errorf("%w: format %q is not one of %v", ErrBadExport, f, ExportFormats)
}

// exportGraph is the part of a semantic graph an export shows: the nodes
// the options select, each id once, sorted by id, and the edges between
// them, each (from, to, relation) once, in canonical order.
type exportGraph struct {
	nodes []*spec.Node
	byID  map[string]*spec.Node
	edges []spec.Edge
}

// checkExport checks the arguments of an export.
func checkExport(doc *spec.Document, opts *ExportOptions) error {
	if doc == nil {
		return fmt.Errorf("%w: no document", ErrBadExport)
	}
	return opts.Check()
}

// selectGraph returns the part of doc's graph that opts select. A
// document that was not validated may have a node without an id (it is
// left out: nothing can name it), name a node twice (the first is kept),
// link nodes it lacks (the edge is left out) or repeat an edge (the
// strongest is kept).
func selectGraph(doc *spec.Document, opts *ExportOptions) *exportGraph {
	if opts == nil {
		opts = &ExportOptions{}
	}
	g := &exportGraph{byID: make(map[string]*spec.Node, len(doc.SemanticGraph.Nodes))}
	for i := range doc.SemanticGraph.Nodes {
		n := &doc.SemanticGraph.Nodes[i]
		if n.ID == "" || g.byID[n.ID] != nil || n.Importance < opts.MinImportance ||
			len(opts.Types) > 0 && !slices.Contains(opts.Types, n.Type) {
			continue
		}
		g.byID[n.ID] = n
		g.nodes = append(g.nodes, n)
	}
	slices.SortFunc(g.nodes, func(a, b *spec.Node) int { return strings.Compare(a.ID, b.ID) })
	for _, e := range doc.SemanticGraph.Edges {
		if g.byID[e.From] != nil && g.byID[e.To] != nil {
			g.edges = append(g.edges, e)
		}
	}
	slices.SortFunc(g.edges, func(a, b spec.Edge) int {
		return cmp.Or(strings.Compare(a.From, b.From), strings.Compare(a.To, b.To),
			strings.Compare(string(a.Relation), string(b.Relation)), cmp.Compare(b.Strength, a.Strength))
	})
	g.edges = slices.CompactFunc(g.edges, func(a, b spec.Edge) bool {
		return a.From == b.From && a.To == b.To && a.Relation == b.Relation
	})
	return g
}

// superseded reports whether a node's validity has ended.
func superseded(n *spec.Node) bool { return !n.ValidTo.IsZero() }
