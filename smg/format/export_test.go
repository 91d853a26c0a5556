package format_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"gonum.org/v1/gonum/graph/formats/dot"
	"gonum.org/v1/gonum/graph/formats/dot/ast"

	"github.com/smg-memory/smg/artifacts"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// checkoutDoc is the golden memory of the checkout conversation.
func checkoutDoc(t testing.TB) *spec.Document {
	t.Helper()
	doc, err := format.ReadFile("../../testdata/conversations/checkout.smg", nil)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// export is format.Export that fails the test on an error.
func export(t testing.TB, doc *spec.Document, f format.ExportFormat, opts *format.ExportOptions) string {
	t.Helper()
	b, err := format.Export(doc, f, opts)
	if err != nil {
		t.Fatalf("export %s: %v", f, err)
	}
	return string(b)
}

// mdSection returns the text of the markdown section that starts with the
// heading line (like "## Problems"), up to the next heading of its level
// or above; "" when there is none.
func mdSection(md, heading string) string {
	level := strings.Index(heading, " ")
	_, rest, ok := strings.Cut("\n"+md, "\n"+heading+"\n")
	if !ok {
		return ""
	}
	for i := 1; i <= level; i++ {
		if j := strings.Index(rest, "\n"+strings.Repeat("#", i)+" "); j >= 0 {
			rest = rest[:j]
		}
	}
	return rest
}

// shuffled returns a copy of doc with its nodes and edges in another
// order.
func shuffled(doc *spec.Document, seed uint64) *spec.Document {
	d := *doc
	r := rand.New(rand.NewPCG(seed, seed))
	d.SemanticGraph.Nodes = slices.Clone(doc.SemanticGraph.Nodes)
	d.SemanticGraph.Edges = slices.Clone(doc.SemanticGraph.Edges)
	r.Shuffle(len(d.SemanticGraph.Nodes), func(i, j int) {
		d.SemanticGraph.Nodes[i], d.SemanticGraph.Nodes[j] = d.SemanticGraph.Nodes[j], d.SemanticGraph.Nodes[i]
	})
	r.Shuffle(len(d.SemanticGraph.Edges), func(i, j int) {
		d.SemanticGraph.Edges[i], d.SemanticGraph.Edges[j] = d.SemanticGraph.Edges[j], d.SemanticGraph.Edges[i]
	})
	return &d
}

// TestExportDeterministic exports each format several times, and from a
// document whose nodes and edges come in another order: the same bytes.
// (dominikbraun/graph's draw package lists a graph's statements in map
// order: the DOT output is sorted after it.)
func TestExportDeterministic(t *testing.T) {
	doc := checkoutDoc(t)
	for _, f := range []format.ExportFormat{format.ExportMarkdown, format.ExportDOT, format.ExportCytoscape} {
		want := export(t, doc, f, nil)
		for i := range 8 {
			if got := export(t, shuffled(doc, uint64(i)), f, nil); got != want {
				t.Fatalf("%s: export %d differs from the first:\n%s\n---\n%s", f, i, got, want)
			}
		}
	}
}

// TestMarkdownCheckout reads the report of the checkout memory section by
// section.
func TestMarkdownCheckout(t *testing.T) {
	doc := checkoutDoc(t)
	md := export(t, doc, format.ExportMarkdown, nil)

	var order []string
	for l := range strings.Lines(md) {
		if strings.HasPrefix(l, "## ") || strings.HasPrefix(l, "# ") {
			order = append(order, strings.TrimSpace(l))
		}
	}
	want := []string{"# shop", "## Summary", "## Current goals", "## Decisions", "## Facts", "## Problems", "## Artifacts", "## Key concepts", "## Superseded", "## Archive"}
	if !slices.Equal(order, want) {
		t.Errorf("sections %q, want %q", order, want)
	}
	if !strings.Contains(md, "`"+doc.Metadata.ID+"` · 20 exchanges") {
		t.Errorf("the title does not give the memory's id and size:\n%.300s", md)
	}
	if s := mdSection(md, "## Summary"); !strings.Contains(s, "Latest decision: PostgreSQL") {
		t.Errorf("summary:\n%s", s)
	}
	if s := mdSection(md, "## Current goals"); !strings.Contains(s, "- Add idempotency keys to the order creation") {
		t.Errorf("goals:\n%s", s)
	}

	// A decision, with its rationale and the alternative it rejected.
	elements := mdSection(md, "### Stripe Elements")
	for _, w := range []string{
		"- **Why:** the designers want the payment form to match the rest of the site\n",
		"- **Rejected:** Stripe Checkout\n",
		"- **Led to:** web/src/PaymentForm.jsx\n",
		"- **When:** 2025-11-03 09:18 UTC, turn 3\n",
	} {
		if !strings.Contains(elements, w) {
			t.Errorf("the decision for Stripe Elements lacks %q:\n%s", w, elements)
		}
	}
	// The decision in force is among the decisions; the one it replaced
	// is not, but under Superseded, with what replaced it.
	decisions := mdSection(md, "## Decisions")
	if !strings.Contains(decisions, "### PostgreSQL\n") || strings.Contains(decisions, "### SQLite") {
		t.Errorf("decisions: want PostgreSQL and not SQLite:\n%s", decisions)
	}
	if s := mdSection(md, "## Superseded"); !strings.Contains(s, "- Decision: SQLite (before PostgreSQL), replaced by PostgreSQL on 2025-11-03 09:54 UTC\n") {
		t.Errorf("superseded:\n%s", s)
	}

	// Facts by category, identity first.
	facts := mdSection(md, "## Facts")
	pref, rel := strings.Index(facts, "### Preference"), strings.Index(facts, "### Relationship")
	if pref < 0 || rel < pref {
		t.Errorf("facts not by category:\n%s", facts)
	}
	if !strings.Contains(mdSection(md, "### Preference"), "- Dana prefers Go for all backend work. (user:dana, saved by the user)\n") {
		t.Errorf("the preference is not under Preference:\n%s", facts)
	}

	// Each problem with what solves it, found by following solves edges.
	problems := mdSection(md, "## Problems")
	webhook := mdSection(problems, "### The webhook returns 401 in production, and the Stripe dashboard says \"No signatures found matching the expected signature for payload\".")
	if !strings.Contains(webhook, "- **Solved by solution:** Read the body once, verify it with webhook.ConstructEvent, then use the event") {
		t.Errorf("the webhook's problem without its solution:\n%s", problems)
	}
	sqlite := mdSection(problems, "### We were storing orders in SQLite, but two workers write at the same time and we get database is locked errors.")
	if !strings.Contains(sqlite, "- **Solved by decision:** PostgreSQL\n") {
		t.Errorf("the SQLite problem, its whole text its heading, without the decision that solved it:\n%s", problems)
	}

	// Artifacts, with the latest version's content exactly.
	webhookGo := mdSection(md, "### checkout/webhook.go")
	content, err := format.ArtifactContent(doc, "art-checkout-webhook-go", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(webhookGo, "\n```go\n"+content+"```\n") {
		t.Errorf("checkout/webhook.go without its latest version:\n%s", webhookGo)
	}
	if !strings.Contains(webhookGo, "- **Versions:** 4 versions, the latest 955 bytes, turns 6 to 16\n") ||
		!strings.Contains(webhookGo, "- **Implements:** Read the body once") ||
		!strings.Contains(webhookGo, "· go · in use now\n") {
		t.Errorf("checkout/webhook.go:\n%s", webhookGo)
	}

	// Concepts by importance.
	concepts := mdSection(md, "## Key concepts")
	if !strings.HasPrefix(strings.TrimSpace(concepts), "- **Priya** · person · importance 0.32") || !strings.Contains(concepts, "also Elements") {
		t.Errorf("concepts:\n%s", concepts)
	}
	if s := mdSection(md, "## Archive"); !strings.Contains(s, "20 turns in 1 block, from 2025-11-03 09:12 UTC to 2025-11-03 10:09 UTC.") ||
		!strings.Contains(s, "- **Turns 1 to 20** (2025-11-03 09:12 UTC): Decision: Stripe Elements;") {
		t.Errorf("archive:\n%s", s)
	}
	if strings.Contains(md, "\n\n\n") {
		t.Errorf("two blank lines in a row:\n%s", md)
	}
}

// TestMarkdownContentLimit shows an artifact's content up to the limit.
func TestMarkdownContentLimit(t *testing.T) {
	doc := checkoutDoc(t)
	for _, tt := range []struct {
		limit      int
		shown, cut bool
	}{
		{0, true, false}, // DefaultContentLimit
		{955, true, false},
		{954, false, true},
		{-1, false, false},
	} {
		s := mdSection(export(t, doc, format.ExportMarkdown, &format.ExportOptions{ContentLimit: tt.limit}), "### checkout/webhook.go")
		if shown := strings.Contains(s, "```go\n"); shown != tt.shown {
			t.Errorf("limit %d: content shown %v, want %v:\n%s", tt.limit, shown, tt.shown, s)
		}
		if cut := strings.Contains(s, "is over the 954 bytes this report shows: `smg artifact FILE art-checkout-webhook-go` prints it"); cut != tt.cut {
			t.Errorf("limit %d: said it was cut %v, want %v:\n%s", tt.limit, cut, tt.cut, s)
		}
	}
}

// markdownHTML renders markdown as GitHub does, but without turning URLs
// into links.
func markdownHTML(t testing.TB, md string) string {
	t.Helper()
	var buf bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList))
	if err := gm.Convert([]byte(md), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// htmlText is s as the report's text renders in HTML: runs of white
// space and control characters as one space, and <, >, & and " escaped.
func htmlText(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// hostileText is text that would be markup if it were not escaped.
var hostileText = []string{
	"*bold* and _it_ and **strong**",
	"`code` and ``more``",
	"<b>html</b> <!-- c --> <http://example.com>",
	"[link](http://example.com) ![img](x.png) [ref]",
	"# not a heading ## nor this #",
	"- not an item",
	"+ nor this",
	"1. nor this",
	"12) nor this",
	"> not a quote",
	"a | table | row",
	"~~struck~~ and ~tilde~",
	"&amp; &copy; &#65;",
	"back\\slash\\",
	"line\nbreak  \nand\ttab",
	"===",
	"---",
	"***",
	"    indented code",
	"- [ ] a task",
	"\\*escaped\\*",
}

// TestMarkdownText renders escaped text: it reads as written.
func TestMarkdownText(t *testing.T) {
	for _, s := range hostileText {
		doc := spec.New("m", time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
		doc.WorkingMemory.Summary = s
		html := markdownHTML(t, mdSection(export(t, doc, format.ExportMarkdown, nil), "## Summary"))
		if want := "<p>" + htmlText(s) + "</p>\n"; html != want {
			t.Errorf("%q renders as\n%s\nwant\n%s", s, html, want)
		}
	}
}

// TestMarkdownHostile reports a memory whose labels are markup: each
// heading and item renders as one, with the text as written.
func TestMarkdownHostile(t *testing.T) {
	doc := spec.New("m", time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	for i, s := range hostileText {
		doc.SemanticGraph.Nodes = append(doc.SemanticGraph.Nodes,
			spec.Node{ID: fmt.Sprintf("decision-%02d", i), Type: spec.NodeDecision, Label: s, Outcome: s, Rationale: s, Importance: 0.5, Version: 1},
			spec.Node{ID: fmt.Sprintf("fact-%02d", i), Type: spec.NodeFact, Label: s, Category: spec.CategoryContext, Source: spec.SourceAI, Importance: 0.5, Version: 1})
	}
	code := "```\nfenced ```` inside\n"
	doc.ArtifactVault.Artifacts["art-x"] = spec.Artifact{Type: spec.ArtifactCode, Language: "go` x", Filename: "x.go",
		Versions: []spec.ArtifactVersion{{V: 1, Hash: artifacts.Hash(code), Size: int64(len(code)), Content: &code}}}
	md := export(t, doc, format.ExportMarkdown, nil)
	html := markdownHTML(t, md)
	for _, s := range hostileText {
		if !strings.Contains(html, "<h3>"+htmlText(s)+"</h3>") {
			t.Errorf("no heading for %q in:\n%s", s, html)
		}
		if !strings.Contains(html, "<li><strong>Why:</strong> "+htmlText(s)+"</li>") {
			t.Errorf("no rationale %q in:\n%s", s, html)
		}
		if !strings.Contains(html, "<li>"+htmlText(s)+" (saved by the AI)</li>") {
			t.Errorf("no fact %q in:\n%s", s, html)
		}
	}
	for _, tag := range []string{"<em>", "<del>", "<a ", "<img", "<b>", "<table", "<blockquote", "<hr", "<ol", "<input", "<h4"} {
		if strings.Contains(html, tag) {
			t.Errorf("the report renders with %s:\n%s", tag, html)
		}
	}
	// The artifact's content, in one block, as it is.
	if !strings.Contains(html, "<pre><code class=\"language-gox\">"+htmlText2(code)+"</code></pre>") {
		t.Errorf("the artifact's content is not one code block:\n%s", html)
	}
	// A heading per decision, one for the facts' category, one for the
	// artifact.
	if got := strings.Count(html, "<h3>"); got != len(hostileText)+2 {
		t.Errorf("%d headings of level 3, want %d", got, len(hostileText)+2)
	}
}

// htmlText2 escapes s as goldmark escapes code, keeping white space.
func htmlText2(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// FuzzMarkdownText checks that escaped text renders as itself.
func FuzzMarkdownText(f *testing.F) {
	for _, s := range hostileText {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
			return
		}
		doc := spec.New("m", time.Time{})
		doc.WorkingMemory.Summary = s
		md := export(t, doc, format.ExportMarkdown, nil)
		if htmlText(s) == "" {
			return
		}
		html := markdownHTML(t, mdSection(md, "## Summary"))
		if want := "<p>" + htmlText(s) + "</p>\n"; html != want {
			t.Errorf("%q renders as\n%s\nwant\n%s", s, html, want)
		}
	})
}

// parseDOT parses DOT text with gonum's parser and returns its one graph.
func parseDOT(t testing.TB, text string) *ast.Graph {
	t.Helper()
	f, err := dot.ParseString(text)
	if err != nil {
		t.Fatalf("the DOT does not parse: %v\n%s", err, text)
	}
	if len(f.Graphs) != 1 {
		t.Fatalf("%d graphs", len(f.Graphs))
	}
	return f.Graphs[0]
}

// dotUnquote is the text of a DOT ID: a quoted string's without its
// quotes and escapes.
func dotUnquote(s string) string {
	if len(s) < 2 || s[0] != '"' {
		return s
	}
	return strings.NewReplacer(`\\`, `\`, `\"`, `"`).Replace(s[1 : len(s)-1])
}

// dotGraph is what a DOT graph holds: its nodes' attributes by id, and
// its edges' attributes by "from -> to".
type dotGraph struct {
	nodes, edges map[string]map[string]string
}

func readDOT(t testing.TB, text string) dotGraph {
	t.Helper()
	g := parseDOT(t, text)
	if !g.Strict || !g.Directed {
		t.Errorf("not a strict digraph:\n%.200s", text)
	}
	out := dotGraph{nodes: map[string]map[string]string{}, edges: map[string]map[string]string{}}
	attrs := func(as []*ast.Attr) map[string]string {
		m := map[string]string{}
		for _, a := range as {
			m[a.Key] = dotUnquote(a.Val)
		}
		return m
	}
	for _, s := range g.Stmts {
		switch s := s.(type) {
		case *ast.NodeStmt:
			id := dotUnquote(s.Node.ID)
			if out.nodes[id] != nil {
				t.Errorf("node %q twice", id)
			}
			out.nodes[id] = attrs(s.Attrs)
		case *ast.EdgeStmt:
			from, to := s.From.(*ast.Node), s.To.Vertex.(*ast.Node)
			key := dotUnquote(from.ID) + " -> " + dotUnquote(to.ID)
			if s.To.To != nil || out.edges[key] != nil {
				t.Errorf("edge %s: a chain, or twice", key)
			}
			out.edges[key] = attrs(s.Attrs)
		}
	}
	return out
}

// TestDOTCheckout parses the DOT of the checkout memory: a node per node,
// an edge per linked pair, with their attributes.
func TestDOTCheckout(t *testing.T) {
	doc := checkoutDoc(t)
	text := export(t, doc, format.ExportDOT, nil)
	g := readDOT(t, text)
	if len(g.nodes) != len(doc.SemanticGraph.Nodes) {
		t.Errorf("%d nodes, want %d", len(g.nodes), len(doc.SemanticGraph.Nodes))
	}
	pairs := map[string]bool{}
	for _, e := range doc.SemanticGraph.Edges {
		pairs[e.From+" -> "+e.To] = true
		a := g.edges[e.From+" -> "+e.To]
		if a == nil || !strings.Contains(a["label"], string(e.Relation)) {
			t.Errorf("edge %s %s %s: %v", e.From, e.Relation, e.To, a)
		}
	}
	if len(g.edges) != len(pairs) {
		t.Errorf("%d edges, want %d", len(g.edges), len(pairs))
	}
	for _, n := range doc.SemanticGraph.Nodes {
		a := g.nodes[n.ID]
		if a == nil {
			t.Errorf("no node %s", n.ID)
			continue
		}
		if strings.ReplaceAll(a["label"], `\n`, " ") != n.Label && !strings.HasSuffix(a["label"], "…") {
			t.Errorf("node %s: label %q, want %q", n.ID, a["label"], n.Label)
		}
	}
	for id, want := range map[string]map[string]string{
		"decision-postgresql":                       {"shape": "diamond", "style": "filled", "fillcolor": "gold"},
		"decision-sqlite":                           {"shape": "diamond", "style": "filled,dashed"},
		"concept-stripe":                            {"shape": "ellipse", "label": "Stripe"},
		"fact-dana-prefers-go-for-all-backend-work": {"shape": "note", "label": `Dana prefers Go for all\nbackend work.`},
		"problem-we-were-storing-orders-in-sqlite-but-two": {
			"shape":   "octagon",
			"label":   `We were storing orders in\nSQLite, but two workers\nwrite at the same time and…`,
			"tooltip": "We were storing orders in SQLite, but two workers write at the same time and we get database is locked errors.",
		},
	} {
		for k, v := range want {
			if got := g.nodes[id][k]; got != v {
				t.Errorf("node %s: %s=%q, want %q", id, k, got, v)
			}
		}
	}
	for key, want := range map[string]map[string]string{
		"decision-postgresql -> decision-sqlite": {"label": "supersedes", "penwidth": "4.00", "style": "dashed", "weight": "100"},
		"solution-read-the-body-once-verify-it-with-webhook -> problem-the-webhook-returns-401-in-production-and-the": {"label": "solves", "penwidth": "3.70", "weight": "90"},
		"concept-stripe-checkout -> concept-stripe-elements":                                                          {"label": "related_to", "penwidth": "2.08"},
	} {
		for k, v := range want {
			if got := g.edges[key][k]; got != v {
				t.Errorf("edge %s: %s=%q, want %q", key, k, got, v)
			}
		}
	}
	if !strings.Contains(text, "\tlabel=\"shop\";\n") {
		t.Errorf("the graph is not labelled with the project:\n%.200s", text)
	}
}

// TestDOTHostile draws nodes whose ids and labels have quotes,
// backslashes and line breaks: it parses, with the ids as they are.
func TestDOTHostile(t *testing.T) {
	doc := spec.New("m", time.Time{})
	ids := []string{`a"b`, `c\`, "d\ne", `f\"g`, "h"}
	for _, id := range ids {
		doc.SemanticGraph.Nodes = append(doc.SemanticGraph.Nodes, spec.Node{ID: id, Type: "mystery", Label: `say "hi" \` + "\n" + id, Importance: 1})
	}
	doc.SemanticGraph.Nodes = append(doc.SemanticGraph.Nodes, spec.Node{ID: "h", Type: spec.NodeConcept, Label: "the second h"})
	for i := range ids {
		doc.SemanticGraph.Edges = append(doc.SemanticGraph.Edges,
			spec.Edge{From: ids[i], To: ids[(i+1)%len(ids)], Relation: "weird", Strength: 7},
			spec.Edge{From: ids[i], To: ids[(i+1)%len(ids)], Relation: spec.RelCauses, Strength: -1},
			spec.Edge{From: ids[i], To: "nowhere", Relation: spec.RelCauses, Strength: 1})
	}
	g := readDOT(t, export(t, doc, format.ExportDOT, nil))
	if len(g.nodes) != len(ids) || len(g.edges) != len(ids) {
		t.Errorf("%d nodes and %d edges, want %d of each", len(g.nodes), len(g.edges), len(ids))
	}
	for i, id := range ids {
		id = strings.ReplaceAll(id, "\n", `\n`)
		if g.nodes[id] == nil || g.nodes[id]["shape"] != "ellipse" {
			t.Errorf("node %q: %v", id, g.nodes[id])
		}
		next := strings.ReplaceAll(ids[(i+1)%len(ids)], "\n", `\n`)
		if e := g.edges[id+" -> "+next]; e["label"] != "causes, weird" || e["penwidth"] != "4.00" {
			t.Errorf("edge %q -> %q: %v", id, next, e)
		}
	}
}

// TestDOTGraphviz renders the checkout memory's DOT, and one of hostile
// ids and labels, with Graphviz when it is installed: no error and no
// warning.
func TestDOTGraphviz(t *testing.T) {
	path, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("Graphviz's dot is not installed")
	}
	hostile := spec.New("m", time.Time{})
	for _, s := range append(slices.Clone(hostileText), `"`, `\`, `a\"b`, "\n") {
		hostile.SemanticGraph.Nodes = append(hostile.SemanticGraph.Nodes, spec.Node{ID: s, Type: spec.NodeProblem, Label: s, Description: s})
	}
	for _, doc := range []*spec.Document{checkoutDoc(t), hostile} {
		cmd := exec.Command(path, "-Tsvg")
		cmd.Stdin = strings.NewReader(export(t, doc, format.ExportDOT, nil))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		svg, err := cmd.Output()
		if err != nil || stderr.Len() > 0 || !bytes.Contains(svg, []byte("</svg>")) {
			t.Errorf("dot -Tsvg: %v\n%s", err, stderr.Bytes())
		}
	}
}

// cytoscape decodes the Cytoscape JSON of a document.
func cytoscape(t testing.TB, doc *spec.Document, opts *format.ExportOptions) format.CytoscapeGraph {
	t.Helper()
	var g format.CytoscapeGraph
	if err := json.Unmarshal([]byte(export(t, doc, format.ExportCytoscape, opts)), &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// checkElements checks that elements are well formed for Cytoscape.js:
// unique ids, and every edge between two nodes.
func checkElements(t testing.TB, g format.CytoscapeGraph) {
	t.Helper()
	ids := map[string]bool{}
	for _, n := range g.Elements.Nodes {
		if ids[n.Data.ID] || n.Data.ID == "" {
			t.Errorf("node id %q twice or empty", n.Data.ID)
		}
		ids[n.Data.ID] = true
		if !strings.HasPrefix(n.Classes, string(n.Data.Type)) {
			t.Errorf("node %s: classes %q", n.Data.ID, n.Classes)
		}
	}
	nodes := maps.Clone(ids)
	for _, e := range g.Elements.Edges {
		if ids[e.Data.ID] {
			t.Errorf("edge id %q twice", e.Data.ID)
		}
		ids[e.Data.ID] = true
		if !nodes[e.Data.Source] || !nodes[e.Data.Target] {
			t.Errorf("edge %s: an end is not a node", e.Data.ID)
		}
	}
}

// TestCytoscapeCheckout: every node and edge of the memory, as they are.
func TestCytoscapeCheckout(t *testing.T) {
	doc := checkoutDoc(t)
	g := cytoscape(t, doc, nil)
	checkElements(t, g)
	if g.Data.ID != doc.Metadata.ID || g.Data.Name != "shop" {
		t.Errorf("graph data %+v", g.Data)
	}
	if len(g.Elements.Nodes) != len(doc.SemanticGraph.Nodes) || len(g.Elements.Edges) != len(doc.SemanticGraph.Edges) {
		t.Fatalf("%d nodes and %d edges, want %d and %d", len(g.Elements.Nodes), len(g.Elements.Edges), len(doc.SemanticGraph.Nodes), len(doc.SemanticGraph.Edges))
	}
	// The document is canonical: nodes sorted by id, edges by from, to,
	// relation, as the elements are.
	for i, n := range doc.SemanticGraph.Nodes {
		d := g.Elements.Nodes[i].Data
		if d.ID != n.ID || d.Label != n.Label || d.Type != n.Type || d.Importance != n.Importance || d.Mentions != len(n.Mentions) || d.Superseded != !n.ValidTo.IsZero() {
			t.Errorf("node %d: %+v, want %+v", i, d, n)
		}
	}
	for i, e := range doc.SemanticGraph.Edges {
		d := g.Elements.Edges[i].Data
		if d.Source != e.From || d.Target != e.To || d.Relation != e.Relation || d.Strength != e.Strength {
			t.Errorf("edge %d: %+v, want %+v", i, d, e)
		}
	}
	for _, n := range g.Elements.Nodes {
		if n.Data.ID == "decision-sqlite" && n.Classes != "decision superseded" {
			t.Errorf("the superseded decision has classes %q", n.Classes)
		}
		if n.Data.ID == "decision-stripe-elements" && n.Data.Rationale != "the designers want the payment form to match the rest of the site" {
			t.Errorf("the decision's rationale: %q", n.Data.Rationale)
		}
	}
}

// TestExportSelect leaves out the nodes below an importance, or of other
// types, and the edges that lead to them, in every format that selects.
func TestExportSelect(t *testing.T) {
	doc := checkoutDoc(t)
	for _, opts := range []*format.ExportOptions{
		{MinImportance: 0.3},
		{Types: []spec.NodeType{spec.NodeDecision, spec.NodeProblem, spec.NodeConcept}},
		{MinImportance: 0.1, Types: []spec.NodeType{spec.NodeConcept}},
		{MinImportance: 1, Types: []spec.NodeType{spec.NodeArtifact}},
	} {
		want := map[string]bool{}
		for _, n := range doc.SemanticGraph.Nodes {
			if n.Importance >= opts.MinImportance && (len(opts.Types) == 0 || slices.Contains(opts.Types, n.Type)) {
				want[n.ID] = true
			}
		}
		edges := 0
		for _, e := range doc.SemanticGraph.Edges {
			if want[e.From] && want[e.To] {
				edges++
			}
		}
		g := cytoscape(t, doc, opts)
		checkElements(t, g)
		if len(g.Elements.Nodes) != len(want) || len(g.Elements.Edges) != edges {
			t.Errorf("%+v: %d nodes and %d edges, want %d and %d", opts, len(g.Elements.Nodes), len(g.Elements.Edges), len(want), edges)
		}
		for _, n := range g.Elements.Nodes {
			if !want[n.Data.ID] {
				t.Errorf("%+v: node %s", opts, n.Data.ID)
			}
		}
		d := readDOT(t, export(t, doc, format.ExportDOT, opts))
		if len(d.nodes) != len(want) {
			t.Errorf("%+v: DOT has %d nodes, want %d", opts, len(d.nodes), len(want))
		}
		for id := range d.nodes {
			if !want[id] {
				t.Errorf("%+v: DOT node %s", opts, id)
			}
		}
	}

	// The report shows the sections of the types kept only.
	md := export(t, doc, format.ExportMarkdown, &format.ExportOptions{Types: []spec.NodeType{spec.NodeFact}})
	for h, want := range map[string]bool{"## Facts": true, "## Decisions": false, "## Problems": false, "## Artifacts": false, "## Key concepts": false, "## Summary": true, "## Archive": true} {
		if got := strings.Contains(md, "\n"+h+"\n"); got != want {
			t.Errorf("--types fact: section %s %v, want %v", h, got, want)
		}
	}
	md = export(t, doc, format.ExportMarkdown, &format.ExportOptions{MinImportance: 0.5})
	if !strings.Contains(md, "### PostgreSQL") || strings.Contains(md, "### Stripe Elements") || strings.Contains(md, "## Artifacts") {
		t.Errorf("min importance 0.5: want the PostgreSQL decision only, and no artifact (their nodes are less important):\n%s", md)
	}
	if strings.Contains(mdSection(md, "### PostgreSQL"), "Led to") {
		t.Errorf("min importance 0.5: the decision leads to an artifact left out:\n%s", md)
	}
}

func TestExportBadOptions(t *testing.T) {
	doc := checkoutDoc(t)
	for _, tt := range []struct {
		f    format.ExportFormat
		opts *format.ExportOptions
	}{
		{"turtle", nil},
		{"", nil},
		{format.ExportDOT, &format.ExportOptions{MinImportance: 1.5}},
		{format.ExportCytoscape, &format.ExportOptions{MinImportance: -0.1}},
		{format.ExportMarkdown, &format.ExportOptions{MinImportance: math.NaN()}},
		{format.ExportDOT, &format.ExportOptions{Types: []spec.NodeType{"decisions"}}},
	} {
		if _, err := format.Export(doc, tt.f, tt.opts); !errors.Is(err, format.ErrBadExport) {
			t.Errorf("%s %+v: %v, want ErrBadExport", tt.f, tt.opts, err)
		}
	}
	for _, f := range format.ExportFormats {
		if f.Selects() != (f != format.ExportJSONLD && f != format.ExportNQuads) {
			t.Errorf("%s selects: %v", f, f.Selects())
		}
	}
}

// TestWriteBytes writes a file atomically: the bytes, replacing the
// file, with no temporary file left; a private one for its owner only.
func TestWriteBytes(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "shop.md")
	if err := os.WriteFile(name, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := format.WriteBytes(name, []byte("new"), false); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(name); string(got) != "new" {
		t.Errorf("WriteBytes wrote %q", got)
	}
	if fi, _ := os.Stat(name); fi.Mode().Perm() != 0o640 {
		t.Errorf("the file's mode changed to %v", fi.Mode().Perm())
	}
	if err := format.WriteBytes(name, []byte("private"), true); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(name); fi.Mode().Perm() != 0o600 {
		t.Errorf("a private file has mode %v", fi.Mode().Perm())
	}
	fresh := filepath.Join(dir, "new.dot")
	if err := format.WriteBytes(fresh, nil, false); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o644 {
		t.Errorf("a new file has mode %v", fi.Mode().Perm())
	}
	// A file in a folder that does not exist: an error, nothing written.
	if err := format.WriteBytes(filepath.Join(dir, "no", "x"), []byte("x"), false); err == nil {
		t.Errorf("WriteBytes into a missing folder succeeded")
	}
	if es, _ := os.ReadDir(dir); len(es) != 2 {
		t.Errorf("files left: %v", es)
	}
}

// FuzzExport exports decoded documents in every format that selects:
// no panic; the DOT parses with a node per node; the Cytoscape elements
// are well formed.
func FuzzExport(f *testing.F) {
	for _, name := range []string{"small.smg", "full.smg.json", "conversations/checkout.smg"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, 0.0)
		f.Add(b, 0.3)
	}
	f.Fuzz(func(t *testing.T, b []byte, min float64) {
		doc, err := format.Unmarshal(b, &format.DecodeOptions{Limits: fuzzLimits})
		if err != nil {
			return
		}
		opts := &format.ExportOptions{MinImportance: min}
		if _, err := format.Export(doc, format.ExportMarkdown, opts); err != nil {
			if !errors.Is(err, format.ErrBadExport) {
				t.Fatalf("markdown: %v", err)
			}
			return
		}
		g := readDOT(t, export(t, doc, format.ExportDOT, opts))
		c := cytoscape(t, doc, opts)
		checkElements(t, c)
		if len(g.nodes) != len(c.Elements.Nodes) {
			t.Errorf("DOT has %d nodes, Cytoscape %d", len(g.nodes), len(c.Elements.Nodes))
		}
	})
}

// exportExample is a small memory: a problem, the decision that solved
// it, and the library it was about.
func exportExample() *spec.Document {
	at := time.Date(2025, 3, 14, 9, 3, 0, 0, time.UTC)
	doc := spec.New("crawler", at)
	doc.Metadata.ProjectName = "crawler"
	doc.SemanticGraph.Nodes = []spec.Node{
		{ID: "concept-requests", Type: spec.NodeConcept, Label: "requests", Importance: 0.4, Version: 1},
		{ID: "decision-retry-three-times", Type: spec.NodeDecision, Label: "Retry a timed-out fetch three times", Importance: 0.8, Version: 1,
			Outcome: "three attempts, then raise", Rationale: "timeouts are rare and short", Timestamp: at, FirstMentioned: 3,
			Alternatives: []spec.Alternative{{Option: "retry forever", Reason: "would hang the crawler"}}},
		{ID: "problem-fetch-times-out", Type: spec.NodeProblem, Label: "fetch() times out", Importance: 0.6, Version: 1, FirstMentioned: 2},
	}
	doc.SemanticGraph.Edges = []spec.Edge{
		{From: "decision-retry-three-times", To: "problem-fetch-times-out", Relation: spec.RelSolves, Strength: 0.9},
		{From: "problem-fetch-times-out", To: "concept-requests", Relation: spec.RelAbout, Strength: 0.6},
	}
	return doc
}

// A memory as a report to read.
func ExampleMarkdown() {
	b, err := format.Markdown(exportExample(), &format.ExportOptions{Types: []spec.NodeType{spec.NodeDecision, spec.NodeProblem}})
	if err != nil {
		panic(err)
	}
	fmt.Print(string(b))
	// Output:
	// # crawler
	//
	// Memory `crawler` · 0 exchanges · created 2025-03-14 09:03 UTC · modified 2025-03-14 09:03 UTC
	//
	// ## Decisions
	//
	// ### Retry a timed-out fetch three times
	//
	// - **Decided:** three attempts, then raise
	// - **Why:** timeouts are rare and short
	// - **Rejected:** retry forever (would hang the crawler)
	// - **Solves:** fetch() times out
	// - **When:** 2025-03-14 09:03 UTC, turn 3
	//
	// ## Problems
	//
	// ### fetch() times out
	//
	// - **Solved by decision:** Retry a timed-out fetch three times
	// - **When:** turn 2
}

// The graph of a memory, for Graphviz: smg export FILE --format dot | dot -Tsvg.
func ExampleDOT() {
	b, err := format.DOT(exportExample(), &format.ExportOptions{MinImportance: 0.5})
	if err != nil {
		panic(err)
	}
	fmt.Print(string(b))
	// Output:
	// strict digraph {
	// 	label="crawler";
	// 	labelloc="t";
	// 	rankdir="LR";
	// 	"decision-retry-three-times" [ fillcolor="gold", label="Retry a timed-out fetch\nthree times", shape="diamond", style="filled", tooltip="Retry a timed-out fetch three times",  weight=0 ];
	// 	"problem-fetch-times-out" [ fillcolor="lightcoral", label="fetch() times out", shape="octagon", style="filled", tooltip="fetch() times out",  weight=0 ];
	// 	"decision-retry-three-times" -> "problem-fetch-times-out" [ label="solves", penwidth="3.70",  weight=90 ];
	// }
}

// The graph of a memory as Cytoscape.js elements.
func ExampleCytoscapeElementsOf() {
	g, err := format.CytoscapeElementsOf(exportExample(), nil)
	if err != nil {
		panic(err)
	}
	for _, n := range g.Elements.Nodes {
		fmt.Println(n.Data.ID, n.Classes, n.Data.Importance)
	}
	for _, e := range g.Elements.Edges {
		fmt.Println(e.Data.ID, e.Data.Strength)
	}
	// Output:
	// concept-requests concept 0.4
	// decision-retry-three-times decision 0.8
	// problem-fetch-times-out problem 0.6
	// decision-retry-three-times:solves:problem-fetch-times-out 0.9
	// problem-fetch-times-out:about:concept-requests 0.6
}

func TestExportNoDocument(t *testing.T) {
	for _, f := range format.ExportFormats {
		if _, err := format.Export(nil, f, nil); !errors.Is(err, format.ErrBadExport) {
			t.Errorf("%s of no document: err = %v, want ErrBadExport", f, err)
		}
	}
	if _, err := format.Patch(spec.New("x", time.Unix(0, 0)), nil); err == nil {
		t.Error("a patch with no delta did not fail")
	}
}
