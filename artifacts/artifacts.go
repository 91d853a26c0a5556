// Package artifacts stores pieces of code and text by content hash, each
// later version as a patch against the one before, as spec/smg-v1.md §7
// describes.
//
// It knows content, hashes and patches; not files, chats or the document
// that holds them. It imports nothing else of this module.
//
// Patches are diff-match-patch patch text as github.com/sergi/go-diff
// writes it: offsets and lengths count UTF-8 bytes, and text is
// percent-encoded the way JavaScript's encodeURI does it, except that a space
// stays a space. go-diff makes them; this package applies them itself, and
// strictly: every hunk must match the text byte for byte at the place it
// names, so applying a patch either gives the exact text it was made for or
// fails. (go-diff's own PatchApply searches for a hunk that moved and
// accepts near matches: right for merging, wrong for a format.)
package artifacts

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// hashPrefix starts every content hash (spec §2.4).
const hashPrefix = "sha256:"

// Hash returns the content hash of s: "sha256:" and the lowercase hex
// SHA-256 of its bytes.
func Hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hashPrefix + hex.EncodeToString(sum[:])
}

// HashBytes is [Hash] of the text b, without a copy of it.
func HashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hashPrefix + hex.EncodeToString(sum[:])
}

// Errors that reconstructing a version reports, wrapped in a [*VersionError].
var (
	// ErrPatch: a patch is not well-formed, or does not apply to the
	// content of the version before it.
	ErrPatch = errors.New("patch does not apply")
	// ErrHashMismatch: the reconstructed content does not have the hash
	// its version records.
	ErrHashMismatch = errors.New("content does not match its hash")
	// ErrSizeMismatch: the reconstructed content of a version that
	// records no hash does not have the size it records.
	ErrSizeMismatch = errors.New("content does not have its size")
	// ErrNoBase: a patch has no version before it to apply to, or that
	// version could not be reconstructed.
	ErrNoBase = errors.New("no base version to apply the patch to")
	// ErrNoContent: a version has neither content nor a patch.
	ErrNoContent = errors.New("version has neither content nor patch")
	// ErrNotUTF8: content is not valid UTF-8, as every string of the
	// format must be.
	ErrNotUTF8 = errors.New("content is not valid UTF-8")
)

// Version is one link of a chain, as the vault stores it: exactly one of
// Content and Patch is set. Its content is checked against Hash or, when
// the version records none (a file of format 1.3 computes it), against
// Size.
type Version struct {
	Hash    string
	Size    int64
	Content *string
	Patch   *string
}

// check checks content, reconstructed, against v's hash, or its size
// when it records no hash.
func (v Version) check(content string) error {
	switch {
	case v.Hash != "" && Hash(content) != v.Hash:
		return ErrHashMismatch
	case v.Hash == "" && int64(len(content)) != v.Size:
		return ErrSizeMismatch
	}
	return nil
}

// VersionError reports the version of a chain that could not be
// reconstructed. Index counts from 0 in the chain.
type VersionError struct {
	Index int
	Err   error
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("version at index %d: %v", e.Index, e.Err)
}

func (e *VersionError) Unwrap() error { return e.Err }

// Walk reconstructs the chain's versions in order and calls fn with each
// one's content, or with the *VersionError that kept it from being
// reconstructed. A version with Content starts afresh; one with Patch
// applies it to the content of the version before. Walk goes on after a
// failure (the versions up to the next full copy then fail with ErrNoBase),
// so that every broken link is reported. It stops early, returning fn's
// error, when fn returns one.
func Walk(chain []Version, fn func(i int, content string, err error) error) error {
	var prev string
	havePrev := false
	for i, v := range chain {
		content, err := next(v, prev, havePrev)
		if err == nil {
			err = v.check(content)
		}
		if err != nil {
			havePrev = false
			if ferr := fn(i, "", &VersionError{Index: i, Err: err}); ferr != nil {
				return ferr
			}
			continue
		}
		prev, havePrev = content, true
		if ferr := fn(i, content, nil); ferr != nil {
			return ferr
		}
	}
	return nil
}

func next(v Version, prev string, havePrev bool) (string, error) {
	switch {
	case v.Content != nil:
		return *v.Content, nil
	case v.Patch == nil:
		return "", ErrNoContent
	case !havePrev:
		return "", ErrNoBase
	default:
		return ApplyPatch(prev, *v.Patch)
	}
}

// Reconstruct returns the content of chain[i], starting from the last full
// copy at or before it, and checks it against its hash.
func Reconstruct(chain []Version, i int) (string, error) {
	if i < 0 || i >= len(chain) {
		return "", fmt.Errorf("version index %d out of range [0, %d)", i, len(chain))
	}
	start := i
	for start > 0 && chain[start].Content == nil {
		start--
	}
	var out string
	var outErr error
	_ = Walk(chain[start:i+1], func(j int, content string, err error) error {
		if err != nil {
			outErr = &VersionError{Index: start + j, Err: errors.Unwrap(err)}
			return outErr
		}
		out = content
		return nil
	})
	return out, outErr
}

