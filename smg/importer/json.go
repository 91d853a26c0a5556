package importer

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// The JSON readers need the position of every value, so that a malformed
// turn is reported with its line and JSON path, and they walk the input in
// place rather than unmarshal it. The jsontext decoder does the JSON: it
// checks a value against RFC 8259 (with duplicate names and invalid UTF-8
// in strings allowed, as json.Valid allows them), bounds its nesting to
// 10000 levels (as encoding/json does), tells where each value ends
// (InputOffset) and where a syntax error is, and decodes strings
// (AppendUnquote gives what encoding/json gives; FuzzJSON checks both
// against encoding/json).
//
// What is left here is small: a value is its kind and its span in the
// input; value checks one, and members and elems walk one with a decoder
// over its span (which checks its parts again, the price of keeping no
// tree); offsets become lines and columns; and the decoder's errors about
// the structure of objects and arrays are worded as the package words them.

// jv is a JSON value of the input: its kind and its text, data[start:end].
type jv struct {
	kind       byte // '{', '[', '"', '0' (a number), 't', 'f' or 'n'
	start, end int
}

// kindName names a value's JSON type, for error messages.
func (v jv) kindName() string {
	switch v.kind {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	}
	return "null"
}

// jsonSyntaxError is a place where the text is not JSON.
type jsonSyntaxError struct {
	off int
	msg string
}

// text is an input, with the start of each of its lines once a position is
// asked for.
type text struct {
	data  []byte
	lines []int
	// line0 and col0 place data[0] in the input when the text is a window
	// of it: the lines before it, and the bytes before it on its line.
	line0, col0 int
}

// pos gives the 1-based line and column (in bytes) of an offset, in the
// input.
func (t *text) pos(off int) (line, col int) {
	if t.lines == nil {
		t.lines = append(t.lines, 0)
		for i, c := range t.data {
			if c == '\n' {
				t.lines = append(t.lines, i+1)
			}
		}
	}
	off = min(max(off, 0), len(t.data))
	i := sort.Search(len(t.lines), func(i int) bool { return t.lines[i] > off }) - 1
	if i == 0 {
		off += t.col0
	}
	return t.line0 + i + 1, off - t.lines[i] + 1
}

