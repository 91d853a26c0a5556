package smg

import (
	"context"
	"fmt"
	"io"
	"math"
	"sync"
	"time"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// Turn is one message of a conversation. The memory numbers turns: the
// Turn field of a turn given to [Memory.Ingest] is ignored.
type Turn = spec.Turn

// Config sets the numbers of the write path (block size, working-memory
// size, importance weights, decay…); see [graph.Config]. The zero value is
// the default.
type Config = graph.Config

// ErrInvalidTurn reports a turn the format cannot hold: content that is not
// UTF-8, no role and no speaker, or an unknown role.
var ErrInvalidTurn = graph.ErrInvalidTurn

// Options describe a new memory. The zero value is a memory with an id
// derived from its first turn.
type Options struct {
	ID          string
	ProjectID   string
	ProjectName string
	Description string
	Tags        []string
	Scope       *spec.Scope
	Config      Config
	// Now is the clock, used only for turns that have no timestamp; nil
	// means time.Now.
	Now func() time.Time
}

// Memory is a memory being built and used: turns go in, a document comes
// out. It is safe for concurrent use: ingesting and reading are serialized.
type Memory struct {
	mu sync.Mutex
	b  *graph.Builder
}

// New returns an empty memory.
func New(opts *Options) *Memory {
	if opts == nil {
		opts = &Options{}
	}
	return &Memory{b: graph.New(opts.Config, graph.Options{
		ID: opts.ID, ProjectID: opts.ProjectID, ProjectName: opts.ProjectName,
		Description: opts.Description, Tags: opts.Tags, Scope: opts.Scope, Now: opts.Now,
	})}
}

// Load continues the memory of a document: turns ingested after it are
// numbered after its turns, and the nodes they mention are reactivated.
// Loading replays the document's archived turns (see [graph.Load]); it costs
// about what ingesting them did.
func Load(doc *spec.Document, cfg *Config) (*Memory, error) {
	var c Config
	if cfg != nil {
		c = *cfg
	}
	b, err := graph.Load(doc, c)
	if err != nil {
		return nil, fmt.Errorf("loading the memory: %w", err)
	}
	return &Memory{b: b}, nil
}

// Open reads the named file and continues its memory, as [Load] does.
func Open(name string, opts *DecodeOptions, cfg *Config) (*Memory, error) {
	doc, err := ReadFile(name, opts)
	if err != nil {
		return nil, err
	}
	m, err := Load(doc, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

// Ingest adds one turn to the memory.
func (m *Memory) Ingest(ctx context.Context, t Turn) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.b.Add(t)
}

// IngestAll adds turns in order. It stops at the first turn that fails, or
// when ctx is done, and returns how many it added. Ingesting turns one at a
// time, or in several calls, gives the same memory.
func (m *Memory) IngestAll(ctx context.Context, turns []Turn) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, t := range turns {
		if err := ctx.Err(); err != nil {
			return i, err
		}
		if err := m.b.Add(t); err != nil {
			return i, fmt.Errorf("turn %d: %w", i+1, err)
		}
	}
	return len(turns), nil
}

// Turns is the number of turns the memory has taken in.
func (m *Memory) Turns() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.b.Turns()
}

// Document returns the memory as a document, as of its last turn. The
// document is the caller's: the memory keeps no reference to it.
func (m *Memory) Document() *spec.Document {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.b.Document()
}

// Marshal returns the memory's file: its document in canonical form, with
// metadata.compressionRatio filled in (spec §4.2), encoded with opts.
func (m *Memory) Marshal(opts *EncodeOptions) ([]byte, error) {
	doc := m.Document()
	if err := setCompressionRatio(doc, opts); err != nil {
		return nil, err
	}
	return Marshal(doc, opts)
}

// WriteTo writes the memory's file, Brotli-compressed, to w.
func (m *Memory) WriteTo(w io.Writer) (int64, error) {
	b, err := m.Marshal(nil)
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

// Save writes the memory's file atomically (see [WriteFile]).
func (m *Memory) Save(name string, opts *EncodeOptions) error {
	doc := m.Document()
	if err := setCompressionRatio(doc, opts); err != nil {
		return err
	}
	return WriteFile(name, doc, opts)
}

// setCompressionRatio fills in metadata.compressionRatio: the size of the
// file as written without it (and before encryption) over the transcript's
// size, rounded to four decimals (spec §4.2).
func setCompressionRatio(doc *spec.Document, opts *EncodeOptions) error {
	doc.Metadata.CompressionRatio = 0
	if doc.Metadata.TranscriptBytes <= 0 {
		return nil
	}
	plain := EncodeOptions{}
	if opts != nil {
		plain = *opts
		plain.Password = nil
	}
	b, err := Marshal(doc, &plain)
	if err != nil {
		return err
	}
	doc.Metadata.CompressionRatio = math.Round(float64(len(b))/float64(doc.Metadata.TranscriptBytes)*1e4) / 1e4
	return nil
}
