package format

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// markdownConcepts is how many concepts the report lists, the most
// important first.
const markdownConcepts = 20

// Markdown returns a report of doc that a person reads, in plain
// CommonMark (headings, lists, fenced code; no extension, so that any
// renderer shows it):
//
//   - the title (the project's name, or the memory's id), the memory's
//     id, size and dates;
//   - working memory: the summary and the current goals;
//   - the decisions in force, oldest first, each with its outcome,
//     rationale, rejected alternatives, what it solves and led to;
//   - the current facts by category, from identity to context, each with
//     its scope and who saved it;
//   - the problems, each with what solves it (following solves edges),
//     what causes it and what it is about, then the solutions to no
//     problem the report shows;
//   - the artifacts: file name, type, language, versions, the latest's
//     size, what it implements, and the latest version's content in a
//     fenced block when it is at most opts.ContentLimit bytes;
//   - the key concepts, by importance (the first 20);
//   - what was superseded: decisions and facts whose validity ended, with
//     what replaced them and when;
//   - the deep archive: turns, blocks, dates and each block's key points.
//
// opts.MinImportance and opts.Types select the nodes the report shows;
// a section with nothing to show is left out, and an artifact is shown
// when its node is, or when no node refers to it. Text from the memory is
// escaped, so that it reads as written and never as markup; times are in
// UTC. The same memory always gives the same report.
func Markdown(doc *spec.Document, opts *ExportOptions) ([]byte, error) {
	if err := checkExport(doc, opts); err != nil {
		return nil, err
	}
	if opts == nil {
		opts = &ExportOptions{}
	}
	r := &report{doc: doc, opts: opts, g: selectGraph(doc, opts), in: map[string][]spec.Edge{}, out: map[string][]spec.Edge{}}
	for _, e := range r.g.edges {
		r.out[e.From] = append(r.out[e.From], e)
		r.in[e.To] = append(r.in[e.To], e)
	}
	r.title()
	r.workingMemory()
	r.decisions()
	r.facts()
	r.problems()
	r.artifacts()
	r.concepts()
	r.superseded()
	r.archive()
	return []byte(r.b.String()), nil
}

// report writes the markdown report of a document.
type report struct {
	b       strings.Builder
	doc     *spec.Document
	opts    *ExportOptions
	g       *exportGraph
	in, out map[string][]spec.Edge // the selected edges to and from a node
}

// printf writes formatted text.
func (r *report) printf(format string, args ...any) { fmt.Fprintf(&r.b, format, args...) }

// heading starts a section at a level (2 or 3) with text, escaped.
func (r *report) heading(level int, text string) {
	r.blank()
	r.printf("%s %s\n\n", strings.Repeat("#", level), mdText(text))
}

// blank ends the block before with a blank line, unless it has one.
func (r *report) blank() {
	if s := r.b.String(); s != "" && !strings.HasSuffix(s, "\n\n") {
		r.b.WriteByte('\n')
	}
}

// item writes a list item, "- " and text, which is markdown already.
func (r *report) item(text string) { r.printf("- %s\n", text) }

// field writes a list item "- **name:** text" when text is not empty.
func (r *report) field(name, text string) {
	if text != "" {
		r.item("**" + name + ":** " + text)
	}
}

// nodesOf returns the selected nodes of type t in order.
func (r *report) nodesOf(t spec.NodeType, order func(a, b *spec.Node) int) []*spec.Node {
	var out []*spec.Node
	for _, n := range r.g.nodes {
		if n.Type == t {
			out = append(out, n)
		}
	}
	slices.SortStableFunc(out, order)
	return out
}

// linked returns the selected nodes linked to id by rel: those an edge
// from id points at (out), or those with an edge to id.
func (r *report) linked(id string, rel spec.Relation, out bool) []*spec.Node {
	var nodes []*spec.Node
	edges, other := r.in[id], func(e spec.Edge) string { return e.From }
	if out {
		edges, other = r.out[id], func(e spec.Edge) string { return e.To }
	}
	for _, e := range edges {
		if e.Relation == rel {
			nodes = append(nodes, r.g.byID[other(e)])
		}
	}
	return nodes
}

