package spec

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrContentRef reports a content reference that cannot be resolved: out of
// order, outside the stored content or the version's content, or splitting
// a character (§8.2.1).
var ErrContentRef = errors.New("bad content reference")

// Expand returns the turn with its whole content: the stored content with
// each reference replaced by the bytes it stands for, which version
// returns (the full content of version v of an artifact, checked against
// its hash). A turn without references is returned as it is.
func (t Turn) Expand(version func(artifact string, v int) (string, error)) (Turn, error) {
	if len(t.ContentRefs) == 0 {
		return t, nil
	}
	var out strings.Builder
	out.Grow(len(t.Content) + 64*len(t.ContentRefs))
	prev := 0
	for i, r := range t.ContentRefs {
		if r.At < prev || r.At > len(t.Content) || !boundary(t.Content, r.At) {
			return t, fmt.Errorf("%w %d: at %d is not a place in the stored content at or after %d", ErrContentRef, i, r.At, prev)
		}
		content, err := version(r.Artifact, r.V)
		if err != nil {
			return t, fmt.Errorf("%w %d: version %d of %q: %w", ErrContentRef, i, r.V, r.Artifact, err)
		}
		end := r.Offset + r.Length
		if r.Offset < 0 || r.Length <= 0 || end > len(content) || !boundary(content, r.Offset) || !boundary(content, end) {
			return t, fmt.Errorf("%w %d: bytes [%d, %d) are not a piece of the %d bytes of version %d of %q", ErrContentRef, i, r.Offset, end, len(content), r.V, r.Artifact)
		}
		out.WriteString(t.Content[prev:r.At])
		out.WriteString(content[r.Offset:end])
		prev = r.At
	}
	out.WriteString(t.Content[prev:])
	t.Content = out.String()
	t.ContentRefs = nil
	return t, nil
}

// boundary reports whether byte i of s starts a character or ends s.
func boundary(s string, i int) bool {
	return i == len(s) || (i >= 0 && i < len(s) && utf8.RuneStart(s[i]))
}
