package baseline

import (
	"context"
	"slices"
	"testing"

	"github.com/smg-memory/smg/classify/encoder"
)

// TestFusedFindsByMeaning checks that the fused ranking finds a document
// that shares no word with the question, which BM25 alone cannot, and
// still ranks a document with the question's words.
func TestFusedFindsByMeaning(t *testing.T) {
	enc, err := encoder.New()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"We painted the fence green on Sunday.",
		"My two kids started school this week.",
		"The invoice for the hosting plan is due.",
		"Our children love the zoo.",
	}
	ctx := context.Background()
	f, err := NewFused(ctx, texts, texts, enc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	order, err := f.Rank(ctx, "How many children does she have?")
	if err != nil {
		t.Fatal(err)
	}
	if len(order) != len(texts) {
		t.Fatalf("order %v: every document has a vector, so every one is ranked", order)
	}
	if i := slices.Index(order, 1); i > 1 {
		t.Errorf("order %v: the kids' turn (1) is not among the first two", order)
	}
	if order[0] != 3 && order[0] != 1 {
		t.Errorf("order %v: first is neither the children's nor the kids' turn", order)
	}
	b, err := NewBM25(texts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if lex, _ := b.Rank(ctx, "How many children does she have?"); slices.Contains(lex, 1) {
		t.Errorf("BM25 alone found the kids' turn: %v; the test shows nothing", lex)
	}
}

func TestFusedChecksItsInput(t *testing.T) {
	enc, err := encoder.New()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewFused(context.Background(), []string{"a"}, nil, enc); err == nil {
		t.Error("texts and texts to embed of different lengths were taken")
	}
}
