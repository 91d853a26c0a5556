package format_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// excerptsChanged is the full example memory with vectors of excerpts of
// turns 3 and 7 (base), and the same with an excerpt's vector changed,
// one removed and two added (target).
func excerptsChanged(t *testing.T) (base, target *spec.Document) {
	t.Helper()
	base, _ = readExample(t, "full.smg")
	target, _ = readExample(t, "full.smg")
	v := func(x float32) spec.Bytes { return spec.EncodeVector([]float32{x, 0, 0, 1}) }
	add := func(d *spec.Document, es ...spec.Embedding) {
		vi := d.DeepArchive.VectorIndex
		vi.Embeddings = append(vi.Embeddings, es...)
		slices.SortFunc(vi.Embeddings, spec.CompareEmbeddings)
	}
	add(base, spec.Embedding{Turn: 3, Start: 5, End: 9, Vector: v(1)}, spec.Embedding{Turn: 7, End: 10, Vector: v(2)})
	add(target, spec.Embedding{Turn: 7, End: 10, Vector: v(3)}, spec.Embedding{Turn: 7, Start: 10, End: 20, Vector: v(4)},
		spec.Embedding{Turn: 12, Start: 1, End: 4, Vector: v(5)})
	for _, d := range []*spec.Document{base, target} {
		if err := format.Validate(d, nil); err != nil {
			t.Fatal(err)
		}
	}
	return base, target
}

// TestDeltaKeysExcerpts: a differential file keys embeddings by turn and
// excerpt (spec §9.6.2), so that a turn with vectors of its excerpts has
// a keyed view and its changes are a patch, both ways.
func TestDeltaKeysExcerpts(t *testing.T) {
	base, target := excerptsChanged(t)
	applyDelta(t, base, target, marshalPlain(t, target))
	applyDelta(t, target, base, marshalPlain(t, base))
}

// TestDiffExcerpts: the diff lists the embeddings of excerpts by turn and
// excerpt, apart from those of whole turns.
func TestDiffExcerpts(t *testing.T) {
	base, target := excerptsChanged(t)
	target.DeepArchive.VectorIndex.Embeddings[0].Vector = spec.EncodeVector([]float32{9, 9, 9, 9})
	c, err := format.Diff(base, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := format.ExcerptChanges{
		Added:   []format.Excerpt{{Turn: 7, Start: 10, End: 20}, {Turn: 12, Start: 1, End: 4}},
		Removed: []format.Excerpt{{Turn: 3, Start: 5, End: 9}},
		Changed: []format.Excerpt{{Turn: 7, Start: 0, End: 10}},
	}
	if !slices.Equal(c.Excerpts.Added, want.Added) || !slices.Equal(c.Excerpts.Removed, want.Removed) || !slices.Equal(c.Excerpts.Changed, want.Changed) {
		t.Errorf("excerpts %+v, want %+v", c.Excerpts, want)
	}
	if !slices.Equal(c.Embeddings.Changed, []int{1}) || len(c.Embeddings.Added)+len(c.Embeddings.Removed) != 0 {
		t.Errorf("embeddings of whole turns %+v, want turn 1 changed", c.Embeddings)
	}
	var out bytes.Buffer
	if err := c.WriteText(&out, nil); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"@@ vector index @@\n",
		"~ embedding of turn 1\n",
		"+ embeddings of 2 excerpts of turns 7, 12\n",
		"- embedding of turn 3, bytes 5-9\n",
		"~ embedding of turn 7, bytes 0-10\n",
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("no %q in:\n%s", line, out.String())
		}
	}
	if c, err := format.Diff(target, target, nil); err != nil || !c.Empty() {
		t.Errorf("a memory with excerpts differs from itself: %+v, %v", c, err)
	}
}

// TestInspectVectors: info reports the vectors' model, encoding, count
// and bytes, and their share of the file; a memory without vectors has
// none.
func TestInspectVectors(t *testing.T) {
	info, err := format.InspectFile(filepath.Join("..", "..", "testdata", "full.smg"), nil)
	if err != nil {
		t.Fatal(err)
	}
	v := info.Vectors
	if v == nil || v.Model != "example-embedding-4" || v.Dimensions != 4 || v.Encoding != "float32" || v.Embeddings != 12 ||
		v.Excerpts != 0 || v.Bytes != 12*16 || v.JSON <= v.Bytes || v.Compressed <= 0 {
		t.Fatalf("vectors %+v", v)
	}
	if want := float64(v.Compressed) / float64(info.Form.FileSize); v.Share <= 0 || math.Abs(v.Share-want) > 1e-4 {
		t.Errorf("share %v, want %v of the file", v.Share, want)
	}

	// Vectors that are most of a memory: 300 of 512 values in int8.
	doc, _ := readExample(t, "full.smg")
	r := rand.New(rand.NewPCG(1, 1))
	vi := &spec.VectorIndex{Enabled: true, Model: "m", Dimensions: 512, Encoding: spec.EncodingInt8}
	for i := range 300 {
		x := make([]float32, 512)
		for j := range x {
			x[j] = float32(r.NormFloat64())
		}
		vi.Embeddings = append(vi.Embeddings, spec.Embedding{Turn: 1 + i/25, Start: i % 25, End: i%25 + 1, Vector: spec.EncodeVectorInt8(x)})
	}
	doc.DeepArchive.VectorIndex = vi
	file, err := format.Marshal(doc, &format.EncodeOptions{WithVectors: true})
	if err != nil {
		t.Fatal(err)
	}
	st, err := format.Inspect(bytes.NewReader(file), nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := st.Vectors; v == nil || v.Encoding != "int8" || v.Bytes != 300*516 || v.Excerpts != 300 || v.Share < 0.5 || v.Share > 1 {
		t.Errorf("int8 vectors %+v", v)
	}
	if st, err := format.Stat(doc); err != nil || st.Vectors == nil || st.Vectors.Share != 0 || st.Vectors.Bytes != 300*516 {
		t.Errorf("Stat, which has no file: vectors %+v, %v", st.Vectors, err)
	}
	doc.DeepArchive.VectorIndex = nil
	if st, err := format.Stat(doc); err != nil || st.Vectors != nil {
		t.Errorf("no index: %+v, %v", st.Vectors, err)
	}
}
