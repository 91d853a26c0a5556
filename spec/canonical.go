package spec

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// MarshalCanonical returns v as canonical JSON (spec §9.2): the JSON
// Canonicalization Scheme of RFC 8785. Object members are sorted by their
// names' UTF-16 code units, numbers are written as ECMAScript writes them,
// strings escape only what JSON requires, and there is no white space.
// Lists keep the order v gives them.
func MarshalCanonical(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	js := jsontext.Value(b)
	if err := js.Canonicalize(); err != nil {
		return nil, err
	}
	return js, nil
}
