package extraction

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Label is a person's verdict on an item of the sample, by the rubric of
// testdata/labels/README.md. A labels file holds no text of the data,
// only keys and verdicts: the data is not the project's to copy.
type Label struct {
	Key  string `json:"key"`
	Kind string `json:"kind"`
	// Valid says that the item is what its kind says it is.
	Valid bool `json:"valid"`
	// Rephrasing, for a fact, says that its label is grammatical and
	// says what its sentence said, of the same person; Of is the
	// Phrasing of the label judged. A fact whose label has changed since
	// keeps its Valid, and its rephrasing is to judge again.
	Rephrasing *bool  `json:"rephrasing,omitempty"`
	Of         string `json:"of,omitempty"`
	// Note says why, when the verdict needs it.
	Note string `json:"note,omitempty"`
}

// Labels are labels by key.
type Labels map[string]Label

// LabelError is a line of a labels file that cannot be read: where, and
// what is wrong with it.
type LabelError struct {
	Line int
	Msg  string
}

func (e *LabelError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// ErrLabels is what every error of ReadLabels matches.
var ErrLabels = errors.New("reading labels")

// ReadLabels reads a labels file: JSON lines, one Label each; empty lines
// are skipped. A line that is not a label of a known kind with a key of 16
// hex digits, or that labels a key again, fails the read with a
// *LabelError naming it.
func ReadLabels(r io.Reader) (Labels, error) {
	out := Labels{}
	err := readLines(r, "label", func(l Label) error {
		switch {
		case !isHex(l.Key, 16):
			return fmt.Errorf("key %q is not 16 hex digits", l.Key)
		case !slices.Contains(Kinds, l.Kind):
			return fmt.Errorf("kind %q is none of %v", l.Kind, Kinds)
		case l.Rephrasing != nil && l.Kind != Fact:
			return fmt.Errorf("a %s has no rephrasing to label", l.Kind)
		case (l.Rephrasing != nil) != (l.Of != ""):
			return errors.New(`a rephrasing's verdict and "of", the phrasing judged, go together`)
		case l.Of != "" && !isHex(l.Of, 8):
			return fmt.Errorf("of %q is not 8 hex digits", l.Of)
		}
		if _, ok := out[l.Key]; ok {
			return fmt.Errorf("key %s is labelled again", l.Key)
		}
		out[l.Key] = l
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readLines reads JSON lines of values of T, skipping empty lines, and
// gives each to add. A line that does not decode as one T with no unknown
// field, or that add refuses, fails the read with a *LabelError naming
// it; what names what a line holds ("label").
func readLines[T any](r io.Reader, what string, add func(T) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		fail := func(msg string) error {
			return fmt.Errorf("%w: %w", ErrLabels, &LabelError{Line: n, Msg: msg})
		}
		var v T
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			return fail(err.Error())
		}
		if dec.More() {
			return fail("more than one " + what + " on the line")
		}
		if err := add(v); err != nil {
			return fail(err.Error())
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrLabels, err)
	}
	return nil
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// WriteLabels writes labels as ReadLabels reads them, in the order of
// their keys.
func WriteLabels(w io.Writer, labels Labels) error {
	return writeLines(w, labels)
}

// writeLines writes the values of m as JSON lines, in the order of their
// keys.
func writeLines[T any](w io.Writer, m map[string]T) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b, err := json.Marshal(m[k])
		if err != nil {
			return err
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}
