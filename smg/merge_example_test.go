package smg_test

import (
	"context"
	"fmt"
	"time"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/spec"
)

// A memory is forked; each branch remembers a fact; the merge has both.
func ExampleMerge() {
	ctx := context.Background()
	at := time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC)
	m := smg.New(&smg.Options{ID: "notes"})
	_ = m.Ingest(ctx, smg.Turn{Role: "user", Content: "We deploy the shop with Docker.", Timestamp: at})
	base := m.Document()
	fork, _ := smg.Fork(base, smg.ForkOptions{ID: "notes-home", Now: at})

	remember := func(doc *spec.Document, fact string) *spec.Document {
		m, _ := smg.Load(doc, nil)
		_, _ = m.Remember(ctx, smg.Fact{Content: fact})
		return m.Document()
	}
	ours := remember(base, "User prefers short answers")
	theirs := remember(fork, "User's dog is called Biscuit")

	merged, rep, err := smg.Merge(base, ours, theirs, smg.MergeOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range rep.Changes {
		fmt.Println(c.Side, c.Op, c.Node)
	}
	fmt.Println(merged.Metadata.ID, merged.Metadata.Lineage.Operation, merged.Metadata.Lineage.Parents[1].ID)
	// Output:
	// ours added fact-user-prefers-short-answers
	// theirs added fact-user-s-dog-is-called-biscuit
	// notes merge notes-home
}