// labels lists nodes by their labels, escaped, separated by "; ".
func labels(nodes []*spec.Node) string {
	s := make([]string, len(nodes))
	for i, n := range nodes {
		s[i] = mdText(cmp.Or(n.Label, n.ID))
	}
	return strings.Join(s, "; ")
}

func (r *report) title() {
	m := r.doc.Metadata
	r.printf("# %s\n\n", mdText(cmp.Or(m.ProjectName, "Memory "+m.ID)))
	parts := []string{"Memory " + mdCode(m.ID), plural(m.TotalExchanges, "exchange")}
	if !m.Created.IsZero() {
		parts = append(parts, "created "+mdTime(m.Created))
	}
	if !m.Modified.IsZero() {
		parts = append(parts, "modified "+mdTime(m.Modified))
	}
	r.printf("%s\n", strings.Join(parts, " · "))
	if m.Description != "" {
		r.printf("\n%s\n", mdText(m.Description))
	}
	if s := m.Scope; s != nil {
		r.printf("\nScope: %s\n", mdText(strings.TrimSpace(s.Kind+" "+cmp.Or(s.Name, s.ID))))
	}
	if len(m.Tags) > 0 {
		tags := make([]string, len(m.Tags))
		for i, t := range m.Tags {
			tags[i] = mdText(t)
		}
		r.printf("\nTags: %s\n", strings.Join(tags, ", "))
	}
}

func (r *report) workingMemory() {
	wm := r.doc.WorkingMemory
	if s := mdText(wm.Summary); s != "" {
		r.heading(2, "Summary")
		r.printf("%s\n", s)
	}
	if len(wm.CurrentGoals) > 0 {
		r.heading(2, "Current goals")
		for _, g := range wm.CurrentGoals {
			r.item(mdText(g))
		}
	}
}

// decisions lists the decisions in force, oldest first.
func (r *report) decisions() {
	ds := r.nodesOf(spec.NodeDecision, func(a, b *spec.Node) int {
		return cmp.Or(a.Timestamp.Compare(b.Timestamp), cmp.Compare(a.FirstMentioned, b.FirstMentioned), strings.Compare(a.ID, b.ID))
	})
	ds = slices.DeleteFunc(ds, superseded)
	if len(ds) == 0 {
		return
	}
	r.heading(2, "Decisions")
	for _, d := range ds {
		r.heading(3, cmp.Or(d.Label, d.ID))
		r.detail(d)
		r.field("Decided", mdText(d.Outcome))
		r.field("Why", mdText(d.Rationale))
		alts := make([]string, len(d.Alternatives))
		for i, a := range d.Alternatives {
			alts[i] = mdText(a.Option)
			if a.Reason != "" {
				alts[i] += " (" + mdText(a.Reason) + ")"
			}
		}
		r.field("Rejected", strings.Join(alts, "; "))
		r.field("Solves", labels(r.linked(d.ID, spec.RelSolves, true)))
		r.field("Led to", labels(r.linked(d.ID, spec.RelResultedIn, true)))
		r.field("Supersedes", labels(r.linked(d.ID, spec.RelSupersedes, true)))
		r.field("When", r.when(d, cmp.Or(d.Timestamp, d.ValidFrom)))
	}
}

// detail writes a node's description, when it says more than its label.
func (r *report) detail(n *spec.Node) {
	if d := mdText(n.Description); d != "" && d != mdText(n.Label) {
		r.printf("%s\n\n", d)
	}
}

// when says when a node came about: at a time, in a turn.
func (r *report) when(n *spec.Node, t time.Time) string {
	var parts []string
	if !t.IsZero() {
		parts = append(parts, mdTime(t))
	}
	if n.FirstMentioned > 0 {
		parts = append(parts, "turn "+strconv.Itoa(n.FirstMentioned))
	}
	return strings.Join(parts, ", ")
}

