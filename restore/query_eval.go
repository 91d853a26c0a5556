package restore

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/smg-memory/smg/spec"
)

// Matcher finds the nodes that a text matches, for the MATCH conditions of
// a query: it returns a score for each node it matches, by node id. A
// full-text index over the nodes is a Matcher; [Query.Run] calls it once
// per MATCH condition.
type Matcher interface {
	Match(text string) (map[string]float64, error)
}

// run is the state of one [Query.Run].
type run struct {
	doc *spec.Document
	// now is the memory's present, for CURRENT (Appendix B).
	now time.Time
	// superseded holds the targets of supersedes edges.
	superseded map[string]bool
	// neighbours are the nodes linked to each node by an edge, either
	// way; topic builds them on first use.
	neighbours map[string][]*spec.Node
	// matches are the results of the MATCH conditions, by their number.
	matches []map[string]float64
}

// Run returns the nodes of doc that the query selects, in its order. m
// answers the MATCH conditions; when m is nil, MATCH falls back to a test
// that every word of its text is a word of the node (Appendix B). The
// only errors are m's, wrapped.
func (q *Query) Run(doc *spec.Document, m Matcher) ([]spec.Node, error) {
	nodes := doc.SemanticGraph.Nodes
	r := &run{doc: doc, now: memoryNow(doc), superseded: map[string]bool{}}
	for _, e := range doc.SemanticGraph.Edges {
		if e.Relation == spec.RelSupersedes {
			r.superseded[e.To] = true
		}
	}
	r.matches = make([]map[string]float64, q.matches)
	var err error
	walk(q.where, func(x matchExpr) {
		if err != nil {
			return
		}
		if m == nil {
			r.matches[x.n] = wordMatch(nodes, x.text)
			return
		}
		res, merr := m.Match(x.text)
		if merr != nil {
			err = fmt.Errorf("MATCH %q: %w", x.text, merr)
		}
		r.matches[x.n] = res
	})
	if err != nil {
		return nil, err
	}

	var out []*spec.Node
	for i := range nodes {
		n := &nodes[i]
		if (q.typ == "" || n.Type == q.typ) && (q.where == nil || q.where.eval(r, n)) {
			out = append(out, n)
		}
	}
	order := q.order
	if len(order) == 0 {
		order = defaultOrder
	}
	slices.SortStableFunc(out, func(a, b *spec.Node) int { return r.compare(order, a, b) })
	if q.limit > 0 && len(out) > q.limit {
		out = out[:q.limit]
	}
	res := make([]spec.Node, len(out))
	for i, n := range out {
		res[i] = *n
	}
	return res, nil
}

var defaultOrder = []orderKey{{field: fieldNames["importance"], desc: true}}

// memoryNow is the time of the memory's last turn, or, when its turns
// have no times, the time it was last modified.
func memoryNow(doc *spec.Document) time.Time {
	var now time.Time
	for _, b := range doc.DeepArchive.Blocks {
		if b.LastTimestamp.After(now) {
			now = b.LastTimestamp
		}
	}
	for _, t := range doc.WorkingMemory.RecentContext {
		if t.Timestamp.After(now) {
			now = t.Timestamp
		}
	}
	if now.IsZero() {
		now = doc.Metadata.Modified
	}
	return now
}

// walk calls f on the MATCH conditions of x, in the order of the text.
func walk(x expr, f func(matchExpr)) {
	switch x := x.(type) {
	case orExpr:
		for _, y := range x {
			walk(y, f)
		}
	case andExpr:
		for _, y := range x {
			walk(y, f)
		}
	case notExpr:
		walk(x.x, f)
	case matchExpr:
		f(x)
	}
}