// MakePatch returns the patch that turns prev into next. Both must be
// valid UTF-8.
//
// It diffs lines, not characters, and with no time limit. Measured on the
// 64 successive whole-file versions of the aider histories in
// ../shared/bench: line diffs took 14 ms in all and made patches 9% larger
// than go-diff's default (character diffs within changed lines), which took
// 11.7 s. And go-diff's default gives up after a second and returns what
// it has, so its patches could differ from one machine to the next; these
// cannot.
func MakePatch(prev, next string) (string, error) {
	if !utf8.ValidString(prev) || !utf8.ValidString(next) {
		return "", ErrNotUTF8
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	a, b, lines := dmp.DiffLinesToChars(prev, next)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(a, b, false), lines)
	return dmp.PatchToText(dmp.PatchMake(prev, diffs)), nil
}

// ApplyPatch applies patch to prev (spec §7.4). Each hunk is applied in
// turn, at its start offset in the text as the hunks before it left it,
// and its source text (its context and deleted lines) must be there byte
// for byte; the lengths in its header must be those of its source and
// target text. Otherwise the error wraps ErrPatch. prev and the result
// must be valid UTF-8.
func ApplyPatch(prev, patch string) (string, error) {
	if !utf8.ValidString(prev) {
		return "", ErrNotUTF8
	}
	hunks, err := parsePatch(patch)
	if err != nil {
		return "", err
	}
	text := prev
	for i, h := range hunks {
		if h.start > len(text) || !strings.HasPrefix(text[h.start:], h.source) {
			return "", fmt.Errorf("%w: hunk %d does not match the text at offset %d", ErrPatch, i+1, h.start)
		}
		text = text[:h.start] + h.target + text[h.start+len(h.source):]
	}
	if !utf8.ValidString(text) {
		return "", fmt.Errorf("%w: the result is not valid UTF-8", ErrPatch)
	}
	return text, nil
}

// hunk is one "@@ … @@" block of a patch: at start, source becomes target.
type hunk struct {
	start          int
	source, target string
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d{1,10})(?:,(\d{1,10}))? \+(\d{1,10})(?:,(\d{1,10}))? @@$`)

// parsePatch reads diff-match-patch patch text as go-diff writes it:
//
//	@@ -START1,LENGTH1 +START2,LENGTH2 @@
//	 context
//	-deleted
//	+inserted
//
// START is 1-based, except that a LENGTH of 0 comes with the 0-based offset
// before which the hunk applies; a LENGTH of 1 is left out. Offsets and
// lengths count UTF-8 bytes. The text after each line's first character is
// percent-encoded (as JavaScript's encodeURI does it, but for the space,
// which stays as it is), and the line itself ends with a newline.
func parsePatch(patch string) ([]hunk, error) {
	if patch == "" {
		return nil, nil
	}
	if !strings.HasSuffix(patch, "\n") {
		return nil, fmt.Errorf("%w: patch text does not end with a newline", ErrPatch)
	}
	var hunks []hunk
	var src, dst strings.Builder
	var len1, len2 int
	finish := func() error {
		h := &hunks[len(hunks)-1]
		h.source, h.target = src.String(), dst.String()
		if len(h.source) != len1 || len(h.target) != len2 {
			return fmt.Errorf("%w: hunk %d: its header says %d and %d bytes, its lines hold %d and %d", ErrPatch, len(hunks), len1, len2, len(h.source), len(h.target))
		}
		src.Reset()
		dst.Reset()
		return nil
	}
	for n, line := range strings.Split(strings.TrimSuffix(patch, "\n"), "\n") {
		if strings.HasPrefix(line, "@@") {
			m := hunkHeader.FindStringSubmatch(line)
			if m == nil {
				return nil, fmt.Errorf("%w: line %d: malformed hunk header %.40q", ErrPatch, n+1, line)
			}
			if len(hunks) > 0 {
				if err := finish(); err != nil {
					return nil, err
				}
			}
			start1, l1 := coords(m[1], m[2])
			start2, l2 := coords(m[3], m[4])
			if start1 < 0 || start2 < 0 {
				return nil, fmt.Errorf("%w: line %d: a start of 0 goes with a length of 0", ErrPatch, n+1)
			}
			if start1 != start2 {
				return nil, fmt.Errorf("%w: line %d: hunk starts at %d in the source but %d in the target", ErrPatch, n+1, start1, start2)
			}
			hunks = append(hunks, hunk{start: start2})
			len1, len2 = l1, l2
			continue
		}
		if n == 0 {
			return nil, fmt.Errorf("%w: line 1: a patch starts with a hunk header", ErrPatch)
		}
		if line == "" {
			return nil, fmt.Errorf("%w: line %d: empty line", ErrPatch, n+1)
		}
		text, err := url.PathUnescape(line[1:])
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: bad percent-encoding", ErrPatch, n+1)
		}
		switch line[0] {
		case ' ':
			src.WriteString(text)
			dst.WriteString(text)
		case '-':
			src.WriteString(text)
		case '+':
			dst.WriteString(text)
		default:
			return nil, fmt.Errorf("%w: line %d: unknown line mode %q", ErrPatch, n+1, line[0])
		}
	}
	if err := finish(); err != nil {
		return nil, err
	}
	return hunks, nil
}

// coords turns a header's START and LENGTH into a 0-based offset and a
// length.
func coords(start, length string) (offset, n int) {
	s, _ := strconv.Atoi(start)
	switch length {
	case "":
		return s - 1, 1
	case "0":
		return s, 0
	}
	n, _ = strconv.Atoi(length)
	return s - 1, n
}
