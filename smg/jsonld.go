package smg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
