package format_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// Diff matches nodes and edges by identity and reports what changed, field
// by field.
func ExampleDiff() {
	a := exampleDoc()
	b := exampleDoc()
	b.SemanticGraph.Nodes[0].Importance = 0.75
	b.SemanticGraph.Nodes = append(b.SemanticGraph.Nodes, spec.Node{ID: "concept-rust", Type: spec.NodeConcept, Label: "Rust", Confidence: 1, Version: 1})
	b.SemanticGraph.Edges = []spec.Edge{{From: "concept-go", To: "concept-rust", Relation: spec.RelRelatedTo, Strength: 0.5}}
	c, err := format.Diff(a, b, nil)
	if err != nil {
		panic(err)
	}
	c.Base, c.Target = "A", "B" // the hashes, shortened for the example
	c.WriteText(os.Stdout, nil)
	// Output:
	// --- A
	// +++ B
	// @@ nodes @@
	// ~ concept-go (concept) Go
	//     ~ importance: 0.5 → 0.75
	// + concept-rust (concept) Rust
	// @@ edges @@
	// + concept-go --related_to--> concept-rust (0.5)
}

// A delta turns its base, and no other document, into its target.
func ExamplePatch() {
	a := exampleDoc()
	b := exampleDoc()
	b.Metadata.Description = "A memory about Go."
	d, err := format.NewDelta(a, b)
	if err != nil {
		panic(err)
	}
	got, err := format.Patch(a, d)
	if err != nil {
		panic(err)
	}
	fmt.Println(got.Metadata.Description)
	_, err = format.Patch(b, d)
	fmt.Println(errors.Is(err, format.ErrWrongBase))
	// Output:
	// A memory about Go.
	// true
}
