package format_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

// A document encodes to canonical JSON: members sorted, no white space.
func ExampleMarshal() {
	b, err := format.Marshal(exampleDoc(), &format.EncodeOptions{Plain: true})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(b))
	hash, _ := format.ContentHash(exampleDoc())
	fmt.Println(hash)
	// Output:
	// {"@context":"https://w3id.org/smg/v1/context.jsonld","@type":"SemanticMemoryGraph","artifactVault":{"artifacts":{}},"deepArchive":{"blocks":[],"compressionMethod":"brotli"},"metadata":{"created":"2025-01-02T03:04:05Z","id":"example","modified":"2025-01-02T03:04:05Z","totalExchanges":0},"semanticGraph":{"edges":[],"nodes":[{"activation":1,"confidence":1,"id":"concept-go","importance":0.5,"label":"Go","type":"concept","version":1}]},"version":"1.3","workingMemory":{}}
	// sha256:3a8a4f1d28f590bb58c547ac5d3db09789803c4b1fbc339a39fb1ad84b6ae5c5
}

// Decoding checks the version before anything else.
func ExampleUnmarshal() {
	_, err := format.Unmarshal([]byte(`{"@type":"SemanticMemoryGraph","version":"2.0"}`), nil)
	fmt.Println(err)
	fmt.Println(errors.Is(err, format.ErrUnsupportedVersion))
	// Output:
	// unsupported smg format version "2.0": this reader reads 1.x
	// true
}

// Validation reports every problem, each with its JSON path.
func ExampleValidateBytes() {
	doc := exampleDoc()
	doc.SemanticGraph.Edges = []spec.Edge{{From: "concept-go", To: "concept-rust", Relation: spec.RelRelatedTo, Strength: 1.5}}
	b, _ := format.Marshal(doc, nil)
	_, err := format.ValidateBytes(b, nil)
	var verr *format.ValidationError
	if errors.As(err, &verr) {
		for _, p := range verr.Problems {
			fmt.Println(p)
		}
	}
	// Output:
	// $.semanticGraph.edges[0].strength: maximum: got 1.5, want 1
	// $.semanticGraph.edges[0].to: no node "concept-rust"
}

// An encrypted file opens with its password, and says when it is the wrong
// one.
func ExampleEncodeOptions_password() {
	sealed, err := format.Marshal(exampleDoc(), &format.EncodeOptions{
		Password: []byte("correct horse"),
		// Real files use the default key derivation; tests use a cheap one.
		KDF: smgtest.CheapKDF, InsecureKDF: true,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(format.IsEncrypted(sealed), bytes.Contains(sealed, []byte("concept-go")))
	_, err = format.Unmarshal(sealed, &format.DecodeOptions{Password: []byte("correct horse")})
	fmt.Println(err)
	_, err = format.Unmarshal(sealed, &format.DecodeOptions{Password: []byte("Correct horse")})
	fmt.Println(err)
	// Output:
	// true false
	// <nil>
	// wrong password
}

// Files are written atomically and read back in whatever form they are.
func ExampleWriteFile() {
	dir, err := os.MkdirTemp("", "smg-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "memory.smg")
	if err := format.WriteFile(name, exampleDoc(), nil); err != nil {
		panic(err)
	}
	doc, err := format.ReadFile(name, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(doc.SemanticGraph.Nodes[0].Label)
	info, _ := format.InspectFile(name, nil)
	fmt.Println(info.Form.Compressed, info.TotalNodes)
	// Output:
	// Go
	// true 1
}

func exampleDoc() *spec.Document {
	doc := spec.New("example", time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	doc.SemanticGraph.Nodes = []spec.Node{
		{ID: "concept-go", Type: spec.NodeConcept, Label: "Go", Confidence: 1, Importance: 0.5, Activation: 1, Version: 1},
	}
	return doc
}
