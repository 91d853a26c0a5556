package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"

	"github.com/piprate/json-gold/ld"

	"github.com/smg-memory/smg/spec"
)

// offlineLoader serves the embedded context and refuses every other
// document, so that processing a file never touches the network.
type offlineLoader struct{}

var embeddedContext = sync.OnceValues(func() (any, error) {
	var v any
	err := json.Unmarshal(spec.Context(), &v)
	return v, err
})

func (offlineLoader) LoadDocument(u string) (*ld.RemoteDocument, error) {
	if u != spec.ContextIRI {
		return nil, ld.NewJsonLdError(ld.LoadingDocumentFailed, fmt.Sprintf("%s: only the embedded smg context is available offline", u))
	}
	ctx, err := embeddedContext()
	if err != nil {
		return nil, ld.NewJsonLdError(ld.LoadingDocumentFailed, err)
	}
	return &ld.RemoteDocument{DocumentURL: u, Document: ctx}, nil
}

// BaseIRI returns the IRI against which a memory's ids resolve in JSON-LD
// (spec §10.2).
func BaseIRI(doc *spec.Document) string {
	return spec.MemoryIRIPrefix + doc.Metadata.ID + "/"
}

func ldOptions(doc *spec.Document) *ld.JsonLdOptions {
	o := ld.NewJsonLdOptions(BaseIRI(doc))
	o.ProcessingMode = ld.JsonLd_1_1
	o.DocumentLoader = offlineLoader{}
	return o
}

