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
