package examples_test

import (
	"bytes"
	"testing"

	"github.com/smg-memory/smg/smg/examples"
	"github.com/smg-memory/smg/smg/importer"
)

// TestExamplesRead reads every example conversation the way smg ingest
// reads a file, strictly, as generic transcripts: the demo and the
// README's quick start depend on them.
func TestExamplesRead(t *testing.T) {
	for _, c := range []struct {
		name  string
		turns int
	}{{"checkout.json", 20}, {"personal.json", 22}} {
		res, err := importer.ReadFile(c.name, importer.Options{Strict: true, RequireTurns: true})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if res.Format != importer.Transcript || len(res.Conversations) != 1 || len(res.Conversations[0].Turns) != c.turns {
			t.Errorf("%s: format %s, %d conversations, want one transcript of %d turns", c.name, res.Format, len(res.Conversations), c.turns)
		}
	}
}

// TestCheckoutEmbedded reads the conversation smg demo reads: the one the
// binary carries.
func TestCheckoutEmbedded(t *testing.T) {
	res, err := importer.Read(bytes.NewReader(examples.Checkout), importer.Options{Name: "checkout.json", Strict: true, RequireTurns: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Conversations); n != 1 || len(res.Conversations[0].Turns) != 20 {
		t.Fatalf("%d conversations, want one of 20 turns", n)
	}
}
