package restore

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/smg-memory/smg/spec"
)

// This file parses the query language of spec/smg-v1.md, Appendix B: a
// participle grammar turns the text into a syntax tree (the ast types),
// and a checker turns the tree into a Query, rejecting what the grammar cannot see
// (unknown types and fields, a value of the wrong type) at the position
// of the offending token. query_eval.go runs a Query.

// maxQueryLength bounds the text of a query, and so the depth of its
// nesting (Appendix B).
const maxQueryLength = 16 << 10

// Query is a parsed query of the language of spec/smg-v1.md, Appendix B:
//
//	FIND decisions WHERE topic = "database schema" AND timestamp > "2025-12-01"
//	ORDER BY importance DESC LIMIT 5
//
// Make one with [ParseQuery]. A Query does not change once it is made:
// it is safe for concurrent use, and so is [Query.Run] when its Matcher
// is.
type Query struct {
	// typ keeps the nodes of one type; empty keeps all.
	typ   spec.NodeType
	where expr // nil: every node
	order []orderKey
	limit int // 0: no limit
	// matches counts the MATCH conditions, numbered in the order of the
	// text.
	matches int
}

// Position is a place in the text of a query.
type Position struct {
	// Offset counts bytes from the start of the text, from 0.
	Offset int
	// Line counts lines from 1.
	Line int
	// Column counts characters (Unicode code points) from 1.
	Column int
}

func (p Position) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Column) }

// QueryError is a query that does not parse, or asks for what does not
// exist: an unknown node type or field, a value of the wrong type for its
// field. Pos is where the offending token starts.
type QueryError struct {
	Pos Position
	Msg string
	// query is the text of the query, for Excerpt.
	query string
}

func (e *QueryError) Error() string { return e.Pos.String() + ": " + e.Msg }

// Excerpt returns the line of the query where the error is and, under it,
// a line with a caret (^) at the error's column. Tabs before the column are
// kept, so the caret lines up on a terminal.
func (e *QueryError) Excerpt() string {
	start := min(max(e.Pos.Offset, 0), len(e.query))
	if i := strings.LastIndexByte(e.query[:start], '\n'); i >= 0 {
		start = i + 1
	} else {
		start = 0
	}
	line := e.query[start:]
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	line = strings.TrimSuffix(line, "\r")
	var caret strings.Builder
	col := 1
	for _, r := range line {
		if col >= e.Pos.Column {
			break
		}
		if r == '\t' {
			caret.WriteByte('\t')
		} else {
			caret.WriteByte(' ')
		}
		col++
	}
	for ; col < e.Pos.Column; col++ {
		caret.WriteByte(' ')
	}
	caret.WriteByte('^')
	return line + "\n" + caret.String()
}

// ParseQuery parses a query of the language of spec/smg-v1.md, Appendix B.
// An error is a [*QueryError].
func ParseQuery(src string) (*Query, error) {
	if len(src) > maxQueryLength {
		return nil, &QueryError{Pos: Position{Line: 1, Column: 1}, Msg: fmt.Sprintf("the query is longer than %d bytes", maxQueryLength), query: src}
	}
	if !utf8.ValidString(src) {
		i := 0
		for i < len(src) {
			r, n := utf8.DecodeRuneInString(src[i:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			i += n
		}
		return nil, &QueryError{Pos: positionAt(src, i), Msg: "the query is not valid UTF-8", query: src}
	}
	tree, err := queryParser.ParseString("", src)
	if err != nil {
		return nil, syntaxError(src, err)
	}
	c := checker{src: src}
	q, err := c.query(tree)
	if err != nil {
		return nil, err
	}
	return q, nil
}

// positionAt is the position of byte offset i of src.
func positionAt(src string, i int) Position {
	before := src[:i]
	line := strings.Count(before, "\n") + 1
	if j := strings.LastIndexByte(before, '\n'); j >= 0 {
		before = before[j+1:]
	}
	return Position{Offset: i, Line: line, Column: utf8.RuneCountInString(before) + 1}
}

func fromLexer(p lexer.Position) Position {
	return Position{Offset: p.Offset, Line: p.Line, Column: p.Column}
}

// The lexer. Keywords are case-insensitive, and are never identifiers.
// Unterminated and Bad catch what no other rule takes, so that the parser
// reports it as a token with a position.
var queryLexer = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Whitespace", Pattern: `\s+`},
	{Name: "String", Pattern: `"(?:\\.|[^"\\\n])*"`},
	{Name: "Unterminated", Pattern: `"(?:\\.|[^"\\\n])*\\?`},
	{Name: "Number", Pattern: `-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?`},
	{Name: "Keyword", Pattern: `(?i)(?:FIND|WHERE|AND|OR|NOT|ORDER|BY|ASC|DESC|LIMIT|CONTAINS|MATCH|CURRENT|SUPERSEDED|TRUE|FALSE)\b`},
	{Name: "Ident", Pattern: `[A-Za-z_][A-Za-z0-9_]*`},
	{Name: "Op", Pattern: `!=|<=|>=|=|<|>`},
	{Name: "Punct", Pattern: `[(),*]`},
	{Name: "Bad", Pattern: `(?s).`},
})

