package baseline

import (
	"context"
	"slices"
	"testing"
)

type countingEmbedder struct{ texts []string }

func (c *countingEmbedder) Model() string { return "count" }

func (c *countingEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	c.texts = append(c.texts, texts...)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t)), 1}
	}
	return out, nil
}

// TestMemoEmbedsOnce checks that a text is embedded once, whatever asks
// for it again, and that the vectors come back in the order asked.
func TestMemoEmbedsOnce(t *testing.T) {
	c := &countingEmbedder{}
	m := NewMemo(c)
	ctx := context.Background()
	if _, err := m.Embed(ctx, []string{"a", "bb", "a"}); err != nil {
		t.Fatal(err)
	}
	vs, err := m.Embed(ctx, []string{"ccc", "bb", "a"})
	if err != nil {
		t.Fatal(err)
	}
	if got := []float32{vs[0][0], vs[1][0], vs[2][0]}; !slices.Equal(got, []float32{3, 2, 1}) {
		t.Errorf("vectors %v, want the lengths 3, 2, 1", vs)
	}
	if !slices.Equal(c.texts, []string{"a", "bb", "ccc"}) {
		t.Errorf("embedded %q, want a, bb, ccc: each once", c.texts)
	}
	if m.Model() != "count" {
		t.Errorf("model %q", m.Model())
	}
}
