package smg_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/smg-memory/smg/restore"
	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
)

// hasTurn reports whether a context includes turn n.
func hasTurn(r *smg.ContextResult, n int) bool {
	return slices.ContainsFunc(r.Items, func(it restore.Item) bool { return it.Kind == "turn" && it.Turn == n })
}

// A live memory answers from the turn just ingested, without a save and a
// load in between, and gives what a memory built at once gives.
func TestContextOfALiveMemory(t *testing.T) {
	turns := smgtest.CheckoutTurns(t)
	ctx := context.Background()
	live := smg.New(nil)
	defer live.Close()
	q := "what did we decide about the database?"
	for i, tu := range turns {
		if err := live.Ingest(ctx, tu); err != nil {
			t.Fatal(err)
		}
		r, err := live.Context(ctx, q, &smg.ContextOptions{Budget: 300})
		if err != nil {
			t.Fatal(err)
		}
		if r.Partial || r.Tokens > 300 {
			t.Fatalf("after turn %d: partial %v, %d tokens", i+1, r.Partial, r.Tokens)
		}
		if strings.Contains(tu.Content, "database is locked") && !hasTurn(r, i+1) {
			t.Errorf("turn %d, about the locked database, is not in the context asked right after it:\n%s", i+1, r.Text)
		}
	}
	items, err := live.Search(ctx, "idempotency", 10)
	if err != nil || len(items) == 0 {
		t.Fatalf("search: %v, %v", items, err)
	}
}

