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
// stays a space. They are applied strictly: every hunk must match the text
// byte for byte at the place it names, so applying a patch either gives the
// exact text it was made for or fails.
package artifacts

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"regexp"
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

// Errors that reconstructing a version reports, wrapped in a [*VersionError].
var (
	// ErrPatch: a patch is not well-formed, or does not apply to the
	// content of the version before it.
	ErrPatch = errors.New("patch does not apply")
	// ErrHashMismatch: the reconstructed content does not have the hash
	// its version records.
	ErrHashMismatch = errors.New("content does not match its hash")
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
// Content and Patch is set.
type Version struct {
	Hash    string
	Content *string
	Patch   *string
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
		if err == nil && Hash(content) != v.Hash {
			err = ErrHashMismatch
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
func MakePatch(prev, next string) (string, error) {
	if !utf8.ValidString(prev) || !utf8.ValidString(next) {
		return "", ErrNotUTF8
	}
	dmp := diffmatchpatch.New()
	return dmp.PatchToText(dmp.PatchMake(prev, next)), nil
}

var (
	hunkHeader = regexp.MustCompile(`^@@ -\d{1,10}(,\d{1,10})? \+\d{1,10}(,\d{1,10})? @@$`)
	strict     = func() *diffmatchpatch.DiffMatchPatch {
		dmp := diffmatchpatch.New()
		dmp.MatchThreshold = 0       // a hunk matches exactly, or not at all
		dmp.PatchDeleteThreshold = 0 // and so does a large deletion
		return dmp
	}()
)

// ApplyPatch applies patch to prev. Every hunk must match exactly where it
// says; otherwise the error wraps ErrPatch. prev and the result must be
// valid UTF-8.
func ApplyPatch(prev, patch string) (out string, err error) {
	if !utf8.ValidString(prev) {
		return "", ErrNotUTF8
	}
	if err := checkPatchText(patch); err != nil {
		return "", err
	}
	// go-diff parses text it did not write: should it panic on some hostile
	// patch, that is a patch that does not apply, not a crash.
	defer func() {
		if r := recover(); r != nil {
			out, err = "", fmt.Errorf("%w: %v", ErrPatch, r)
		}
	}()
	patches, err := strict.PatchFromText(patch)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrPatch, err)
	}
	out, applied := strict.PatchApply(patches, prev)
	for i, ok := range applied {
		if !ok {
			return "", fmt.Errorf("%w: hunk %d does not match", ErrPatch, i+1)
		}
	}
	if !utf8.ValidString(out) {
		return "", fmt.Errorf("%w: the result is not valid UTF-8", ErrPatch)
	}
	return out, nil
}

// checkPatchText rejects what go-diff's parser would accept by mistake: a
// broken percent-escape (which it turns into an empty line) and header
// numbers too large for an int.
func checkPatchText(patch string) error {
	if patch == "" {
		return nil
	}
	if !strings.HasSuffix(patch, "\n") {
		return fmt.Errorf("%w: patch text does not end with a newline", ErrPatch)
	}
	lines := strings.Split(strings.TrimSuffix(patch, "\n"), "\n")
	for n, line := range lines {
		switch {
		case strings.HasPrefix(line, "@@"):
			if !hunkHeader.MatchString(line) {
				return fmt.Errorf("%w: line %d: malformed hunk header %.40q", ErrPatch, n+1, line)
			}
		case n == 0:
			return fmt.Errorf("%w: line 1: a patch starts with a hunk header", ErrPatch)
		case line == "":
			return fmt.Errorf("%w: line %d: empty line", ErrPatch, n+1)
		case line[0] == ' ' || line[0] == '-' || line[0] == '+':
			if _, err := url.PathUnescape(line[1:]); err != nil {
				return fmt.Errorf("%w: line %d: bad percent-encoding", ErrPatch, n+1)
			}
		default:
			return fmt.Errorf("%w: line %d: unknown line mode %q", ErrPatch, n+1, line[0])
		}
	}
	return nil
}