// compare orders two nodes by the keys, then by id. A node without a
// value for a key comes after the nodes with one, in either direction.
func (r *run) compare(keys []orderKey, a, b *spec.Node) int {
	for _, k := range keys {
		c, aok, bok := r.compareField(k.field, a, b)
		switch {
		case aok && !bok:
			return -1
		case !aok && bok:
			return 1
		case !aok:
			continue
		}
		if k.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return strings.Compare(a.ID, b.ID)
}

func (r *run) compareField(f *field, a, b *spec.Node) (c int, aok, bok bool) {
	switch {
	case f == scoreField:
		return cmp.Compare(r.score(a), r.score(b)), true, true
	case f.kind == kindString:
		x, aok := f.str(a)
		y, bok := f.str(b)
		return cmp.Or(strings.Compare(strings.ToLower(x), strings.ToLower(y)), strings.Compare(x, y)), aok, bok
	case f.kind == kindNumber:
		x, aok := f.num(a)
		y, bok := f.num(b)
		return cmp.Compare(x, y), aok, bok
	case f.kind == kindTime:
		x, aok := f.time(a)
		y, bok := f.time(b)
		return x.Compare(y), aok, bok
	}
	x, y := f.bool(a), f.bool(b)
	switch {
	case x == y:
		return 0, true, true
	case y:
		return -1, true, true
	}
	return 1, true, true
}

// score is the sum of the node's scores over the MATCH conditions.
func (r *run) score(n *spec.Node) float64 {
	var s float64
	for _, m := range r.matches {
		s += m[n.ID]
	}
	return s
}

func (x orExpr) eval(r *run, n *spec.Node) bool {
	return slices.ContainsFunc(x, func(y expr) bool { return y.eval(r, n) })
}

func (x andExpr) eval(r *run, n *spec.Node) bool {
	return !slices.ContainsFunc(x, func(y expr) bool { return !y.eval(r, n) })
}

func (x notExpr) eval(r *run, n *spec.Node) bool { return !x.x.eval(r, n) }

// CURRENT: no supersedes edge points at the node, and its validity is
// open or ends after the memory's present.
func (currentExpr) eval(r *run, n *spec.Node) bool {
	return !r.superseded[n.ID] && (n.ValidTo.IsZero() || n.ValidTo.After(r.now))
}

func (x matchExpr) eval(r *run, n *spec.Node) bool {
	_, ok := r.matches[x.n][n.ID]
	return ok
}

func (x compareExpr) eval(r *run, n *spec.Node) bool {
	f := x.field
	switch f.kind {
	case kindString:
		v, ok := f.str(n)
		return ok && (strings.ToLower(v) == strings.ToLower(x.str)) == (x.op == opEq)
	case kindNumber:
		v, ok := f.num(n)
		return ok && holds(x.op, cmp.Compare(v, x.num))
	case kindBool:
		return (f.bool(n) == x.bool) == (x.op == opEq)
	}
	v, ok := f.time(n)
	if !ok {
		return false
	}
	if x.from.Equal(x.to) { // an instant
		return holds(x.op, v.Compare(x.from))
	}
	// A day, [from, to).
	switch x.op {
	case opEq:
		return !v.Before(x.from) && v.Before(x.to)
	case opNe:
		return v.Before(x.from) || !v.Before(x.to)
	case opLt:
		return v.Before(x.from)
	case opLe:
		return v.Before(x.to)
	case opGt:
		return !v.Before(x.to)
	}
	return !v.Before(x.from) // opGe
}

// holds says whether a comparison whose result is c satisfies o.
func holds(o op, c int) bool {
	switch o {
	case opEq:
		return c == 0
	case opNe:
		return c != 0
	case opLt:
		return c < 0
	case opLe:
		return c <= 0
	case opGt:
		return c > 0
	}
	return c >= 0 // opGe
}

func (x containsExpr) eval(r *run, n *spec.Node) bool {
	v, ok := x.field.str(n)
	return ok && strings.Contains(strings.ToLower(v), strings.ToLower(x.text))
}

// topic = "x": the node's label, an alias or its description holds x as a
// phrase, or a node linked to it has x as its label or an alias. topic
// CONTAINS "x": the same texts hold x anywhere. topic != "x" is NOT topic
// = "x".
func (x topicExpr) eval(r *run, n *spec.Node) bool {
	t := strings.ToLower(x.text)
	own, other := hasPhrase, equal
	if x.op == opContains {
		own, other = strings.Contains, strings.Contains
	}
	found := slices.ContainsFunc(append([]string{n.Label, n.Description}, n.Aliases...), func(s string) bool {
		return own(strings.ToLower(s), t)
	})
	if !found {
		found = slices.ContainsFunc(r.linked(n.ID), func(m *spec.Node) bool {
			return other(strings.ToLower(m.Label), t) || slices.ContainsFunc(m.Aliases, func(a string) bool { return other(strings.ToLower(a), t) })
		})
	}
	return found == (x.op != opNe)
}

func equal(a, b string) bool { return a == b }

// linked returns the nodes linked to the node id by an edge, either way.
func (r *run) linked(id string) []*spec.Node {
	if r.neighbours == nil {
		nodes := r.doc.SemanticGraph.Nodes
		byID := make(map[string]*spec.Node, len(nodes))
		for i := range nodes {
			byID[nodes[i].ID] = &nodes[i]
		}
		r.neighbours = map[string][]*spec.Node{}
		for _, e := range r.doc.SemanticGraph.Edges {
			from, to := byID[e.From], byID[e.To]
			if from == nil || to == nil || from == to {
				continue
			}
			r.neighbours[e.From] = append(r.neighbours[e.From], to)
			r.neighbours[e.To] = append(r.neighbours[e.To], from)
		}
	}
	return r.neighbours[id]
}

// hasPhrase says whether text holds phrase where it neither starts nor
// ends inside a word: the characters around it, if any, are not letters
// or digits, unless phrase itself starts or ends with something else.
func hasPhrase(text, phrase string) bool {
	if phrase == "" {
		return true
	}
	first, _ := utf8.DecodeRuneInString(phrase)
	last, _ := utf8.DecodeLastRuneInString(phrase)
	for i := 0; ; {
		j := strings.Index(text[i:], phrase)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(phrase)
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if (start == 0 || !isWord(first) || !isWord(before)) && (end == len(text) || !isWord(last) || !isWord(after)) {
			return true
		}
		_, size := utf8.DecodeRuneInString(text[start:])
		i = start + size
	}
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// words splits text, in lower case, into runs of letters and digits.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !isWord(r) })
}

// wordMatch is MATCH without a Matcher: the nodes whose label, aliases,
// description, rationale and outcome hold every word of text, each with
// the score 1.
func wordMatch(nodes []spec.Node, text string) map[string]float64 {
	want := words(text)
	res := map[string]float64{}
	if len(want) == 0 {
		return res
	}
	for i := range nodes {
		n := &nodes[i]
		have := map[string]bool{}
		for _, s := range append([]string{n.Label, n.Description, n.Rationale, n.Outcome}, n.Aliases...) {
			for _, w := range words(s) {
				have[w] = true
			}
		}
		if !slices.ContainsFunc(want, func(w string) bool { return !have[w] }) {
			res[n.ID] = 1
		}
	}
	return res
}