func TestContextOfAnOpenedFile(t *testing.T) {
	ctx := context.Background()
	m := smg.New(nil)
	if _, err := m.IngestAll(ctx, smgtest.CheckoutTurns(t)); err != nil {
		t.Fatal(err)
	}
	want, err := m.Context(ctx, "how was the webhook's 401 fixed?", &smg.ContextOptions{Budget: 400})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "m.smg")
	if err := m.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	cache := format.IndexCacheDir(name)
	if cache != filepath.Join(dir, ".m.smg.cache", "index") {
		t.Errorf("the cache of %s is %s", name, cache)
	}
	for run := range 2 {
		o, err := smg.Open(name, &smg.OpenOptions{IndexCache: cache})
		if err != nil {
			t.Fatal(err)
		}
		got, err := o.Context(ctx, "how was the webhook's 401 fixed?", &smg.ContextOptions{Budget: 400, Wait: true})
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != want.Text || !reflect.DeepEqual(got.Items, want.Items) {
			t.Errorf("run %d: the opened file's context differs from the memory's:\n%s\nwant\n%s", run, got.Text, want.Text)
		}
		if err := o.WaitIndex(ctx); err != nil {
			t.Fatal(err)
		}
		o.Close()
		if _, err := os.Stat(filepath.Join(cache, "smg-key")); err != nil {
			t.Errorf("run %d: no index cache: %v", run, err)
		}
	}

	// Ingesting into an opened memory replays it first, and then the
	// context has the new turn.
	o, err := smg.Open(name, &smg.OpenOptions{IndexCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if _, err := o.Context(ctx, "payments", nil); err != nil {
		t.Fatal(err)
	}
	if err := o.Ingest(ctx, smg.Turn{Role: "user", Content: "The warehouse in Rotterdam ships the parcels on Tuesdays."}); err != nil {
		t.Fatal(err)
	}
	r, err := o.Context(ctx, "when does the Rotterdam warehouse ship?", &smg.ContextOptions{Budget: 300, Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := m.Turns() + 1; o.Turns() != n || !hasTurn(r, n) {
		t.Errorf("%d turns, and the new turn %d is not in the context:\n%s", o.Turns(), n, r.Text)
	}
}

// An encrypted memory's index would hold its text in the clear: it is
// never cached.
func TestNoIndexCacheForAnEncryptedFile(t *testing.T) {
	ctx := context.Background()
	m := smg.New(nil)
	if _, err := m.IngestAll(ctx, smgtest.CheckoutTurns(t)); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "secret.smg")
	pw := []byte("correct horse")
	if err := m.Save(name, &smg.EncodeOptions{Password: pw}); err != nil {
		t.Fatal(err)
	}
	o, err := smg.Open(name, &smg.OpenOptions{Decode: smg.DecodeOptions{Password: pw}, IndexCache: format.IndexCacheDir(name)})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	r, err := o.Context(ctx, "database locked", &smg.ContextOptions{Wait: true})
	if err != nil || len(r.Items) == 0 {
		t.Fatalf("%v, %v", r, err)
	}
	if err := o.WaitIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(format.IndexCacheDir(name)); !os.IsNotExist(err) {
		t.Errorf("an encrypted memory left an index cache: %v", err)
	}
}

// An opened memory that has not taken a turn gives back its document as
// it was read.
func TestOpenedDocument(t *testing.T) {
	m := smg.New(nil)
	if _, err := m.IngestAll(context.Background(), smgtest.CheckoutTurns(t)); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "m.smg")
	if err := m.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(name)
	o, err := smg.Open(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := o.Marshal(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Error("an opened memory, saved again, differs from its file")
	}
	doc := o.Document()
	doc.SemanticGraph.Nodes = nil
	if again := o.Document(); len(again.SemanticGraph.Nodes) == 0 {
		t.Error("changing the document changed the memory")
	}
}

// A file opened a second time with its index cache is read from the copy
// the cache keeps: the same memory, the same contexts; and the limits of
// the opening still hold, as they would reading the file.
func TestOpenFromTheIndexCache(t *testing.T) {
	ctx := context.Background()
	m := smg.New(nil)
	if _, err := m.IngestAll(ctx, smgtest.CheckoutTurns(t)); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "m.smg")
	if err := m.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	open := func(opts *smg.OpenOptions) (*smg.Memory, error) {
		o, err := smg.Open(name, opts)
		if err == nil {
			t.Cleanup(func() { o.Close() })
		}
		return o, err
	}
	plain, err := open(nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := &smg.OpenOptions{IndexCache: format.IndexCacheDir(name)}
	first, err := open(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.WaitIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(opts.IndexCache, "document.gob")); err != nil {
		t.Fatalf("the cache keeps no document: %v", err)
	}
	cached, err := open(opts)
	if err != nil {
		t.Fatal(err)
	}
	// As written: the cache keeps the blocks compressed.
	want, err := format.MarshalClear(plain.Document(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := format.MarshalClear(cached.Document(), nil)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the memory opened from the cache differs from the file's: %v", err)
	}
	for _, q := range []string{"database locked", "why Stripe Elements?"} {
		g, err := cached.Context(ctx, q, &smg.ContextOptions{Budget: 400})
		if err != nil {
			t.Fatal(err)
		}
		w, err := plain.Context(ctx, q, &smg.ContextOptions{Budget: 400, Wait: true})
		if err != nil {
			t.Fatal(err)
		}
		if g.Partial || g.Text != w.Text {
			t.Errorf("%q: partial %v, or the contexts differ:\n%s\n---\n%s", q, g.Partial, g.Text, w.Text)
		}
	}
	// Turns go on from the cached memory as from the file's.
	turn := smg.Turn{Role: "user", Content: "The warehouse in Rotterdam ships the parcels on Tuesdays."}
	for _, o := range []*smg.Memory{cached, plain} {
		if err := o.Ingest(ctx, turn); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := cached.Turns(), plain.Turns(); a != b {
		t.Errorf("%d turns after a turn from the cache, %d from the file", a, b)
	}

	// Stricter limits than the cache was made under: the file's nodes are
	// too many, cache or not.
	lim := smg.OpenOptions{IndexCache: opts.IndexCache, Decode: smg.DecodeOptions{Limits: smg.Limits{MaxNodes: 2}}}
	if _, err := open(&lim); !errors.Is(err, smg.ErrLimit) {
		t.Errorf("opened with MaxNodes 2 and a cache: %v, want ErrLimit", err)
	}
}
