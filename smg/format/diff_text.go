package format

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// ANSI colours of [Changes.WriteText], as git uses them.
const (
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
	ansiReset  = "\x1b[m"
)

// maxValueText is how many characters of a value WriteText shows before
// it cuts it with "…".
const maxValueText = 120

// TextOptions configure [Changes.WriteText].
type TextOptions struct {
	// Color writes ANSI colours, as git does on a terminal: additions
	// green, removals red, changes yellow, headers bold or cyan.
	Color bool
	// Upkeep is how many changes of upkeep the changes leave out (see
	// [Changes.Meaning]): a last line says so.
	Upkeep int
}

// WriteText writes the changes for a person to read, in the manner of git
// diff: a header naming the two versions, then one section per part of
// the memory that changed ("@@ nodes @@"…), with a line per entry marked
// "+" (added), "-" (removed) or "~" (changed), and below a changed entry
// its members that differ, "name: old → new". Long values are cut. An
// empty diff writes nothing.
func (c *Changes) WriteText(w io.Writer, opts *TextOptions) error {
	if opts == nil {
		opts = &TextOptions{}
	}
	if c.Empty() && opts.Upkeep == 0 {
		return nil
	}
	p := &textWriter{w: bufio.NewWriter(w), color: opts.Color}
	p.line(ansiBold, "--- "+c.Base)
	p.line(ansiBold, "+++ "+c.Target)
	p.fields("document", c.Document)
	p.fields("metadata", c.Metadata)
	if len(c.WorkingMemory) > 0 || !c.RecentTurns.IsZero() {
		p.section("working memory")
		p.fieldLines("", c.WorkingMemory)
		p.turns("recent turn", c.RecentTurns)
	}
	if len(c.Nodes) > 0 {
		p.section("nodes")
		for _, n := range c.Nodes {
			p.entry(n.Change, fmt.Sprintf("%s (%s) %s", n.ID, n.Type, cut(n.Label)))
			p.fieldLines("    ", n.Fields)
		}
	}
	if len(c.Edges) > 0 {
		p.section("edges")
		for _, e := range c.Edges {
			s := fmt.Sprintf("%s --%s--> %s", e.From, e.Relation, e.To)
			switch {
			case e.Change == Added && e.NewStrength != nil:
				s += " (" + number(*e.NewStrength) + ")"
			case e.Change == Removed && e.OldStrength != nil:
				s += " (" + number(*e.OldStrength) + ")"
			case e.OldStrength != nil && e.NewStrength != nil:
				s += ": strength " + number(*e.OldStrength) + " → " + number(*e.NewStrength)
			}
			p.entry(e.Change, s)
			p.fieldLines("    ", e.Fields)
		}
	}
	p.fields("graph", c.Graph)
	if len(c.Artifacts) > 0 {
		p.section("artifacts")
		for _, a := range c.Artifacts {
			s := a.ID + " (" + a.Type
			if a.Filename != "" {
				s += ", " + a.Filename
			}
			p.entry(a.Change, s+")")
			p.fieldLines("    ", a.Fields)
			for _, v := range a.Versions {
				s := fmt.Sprintf("v%d %s, %d bytes", v.V, v.Hash, v.Size)
				if v.Turn > 0 {
					s += fmt.Sprintf(", turn %d", v.Turn)
				}
				p.entryIndent("    ", v.Change, s)
				p.fieldLines("        ", v.Fields)
				p.unified(v.Diff)
			}
		}
	}
	p.fields("vault", c.Vault)
	if len(c.Blocks) > 0 || len(c.Archive) > 0 {
		p.section("archive")
		p.fieldLines("", c.Archive)
		for _, b := range c.Blocks {
			p.entry(b.Change, fmt.Sprintf("%s turns %d-%d (%d turns)", b.ID, b.TurnRange[0], b.TurnRange[1], b.TurnCount))
			p.fieldLines("    ", b.Fields)
		}
	}
	if len(c.VectorIndex) > 0 || !c.Embeddings.IsZero() || !c.Excerpts.IsZero() {
		p.section("vector index")
		p.fieldLines("", c.VectorIndex)
		p.turns("embedding of turn", c.Embeddings)
		p.excerpts(c.Excerpts)
	}
	if len(c.Private) > 0 {
		p.section("private contexts")
		for _, pc := range c.Private {
			s := pc.Owner + " (in the clear)"
			if pc.Sealed {
				s = pc.Owner + " (sealed)"
			}
			p.entry(pc.Change, s)
			if pc.Changes != nil {
				var inner strings.Builder
				if err := pc.Changes.WriteText(&inner, &TextOptions{Color: p.color}); err != nil {
					return err
				}
				lines := strings.Split(strings.TrimSuffix(inner.String(), "\n"), "\n")
				for _, l := range lines[min(2, len(lines)):] { // without its ---/+++ header
					p.line("", "    "+l)
				}
			}
		}
	}
	switch opts.Upkeep {
	case 0:
	case 1:
		p.line(ansiCyan, "(and 1 change of upkeep: --all shows it)")
	default:
		p.line(ansiCyan, fmt.Sprintf("(and %d changes of upkeep, activation, importance, mentions, strengths, summary, blocks and vectors: --all shows them)", opts.Upkeep))
	}
	return p.w.Flush()
}

