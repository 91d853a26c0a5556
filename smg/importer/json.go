package importer

import (
	"bytes"
	"sort"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON readers need the position of every value, so that a malformed
// turn is reported with its line and JSON path, and they need to skip the
// parts of an input they never read (LoCoMo's annotations) cheaply. So the
// input is scanned here, in place: a value is its kind and its span in the
// input, checked once against RFC 8259 (as json.Valid checks it) and then
// walked without copies; strings are decoded as encoding/json decodes
// them (FuzzJSON checks both against encoding/json).

// maxDepth bounds the nesting of arrays and objects, as encoding/json does.
const maxDepth = 10000

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
}

// pos gives the 1-based line and column (in bytes) of an offset.
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
	return i + 1, off - t.lines[i] + 1
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

// value scans and checks the JSON value that starts at i (white space
// before it is not skipped).
func (t *text) value(i int) (jv, *jsonSyntaxError) {
	end, err := t.scan(i, 0)
	if err != nil {
		return jv{}, err
	}
	k := t.data[i]
	if k == '-' || k >= '0' && k <= '9' {
		k = '0'
	}
	return jv{kind: k, start: i, end: end}, nil
}

func (t *text) errAt(i int, msg string) *jsonSyntaxError {
	if i >= len(t.data) {
		return &jsonSyntaxError{off: len(t.data), msg: "unexpected end of JSON input"}
	}
	return &jsonSyntaxError{off: i, msg: msg}
}

// scan checks the value at i and returns the offset just after it.
func (t *text) scan(i, depth int) (int, *jsonSyntaxError) {
	d := t.data
	if i >= len(d) {
		return i, t.errAt(i, "")
	}
	switch c := d[i]; {
	case c == '{' || c == '[':
		if depth >= maxDepth {
			return i, t.errAt(i, "exceeded max depth")
		}
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		i = t.ws(i + 1)
		if i < len(d) && d[i] == closer {
			return i + 1, nil
		}
		for {
			var err *jsonSyntaxError
			if c == '{' {
				if i >= len(d) || d[i] != '"' {
					return i, t.errAt(i, "want a string for an object key")
				}
				if i, err = t.scanString(i); err != nil {
					return i, err
				}
				i = t.ws(i)
				if i >= len(d) || d[i] != ':' {
					return i, t.errAt(i, "want ':' after an object key")
				}
				i = t.ws(i + 1)
			}
			if i, err = t.scan(i, depth+1); err != nil {
				return i, err
			}
			i = t.ws(i)
			switch {
			case i >= len(d):
				return i, t.errAt(i, "")
			case d[i] == ',':
				i = t.ws(i + 1)
			case d[i] == closer:
				return i + 1, nil
			default:
				return i, t.errAt(i, "want ',' or '"+string(closer)+"'")
			}
		}
	case c == '"':
		return t.scanString(i)
	case c == '-' || c >= '0' && c <= '9':
		return t.scanNumber(i)
	case c == 't':
		return t.scanLiteral(i, "true")
	case c == 'f':
		return t.scanLiteral(i, "false")
	case c == 'n':
		return t.scanLiteral(i, "null")
	default:
		return i, t.errAt(i, "invalid character "+quoteByte(c)+" looking for the beginning of a value")
	}
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return "'" + string(rune(c)) + "'"
	}
	const hex = "0123456789abcdef"
	return "0x" + string([]byte{hex[c>>4], hex[c&15]})
}

func (t *text) scanLiteral(i int, lit string) (int, *jsonSyntaxError) {
	for k := 0; k < len(lit); k++ {
		if i+k >= len(t.data) || t.data[i+k] != lit[k] {
			return i + k, t.errAt(i+k, "invalid literal, want "+lit)
		}
	}
	return i + len(lit), nil
}

