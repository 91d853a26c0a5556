// Package chunks encodes long lists in gob a chunk at a time: the encoder
// holds one chunk, not the whole list, and the decoder reads a message of
// a chunk's size, not one the size of the list (gob reads a message whole,
// growing its buffer as it goes). The builder's state and the restore
// engine's index cache use it.
package chunks

import (
	"encoding/gob"
	"fmt"
	"slices"
)

// Put encodes list as its length, then its elements in chunks of at most
// size.
func Put[T any](enc *gob.Encoder, list []T, size int) error {
	if err := enc.Encode(len(list)); err != nil {
		return err
	}
	for chunk := range slices.Chunk(list, size) {
		if err := enc.Encode(chunk); err != nil {
			return err
		}
	}
	return nil
}

// Get decodes what Put encoded: nil for an empty list, as gob decodes one.
// A length that is negative, or chunks that do not add up to it, is an
// error.
func Get[T any](dec *gob.Decoder) ([]T, error) {
	var n int
	if err := dec.Decode(&n); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("a list of %d elements", n)
	}
	if n == 0 {
		return nil, nil
	}
	out := make([]T, 0, min(n, 1<<16))
	for len(out) < n {
		var chunk []T
		if err := dec.Decode(&chunk); err != nil {
			return nil, err
		}
		if len(chunk) == 0 || len(out)+len(chunk) > n {
			return nil, fmt.Errorf("a chunk of %d elements where %d are left", len(chunk), n-len(out))
		}
		out = append(out, chunk...)
	}
	return out, nil
}
