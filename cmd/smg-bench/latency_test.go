package main

import (
	"context"
	"io"
	"testing"
)

// TestLatency runs the latency measures on a small memory, with live turns
// enough for the engine to build its index again once, and checks what
// they count: every question, every live turn, and no live context other
// than a fresh load's; without vectors and with the built-in encoder.
func TestLatency(t *testing.T) {
	for _, vectors := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "vectors"}[vectors], func(t *testing.T) { testLatency(t, vectors) })
	}
}

func testLatency(t *testing.T, vectors bool) {
	o := latencyOptions{data: writeTiny(t), turns: 120, budget: 200, tokenizer: "estimate", count: 1, live: 60, vectors: vectors}
	rep, err := measureLatency(context.Background(), o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if (rep.Vectors > 0) != vectors {
		t.Errorf("%d vectors in the memory, with vectors %v", rep.Vectors, vectors)
	}
	// A copy of the file alone makes its vectors again.
	if copied := rep.CopyFirstContextMs > 0 && rep.CopyTextsPerS > 0 && rep.CopyVectorsS > 0; copied != vectors {
		t.Errorf("a copy alone, with vectors %v: first context %.1f ms, vectors again in %.1f s (%.0f texts/s)", vectors, rep.CopyFirstContextMs, rep.CopyVectorsS, rep.CopyTextsPerS)
	}
	if rep.Turns != 120 || rep.FileBytes == 0 || rep.Nodes == 0 {
		t.Errorf("the memory: %d turns, %d bytes, %d nodes", rep.Turns, rep.FileBytes, rep.Nodes)
	}
	if rep.Context.Calls != 8 || rep.LiveTurnContext.Calls != 60 || rep.LiveContext.Calls != 8 {
		t.Errorf("%d contexts, %d live turns, %d contexts after them; want 8, 60, 8", rep.Context.Calls, rep.LiveTurnContext.Calls, rep.LiveContext.Calls)
	}
	if rep.LiveDiffering != 0 {
		t.Errorf("%d contexts of the live memory differ from those of the same memory loaded afresh", rep.LiveDiffering)
	}
}
