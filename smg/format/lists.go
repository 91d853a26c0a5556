package format

import (
	"errors"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/smg-memory/smg/spec"
)

// listPiece is how many elements of a long list are decoded into one
// piece before the pieces are joined.
const listPiece = 1024

// listUnmarshalers decode the long lists of a document (nodes, edges,
// archive blocks, turns) in pieces, and join the pieces into one slice
// of the exact length at the end. A slice grown by append to n elements
// leaves about four times n elements behind it, in ever larger arrays
// that the allocator cannot reuse for the next: 100,000 nodes (MaxNodes)
// cost 250 MB that way, 90 MB in pieces.
var listUnmarshalers = json.WithUnmarshalers(json.JoinUnmarshalers(
	json.UnmarshalFromFunc(unmarshalList[spec.Node]),
	json.UnmarshalFromFunc(unmarshalList[spec.Edge]),
	json.UnmarshalFromFunc(unmarshalList[spec.ArchiveBlock]),
	json.UnmarshalFromFunc(unmarshalList[spec.Turn]),
))

func unmarshalList[T any](dec *jsontext.Decoder, v *[]T) error {
	if dec.PeekKind() != '[' {
		return errors.ErrUnsupported // null, or an error: the default speaks
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	var pieces [][]T
	cur := make([]T, 0, 16)
	n := 0
	for {
		switch dec.PeekKind() {
		case ']':
			if _, err := dec.ReadToken(); err != nil {
				return err
			}
			out := make([]T, 0, n)
			for _, p := range pieces {
				out = append(out, p...)
			}
			*v = append(out, cur...)
			return nil
		case 0:
			_, err := dec.ReadToken()
			return err
		}
		if len(cur) == cap(cur) {
			if len(cur) < listPiece {
				cur = append(cur, make([]T, listPiece-len(cur))...)[:len(cur)]
			} else {
				pieces, cur = append(pieces, cur), make([]T, 0, listPiece)
			}
		}
		cur = append(cur, *new(T))
		if err := json.UnmarshalDecode(dec, &cur[len(cur)-1]); err != nil {
			return err
		}
		n++
	}
}
