package smg_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/spec"
)

// FuzzDecodeDelta feeds UnmarshalDelta and Patch arbitrary differential
// files, and arbitrary bodies wrapped in a header that names full.smg as
// the base (an input that does not start with "smg-diff " is taken for a
// body). Neither panics; each error is typed; a delta that applies gives a
// document whose content hash is the delta's target; a delta read writes
// back to a delta that reads the same.
func FuzzDecodeDelta(f *testing.F) {
	base, target := changedFull(f)
	for _, pair := range [][2]int{{0, 1}, {1, 0}} {
		docs := [2]*spec.Document{base, target}
		d, err := smg.NewDelta(docs[pair[0]], docs[pair[1]])
		if err != nil {
			f.Fatal(err)
		}
		raw, err := smg.MarshalDelta(d, &smg.EncodeOptions{Quality: 1})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
		body, err := archive.Decompress(raw[bytes.IndexByte(raw, '\n')+1:], 1<<20)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body)
	}
	f.Add([]byte(`{"patch":{"semanticGraph":{"~":[0,{"importance":0.5}],"edges":{"-":["x"]}},"metadata":{"+":{"tags":["a"]},"=":{"x":null}}}}`))
	f.Add([]byte(`{"document":{}}`))
	baseHash, err := smg.ContentHash(base)
	if err != nil {
		f.Fatal(err)
	}
	targetHash, _ := smg.ContentHash(target)
	opts := &smg.DecodeOptions{Limits: fuzzLimits}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !bytes.HasPrefix(b, []byte("smg-diff ")) {
			b = append([]byte("smg-diff 1.0 "+baseHash+" "+targetHash+"\n"), archive.Compress(b, 1)...)
		}
		d, err := smg.UnmarshalDelta(b, opts)
		if err != nil {
			if !typed(err) && !errors.Is(err, smg.ErrNotDelta) || err.Error() == "" {
				t.Fatalf("untyped or empty error: %v", err)
			}
			return
		}
		raw, err := smg.MarshalDelta(d, &smg.EncodeOptions{Quality: 1})
		if err != nil {
			t.Fatalf("read but does not write: %v", err)
		}
		again, err := smg.UnmarshalDelta(raw, opts)
		if err != nil || again.Base != d.Base || again.Target != d.Target || again.Full() != d.Full() {
			t.Fatalf("written, it reads otherwise: %v", err)
		}
		doc, err := smg.Patch(base, d)
		if err != nil {
			if !errors.Is(err, smg.ErrMalformed) && !errors.Is(err, smg.ErrWrongBase) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		if h, err := smg.ContentHash(doc); err != nil || h != d.Target {
			t.Fatalf("applied, the delta gives %s, not its target %s (%v)", h, d.Target, err)
		}
	})
}
