package importer

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"unicode/utf8"
)

// An export is a JSON array of conversations (LoCoMo samples, ChatGPT and
// Claude conversations) and can be large: a window reads it one element at
// a time, so that a read holds one conversation's text, not the whole
// input's. The window is the part of the input read and not yet dropped,
// as a text that knows where its first byte is in the input, so that
// positions in errors are those of the whole input.

// chunkSize is how much a window reads at least when it needs more.
const chunkSize = 1 << 20

// window is an input read a piece at a time.
type window struct {
	src   io.Reader
	t     text
	eof   bool // src is read to its end
	err   error
	chunk int    // at least this much is read at once
	head  []byte // the input's first DetectSize bytes, or all of it when shorter
}

// more reads more of the input: at least as much again as the window
// holds, so that a value that spans many reads is checked a few times,
// not once per read. It reports false when the input is read to its end.
func (w *window) more() (bool, error) {
	if w.err != nil {
		return false, w.err
	}
	if w.eof {
		return false, nil
	}
	n := max(w.chunk, len(w.t.data))
	d := slices.Grow(w.t.data, n)
	k, err := io.ReadFull(w.src, d[len(d):len(d)+n])
	if len(w.head) < DetectSize {
		w.head = append(w.head, d[len(d):len(d)+min(k, DetectSize-len(w.head))]...)
	}
	w.t.data, w.t.lines = d[:len(d)+k], nil
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		w.eof = true
		return k > 0, nil
	case err != nil:
		w.err = err
		return false, err
	}
	return true, nil
}

// all reads the rest of the input.
func (w *window) all() error {
	for {
		if ok, err := w.more(); !ok {
			return err
		}
	}
}

// ws returns the offset of the first byte at or after i that is not JSON
// white space, reading more as needed; len(w.t.data) at the input's end.
func (w *window) ws(i int) (int, error) {
	for {
		if i = w.t.ws(i); i < len(w.t.data) {
			return i, nil
		}
		if ok, err := w.more(); !ok {
			return i, err
		}
	}
}

// value reads the JSON value at i, reading more of the input until the
// value, and the byte that is not white space after it, are in the window:
// a number is whole only when what follows it is read. An error at a
// character the window holds only part of is read again with the whole
// character, which the error names.
func (w *window) value(i int) (jv, *jsonSyntaxError, error) {
	for {
		v, serr := w.t.value(i)
		if serr == nil || serr.off == len(w.t.data) || !utf8.FullRune(w.t.data[serr.off:]) {
			if serr == nil && w.t.ws(v.end) < len(w.t.data) {
				return v, nil, nil
			}
			if ok, err := w.more(); ok {
				continue
			} else if err != nil {
				return jv{}, nil, err
			}
		}
		return v, serr, nil
	}
}

// drop forgets the window's bytes before i: offsets into the window are
// then less by i.
func (w *window) drop(i int) {
	t := &w.t
	if k := bytes.Count(t.data[:i], []byte("\n")); k > 0 {
		t.line0 += k
		t.col0 = i - (bytes.LastIndexByte(t.data[:i], '\n') + 1)
	} else {
		t.col0 += i
	}
	t.data = t.data[:copy(t.data, t.data[i:])]
	t.lines = nil
}

// start returns the offset of the input's first byte that is neither
// white space nor a byte order mark, reading as much as that takes;
// len(w.t.data) for an input of nothing else.
func (w *window) start() (int, error) {
	for len(w.t.data) < 3 { // a byte order mark is whole
		if ok, err := w.more(); err != nil {
			return 0, err
		} else if !ok {
			break
		}
	}
	return w.ws(skipBOM(w.t.data))
}

// eachLine calls fn with each non-blank line of the input from offset i
// of the window on, as a text of its own, with its 0-based line number in
// the input, until fn returns an error. It reads the input as it goes: the
// window holds the line given to fn and what was read after it, not the
// lines before (of an input read whole, it drops the lines given). The
// text fn is given is the window's, valid until fn returns.
func (r *reader) eachLine(i int, fn func(t *text, line0 int) error) error {
	w := r.w
	line0 := w.t.line0 + bytes.Count(w.t.data[:i], []byte("\n"))
	for start := i; ; line0++ {
		end := -1
		for from := start; end < 0; {
			if k := bytes.IndexByte(w.t.data[from:], '\n'); k >= 0 {
				end = from + k
				break
			}
			from = len(w.t.data) // what is read is searched once
			if ok, err := w.more(); err != nil {
				return err
			} else if !ok {
				end = len(w.t.data)
			}
		}
		t := &text{data: w.t.data[start:end]}
		if t.ws(0) < len(t.data) {
			if err := fn(t, line0); err != nil {
				return err
			}
		}
		if end == len(w.t.data) {
			return nil
		}
		// The lines given are dropped a chunk at a time, not at each
		// line: dropping moves what the window holds after them.
		if start = end + 1; start >= w.chunk {
			w.drop(start)
			start = 0
		}
	}
}

// eachDocument reads an input that is a JSON array of what, or one of
// them, and gives one to each element, with its path. An array is read one
// element at a time: the window holds the element given to one (as r.t)
// and what was read after it.
func (r *reader) eachDocument(what string, one func(v jv, path string) error) error {
	w := r.w
	i, err := w.start()
	if err != nil {
		return err
	}
	d := w.t.data
	if i == len(d) || d[i] != '[' && d[i] != '{' {
		return r.errorAt(r.t, 0, i, "", "not JSON: want a JSON array of "+what)
	}
	if d[i] == '{' {
		if err := w.all(); err != nil {
			return err
		}
		v, err := r.document(i)
		if err != nil {
			return err
		}
		return one(v, "$")
	}
	i++ // past '['
	for n := 0; ; n++ {
		if i, err = w.ws(i); err != nil {
			return err
		}
		if n == 0 && i < len(w.t.data) && w.t.data[i] == ']' {
			i++
			break
		}
		v, serr, err := w.value(i)
		if err != nil {
			return err
		}
		if serr != nil {
			return r.syntaxError(r.t, 0, serr)
		}
		if err := one(v, pathIndex("$", n)); err != nil {
			return err
		}
		i = w.t.ws(v.end) // in the window: value read past it
		if i == len(w.t.data) {
			return r.syntaxError(r.t, 0, w.t.errAt(i, ""))
		}
		c := w.t.data[i]
		if c != ',' && c != ']' {
			return r.syntaxError(r.t, 0, w.t.errAt(i, "want ',' or ']'"))
		}
		w.drop(i + 1)
		if i = 0; c == ']' {
			break
		}
	}
	if i, err = w.ws(i); err != nil {
		return err
	}
	if i < len(w.t.data) {
		return r.errorAt(r.t, 0, i, "", "not JSON: more text after the JSON value")
	}
	return nil
}
