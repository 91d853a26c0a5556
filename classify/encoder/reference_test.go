package encoder

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"
)

type reference struct {
	Text   string    `json:"text"`
	IDs    []int32   `json:"ids"`
	Vector []float32 `json:"vector"`
}

func readReference(t testing.TB) []reference {
	t.Helper()
	b, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var refs []reference
	if err := json.Unmarshal(b, &refs); err != nil {
		t.Fatal(err)
	}
	return refs
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// TestTokensMatchOriginal checks that the tokenizer gives the ids the
// original JavaScript tokenizer gave, for every reference text.
func TestTokensMatchOriginal(t *testing.T) {
	e, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range readReference(t) {
		if got := e.tok.encode(r.Text); !slices.Equal(got, r.IDs) && !(len(got) == 0 && len(r.IDs) == 0) {
			t.Errorf("encode(%q)\n got %v\nwant %v", r.Text, got, r.IDs)
		}
	}
}

// minCosine is the least cosine similarity a vector may have with the
// original's; int8 weights measured 0.99921 at worst (see README.md).
const minCosine = 0.999

// TestVectorsMatchOriginal checks every vector against the original's.
func TestVectorsMatchOriginal(t *testing.T) {
	e, err := New()
	if err != nil {
		t.Fatal(err)
	}
	refs := readReference(t)
	var texts []string
	for _, r := range refs {
		texts = append(texts, r.Text)
	}
	got, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	worst, at := 1.0, ""
	for i, r := range refs {
		if len(got[i]) != Dim {
			t.Fatalf("%q: %d floats", r.Text, len(got[i]))
		}
		if r.Vector == nil { // the original fails on it
			continue
		}
		c := cosine(got[i], r.Vector)
		if c < worst {
			worst, at = c, r.Text
		}
		if c < minCosine {
			t.Errorf("%q: cosine %.6f with the original, want ≥ %v", r.Text, c, minCosine)
		}
	}
	t.Logf("least cosine with the original: %.6f (%.40q)", worst, at)
}
