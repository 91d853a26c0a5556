package format

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/piprate/json-gold/ld"

	"github.com/smg-memory/smg/spec"
)

// wholeExpansionFails expands doc at once, as validation did before it
// expanded in pieces.
func wholeExpansionFails(t *testing.T, doc *spec.Document) bool {
	in, err := ldInput(doc)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ld.NewJsonLdProcessor().Expand(in, ldOptions(doc))
	return err != nil
}

// TestJSONLDPiecesAgree: expanding a document in pieces fails exactly
// when expanding it whole does, and says which elements fail.
func TestJSONLDPiecesAgree(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "full.smg"))
	if err != nil {
		t.Fatal(err)
	}
	bad := jsontext.Value(`{"@reverse":5}`)
	for name, tc := range map[string]struct {
		change func(d *spec.Document)
		path   string
	}{
		"as it is":             {func(d *spec.Document) {}, ""},
		"a node":               {func(d *spec.Document) { d.SemanticGraph.Nodes[3].Extra = bad }, "$.semanticGraph.nodes"},
		"an edge":              {func(d *spec.Document) { d.SemanticGraph.Edges[1].Extra = bad }, "$.semanticGraph.edges"},
		"a block":              {func(d *spec.Document) { d.DeepArchive.Blocks[1].Extra = bad }, "$.deepArchive.blocks"},
		"the graph":            {func(d *spec.Document) { d.SemanticGraph.Extra = bad }, "$"},
		"a node's scoped term": {func(d *spec.Document) { d.SemanticGraph.Nodes[0].Extra = jsontext.Value(`{"metadata":{"@value":1}}`) }, ""},
		"the graph's context": {func(d *spec.Document) {
			d.SemanticGraph.Extra = jsontext.Value(`{"@context":{"label":{"@id":"https://example.org/label","@type":"@vocab","@container":"@bogus"}}}`)
		}, "$"},
	} {
		doc, err := Unmarshal(raw, nil)
		if err != nil {
			t.Fatal(err)
		}
		tc.change(doc)
		probs := jsonldProblems(doc)
		if whole := wholeExpansionFails(t, doc); whole != (len(probs) > 0) {
			t.Errorf("%s: the whole document fails: %t; the pieces: %v", name, whole, probs)
		}
		if tc.path != "" && (len(probs) == 0 || probs[0].Path != tc.path) {
			t.Errorf("%s: %v, want a problem at %s", name, probs, tc.path)
		}
	}
}

// manyNodes is a valid memory of n concept nodes, as plain JSON.
func manyNodes(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"@context":"https://w3id.org/smg/v1/context.jsonld","@type":"SemanticMemoryGraph","artifactVault":{"artifacts":{}},"deepArchive":{"blocks":[],"compressionMethod":"brotli"},"metadata":{"created":"2025-11-03T09:12:00Z","id":"5e0c1b7a-3d2f-4c8e-a1b9-6f4d2e8c0a13","modified":"2025-11-03T09:12:00Z","totalExchanges":0},"semanticGraph":{"edges":[],"nodes":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"activation":0.5,"confidence":0.9,"description":"Concept number %d of a synthetic memory","id":"concept-%07d","importance":0.5,"label":"concept %d","type":"concept","version":1}`, i, i, i)
	}
	b.WriteString(`]},"version":"1.0","workingMemory":{}}`)
	return []byte(b.String())
}

// TestValidateAllocatesLittleByNode: validating a memory allocates less
// than 24 KiB a node in all (19 KiB when this was written); expanding the
// whole document at once copied the JSON-LD context for each node, 35 KiB
// a node. What validation holds at once is bounded by the pieces it
// checks (TestValidatePieces).
func TestValidateAllocatesLittleByNode(t *testing.T) {
	const n = 5000
	js := manyNodes(n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := ValidateBytes(js, nil); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	perNode := (after.TotalAlloc - before.TotalAlloc) / n
	if perNode > 24<<10 {
		t.Errorf("%d bytes allocated a node, want at most %d", perNode, 24<<10)
	}
}

// TestValidatePieces: JSON-LD expansion takes at most ldBatch elements of
// a long list at a time, and the rest of the document without them.
func TestValidatePieces(t *testing.T) {
	doc, err := Unmarshal(manyNodes(2500), nil)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for p, err := range ldPieces(doc) {
		if err != nil {
			t.Fatal(err)
		}
		sg := p.in.(map[string]any)["semanticGraph"].(map[string]any)
		sizes = append(sizes, len(sg["nodes"].([]any)))
	}
	if want := []int{0, 1000, 1000, 500}; !slices.Equal(sizes, want) {
		t.Errorf("pieces of %v nodes, want %v", sizes, want)
	}
}