var queryParser = participle.MustBuild[astQuery](
	participle.Lexer(queryLexer),
	participle.Elide("Whitespace"),
	participle.CaseInsensitive("Keyword"),
	participle.UseLookahead(2),
)

// The syntax tree. The grammar is the one of Appendix B.

type astQuery struct {
	Find  astToken    `parser:"'FIND' @@"`
	Where *astOr      `parser:"( 'WHERE' @@ )?"`
	Order []*astOrder `parser:"( 'ORDER' 'BY' @@ ( ',' @@ )* )?"`
	Limit *astValue   `parser:"( 'LIMIT' @@ )?"`
}

// astToken is the node type of FIND, and where it starts.
type astToken struct {
	Pos   lexer.Position
	Value string `parser:"@( Ident | '*' )"`
}

// astField is a field, and where it starts.
type astField struct {
	Pos   lexer.Position
	Value string `parser:"@Ident"`
}

type astOr struct {
	And []*astAnd `parser:"@@ ( 'OR' @@ )*"`
}

type astAnd struct {
	Unary []*astUnary `parser:"@@ ( 'AND' @@ )*"`
}

type astUnary struct {
	Not  *astUnary `parser:"  'NOT' @@"`
	Term *astTerm  `parser:"| @@"`
}

type astTerm struct {
	Pos        lexer.Position
	Group      *astOr    `parser:"  '(' @@ ')'"`
	Current    bool      `parser:"| @'CURRENT'"`
	Superseded bool      `parser:"| @'SUPERSEDED'"`
	Match      *astValue `parser:"| 'MATCH' @@"`
	Compare    *astCmp   `parser:"| @@"`
}

type astCmp struct {
	Field    astField     `parser:"@@"`
	Op       *astOp       `parser:"( @@"`
	Value    *astValue    `parser:"  @@"`
	Contains *astContains `parser:"| @@"`
	Text     *astValue    `parser:"  @@ )"`
}

type astOp struct {
	Pos   lexer.Position
	Value string `parser:"@Op"`
}

type astContains struct {
	Pos   lexer.Position
	Value string `parser:"@'CONTAINS'"`
}

// astValue is a literal, or an identifier where a literal is due (check
// reports it as a string without quotes).
type astValue struct {
	Pos    lexer.Position
	String *string `parser:"  @String"`
	Number *string `parser:"| @Number"`
	Bool   *string `parser:"| @( 'TRUE' | 'FALSE' )"`
	Ident  *string `parser:"| @Ident"`
}

type astOrder struct {
	Field astField `parser:"@@"`
	Dir   string   `parser:"@( 'ASC' | 'DESC' )?"`
}

// syntaxError turns an error of the parser into a *QueryError.
func syntaxError(src string, err error) error {
	var perr participle.Error
	if !errors.As(err, &perr) {
		return &QueryError{Pos: Position{Line: 1, Column: 1}, Msg: err.Error(), query: src}
	}
	qe := &QueryError{Pos: fromLexer(perr.Position()), Msg: perr.Message(), query: src}
	var ute *participle.UnexpectedTokenError
	if !errors.As(err, &ute) {
		return qe
	}
	tok := ute.Unexpected
	expect := expected(perr.Message())
	if expect == "" && tok.Pos.Offset == len(src)-len(strings.TrimLeft(src, " \t\r\n\f\v")) {
		expect = "FIND" // the first token
	}
	if expect != "" {
		expect = "; expected " + expect
	}
	switch tok.Type {
	case lexer.EOF:
		qe.Msg = "unexpected end of query" + expect
	case queryLexer.Symbols()["Unterminated"]:
		qe.Msg = "unterminated string"
	case queryLexer.Symbols()["Bad"]:
		qe.Msg = fmt.Sprintf("unexpected character %q", tok.Value)
	case queryLexer.Symbols()["String"]:
		qe.Msg = "unexpected " + tok.Value + expect
	default:
		qe.Msg = fmt.Sprintf("unexpected %q%s", tok.Value, expect)
	}
	return qe
}