func (t *text) scanString(i int) (int, *jsonSyntaxError) {
	d := t.data
	for i++; i < len(d); i++ {
		switch c := d[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			i++
			if i >= len(d) {
				return i, t.errAt(i, "")
			}
			switch d[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for k := 1; k <= 4; k++ {
					if i+k >= len(d) {
						return i + k, t.errAt(i+k, "")
					}
					if !isHex(d[i+k]) {
						return i + k, t.errAt(i+k, "invalid \\u escape in a string")
					}
				}
				i += 4
			default:
				return i, t.errAt(i, "invalid escape in a string")
			}
		case c < 0x20:
			return i, t.errAt(i, "control character "+quoteByte(c)+" in a string")
		}
	}
	return i, t.errAt(i, "")
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (t *text) scanNumber(i int) (int, *jsonSyntaxError) {
	d := t.data
	digits := func(i int) (int, *jsonSyntaxError) {
		if i >= len(d) || !isDigit(d[i]) {
			return i, t.errAt(i, "want a digit in a number")
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
		return i, nil
	}
	if d[i] == '-' {
		i++
	}
	var err *jsonSyntaxError
	if i < len(d) && d[i] == '0' {
		i++
	} else if i, err = digits(i); err != nil {
		return i, err
	}
	if i < len(d) && d[i] == '.' {
		if i, err = digits(i + 1); err != nil {
			return i, err
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i, err = digits(i); err != nil {
			return i, err
		}
	}
	return i, nil
}

// skip returns the offset just after the value at i, which was checked
// before: it only matches brackets and skips strings.
func (t *text) skip(i int) int {
	d := t.data
	if i >= len(d) {
		return i
	}
	switch d[i] {
	case '"':
		return t.skipString(i)
	case '{', '[':
	default: // a number or a literal
		for i < len(d) {
			switch d[i] {
			case ',', '}', ']', ':', ' ', '\t', '\n', '\r':
				return i
			}
			i++
		}
		return i
	}
	depth := 0
	for ; i < len(d); i++ {
		switch d[i] {
		case '"':
			i = t.skipString(i) - 1
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return i
}

// skipString returns the offset just after the checked string at i.
func (t *text) skipString(i int) int {
	d := t.data
	for i++; i < len(d); i++ {
		switch d[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// at returns the checked value that starts at i.
func (t *text) at(i int) jv {
	k := t.data[i]
	if k == '-' || k >= '0' && k <= '9' {
		k = '0'
	}
	return jv{kind: k, start: i, end: t.skip(i)}
}

// members calls fn with each member of the checked object v, in order,
// until fn returns false.
func (t *text) members(v jv, fn func(key, val jv) bool) {
	i := t.ws(v.start + 1)
	for i < v.end && t.data[i] == '"' {
		key := jv{kind: '"', start: i, end: t.skip(i)}
		i = t.ws(t.ws(key.end) + 1) // past ':'
		val := t.at(i)
		if !fn(key, val) {
			return
		}
		i = t.ws(val.end)
		if i < v.end && t.data[i] == ',' {
			i = t.ws(i + 1)
		}
	}
}

// elems calls fn with each element of the checked array v, in order,
// until fn returns false.
func (t *text) elems(v jv, fn func(n int, e jv) bool) {
	i := t.ws(v.start + 1)
	for n := 0; i < v.end-1; n++ {
		e := t.at(i)
		if !fn(n, e) {
			return
		}
		i = t.ws(e.end)
		if i < v.end && t.data[i] == ',' {
			i = t.ws(i + 1)
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
	b := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\' && i+1 < len(raw):
			i += 2
			switch e := raw[i-1]; e {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := hex4(raw[i:])
				i += 4
				if utf16.IsSurrogate(r) {
					if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
						if d := utf16.DecodeRune(r, hex4(raw[i+2:])); d != unicode.ReplacementChar {
							r = d
							i += 6
							b = utf8.AppendRune(b, r)
							continue
						}
					}
					r = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, r)
			default: // '"', '\\', '/'
				b = append(b, e)
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, r)
			} else {
				b = append(b, raw[i:i+size]...)
			}
			i += size
		}
	}
	return string(b)
}

// hex4 reads the four hex digits of a checked \u escape.
func hex4(h []byte) rune {
	var r rune
	for _, c := range h[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