// ldInput is doc as the generic JSON value json-gold expects.
func ldInput(doc *spec.Document) (any, error) {
	if doc == nil {
		return nil, errors.New("smg: JSON-LD of no document")
	}
	shared := *doc
	shared.PrivateContexts = nil // private: never exported (spec §10.1)
	js, err := canonicalJSON(&shared)
	if err != nil {
		return nil, err
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(js))
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// ExpandJSONLD returns doc in expanded JSON-LD form (pretty JSON), every
// term replaced by its IRI and every id resolved against [BaseIRI]. It
// works offline.
func ExpandJSONLD(doc *spec.Document) ([]byte, error) {
	in, err := ldInput(doc)
	if err != nil {
		return nil, err
	}
	out, err := ld.NewJsonLdProcessor().Expand(in, ldOptions(doc))
	if err != nil {
		return nil, fmt.Errorf("JSON-LD expansion: %w", err)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// NQuads returns doc as RDF in N-Quads, as JSON-LD's deserialization to
// RDF gives it, in the canonical form of RDF Dataset Canonicalization
// (URDNA2015): blank nodes named by their place in the graph and the lines
// sorted, so that the same memory always gives the same text. It works
// offline.
func NQuads(doc *spec.Document) (string, error) {
	in, err := ldInput(doc)
	if err != nil {
		return "", err
	}
	o := ldOptions(doc)
	o.Format = "application/n-quads"
	o.Algorithm = ld.AlgorithmURDNA2015
	out, err := ld.NewJsonLdProcessor().Normalize(in, o)
	if err != nil {
		return "", fmt.Errorf("JSON-LD to RDF: %w", err)
	}
	s, _ := out.(string)
	return s, nil
}

// ldPiece is a part of a document to expand alone: the document without
// its long lists, or some elements of one of them in a document of their
// own that puts them where they were.
type ldPiece struct {
	in   any
	path string // where its problems are
	what string // which elements it holds, for a message
}

// ldBatch is how many elements of a long list are expanded at a time.
const ldBatch = 1000

// ldPieces cuts doc into pieces whose JSON-LD expansions fail exactly
// when the whole document's does, so that validating a document of
// 100,000 nodes holds the expansion of a thousand at a time: the whole
// one took gigabytes. Expansion is local: what an object expands to
// depends on the object and on the active context at its place, which the
// wrapper of a batch rebuilds (the document's context, its type, and the
// other members of the object that holds the list). A node's context is
// the document's with the terms scoped to "nodes" in it, given at once,
// because json-gold applies a scoped context again for every element of
// the list, copying the whole context each time: 40 µs a node.
func ldPieces(doc *spec.Document) iter.Seq2[ldPiece, error] {
	return func(yield func(ldPiece, error) bool) {
		rest := *doc
		rest.PrivateContexts = nil // private: never exported (spec §10.1)
		rest.SemanticGraph.Nodes, rest.SemanticGraph.Edges = nil, nil
		rest.DeepArchive.Blocks = nil
		in, err := ldInput(&rest)
		if !yield(ldPiece{in: in, path: "$"}, err) {
			return
		}
		sg, dar := doc.SemanticGraph, doc.DeepArchive
		sg.Nodes, sg.Edges, dar.Blocks = nil, nil, nil
		lists := []struct {
			section, list string
			holder        any
			n             int
			elems         func(i, j int) any
		}{
			{"semanticGraph", "nodes", sg, len(doc.SemanticGraph.Nodes), func(i, j int) any { return doc.SemanticGraph.Nodes[i:j] }},
			{"semanticGraph", "edges", sg, len(doc.SemanticGraph.Edges), func(i, j int) any { return doc.SemanticGraph.Edges[i:j] }},
			{"deepArchive", "blocks", dar, len(doc.DeepArchive.Blocks), func(i, j int) any { return doc.DeepArchive.Blocks[i:j] }},
		}
		for _, l := range lists {
			for i := 0; i < l.n; i += ldBatch {
				j := min(i+ldBatch, l.n)
				in, err := ldWrapper(l.section, l.holder, l.list, l.elems(i, j))
				p := ldPiece{in: in, path: path(l.section, l.list), what: fmt.Sprintf(" (%s %d to %d)", l.list, i, j-1)}
				if !yield(p, err) {
					return
				}
			}
		}
	}
}

// ldWrapper returns the generic JSON of a document that holds only elems,
// as the list named list of holder, the section named section, with the
// keywords holder has.
func ldWrapper(section string, holder any, list string, elems any) (any, error) {
	var h map[string]any
	if err := ldRoundTrip(holder, &h); err != nil {
		return nil, err
	}
	var es []any
	if err := ldRoundTrip(elems, &es); err != nil {
		return nil, err
	}
	for k := range h {
		// Only keywords (an "@context" above all) change what the list
		// expands to; the rest is expanded with the document.
		if !strings.HasPrefix(k, "@") {
			delete(h, k)
		}
	}
	h[list] = es
	ctx := any(spec.ContextIRI)
	if list == "nodes" {
		c, err := nodesContext()
		if err != nil {
			return nil, err
		}
		ctx = c
	}
	return map[string]any{"@context": ctx, "@type": spec.DocumentType, section: h}, nil
}

// ldRoundTrip turns v into generic JSON, as ldInput does.
func ldRoundTrip(v any, out any) error {
	js, err := spec.MarshalCanonical(v)
	if err != nil {
		return err
	}
	d := json.NewDecoder(bytes.NewReader(js))
	return d.Decode(out)
}

// nodesContext is the embedded context with the terms it scopes to
// "nodes" in it, and none scoped there any more.
var nodesContext = sync.OnceValues(func() (any, error) {
	var v struct {
		Context map[string]any `json:"@context"`
	}
	if err := json.Unmarshal(spec.Context(), &v); err != nil {
		return nil, err
	}
	term, ok := v.Context["nodes"].(map[string]any)
	scoped, ok2 := term["@context"].(map[string]any)
	if !ok || !ok2 {
		return nil, errors.New("smg: the embedded context scopes no terms to nodes")
	}
	ctx := make(map[string]any, len(v.Context))
	for k, t := range v.Context {
		ctx[k] = t
	}
	plain := make(map[string]any, len(term))
	for k, t := range term {
		if k != "@context" {
			plain[k] = t
		}
	}
	ctx["nodes"] = plain
	for k, t := range scoped {
		ctx[k] = t
	}
	return ctx, nil
})
