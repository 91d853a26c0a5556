package smg_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// A memory built turn by turn, saved, opened again and asked for its
// decisions.
func ExampleMemory() {
	ctx := context.Background()
	at := time.Date(2025, 11, 3, 9, 0, 0, 0, time.UTC)
	m := smg.New(&smg.Options{ProjectName: "shop"})
	for i, text := range []string{
		"Let's use Stripe Elements over Stripe Checkout, because the designers want the payment form to match the site.",
		"Good call. I'll write the payment form.",
	} {
		role := []string{"user", "assistant"}[i]
		if err := m.Ingest(ctx, smg.Turn{Role: role, Content: text, Timestamp: at.Add(time.Duration(i) * time.Minute)}); err != nil {
			log.Fatal(err)
		}
	}
	name := filepath.Join(os.TempDir(), "example-shop.smg")
	defer os.Remove(name)
	if err := m.Save(name, nil); err != nil {
		log.Fatal(err)
	}

	m, err := smg.Open(name, nil)
	if err != nil {
		log.Fatal(err)
	}
	decisions, err := format.Nodes(m.Document(), format.NodeQuery{Type: spec.NodeDecision})
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range decisions {
		fmt.Printf("%s, over %s, because %s\n", d.Outcome, d.Alternatives[0].Option, d.Rationale)
	}
	fmt.Println(m.Turns(), "turns")
	// Output:
	// Stripe Elements, over Stripe Checkout, because the designers want the payment form to match the site
	// 2 turns
}

// A memory embeds each turn in the background; WaitVectors waits for the
// vectors, and a context then finds a turn that shares no word with the
// question.
func ExampleMemory_WaitVectors() {
	ctx := context.Background()
	emb, err := smg.BuiltinEmbedder() // what a memory given no Embedder uses
	if err != nil {
		log.Fatal(err)
	}
	m := smg.New(&smg.Options{Embedder: emb})
	defer m.Close()
	for _, content := range []string{
		"The garden needs watering twice a week in summer.",
		"I finally bought a sedan, a red one with leather seats.",
	} {
		if err := m.Ingest(ctx, smg.Turn{Role: "user", Content: content}); err != nil {
			log.Fatal(err)
		}
	}
	if err := m.WaitVectors(ctx); err != nil {
		log.Fatal(err)
	}
	r, err := m.Context(ctx, "Which automobile was purchased?", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.VectorModel(), m.PendingVectors(), r.Warnings)
	nearest, best := 0, 0.0
	for _, it := range r.Items {
		if it.Kind == "turn" && it.Parts["vector"] > best {
			nearest, best = it.Turn, it.Parts["vector"]
		}
	}
	fmt.Println("nearest in meaning: turn", nearest)
	// Output:
	// use-lite-int8@energetic-ai-0.2.0 0 []
	// nearest in meaning: turn 2
}