// textWriter writes the lines of WriteText; write errors show at Flush.
type textWriter struct {
	w     *bufio.Writer
	color bool
}

// line writes s in colour.
func (p *textWriter) line(color, s string) {
	if p.color && color != "" {
		s = color + s + ansiReset
	}
	p.w.WriteString(s)
	p.w.WriteByte('\n')
}

func (p *textWriter) section(name string) { p.line(ansiCyan, "@@ "+name+" @@") }

// fields writes a section of member changes, if there are any.
func (p *textWriter) fields(name string, fs []FieldChange) {
	if len(fs) > 0 {
		p.section(name)
		p.fieldLines("", fs)
	}
}

var changeMarks = map[Change]struct{ mark, color string }{
	Added:   {"+ ", ansiGreen},
	Removed: {"- ", ansiRed},
	Changed: {"~ ", ansiYellow},
}

func (p *textWriter) entry(ch Change, s string) { p.entryIndent("", ch, s) }

func (p *textWriter) entryIndent(indent string, ch Change, s string) {
	m := changeMarks[ch]
	p.line(m.color, indent+m.mark+s)
}

// fieldLines writes a line per member change: "+ name: new" for a member
// added, "- name: old" for one removed, "~ name: old → new" otherwise.
func (p *textWriter) fieldLines(indent string, fs []FieldChange) {
	for _, f := range fs {
		switch {
		case f.Old == nil:
			p.entryIndent(indent, Added, f.Name+": "+value(f.New))
		case f.New == nil:
			p.entryIndent(indent, Removed, f.Name+": "+value(f.Old))
		default:
			p.entryIndent(indent, Changed, f.Name+": "+value(f.Old)+" → "+value(f.New))
		}
	}
}

// turns writes the turns added, removed and changed, as ranges.
func (p *textWriter) turns(what string, t TurnChanges) {
	for _, g := range []struct {
		ch    Change
		turns []int
	}{{Added, t.Added}, {Removed, t.Removed}, {Changed, t.Changed}} {
		if len(g.turns) > 0 {
			s := what
			if len(g.turns) > 1 {
				s += "s"
			}
			p.entry(g.ch, s+" "+ranges(g.turns))
		}
	}
}

// excerpts writes the excerpts whose embeddings changed, a line per kind
// of change: one excerpt by its bytes, more by their number and turns
// (a long turn has many).
func (p *textWriter) excerpts(x ExcerptChanges) {
	for _, g := range []struct {
		ch Change
		xs []Excerpt
	}{{Added, x.Added}, {Removed, x.Removed}, {Changed, x.Changed}} {
		switch len(g.xs) {
		case 0:
		case 1:
			e := g.xs[0]
			p.entry(g.ch, fmt.Sprintf("embedding of turn %d, bytes %d-%d", e.Turn, e.Start, e.End))
		default:
			var turns []int
			for _, e := range g.xs {
				if len(turns) == 0 || turns[len(turns)-1] != e.Turn {
					turns = append(turns, e.Turn)
				}
			}
			s := "turn"
			if len(turns) > 1 {
				s += "s"
			}
			p.entry(g.ch, fmt.Sprintf("embeddings of %d excerpts of %s %s", len(g.xs), s, ranges(turns)))
		}
	}
}

// unified writes a unified diff, its lines coloured as git colours them.
func (p *textWriter) unified(diff string) {
	for l := range strings.Lines(diff) {
		l = strings.TrimSuffix(l, "\n")
		color := ""
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			color = ansiBold
		case strings.HasPrefix(l, "@@"):
			color = ansiCyan
		case strings.HasPrefix(l, "+"):
			color = ansiGreen
		case strings.HasPrefix(l, "-"):
			color = ansiRed
		}
		p.line(color, l)
	}
}

// ranges writes sorted numbers as runs: "1-3, 7".
func ranges(ns []int) string {
	var b strings.Builder
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(ns[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(ns[j]))
		}
		i = j + 1
	}
	return b.String()
}

// value is a JSON value as WriteText shows it: as it is, cut when long.
func value(v jsontext.Value) string { return cut(string(v)) }

// cut shortens s to maxValueText characters, ending it with "…".
func cut(s string) string {
	if utf8.RuneCountInString(s) <= maxValueText {
		return s
	}
	i := 0
	for n := 0; n < maxValueText-1; n++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}

// number writes a strength as JSON writes it.
func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