// expected says what the parser expected, from the message of its error:
// the first element of the rest of the grammar it names there, like
// `"BY" AstOrder ("," AstOrder)*`, in words.
func expected(msg string) string {
	i := strings.Index(msg, " (expected ")
	if i < 0 {
		return ""
	}
	rest := strings.TrimSuffix(msg[i+len(" (expected "):], ")")
	if strings.HasPrefix(rest, `"`) {
		if j := strings.Index(rest[1:], `"`); j >= 0 {
			return strings.ToUpper(rest[1 : j+1])
		}
	}
	name := rest
	if j := strings.IndexAny(rest, " ()|"); j >= 0 {
		name = rest[:j]
	}
	switch name {
	case "AstToken":
		return "a node type (concepts, decisions, problems, solutions, facts, artifacts or nodes)"
	case "AstOr", "AstAnd", "AstUnary", "AstTerm", "AstCmp":
		return "a condition"
	case "AstField", "AstOrder":
		return "a field"
	case "AstOp":
		return "an operator"
	case "AstValue":
		return "a value"
	}
	return ""
}

// The checked query.

// kind is the type of a field's values.
type kind int

const (
	kindString kind = iota
	kindNumber
	kindTime
	kindBool
)

func (k kind) String() string {
	return [...]string{"a string", "a number", "a time", "true or false"}[k]
}

// field is a field a query can test or order by.
type field struct {
	name string
	kind kind
	// get returns the node's value; ok is false when the node has none.
	str  func(n *spec.Node) (string, bool)
	num  func(n *spec.Node) (float64, bool)
	time func(n *spec.Node) (time.Time, bool)
	bool func(n *spec.Node) bool
	// where and order say whether WHERE and ORDER BY take the field.
	where, order bool
}

func strField(name string, get func(n *spec.Node) string) *field {
	return &field{name: name, kind: kindString, where: true, order: true, str: func(n *spec.Node) (string, bool) {
		s := get(n)
		return s, s != ""
	}}
}

func numField(name string, get func(n *spec.Node) float64) *field {
	return &field{name: name, kind: kindNumber, where: true, order: true, num: func(n *spec.Node) (float64, bool) { return get(n), true }}
}

// turnField is a turn number, absent when 0.
func turnField(name string, get func(n *spec.Node) int) *field {
	return &field{name: name, kind: kindNumber, where: true, order: true, num: func(n *spec.Node) (float64, bool) {
		t := get(n)
		return float64(t), t != 0
	}}
}

func timeField(name string, get func(n *spec.Node) time.Time) *field {
	return &field{name: name, kind: kindTime, where: true, order: true, time: func(n *spec.Node) (time.Time, bool) {
		t := get(n)
		return t, !t.IsZero()
	}}
}

// nodeTime is the timestamp field: the node's timestamp, else validFrom,
// else lastActivated.
func nodeTime(n *spec.Node) time.Time {
	switch {
	case !n.Timestamp.IsZero():
		return n.Timestamp
	case !n.ValidFrom.IsZero():
		return n.ValidFrom
	}
	return n.LastActivated
}

// topicField and scoreField are special: topic is tested by topicExpr,
// score is computed by the run.
var (
	topicField = &field{name: "topic", kind: kindString, where: true}
	scoreField = &field{name: "score", kind: kindNumber, order: true}
)

// fields lists the fields in the order of Appendix B.
var fields = []*field{
	strField("id", func(n *spec.Node) string { return n.ID }),
	strField("type", func(n *spec.Node) string { return string(n.Type) }),
	strField("label", func(n *spec.Node) string { return n.Label }),
	strField("description", func(n *spec.Node) string { return n.Description }),
	strField("outcome", func(n *spec.Node) string { return n.Outcome }),
	strField("rationale", func(n *spec.Node) string { return n.Rationale }),
	strField("category", func(n *spec.Node) string { return n.Category }),
	strField("scope", func(n *spec.Node) string { return n.Scope }),
	strField("source", func(n *spec.Node) string { return n.Source }),
	numField("importance", func(n *spec.Node) float64 { return n.Importance }),
	numField("activation", func(n *spec.Node) float64 { return n.Activation }),
	numField("confidence", func(n *spec.Node) float64 { return n.Confidence }),
	numField("version", func(n *spec.Node) float64 { return float64(n.Version) }),
	numField("mentions", func(n *spec.Node) float64 { return float64(len(n.Mentions)) }),
	turnField("firstMentioned", func(n *spec.Node) int { return n.FirstMentioned }),
	turnField("lastMentioned", func(n *spec.Node) int { return n.LastMentioned }),
	timeField("timestamp", nodeTime),
	timeField("validFrom", func(n *spec.Node) time.Time { return n.ValidFrom }),
	timeField("validTo", func(n *spec.Node) time.Time { return n.ValidTo }),
	timeField("lastActivated", func(n *spec.Node) time.Time { return n.LastActivated }),
	{name: "pinned", kind: kindBool, where: true, order: true, bool: func(n *spec.Node) bool { return n.Pinned }},
	topicField,
	scoreField,
}

