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
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		fail := func(format string, args ...any) error {
			return fmt.Errorf("%w: %w", ErrLabels, &LabelError{Line: n, Msg: fmt.Sprintf(format, args...)})
		}
		var l Label
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return nil, fail("%v", err)
		}
		if dec.More() {
			return nil, fail("more than one label on the line")
		}
		switch {
		case !isHex(l.Key, 16):
			return nil, fail("key %q is not 16 hex digits", l.Key)
		case !slices.Contains(Kinds, l.Kind):
			return nil, fail("kind %q is none of %v", l.Kind, Kinds)
		case l.Rephrasing != nil && l.Kind != Fact:
			return nil, fail("a %s has no rephrasing to label", l.Kind)
		case (l.Rephrasing != nil) != (l.Of != ""):
			return nil, fail(`a rephrasing's verdict and "of", the phrasing judged, go together`)
		case l.Of != "" && !isHex(l.Of, 8):
			return nil, fail("of %q is not 8 hex digits", l.Of)
		}
		if _, ok := out[l.Key]; ok {
			return nil, fail("key %s is labelled again", l.Key)
		}
		out[l.Key] = l
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLabels, err)
	}
	return out, nil
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
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b, err := json.Marshal(labels[k])
		if err != nil {
			return err
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}
