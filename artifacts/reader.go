package artifacts

import (
	"errors"
	"fmt"
)

// ErrUnknown: a reader was asked for an artifact or a version it does not
// have.
var ErrUnknown = errors.New("no such artifact version")

// Reader reconstructs versions of the artifacts of a vault on demand. It
// starts from the nearest full copy at or before the version asked for, or
// from the version it reconstructed last of that artifact when that is
// nearer, so that reading the versions of a chain in order costs one patch
// each. Every version it returns has been checked against its hash.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	chain func(id string) []Version
	last  map[string]reconstructed
}

type reconstructed struct {
	i       int
	content string
}

// NewReader returns a reader of the chains that chain returns by artifact
// id (nil for an unknown id). The chains must not change while the reader
// is in use.
func NewReader(chain func(id string) []Version) *Reader {
	return &Reader{chain: chain, last: map[string]reconstructed{}}
}

// Content returns the content of version v (counting from 1) of the
// artifact id.
func (r *Reader) Content(id string, v int) (string, error) {
	chain := r.chain(id)
	i := v - 1
	if i < 0 || i >= len(chain) {
		return "", fmt.Errorf("%w: version %d of %q (it has %d)", ErrUnknown, v, id, len(chain))
	}
	start := i
	for start > 0 && chain[start].Content == nil {
		start--
	}
	content, have := "", false
	if c, ok := r.last[id]; ok && c.i <= i && c.i >= start {
		if c.i == i {
			return c.content, nil
		}
		start, content, have = c.i+1, c.content, true
	}
	for j := start; j <= i; j++ {
		next, err := next(chain[j], content, have)
		if err == nil {
			err = chain[j].check(next)
		}
		if err != nil {
			return "", &VersionError{Index: j, Err: err}
		}
		content, have = next, true
	}
	r.last[id] = reconstructed{i, content}
	return content, nil
}
