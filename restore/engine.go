package restore

import (
	"context"
	"errors"

	"github.com/smg-memory/smg/spec"
)

// Engine answers questions from one memory. It is safe for concurrent
// use.
type Engine struct {
	doc *spec.Document
}

// New returns the engine of a document; it indexes the document first.
// The document must not change while the engine is in use.
func New(doc *spec.Document) (*Engine, error) {
	return &Engine{doc: doc}, nil
}

func (e *Engine) assemble(ctx context.Context, query string, opts Options) (*Result, error) {
	return nil, errors.New("not built yet")
}
