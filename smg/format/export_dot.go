package format

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	dgraph "github.com/dominikbraun/graph"
	"github.com/dominikbraun/graph/draw"

	"github.com/smg-memory/smg/spec"
)

// dotStyle is how a node type looks in a drawing.
type dotStyle struct{ shape, fill string }

// dotStyles are the shapes and fill colours of the node types (Graphviz's
// X11 colour names); another type is drawn as dotOther.
var dotStyles = map[spec.NodeType]dotStyle{
	spec.NodeConcept:  {"ellipse", "lightblue"},
	spec.NodeDecision: {"diamond", "gold"},
	spec.NodeProblem:  {"octagon", "lightcoral"},
	spec.NodeSolution: {"box", "palegreen"},
	spec.NodeFact:     {"note", "lightyellow"},
	spec.NodeArtifact: {"folder", "lightgrey"},
}

var dotOther = dotStyle{"ellipse", "white"}

// The size of a node's label in a drawing: lines of at most
// dotLabelWidth characters, at most dotLabelLines of them.
const (
	dotLabelWidth = 28
	dotLabelLines = 3
	dotTooltipMax = 300
)

// DOT returns the part of doc's semantic graph that opts select in
// Graphviz's DOT language, as dominikbraun/graph's draw package writes
// it: a strict digraph with a node per graph node (its label, wrapped;
// its shape and fill colour by type; dashed when superseded; its
// description as tooltip) and an edge per pair of linked nodes (labelled
// with its relations; its pen width from 1 to 4 by its greatest strength;
// dashed for supersedes). Render it with `dot -Tsvg`.
//
// The draw package lists statements in the order of Go's map iteration;
// DOT sorts them (nodes by id, then edges by source and target), so that
// the same memory always gives the same text. It escapes every string it
// hands to the draw package, which does not.
func DOT(doc *spec.Document, opts *ExportOptions) ([]byte, error) {
	if err := checkExport(doc, opts); err != nil {
		return nil, err
	}
	sel := selectGraph(doc, opts)
	g := dgraph.New(dgraph.StringHash, dgraph.Directed())
	for _, n := range sel.nodes {
		st, ok := dotStyles[n.Type]
		if !ok {
			st = dotOther
		}
		style := "filled"
		if superseded(n) {
			style = "filled,dashed"
		}
		attrs := []func(*dgraph.VertexProperties){
			dgraph.VertexAttribute("label", dotEscape(wrapLabel(n.Label, dotLabelWidth, dotLabelLines))),
			dgraph.VertexAttribute("shape", st.shape),
			dgraph.VertexAttribute("style", style),
			dgraph.VertexAttribute("fillcolor", st.fill),
			dgraph.VertexAttribute("tooltip", dotEscape(clip(cmp.Or(n.Description, n.Label), dotTooltipMax))),
		}
		if err := g.AddVertex(dotEscape(n.ID), attrs...); err != nil {
			return nil, fmt.Errorf("DOT of node %q: %w", n.ID, err)
		}
	}
	// A strict digraph has one edge per ordered pair: the relations of a
	// pair share it.
	for i := 0; i < len(sel.edges); {
		j := i + 1
		for j < len(sel.edges) && sel.edges[j].From == sel.edges[i].From && sel.edges[j].To == sel.edges[i].To {
			j++
		}
		pair := sel.edges[i:j]
		i = j
		rels := make([]string, len(pair))
		strength := 0.0
		dashed := false
		for k, e := range pair {
			rels[k] = string(e.Relation)
			strength = max(strength, e.Strength)
			dashed = dashed || e.Relation == spec.RelSupersedes
		}
		attrs := []func(*dgraph.EdgeProperties){
			dgraph.EdgeAttribute("label", dotEscape(strings.Join(rels, ", "))),
			dgraph.EdgeAttribute("penwidth", strconv.FormatFloat(1+3*min(max(strength, 0), 1), 'f', 2, 64)),
			dgraph.EdgeWeight(int(min(max(strength, 0), 1)*100 + 0.5)),
		}
		if dashed {
			attrs = append(attrs, dgraph.EdgeAttribute("style", "dashed"))
		}
		if err := g.AddEdge(dotEscape(pair[0].From), dotEscape(pair[0].To), attrs...); err != nil {
			return nil, fmt.Errorf("DOT of the edge from %q to %q: %w", pair[0].From, pair[0].To, err)
		}
	}
	var buf bytes.Buffer
	if err := draw.DOT(g, &buf,
		draw.GraphAttribute("label", dotEscape(cmp.Or(doc.Metadata.ProjectName, doc.Metadata.ID))),
		draw.GraphAttribute("labelloc", "t"),
		draw.GraphAttribute("rankdir", "LR"),
	); err != nil {
		return nil, err
	}
	return sortDOT(buf.Bytes())
}

