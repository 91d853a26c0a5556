package format_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// FuzzDecodeDelta feeds UnmarshalDelta and Patch arbitrary differential
// files, and arbitrary bodies wrapped in a header that names the base
// (an input that does not start with "smg-diff " is taken for a
// body). Neither panics; each error is typed; a delta that applies gives a
// document whose content hash is the delta's target; a delta read writes
// back to a delta that reads the same.
//
// Its documents are small.smg and a changed copy (changedSmall), not
// full.smg: every input is applied to the base and hashed, at a cost that
// grows with the base.
func FuzzDecodeDelta(f *testing.F) {
	base, target := changedSmall(f)
	for _, pair := range [][2]int{{0, 1}, {1, 0}} {
		docs := [2]*spec.Document{base, target}
		d, err := format.NewDelta(docs[pair[0]], docs[pair[1]])
		if err != nil {
			f.Fatal(err)
		}
		raw, err := format.MarshalDelta(d, &format.EncodeOptions{Quality: 1})
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
	baseHash, err := format.ContentHash(base)
	if err != nil {
		f.Fatal(err)
	}
	targetHash, _ := format.ContentHash(target)
	opts := &format.DecodeOptions{Limits: decodeLimits}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !bytes.HasPrefix(b, []byte("smg-diff ")) {
			b = append([]byte("smg-diff 1.0 "+baseHash+" "+targetHash+"\n"), archive.Compress(b, 1)...)
		}
		d, err := format.UnmarshalDelta(b, opts)
		if err != nil {
			if !typed(err) && !errors.Is(err, format.ErrNotDelta) || err.Error() == "" {
				t.Fatalf("untyped or empty error: %v", err)
			}
			return
		}
		raw, err := format.MarshalDelta(d, &format.EncodeOptions{Quality: 1})
		if err != nil {
			t.Fatalf("read but does not write: %v", err)
		}
		again, err := format.UnmarshalDelta(raw, opts)
		if err != nil || again.Base != d.Base || again.Target != d.Target || again.Full() != d.Full() {
			t.Fatalf("written, it reads otherwise: %v", err)
		}
		doc, err := format.Patch(base, d)
		if err != nil {
			if !errors.Is(err, format.ErrMalformed) && !errors.Is(err, format.ErrWrongBase) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		if h, err := format.ContentHash(doc); err != nil || h != d.Target {
			t.Fatalf("applied, the delta gives %s, not its target %s (%v)", h, d.Target, err)
		}
	})
}

// changedSmall returns small.smg changed in each way a delta carries (a
// node added, one changed, an edge changed, the working memory and the
// metadata changed), and small.smg itself.
func changedSmall(t testing.TB) (base, target *spec.Document) {
	t.Helper()
	target, _ = readExample(t, "small.smg")
	base, _ = readExample(t, "small.smg")
	g := &base.SemanticGraph
	for i := range g.Nodes {
		switch n := &g.Nodes[i]; n.ID {
		case "concept-stripe-checkout":
			n.Importance = 0.125
		case "decision-use-stripe-elements":
			n.Description = "An older description."
		}
	}
	g.Nodes = append(g.Nodes, spec.Node{ID: "concept-gone", Type: spec.NodeConcept, Label: "Gone", Confidence: 1, Version: 1})
	g.Edges[0].Strength = 0.5
	base.WorkingMemory.Summary = "An older summary."
	base.Metadata.Tags = []string{"go"}
	return base, target
}
