package smg_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smg-memory/smg/restore"
	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/provider"
	"github.com/smg-memory/smg/smg/smgtest"
)

// The memory's client is a smg.Embedder.
var _ smg.Embedder = (*provider.OpenAI)(nil)

// newProviderServer starts a server of smgtest.MeaningVector, whose
// summaries are zeppelin's (summarize_test.go), and returns a client of it
// that never retries.
func newProviderServer(t *testing.T) (*smgtest.ProviderServer, *provider.OpenAI) {
	t.Helper()
	s := smgtest.NewProviderServer(t)
	s.Summarize = zeppelin
	c, err := provider.NewOpenAI(provider.Config{
		BaseURL: s.BaseURL(), EmbedModel: smgtest.EmbeddingModel, ChatModel: smgtest.ChatModel, APIKey: "test-key",
		MaxRetries: -1, Backoff: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

var carTurns = []smg.Turn{
	{Speaker: "Melanie", Content: "The garden needs watering twice a week in summer."},
	{Speaker: "Caroline", Content: "I finally bought a sedan, a red one with leather seats."},
	{Speaker: "Melanie", Content: "My sister plays the violin in an orchestra."},
}

const carQuestion = "Which automobile was purchased?"

// TestEmbedderEndToEnd ingests three turns through the OpenAI client
// against a test server, and finds the one that answers a question that
// shares no word with it, before and after a save.
func TestEmbedderEndToEnd(t *testing.T) {
	ctx := context.Background()
	srv, c := newProviderServer(t)

	plain := smg.New(nil)
	if _, err := plain.IngestAll(ctx, carTurns); err != nil {
		t.Fatal(err)
	}
	r, err := plain.Context(ctx, carQuestion, nil)
	if err != nil {
		t.Fatal(err)
	}
	if hasTurn(r, 2) {
		t.Fatalf("full text alone found turn 2:\n%s", r.Text)
	}

	m := smg.New(&smg.Options{Embedder: c})
	for _, tu := range carTurns {
		if err := m.Ingest(ctx, tu); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	// In the background, a request for the turns that queued up.
	if n := srv.Requests.Load(); n < 1 || n > 3 {
		t.Errorf("%d requests for 3 turns", n)
	}
	r, err = m.Context(ctx, carQuestion, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !hasTurn(r, 2) || !strings.Contains(r.Text, "red one with leather seats") || len(r.Warnings) != 0 {
		t.Fatalf("the context lacks turn 2 (warnings %q):\n%s", r.Warnings, r.Text)
	}
	for _, it := range r.Items {
		if it.Turn == 2 && it.Parts["vector"] != 1 {
			t.Errorf("turn 2's parts: %v", it.Parts)
		}
	}

	doc := m.Document()
	vi := doc.DeepArchive.VectorIndex
	if vi == nil || !vi.Enabled || vi.Model != "meaning-256" || vi.Dimensions != 256 || len(vi.Embeddings) != 3 {
		t.Fatalf("vector index %+v", vi)
	}
	if err := format.Validate(doc, nil); err != nil {
		t.Fatalf("the document is not valid: %v", err)
	}

	// The vectors go into the file and come back.
	name := filepath.Join(t.TempDir(), "cars.smg")
	if err := m.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	before := srv.Requests.Load()
	opened, err := smg.Open(name, &smg.OpenOptions{Embedder: c})
	if err != nil {
		t.Fatal(err)
	}
	r, err = opened.Context(ctx, carQuestion, &smg.ContextOptions{Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	if !hasTurn(r, 2) {
		t.Errorf("the opened memory lacks turn 2:\n%s", r.Text)
	}
	if n := srv.Requests.Load() - before; n != 1 {
		t.Errorf("%d requests for a question on an opened memory, want 1", n)
	}
	// More turns after opening: the file's vectors and the new one.
	if err := opened.Ingest(ctx, smg.Turn{Speaker: "Caroline", Content: "We purchased a second car for my brother."}); err != nil {
		t.Fatal(err)
	}
	if err := opened.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	if vi := opened.Document().DeepArchive.VectorIndex; vi == nil || len(vi.Embeddings) != 4 || vi.Embeddings[3].Turn != 4 {
		t.Errorf("after a turn more: %+v", vi)
	}
}

// TestIngestAllEmbedsInBatches checks that IngestAll asks for many
// vectors at a time, and stores every one.
func TestIngestAllEmbedsInBatches(t *testing.T) {
	srv, c := newProviderServer(t)
	m := smg.New(&smg.Options{Embedder: c, Config: smg.Config{BlockSize: 50}})
	turns := make([]smg.Turn, 300)
	for i := range turns {
		turns[i] = smg.Turn{Role: "user", Content: fmt.Sprintf("Note %d: the parcel left the depot.", i+1)}
	}
	turns[10].Content = "   " // nothing to embed
	n, err := m.IngestAll(context.Background(), turns)
	if err != nil || n != 300 {
		t.Fatalf("IngestAll = %d, %v", n, err)
	}
	// 299 texts: 256 then 43, in requests of 64.
	if got := srv.Requests.Load(); got != 4+1 {
		t.Errorf("%d requests, want 5", got)
	}
	if got := srv.Inputs.Load(); got != 299 {
		t.Errorf("%d texts embedded, want 299", got)
	}
	vi := m.Document().DeepArchive.VectorIndex
	if vi == nil || len(vi.Embeddings) != 299 {
		t.Fatalf("vector index %+v", vi)
	}
	for i, e := range vi.Embeddings {
		want := i + 1
		if i >= 10 {
			want++
		}
		if e.Turn != want {
			t.Fatalf("embedding %d is of turn %d, want %d", i, e.Turn, want)
		}
	}
}

// TestIngestDeferred checks that turns ingested with their embedding
// deferred cost no request until EmbedMissing, which embeds them all at
// once.
func TestIngestDeferred(t *testing.T) {
	ctx := context.Background()
	srv, c := newProviderServer(t)
	m := smg.New(&smg.Options{Embedder: c})
	for _, tu := range carTurns {
		if err := m.IngestDeferred(ctx, tu); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.IngestDeferred(ctx, smg.Turn{Role: "narrator", Content: "x"}); !errors.Is(err, smg.ErrInvalidTurn) {
		t.Errorf("IngestDeferred of an invalid turn = %v", err)
	}
	if n := srv.Requests.Load(); n != 0 || m.Turns() != 3 || m.Document().DeepArchive.VectorIndex != nil {
		t.Fatalf("%d requests, %d turns, before EmbedMissing", n, m.Turns())
	}
	if n, err := m.EmbedMissing(ctx); n != 3 || err != nil {
		t.Fatalf("EmbedMissing = %d, %v", n, err)
	}
	if n := srv.Requests.Load(); n != 1 {
		t.Errorf("%d requests for 3 turns deferred, want 1", n)
	}
	r, err := m.Context(ctx, carQuestion, nil)
	if err != nil || !hasTurn(r, 2) {
		t.Fatalf("Context = %v, %v", r, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := m.IngestDeferred(cancelled, carTurns[0]); !errors.Is(err, context.Canceled) || m.Turns() != 3 {
		t.Errorf("IngestDeferred with a cancelled context = %v, %d turns", err, m.Turns())
	}
}

// TestIngestEmbeddingFails checks that a turn whose embedding fails is
// kept, the failure reported, and the vector made later.
func TestIngestEmbeddingFails(t *testing.T) {
	ctx := context.Background()
	srv, c := newProviderServer(t)
	m := smg.New(&smg.Options{Embedder: c})
	srv.Fail.Store(http.StatusServiceUnavailable)
	if err := m.Ingest(ctx, carTurns[1]); err != nil {
		t.Fatalf("Ingest = %v: the turn is in, and embedded in the background", err)
	}
	err := m.WaitVectors(ctx)
	if !errors.Is(err, smg.ErrEmbedding) {
		t.Fatalf("WaitVectors = %v, want ErrEmbedding", err)
	}
	if err := m.WaitVectors(ctx); err != nil {
		t.Errorf("WaitVectors again = %v: the failure was reported", err)
	}
	if he, ok := errors.AsType[*provider.HTTPError](err); !ok || he.Status != http.StatusServiceUnavailable {
		t.Errorf("err = %v, want the HTTPError in it", err)
	}
	if !strings.Contains(err.Error(), "turn 1") {
		t.Errorf("%q does not name the turn", err)
	}
	n, err := m.IngestAll(ctx, carTurns)
	if n != 3 || !errors.Is(err, smg.ErrEmbedding) || !strings.Contains(err.Error(), "turns 2 to 4") {
		t.Errorf("IngestAll = %d, %v", n, err)
	}
	if m.Turns() != 4 {
		t.Fatalf("%d turns: a failed embedding lost its turn", m.Turns())
	}
	if vi := m.Document().DeepArchive.VectorIndex; vi != nil {
		t.Fatalf("vectors of failed embeddings: %+v", vi)
	}

	// No vectors yet: nothing to compare the question with, and no
	// request.
	r, err := m.Context(ctx, carQuestion, nil)
	if err != nil || len(r.Warnings) != 0 {
		t.Errorf("Context with no vectors at all: %v, warnings %q", err, r.Warnings)
	}

	srv.Fail.Store(0)
	if n, err := m.EmbedMissing(ctx); n != 4 || err != nil {
		t.Fatalf("EmbedMissing = %d, %v", n, err)
	}
	if n, err := m.EmbedMissing(ctx); n != 0 || err != nil {
		t.Errorf("EmbedMissing again = %d, %v", n, err)
	}
	if vi := m.Document().DeepArchive.VectorIndex; vi == nil || len(vi.Embeddings) != 4 {
		t.Fatalf("after EmbedMissing: %+v", vi)
	}
	r, err = m.Context(ctx, carQuestion, nil)
	if err != nil || !hasTurn(r, 1) {
		t.Fatalf("Context = %v, %v", r, err)
	}

	// The provider fails at question time: a context all the same.
	srv.Fail.Store(http.StatusTooManyRequests)
	r, err = m.Context(ctx, carQuestion, nil)
	if err != nil {
		t.Fatalf("a failing provider failed the context: %v", err)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "429") {
		t.Errorf("warnings %q", r.Warnings)
	}
	if _, err := m.Search(ctx, carQuestion, 10); err != nil {
		t.Errorf("Search: %v", err)
	}
}

// TestEmbedderConcurrent ingests and asks at once, for the race detector.
func TestEmbedderConcurrent(t *testing.T) {
	ctx := context.Background()
	_, c := newProviderServer(t)
	m := smg.New(&smg.Options{Embedder: c})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 20 {
			if err := m.Ingest(ctx, smg.Turn{Role: "user", Content: fmt.Sprintf("I bought car number %d.", i)}); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Go(func() {
		for range 20 {
			if _, err := m.Context(ctx, carQuestion, nil); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	if err := m.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	if vi := m.Document().DeepArchive.VectorIndex; vi == nil || len(vi.Embeddings) != 20 {
		t.Errorf("vectors: %+v", vi)
	}
}

// A failure between two chunks of an embedding leaves each turn with all
// of its vectors or none: a long turn whose passages straddled the chunks
// kept its first passage's vector, counted as embedded, and was never
// given its second.
func TestEmbedChunksKeepTurnsWhole(t *testing.T) {
	ctx := context.Background()
	srv, c := newProviderServer(t)
	m := smg.New(&smg.Options{Embedder: c, Config: smg.Config{BlockSize: 50}})
	turns := make([]smg.Turn, 0, 257)
	for i := range 255 {
		turns = append(turns, smg.Turn{Role: "user", Content: fmt.Sprintf("Note %d: the parcel left the depot.", i+1)})
	}
	long := strings.Repeat("The depot in the harbour ships parcels every morning before nine. ", 15)
	turns = append(turns, smg.Turn{Role: "assistant", Content: long})
	const last = "The last parcel arrived on Friday."
	turns = append(turns, smg.Turn{Role: "user", Content: last})
	srv.FailOn(last)
	if _, err := m.IngestAll(ctx, turns); !errors.Is(err, smg.ErrEmbedding) {
		t.Fatalf("IngestAll = %v, want ErrEmbedding", err)
	}
	srv.FailOn("")
	if n, err := m.EmbedMissing(ctx); n != 2 || err != nil {
		t.Fatalf("EmbedMissing = %d, %v: want the long turn and the last one", n, err)
	}
	var of256 int
	for _, e := range m.Document().DeepArchive.VectorIndex.Embeddings {
		if e.Turn == 256 {
			of256++
		}
	}
	if want := len(restore.EmbeddedPassages(long)); want < 2 || of256 != want {
		t.Errorf("the long turn has %d vectors, want %d", of256, want)
	}
}
