package format

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Problems are located by JSON paths (RFC 9535 syntax): $ is the document,
// .name a member whose name is an identifier, ['name'] any other member,
// [i] an array element.

// pathBuilder appends path segments.
type pathBuilder []byte

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (p pathBuilder) member(name string) pathBuilder {
	if identifier.MatchString(name) {
		return append(append(p, '.'), name...)
	}
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`)
	return append(append(append(p, "['"...), r.Replace(name)...), "']"...)
}

func (p pathBuilder) index(i int) pathBuilder {
	return append(strconv.AppendInt(append(p, '['), int64(i), 10), ']')
}

func (p pathBuilder) String() string { return "$" + string(p) }

// path builds a JSON path from member names (strings) and indexes (ints).
func path(parts ...any) string {
	var p pathBuilder
	for _, part := range parts {
		switch v := part.(type) {
		case string:
			p = p.member(v)
		case int:
			p = p.index(v)
		}
	}
	return p.String()
}

// pointerPath turns a JSON pointer into a JSON path, looking the pointer up
// in the JSON text to tell array indexes from member names that are digits.
func pointerPath(js []byte, ptr jsontext.Pointer) string {
	var p pathBuilder
	dec := jsontext.NewDecoder(bytes.NewReader(js))
	walking := true
	for tok := range ptr.Tokens() {
		kind := jsontext.Kind(0)
		if walking {
			kind = dec.PeekKind()
		}
		switch kind {
		case '[':
			i, err := strconv.Atoi(tok)
			if err != nil {
				walking = false
				p = p.member(tok)
				continue
			}
			p = p.index(i)
			walking = descendIndex(dec, i)
		case '{':
			p = p.member(tok)
			walking = descendMember(dec, tok)
		default:
			walking = false
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 {
				p = p.index(i)
			} else {
				p = p.member(tok)
			}
		}
	}
	return p.String()
}

// descendIndex moves dec from the start of an array to its i-th element.
func descendIndex(dec *jsontext.Decoder, i int) bool {
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	for ; i > 0; i-- {
		if dec.PeekKind() == ']' || dec.SkipValue() != nil {
			return false
		}
	}
	return dec.PeekKind() != ']'
}

// descendMember moves dec from the start of an object to the value of its
// member name.
func descendMember(dec *jsontext.Decoder, name string) bool {
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return false
		}
		if tok.String() == name {
			return true
		}
		if dec.SkipValue() != nil {
			return false
		}
	}
	return false
}

// instancePath turns the location of a value in a decoded JSON instance
// (the tokens of a JSON pointer) into a JSON path.
func instancePath(inst any, tokens []string) string {
	var p pathBuilder
	for _, tok := range tokens {
		switch v := inst.(type) {
		case []any:
			i, _ := strconv.Atoi(tok)
			p = p.index(i)
			if i >= 0 && i < len(v) {
				inst = v[i]
			} else {
				inst = nil
			}
		case map[string]any:
			p = p.member(tok)
			inst = v[tok]
		default:
			p = p.member(tok)
			inst = nil
		}
	}
	return p.String()
}