// sortDOT puts the statements of the draw package's output in order:
// the graph's attributes, the nodes by id, then the edges by source and
// target. It drops the blank lines between statements.
func sortDOT(b []byte) ([]byte, error) {
	type stmt struct {
		edge     bool
		from, to string
		line     string
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) < 2 || lines[len(lines)-1] != "}" {
		return nil, fmt.Errorf("DOT: unexpected output of the draw package: %.80q", b)
	}
	var head []string
	var stmts []stmt
	for _, l := range lines[1 : len(lines)-1] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		from, rest, ok := dotQuoted(strings.TrimPrefix(l, "\t"))
		if !ok {
			head = append(head, l) // a graph attribute: key="value";
			continue
		}
		s := stmt{from: from, line: l}
		if rest, ok := strings.CutPrefix(rest, " -> "); ok {
			s.edge = true
			if s.to, _, ok = dotQuoted(rest); !ok {
				return nil, fmt.Errorf("DOT: unexpected edge statement %q", l)
			}
		}
		stmts = append(stmts, s)
	}
	slices.SortFunc(stmts, func(a, b stmt) int {
		if a.edge != b.edge {
			if a.edge {
				return 1
			}
			return -1
		}
		return cmp.Or(strings.Compare(a.from, b.from), strings.Compare(a.to, b.to))
	})
	var out strings.Builder
	out.WriteString(lines[0])
	out.WriteByte('\n')
	for _, l := range head {
		out.WriteString(l)
		out.WriteByte('\n')
	}
	for _, s := range stmts {
		out.WriteString(s.line)
		out.WriteByte('\n')
	}
	out.WriteString("}\n")
	return []byte(out.String()), nil
}

// dotQuoted reads the DOT string in double quotes at the start of s and
// returns its text (escapes kept) and what follows it.
func dotQuoted(s string) (text, rest string, ok bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", s, false
	}
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return s[1:i], s[i+1:], true
		}
	}
	return "", s, false
}

// dotEscape makes s the text of a DOT string in double quotes that
// Graphviz shows as s: backslashes and quotes escaped, line breaks as
// \n, other control characters as spaces.
func dotEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\' || r == '"':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case unicode.IsControl(r) || r == utf8.RuneError:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// wrapLabel breaks s into lines of at most width characters at spaces
// (a longer word is cut), at most lines of them; text left over ends the
// last line with "…".
func wrapLabel(s string, width, lines int) string {
	words := strings.Fields(s)
	var out []string
	var cur []rune
	for len(words) > 0 {
		w := []rune(words[0])
		switch {
		case len(cur) == 0 && len(w) > width:
			cur, words[0] = w[:width], string(w[width:])
		case len(cur) == 0:
			cur, words = w, words[1:]
			continue
		case len(cur)+1+len(w) <= width:
			cur = append(append(cur, ' '), w...)
			words = words[1:]
			continue
		}
		out = append(out, string(cur))
		cur = nil
		if len(out) == lines {
			break
		}
	}
	if len(out) < lines && len(cur) > 0 {
		out, cur = append(out, string(cur)), nil
	}
	if len(words) > 0 || len(cur) > 0 {
		last := []rune(out[len(out)-1])
		if len(last) >= width {
			last = last[:width-1]
		}
		out[len(out)-1] = strings.TrimRight(string(last), " ") + "…"
	}
	return strings.Join(out, "\n")
}

// clip cuts s to at most n characters, ending it with "…" when it cut.
func clip(s string, n int) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) <= n {
		return string(r)
	}
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}
