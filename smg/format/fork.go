package format

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/smg-memory/smg/spec"
)

// ForkOptions name a fork (see [Fork]). The zero value gives a fork a
// random id, keeps the description and takes the time from the system
// clock.
type ForkOptions struct {
	// ID is the fork's metadata.id; empty, a random UUID (version 4).
	ID string
	// Name, when set, becomes the fork's metadata.description: what this
	// branch of the memory is for, for people.
	Name string
	// Now is when the fork is made, its metadata.modified; zero,
	// time.Now.
	Now time.Time
}

// ErrInvalidID reports an id that breaks the syntax of spec §2.3.
var ErrInvalidID = errors.New("invalid id")

// Fork returns a copy of doc that is a new memory: a new id, and a
// lineage (spec §4.4) of operation "fork" whose one parent is doc, named by
// its id and its content hash. Everything else is doc's: its turns,
// graph, vault and working memory. doc is not changed.
//
// A fork and its parent can go their own ways and be merged again with
// [Merge], with the parent as the base.
func Fork(doc *spec.Document, opts ForkOptions) (*spec.Document, error) {
	if doc == nil {
		return nil, errors.New("forking: no document")
	}
	hash, err := ContentHash(doc)
	if err != nil {
		return nil, fmt.Errorf("forking: %w", err)
	}
	id := opts.ID
	if id == "" {
		u, err := uuid.NewRandom()
		if err != nil {
			return nil, fmt.Errorf("forking: %w", err)
		}
		id = u.String()
	}
	if !spec.ValidID(id) {
		return nil, fmt.Errorf("forking: %w %q: an id is 1 to 128 letters, digits, '.', '_', '~' or '-', starting with a letter or a digit", ErrInvalidID, id)
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now().UTC().Truncate(time.Second)
	}
	out := Clone(doc)
	out.Metadata.ID = id
	if opts.Name != "" {
		out.Metadata.Description = opts.Name
	}
	out.Metadata.Lineage = &spec.Lineage{
		Operation: spec.OpFork,
		Parents:   []spec.Parent{{ID: doc.Metadata.ID, ContentHash: hash}},
	}
	if now.After(out.Metadata.Modified) {
		out.Metadata.Modified = now
	}
	out.Metadata.CompressionRatio = 0 // the writer's to leave out (spec §4.2)
	return out, nil
}