// fieldNames are the fields by their names in lower case.
var fieldNames = func() map[string]*field {
	m := map[string]*field{}
	for _, f := range fields {
		m[strings.ToLower(f.name)] = f
	}
	return m
}()

// nodeTypeNames are the names FIND takes, in lower case; "" is every type.
var nodeTypeNames = func() map[string]spec.NodeType {
	m := map[string]spec.NodeType{"*": "", "nodes": "", "node": ""}
	for _, t := range spec.NodeTypes {
		m[string(t)] = t
		m[string(t)+"s"] = t
	}
	return m
}()

// checker turns a syntax tree into a Query.
type checker struct {
	src     string
	matches int
}

func (c *checker) errorf(pos lexer.Position, format string, args ...any) error {
	return &QueryError{Pos: fromLexer(pos), Msg: fmt.Sprintf(format, args...), query: c.src}
}

func (c *checker) query(t *astQuery) (*Query, error) {
	typ, ok := nodeTypeNames[strings.ToLower(t.Find.Value)]
	if !ok {
		return nil, c.errorf(t.Find.Pos, "unknown node type %q; want concepts, decisions, problems, solutions, facts, artifacts or nodes", t.Find.Value)
	}
	q := &Query{typ: typ}
	if t.Where != nil {
		x, err := c.or(t.Where)
		if err != nil {
			return nil, err
		}
		q.where = x
	}
	for _, o := range t.Order {
		f, err := c.field(o.Field)
		if err != nil {
			return nil, err
		}
		if !f.order {
			return nil, c.errorf(o.Field.Pos, "ORDER BY does not take %s", f.name)
		}
		q.order = append(q.order, orderKey{field: f, desc: strings.EqualFold(o.Dir, "DESC")})
	}
	if t.Limit != nil {
		v := t.Limit
		n, err := strconv.Atoi(deref(v.Number))
		if v.Number == nil || err != nil || n < 1 {
			return nil, c.errorf(v.Pos, "LIMIT takes a whole number of at least 1, not %s", v.text())
		}
		q.limit = n
	}
	q.matches = c.matches
	return q, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// text is the value as written.
func (v *astValue) text() string {
	switch {
	case v.String != nil:
		return *v.String
	case v.Number != nil:
		return *v.Number
	case v.Bool != nil:
		return *v.Bool
	}
	return deref(v.Ident)
}

func (c *checker) field(t astField) (*field, error) {
	f, ok := fieldNames[strings.ToLower(t.Value)]
	if !ok {
		return nil, c.errorf(t.Pos, "unknown field %q", t.Value)
	}
	return f, nil
}

func (c *checker) or(t *astOr) (expr, error) {
	var xs orExpr
	for _, a := range t.And {
		x, err := c.and(a)
		if err != nil {
			return nil, err
		}
		if o, ok := x.(orExpr); ok {
			xs = append(xs, o...)
		} else {
			xs = append(xs, x)
		}
	}
	if len(xs) == 1 {
		return xs[0], nil
	}
	return xs, nil
}

func (c *checker) and(t *astAnd) (expr, error) {
	var xs andExpr
	for _, u := range t.Unary {
		x, err := c.unary(u)
		if err != nil {
			return nil, err
		}
		if a, ok := x.(andExpr); ok {
			xs = append(xs, a...)
		} else {
			xs = append(xs, x)
		}
	}
	if len(xs) == 1 {
		return xs[0], nil
	}
	return xs, nil
}

func (c *checker) unary(t *astUnary) (expr, error) {
	if t.Not != nil {
		x, err := c.unary(t.Not)
		if err != nil {
			return nil, err
		}
		return notExpr{x: x}, nil
	}
	return c.term(t.Term)
}

func (c *checker) term(t *astTerm) (expr, error) {
	switch {
	case t.Group != nil:
		return c.or(t.Group)
	case t.Current:
		return currentExpr{}, nil
	case t.Superseded:
		return notExpr{currentExpr{}, true}, nil
	case t.Match != nil:
		s, err := c.str(t.Match, "MATCH")
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(s) == "" {
			return nil, c.errorf(t.Match.Pos, "MATCH needs some text")
		}
		c.matches++
		return matchExpr{text: s, n: c.matches - 1}, nil
	}
	return c.compare(t.Compare)
}

// str is the string of a value that must be a string.
func (c *checker) str(v *astValue, what string) (string, error) {
	switch {
	case v.String != nil:
		s, err := strconv.Unquote(*v.String)
		if err != nil {
			return "", c.errorf(v.Pos, "bad escape in string %s", *v.String)
		}
		return s, nil
	case v.Ident != nil:
		return "", c.errorf(v.Pos, "%s takes a string in double quotes: write %q", what, *v.Ident)
	}
	return "", c.errorf(v.Pos, "%s takes a string in double quotes, not %s", what, v.text())
}

func (c *checker) compare(t *astCmp) (expr, error) {
	f, err := c.field(t.Field)
	if err != nil {
		return nil, err
	}
	if !f.where {
		return nil, c.errorf(t.Field.Pos, "WHERE does not take %s; it is for ORDER BY", f.name)
	}
	if t.Contains != nil {
		if f.kind != kindString {
			return nil, c.errorf(t.Contains.Pos, "CONTAINS takes a string field; %s is %s", f.name, f.kind)
		}
		s, err := c.str(t.Text, "CONTAINS")
		if err != nil {
			return nil, err
		}
		if f == topicField {
			return topicExpr{op: opContains, text: s}, nil
		}
		return containsExpr{field: f, text: s}, nil
	}
	op := ops[t.Op.Value]
	if (f.kind == kindString || f.kind == kindBool) && op != opEq && op != opNe {
		return nil, c.errorf(t.Op.Pos, "%s is %s: it takes = and != only", f.name, f.kind)
	}
	v := t.Value
	x := compareExpr{field: f, op: op}
	mismatch := func() error {
		if v.Ident != nil && f.kind == kindString {
			return c.errorf(v.Pos, "%s takes a string in double quotes: write %q", f.name, *v.Ident)
		}
		return c.errorf(v.Pos, "%s is %s, not %s", f.name, f.kind, v.text())
	}
	switch f.kind {
	case kindString:
		if v.String == nil {
			return nil, mismatch()
		}
		if x.str, err = c.str(v, f.name); err != nil {
			return nil, err
		}
		if f == topicField {
			return topicExpr{op: op, text: x.str}, nil
		}
	case kindNumber:
		if v.Number == nil {
			return nil, mismatch()
		}
		x.num, err = strconv.ParseFloat(*v.Number, 64)
		if err != nil {
			return nil, c.errorf(v.Pos, "number %s is out of range", *v.Number)
		}
	case kindBool:
		if v.Bool == nil {
			return nil, mismatch()
		}
		x.bool = strings.EqualFold(*v.Bool, "true")
	case kindTime:
		if v.String == nil {
			return nil, c.errorf(v.Pos, "%s is a time: write it in double quotes, like \"2025-12-01\" or \"2025-12-01T10:00:00Z\"", f.name)
		}
		if x.str, err = c.str(v, f.name); err != nil {
			return nil, err
		}
		if x.from, x.to, err = parseTime(x.str); err != nil {
			return nil, c.errorf(v.Pos, "%s is a time, and %s is neither a date (2025-12-01) nor an RFC 3339 time (2025-12-01T10:00:00Z)", f.name, *v.String)
		}
	}
	return x, nil
}

// parseTime reads a date, which stands for the UTC day [from, to), or an
// RFC 3339 time, the instant from = to.
func parseTime(s string) (from, to time.Time, err error) {
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return d, d.AddDate(0, 0, 1), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, t, err
}

// op is a comparison operator.
type op int

const (
	opEq op = iota
	opNe
	opLt
	opLe
	opGt
	opGe
	opContains
)

var ops = map[string]op{"=": opEq, "!=": opNe, "<": opLt, "<=": opLe, ">": opGt, ">=": opGe}

func (o op) String() string {
	return [...]string{"=", "!=", "<", "<=", ">", ">=", "CONTAINS"}[o]
}

// An expr is a condition of WHERE. write prints it in canonical form,
// within parentheses when its precedence is below prec.
type expr interface {
	eval(r *run, n *spec.Node) bool
	prec() int
	write(b *strings.Builder)
}

// Precedences: OR binds least, then AND, then NOT and the conditions.
const (
	precOr = iota + 1
	precAnd
	precUnary
)

type (
	orExpr  []expr
	andExpr []expr
	notExpr struct {
		x expr
		// superseded: the text said SUPERSEDED, which is NOT CURRENT.
		superseded bool
	}
	currentExpr struct{}
	matchExpr   struct {
		text string
		n    int // the number of the MATCH condition in the query
	}
	compareExpr struct {
		field    *field
		op       op
		str      string    // a string or a time as written
		num      float64   // a number
		bool     bool      // true or false
		from, to time.Time // a time: an instant (from = to) or a day [from, to)
	}
	containsExpr struct {
		field *field
		text  string
	}
	topicExpr struct {
		op   op // =, != or CONTAINS
		text string
	}
)

func (orExpr) prec() int       { return precOr }
func (andExpr) prec() int      { return precAnd }
func (notExpr) prec() int      { return precUnary }
func (currentExpr) prec() int  { return precUnary }
func (matchExpr) prec() int    { return precUnary }
func (compareExpr) prec() int  { return precUnary }
func (containsExpr) prec() int { return precUnary }
func (topicExpr) prec() int    { return precUnary }

// writeSub writes x, in parentheses when it binds less than prec.
func writeSub(b *strings.Builder, x expr, prec int) {
	if x.prec() < prec {
		b.WriteByte('(')
		x.write(b)
		b.WriteByte(')')
		return
	}
	x.write(b)
}

func (x orExpr) write(b *strings.Builder) {
	for i, y := range x {
		if i > 0 {
			b.WriteString(" OR ")
		}
		writeSub(b, y, precAnd)
	}
}

func (x andExpr) write(b *strings.Builder) {
	for i, y := range x {
		if i > 0 {
			b.WriteString(" AND ")
		}
		writeSub(b, y, precUnary)
	}
}

func (x notExpr) write(b *strings.Builder) {
	if x.superseded {
		b.WriteString("SUPERSEDED")
		return
	}
	b.WriteString("NOT ")
	writeSub(b, x.x, precUnary)
}

func (currentExpr) write(b *strings.Builder) { b.WriteString("CURRENT") }

func (x matchExpr) write(b *strings.Builder) {
	b.WriteString("MATCH ")
	b.WriteString(strconv.Quote(x.text))
}

func (x compareExpr) write(b *strings.Builder) {
	fmt.Fprintf(b, "%s %s ", x.field.name, x.op)
	switch x.field.kind {
	case kindString, kindTime:
		b.WriteString(strconv.Quote(x.str))
	case kindNumber:
		b.WriteString(strconv.FormatFloat(x.num, 'g', -1, 64))
	case kindBool:
		b.WriteString(strconv.FormatBool(x.bool))
	}
}

func (x containsExpr) write(b *strings.Builder) {
	fmt.Fprintf(b, "%s CONTAINS %s", x.field.name, strconv.Quote(x.text))
}

func (x topicExpr) write(b *strings.Builder) {
	fmt.Fprintf(b, "topic %s %s", x.op, strconv.Quote(x.text))
}

// orderKey is a field of ORDER BY.
type orderKey struct {
	field *field
	desc  bool
}

// String returns the query in canonical form: keywords in upper case, the
// node type in the plural (nodes for all), fields spelled as in the spec,
// strings double-quoted with Go's escapes, numbers in their shortest form,
// every ORDER BY direction written out, and only the parentheses that the
// precedence of OR, AND and NOT needs. The canonical form parses to the
// same query.
func (q *Query) String() string {
	var b strings.Builder
	b.WriteString("FIND ")
	if q.typ == "" {
		b.WriteString("nodes")
	} else {
		b.WriteString(string(q.typ) + "s")
	}
	if q.where != nil {
		b.WriteString(" WHERE ")
		q.where.write(&b)
	}
	for i, o := range q.order {
		if i == 0 {
			b.WriteString(" ORDER BY ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(o.field.name)
		if o.desc {
			b.WriteString(" DESC")
		} else {
			b.WriteString(" ASC")
		}
	}
	if q.limit > 0 {
		fmt.Fprintf(&b, " LIMIT %d", q.limit)
	}
	return b.String()
}