// facts lists the current facts by category.
func (r *report) facts() {
	var facts []*spec.Node
	for _, f := range graph.Facts(r.doc, graph.FactFilter{}) {
		if n := r.g.byID[f.ID]; n != nil && n.Type == spec.NodeFact && !superseded(n) {
			facts = append(facts, n)
		}
	}
	if len(facts) == 0 {
		return
	}
	r.heading(2, "Facts")
	category := "\x00"
	for _, f := range facts {
		if f.Category != category {
			category = f.Category
			r.heading(3, capitalize(cmp.Or(category, "other")))
		}
		r.item(mdText(graph.FactText(f)) + factNote(f))
	}
}

// factNote is what the report says of a fact after its text: its scope,
// who saved it, whether it is pinned.
func factNote(f *spec.Node) string {
	var parts []string
	if f.Scope != "" {
		parts = append(parts, mdText(f.Scope))
	}
	switch f.Source {
	case spec.SourceUser:
		parts = append(parts, "saved by the user")
	case spec.SourceAI:
		parts = append(parts, "saved by the AI")
	}
	if f.Pinned {
		parts = append(parts, "pinned")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// problems lists the problems, in the order they came up, with what
// solves them; then the solutions to none of them.
func (r *report) problems() {
	chrono := func(a, b *spec.Node) int {
		return cmp.Or(cmp.Compare(a.FirstMentioned, b.FirstMentioned), strings.Compare(a.ID, b.ID))
	}
	ps := r.nodesOf(spec.NodeProblem, chrono)
	solved := map[string]bool{}
	if len(ps) > 0 {
		r.heading(2, "Problems")
	}
	for _, p := range ps {
		r.heading(3, cmp.Or(p.Label, p.ID))
		r.detail(p)
		solvers := r.linked(p.ID, spec.RelSolves, false)
		if len(solvers) == 0 {
			r.field("Status", "no solution recorded")
		}
		for _, s := range solvers {
			solved[s.ID] = true
			r.field("Solved by "+mdText(string(s.Type)), mdText(graph.FactText(s)))
		}
		r.field("Caused by", labels(r.linked(p.ID, spec.RelCauses, false)))
		r.field("About", labels(r.linked(p.ID, spec.RelAbout, true)))
		r.field("When", r.when(p, time.Time{}))
	}
	var other []*spec.Node
	for _, s := range r.nodesOf(spec.NodeSolution, chrono) {
		if !solved[s.ID] {
			other = append(other, s)
		}
	}
	if len(other) == 0 {
		return
	}
	r.heading(2, "Other solutions")
	for _, s := range other {
		r.item(mdText(graph.FactText(s)))
	}
}

// artifacts lists the artifacts of the vault, with the content of the
// latest version when it is small enough.
func (r *report) artifacts() {
	if len(r.opts.Types) > 0 && !slices.Contains(r.opts.Types, spec.NodeArtifact) {
		return
	}
	// The nodes that refer to each artifact, and whether one is selected.
	nodes := map[string][]*spec.Node{}
	referred := map[string]bool{}
	for i := range r.doc.SemanticGraph.Nodes {
		n := &r.doc.SemanticGraph.Nodes[i]
		if n.Type != spec.NodeArtifact || n.ArtifactID == "" {
			continue
		}
		referred[n.ArtifactID] = true
		if r.g.byID[n.ID] == n {
			nodes[n.ArtifactID] = append(nodes[n.ArtifactID], n)
		}
	}
	limit := cmp.Or(r.opts.ContentLimit, DefaultContentLimit)
	first := true
	for _, a := range Artifacts(r.doc) {
		if referred[a.ID] && len(nodes[a.ID]) == 0 {
			continue
		}
		if first {
			r.heading(2, "Artifacts")
			first = false
		}
		r.heading(3, cmp.Or(a.Filename, a.ID))
		about := []string{mdCode(a.ID), mdText(string(a.Type))}
		if a.Language != "" {
			about = append(about, mdText(a.Language))
		}
		if slices.Contains(r.doc.WorkingMemory.ActiveArtifacts, a.ID) {
			about = append(about, "in use now")
		}
		r.field("Artifact", strings.Join(about, " · "))
		versions := plural(a.Versions, "version")
		if a.Versions > 0 {
			versions += ", the latest " + plural(int(a.Size), "byte")
		}
		switch {
		case a.FirstTurn > 0 && a.FirstTurn == a.LastTurn:
			versions += fmt.Sprintf(", turn %d", a.FirstTurn)
		case a.FirstTurn > 0:
			versions += fmt.Sprintf(", turns %d to %d", a.FirstTurn, a.LastTurn)
		}
		r.field("Versions", versions)
		var implements, from []*spec.Node
		for _, n := range nodes[a.ID] {
			implements = append(implements, r.linked(n.ID, spec.RelImplements, true)...)
			from = append(from, r.linked(n.ID, spec.RelResultedIn, false)...)
		}
		r.field("Implements", labels(implements))
		r.field("Came from", labels(from))
		if limit < 0 || a.Versions == 0 {
			continue
		}
		if a.Size > int64(limit) {
			r.printf("\nThe latest version, %s, is over the %s this report shows: `smg artifact FILE %s` prints it.\n",
				plural(int(a.Size), "byte"), plural(limit, "byte"), mdCodeText(a.ID))
			continue
		}
		content, err := ArtifactContent(r.doc, a.ID, 0)
		switch {
		case err != nil:
			r.printf("\nThe latest version does not reconstruct: %s\n", mdText(err.Error()))
		case len(content) > limit:
			r.printf("\nThe latest version, %s, is over the %s this report shows: `smg artifact FILE %s` prints it.\n",
				plural(len(content), "byte"), plural(limit, "byte"), mdCodeText(a.ID))
		default:
			r.printf("\n%s\n", mdFence(content, cmp.Or(a.Language, string(a.Type))))
		}
	}
}

// concepts lists the most important concepts.
func (r *report) concepts() {
	cs := r.nodesOf(spec.NodeConcept, func(a, b *spec.Node) int {
		return cmp.Or(cmp.Compare(b.Importance, a.Importance), cmp.Compare(b.Activation, a.Activation), strings.Compare(a.ID, b.ID))
	})
	if len(cs) == 0 {
		return
	}
	r.heading(2, "Key concepts")
	for _, c := range cs[:min(len(cs), markdownConcepts)] {
		parts := []string{"**" + mdText(cmp.Or(c.Label, c.ID)) + "**"}
		if kind, ok := c.Metadata["kind"].(string); ok && kind != "" {
			parts = append(parts, mdText(kind))
		}
		parts = append(parts, "importance "+strconv.FormatFloat(c.Importance, 'f', 2, 64))
		if len(c.Mentions) > 0 {
			parts = append(parts, "mentioned in "+plural(len(c.Mentions), "turn"))
		}
		if len(c.Aliases) > 0 {
			aliases := make([]string, len(c.Aliases))
			for i, a := range c.Aliases {
				aliases[i] = mdText(a)
			}
			parts = append(parts, "also "+strings.Join(aliases, ", "))
		}
		r.item(strings.Join(parts, " · "))
	}
	if len(cs) > markdownConcepts {
		r.printf("\nAnd %d more.\n", len(cs)-markdownConcepts)
	}
}

// superseded lists the decisions and facts whose validity ended, most
// recently ended first, with what replaced them.
func (r *report) superseded() {
	var old []*spec.Node
	for _, n := range r.g.nodes {
		if superseded(n) && (n.Type == spec.NodeDecision || n.Type == spec.NodeFact) {
			old = append(old, n)
		}
	}
	if len(old) == 0 {
		return
	}
	slices.SortStableFunc(old, func(a, b *spec.Node) int { return b.ValidTo.Compare(a.ValidTo) })
	r.heading(2, "Superseded")
	for _, n := range old {
		text := capitalize(string(n.Type)) + ": " + mdText(graph.FactText(n))
		if n.Type == spec.NodeFact && n.Category != "" {
			text = "Fact (" + mdText(n.Category) + "): " + mdText(graph.FactText(n))
		}
		if by := r.linked(n.ID, spec.RelSupersedes, false); len(by) > 0 {
			text += ", replaced by " + labels(by)
		}
		r.item(text + " on " + mdTime(n.ValidTo))
	}
}

// archive says what the deep archive holds, block by block.
func (r *report) archive() {
	blocks := r.doc.DeepArchive.Blocks
	if len(blocks) == 0 {
		return
	}
	r.heading(2, "Archive")
	turns := 0
	var first, last time.Time
	for _, b := range blocks {
		turns += b.TurnCount
		if !b.FirstTimestamp.IsZero() && (first.IsZero() || b.FirstTimestamp.Before(first)) {
			first = b.FirstTimestamp
		}
		if b.LastTimestamp.After(last) {
			last = b.LastTimestamp
		}
	}
	r.printf("%s in %s", plural(turns, "turn"), plural(len(blocks), "block"))
	if !first.IsZero() && !last.IsZero() {
		r.printf(", from %s to %s", mdTime(first), mdTime(last))
	}
	r.printf(".\n\n")
	for _, b := range blocks {
		text := fmt.Sprintf("**Turns %d to %d**", b.TurnRange[0], b.TurnRange[1])
		if !b.FirstTimestamp.IsZero() {
			text += " (" + mdTime(b.FirstTimestamp) + ")"
		}
		if len(b.KeyPoints) > 0 {
			points := make([]string, len(b.KeyPoints))
			for i, p := range b.KeyPoints {
				points[i] = mdText(p)
			}
			text += ": " + strings.Join(points, "; ")
		}
		r.item(text)
	}
}

// mdSpecial are the characters that can start markup anywhere in a line
// of CommonMark or of GitHub's extensions (tables, strikethrough, math).
const mdSpecial = "\\`*_[]<>#|~&$"

// mdText returns s as inline markdown text that renders as s: runs of
// white space and control characters become one space, and every
// character that could start markup is escaped with a backslash, as is
// what would start a list, a heading or a block quote at the start of a
// line.
func mdText(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	var b strings.Builder
	b.Grow(len(s) + 8)
	// A line that starts with "-", "+", "=", or digits and "." or ")",
	// starts a block.
	lead := 0
	for lead < len(s) && lead < 9 && s[lead] >= '0' && s[lead] <= '9' {
		lead++
	}
	for i, r := range s {
		switch {
		case strings.ContainsRune(mdSpecial, r),
			i == 0 && (r == '-' || r == '+' || r == '='),
			i == lead && lead > 0 && (r == '.' || r == ')'):
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mdCode returns s as a code span, or as escaped text when it holds a
// backquote (a valid id never does).
func mdCode(s string) string {
	if t := mdCodeText(s); t != "" {
		return "`" + t + "`"
	}
	return mdText(s)
}

// mdCodeText returns s to put between backquotes, or "" when it cannot
// be.
func mdCodeText(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if strings.Contains(s, "`") {
		return ""
	}
	return s
}

// mdFence returns content as a fenced code block: a fence of backquotes
// longer than any run of them in content, and the info string lang,
// cut to the characters a language name has.
func mdFence(content, lang string) string {
	run, longest := 0, 0
	for _, r := range content {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	lang = strings.Map(func(r rune) rune {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("+#._-", r)) {
			return r
		}
		return -1
	}, lang)
	if !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	return fence + lang + "\n" + content + fence
}

// mdTime is a time as the report writes it, to the minute, in UTC.
func mdTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// plural is n and the noun, in the plural unless n is 1.
func plural(n int, noun string) string {
	s := strconv.Itoa(n) + " " + noun
	if n != 1 {
		s += "s"
	}
	return s
}

// capitalize puts the first letter of s in upper case.
func capitalize(s string) string {
	for i, r := range s {
		return string(unicode.ToUpper(r)) + s[i+len(string(r)):]
	}
	return s
}
