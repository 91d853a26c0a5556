package encoder

import (
	"context"
	"strings"
	"testing"
)

// passage is about 60 words, about 80 tokens: the size of the passages
// retrieval embeds.
const passage = "We moved the nightly import to a queue last spring because the cron job kept " +
	"timing out when the supplier's feed was late, and since then the retries have been " +
	"quiet. The one thing still missing is an alert when a feed is empty: twice this month " +
	"it arrived with headers only, the import succeeded, and nobody noticed until Monday."

// flopsPerToken is what the dense layers cost per token (4.65M multiply-adds).
const flopsPerToken = 9.3e6

// BenchmarkEncode embeds one passage per op on one goroutine and reports
// passages/s and the GFLOP/s of the dense layers.
func BenchmarkEncode(b *testing.B) {
	e, err := New()
	if err != nil {
		b.Fatal(err)
	}
	tokens := len(e.tokens(passage))
	texts := []string{passage}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/s, "passages/s")
	b.ReportMetric(float64(b.N)*float64(tokens)*flopsPerToken/s/1e9, "GFLOP/s")
	b.ReportMetric(float64(tokens), "tokens")
}

// BenchmarkQuery embeds one short question per op: a query's latency.
func BenchmarkQuery(b *testing.B) {
	e, err := New()
	if err != nil {
		b.Fatal(err)
	}
	texts := []string{"What did we decide about the nightly import alerts?"}
	ctx := context.Background()
	for b.Loop() {
		if _, err := e.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeBatch embeds a batch of 64 passages per op, as a memory
// gives its embedder turns, on every core -cpu allows, and reports
// passages/s over all of them.
func BenchmarkEncodeBatch(b *testing.B) {
	e, err := New()
	if err != nil {
		b.Fatal(err)
	}
	texts := make([]string, 64)
	for i := range texts {
		texts[i] = passage
	}
	ctx := context.Background()
	for b.Loop() {
		if _, err := e.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(texts))/b.Elapsed().Seconds(), "passages/s")
}

func TestPassageLength(t *testing.T) {
	e, err := New()
	if err != nil {
		t.Fatal(err)
	}
	words, tokens := len(strings.Fields(passage)), len(e.tokens(passage))
	if words < 50 || words > 70 || tokens < 60 || tokens > 100 {
		t.Errorf("the benchmark passage has %d words, %d tokens; want about 60 and 80", words, tokens)
	}
}
