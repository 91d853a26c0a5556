package graph

import (
	"errors"
	"testing"
)

// TestSetExcerptEmbedding checks that the vectors of a turn's excerpts are
// kept beside the whole turn's, in order (turn, then excerpt), that one
// excerpt's vector replaces its own only, and that spans that are not
// spans are refused.
func TestSetExcerptEmbedding(t *testing.T) {
	b := New(Config{BlockSize: 2}, Options{})
	addTurns(t, b, 3)
	for _, e := range []struct{ turn, start, end int }{
		{2, 50, 90}, {2, 0, 50}, {1, 0, 0}, {3, 0, 0}, {2, 90, 120}, {2, 0, 50},
	} {
		if err := b.SetExcerptEmbedding(e.turn, e.start, e.end, "m", []float32{float32(e.start), 1}); err != nil {
			t.Fatal(err)
		}
	}
	type key struct{ turn, start, end int }
	var got []key
	for _, e := range b.Document().DeepArchive.VectorIndex.Embeddings {
		got = append(got, key{e.Turn, e.Start, e.End})
	}
	want := []key{{1, 0, 0}, {2, 0, 50}, {2, 50, 90}, {2, 90, 120}, {3, 0, 0}}
	if len(got) != len(want) {
		t.Fatalf("embeddings %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("embeddings %v, want %v", got, want)
		}
	}
	for _, s := range [][2]int{{-1, 5}, {5, 4}, {7, 7}} {
		if err := b.SetExcerptEmbedding(2, s[0], s[1], "m", []float32{1, 1}); !errors.Is(err, ErrInvalidEmbedding) {
			t.Errorf("excerpt %v: %v, want ErrInvalidEmbedding", s, err)
		}
	}
}
