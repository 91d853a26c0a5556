package smg

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// A file opened with the index cache it left is read from the cache's copy
// of its document, not decoded again; with other limits, or once the file
// changed, it is decoded.
func TestOpenReadsTheCachedDocument(t *testing.T) {
	ctx := context.Background()
	m := New(nil)
	for _, c := range []string{"We chose PostgreSQL for the orders.", "The webhook returned 401 in production."} {
		if err := m.Ingest(ctx, spec.Turn{Role: "user", Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	name := filepath.Join(t.TempDir(), "m.smg")
	if err := m.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	opts := &OpenOptions{IndexCache: format.IndexCacheDir(name)}
	open := func(opts *OpenOptions) *Memory {
		t.Helper()
		o, err := Open(name, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { o.Close() })
		return o
	}
	first := open(opts)
	if first.cached != nil {
		t.Fatal("a cache was opened before one was written")
	}
	if _, err := first.Context(ctx, "database", nil); err != nil {
		t.Fatal(err)
	}
	if err := first.WaitIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if open(opts).cached == nil {
		t.Error("the second open did not read the cache's document")
	}
	other := *opts
	other.Decode.Limits.MaxNodes = 1000
	if open(&other).cached != nil {
		t.Error("the cache was read under other limits than it was made with")
	}
	if err := first.Ingest(ctx, spec.Turn{Role: "user", Content: "One more turn."}); err != nil {
		t.Fatal(err)
	}
	if err := first.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	if open(opts).cached != nil {
		t.Error("the cache of the file's old bytes was read")
	}
}

// A file opened to embed nothing does not load the built-in encoder (tens
// of megabytes, kept for the process's life); opened to embed, it does.
func TestOpenWithoutVectorsLoadsNoEncoder(t *testing.T) {
	BuiltinOn(t)
	loaded := false
	old := builtin
	builtin = func() (Embedder, error) { loaded = true; return old() }
	defer func() { builtin = old }()
	m := New(&Options{NoVectors: true})
	if err := m.Ingest(context.Background(), spec.Turn{Role: "user", Content: "We chose PostgreSQL."}); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "m.smg")
	if err := m.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	o, err := Open(name, &OpenOptions{NoVectors: true})
	if err != nil {
		t.Fatal(err)
	}
	o.Close()
	if loaded {
		t.Error("opening without vectors loaded the built-in encoder")
	}
	o, err = Open(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	o.Close()
	if !loaded {
		t.Error("opening with vectors did not load the built-in encoder")
	}
}