// ws returns the offset of the first byte at or after i that is not JSON
// white space.
func (t *text) ws(i int) int {
	for i < len(t.data) {
		switch t.data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// decoder is a jsontext decoder of a span of the input that starts at base;
// decoders are pooled, as a read makes one for each object and array it walks.
type decoder struct {
	jsontext.Decoder
	buf  bytes.Buffer
	base int
}

// decodeOpts make the decoder accept what json.Valid accepts.
var decodeOpts = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

var decoders = sync.Pool{New: func() any { return new(decoder) }}

// decoder returns a decoder of data[start:end], to give back with done.
func (t *text) decoder(start, end int) *decoder {
	d := decoders.Get().(*decoder)
	d.buf = *bytes.NewBuffer(t.data[start:end:end]) // read in place, not copied
	d.base = start
	d.Reset(&d.buf, decodeOpts...)
	return d
}

// done gives the decoder back.
func (d *decoder) done() {
	d.buf = bytes.Buffer{} // do not hold on to the input
	d.Reset(&d.buf)
	decoders.Put(d)
}

// next reads the next value.
func (d *decoder) next() (jv, error) {
	raw, err := d.ReadValue()
	if err != nil {
		return jv{}, err
	}
	end := d.base + int(d.InputOffset())
	return jv{kind: byte(raw.Kind()), start: end - len(raw), end: end}, nil
}

// value reads and checks the JSON value at i, the first byte that is not
// white space; what follows the value is not looked at.
func (t *text) value(i int) (jv, *jsonSyntaxError) {
	d := t.decoder(i, len(t.data))
	defer d.done()
	v, err := d.next()
	if err != nil {
		return jv{}, t.syntaxError(i, err)
	}
	return v, nil
}

func (t *text) errAt(i int, msg string) *jsonSyntaxError {
	if i >= len(t.data) {
		return &jsonSyntaxError{off: len(t.data), msg: "unexpected end of JSON input"}
	}
	return &jsonSyntaxError{off: i, msg: msg}
}

// wants words the decoder's errors about the structure of objects and
// arrays (jsontext's "invalid character X <where>") as the package words
// them; TestWholeInputErrors holds both to it.
var wants = []struct{ where, msg string }{
	{"after object name (expecting ':')", "want ':' after an object key"},
	{`at start of string (expecting '"')`, "want a string for an object key"},
	{"after object value (expecting ',' or '}')", "want ',' or '}'"},
	{"after array element (expecting ',' or ']')", "want ',' or ']'"},
}

// badEscape is the decoder's quote of an invalid \u escape, in backquotes
// or, when it holds bytes that are not UTF-8, in Go's double quotes.
var badEscape = regexp.MustCompile("invalid escape sequence (`[^`]*`|\"(?:[^\"\\\\]|\\\\.)*\")")

// escapeQuote is the quote of an invalid \u escape that the package gives:
// the escape to its first character that is not a hex digit, that
// character when it is ASCII ("\\ucar"), not when it is not: the decoder
// quotes as much of the escape as its buffer holds, which a stream read a
// few bytes at a time cuts sooner, even inside a character.
func escapeQuote(m string) string {
	q := strings.TrimPrefix(m, "invalid escape sequence ")
	esc := strings.Trim(q, "`")
	if strings.HasPrefix(q, `"`) {
		u, err := strconv.Unquote(q)
		if err != nil {
			return m
		}
		esc = u
	}
	n := len(`\u`)
	for n < len(esc) && n < len(`\u`)+3 && strings.IndexByte("0123456789abcdefABCDEF", esc[n]) >= 0 {
		n++
	}
	if n < len(esc) && esc[n] < utf8.RuneSelf && strings.IndexByte("0123456789abcdefABCDEF", esc[n]) < 0 {
		n++ // the first character that is not a hex digit, ASCII
	}
	return "invalid escape sequence `" + esc[:min(n, len(esc))] + "`"
}

// syntaxError places and words an error of a decoder of data[base:]: the
// end of the input, or the decoder's message, for the few errors about
// structure in the package's words. Inside a string, a number or a literal
// the decoder's words stand (and an invalid escape is placed at its
// backslash).
func (t *text) syntaxError(base int, err error) *jsonSyntaxError {
	var serr *jsontext.SyntacticError
	switch {
	case err == io.EOF, errors.As(err, &serr) && serr.Err == io.ErrUnexpectedEOF:
		return t.errAt(len(t.data), "")
	case serr == nil || serr.Err == nil:
		return t.errAt(base, err.Error()) // not expected from a bytes.Buffer
	}
	msg := serr.Err.Error()
	// An invalid \u escape is quoted the same, however the stream was
	// cut (escapeQuote).
	msg = badEscape.ReplaceAllStringFunc(msg, escapeQuote)
	if m, ok := strings.CutSuffix(msg, " at start of value"); ok {
		msg = m + " looking for the beginning of a value"
	}
	for _, w := range wants {
		if strings.HasSuffix(msg, " "+w.where) {
			msg = w.msg
			break
		}
	}
	return t.errAt(base+int(serr.ByteOffset), msg)
}

// members calls fn with each member of the checked object v, in order,
// until fn returns false.
func (t *text) members(v jv, fn func(key, val jv) bool) {
	d := t.decoder(v.start, v.end)
	defer d.done()
	if _, err := d.ReadToken(); err != nil { // '{'
		return
	}
	for d.PeekKind() == '"' {
		key, err := d.next()
		if err != nil {
			return
		}
		val, err := d.next()
		if err != nil || !fn(key, val) {
			return
		}
	}
}

// fields returns the members of the checked object v named keys, in the
// order of keys; a member v lacks has the kind 0, and of duplicate members
// the last counts, as with encoding/json.
func (t *text) fields(v jv, keys ...string) []jv {
	f := make([]jv, len(keys))
	t.members(v, func(k, val jv) bool {
		for i, key := range keys {
			if t.is(k, key) {
				f[i] = val
			}
		}
		return true
	})
	return f
}

// elems calls fn with each element of the checked array v, in order,
// until fn returns false.
func (t *text) elems(v jv, fn func(n int, e jv) bool) {
	d := t.decoder(v.start, v.end)
	defer d.done()
	if _, err := d.ReadToken(); err != nil { // '['
		return
	}
	for n := 0; d.PeekKind() != ']'; n++ {
		e, err := d.next()
		if err != nil || !fn(n, e) {
			return
		}
	}
}

// is reports whether the checked string v is s.
func (t *text) is(v jv, s string) bool {
	raw := t.data[v.start+1 : v.end-1]
	if string(raw) == s {
		return true
	}
	return bytes.IndexByte(raw, '\\') >= 0 && t.str(v) == s
}

// str decodes the checked string v as encoding/json does: escapes, and
// U+FFFD for invalid UTF-8 and unpaired surrogates.
func (t *text) str(v jv) string {
	raw := t.data[v.start+1 : v.end-1]
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw)
	}
	// The error is jsontext's report of invalid UTF-8 or an unpaired
	// surrogate, replaced like encoding/json replaces them.
	b, _ := jsontext.AppendUnquote(nil, t.data[v.start:v.end])
	return string(b)
}
