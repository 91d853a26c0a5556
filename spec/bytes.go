package spec

import (
	"bytes"
	"encoding/base64"
	"errors"
)

// Bytes is binary data, written in JSON as standard base64 with padding
// (RFC 4648 §4) and read strictly (spec §2.5): the unused bits of the last
// character must be zero and nothing but the alphabet and padding may
// appear, so that each byte string has exactly one encoding.
type Bytes []byte

// ErrBase64 reports base64 that is not in the one accepted form.
var ErrBase64 = errors.New("not canonical base64: standard alphabet, padded, no line breaks, zero unused bits")

// MarshalText writes b as base64.
func (b Bytes) MarshalText() ([]byte, error) {
	return base64.StdEncoding.AppendEncode(nil, b), nil
}

// UnmarshalText reads base64 strictly.
func (b *Bytes) UnmarshalText(text []byte) error {
	if bytes.ContainsAny(text, "\r\n") {
		return ErrBase64
	}
	out, err := base64.StdEncoding.Strict().AppendDecode(nil, text)
	if err != nil {
		return ErrBase64
	}
	*b = out
	return nil
}
