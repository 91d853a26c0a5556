package smg_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/provider"
)

// The memory's client is a smg.Embedder.
var _ smg.Embedder = (*provider.OpenAI)(nil)

// synonyms are the test server's meanings: words of one meaning get one
// vector.
var synonyms = map[string]string{
	"car": "vehicle", "automobile": "vehicle", "sedan": "vehicle",
	"bought": "buy", "purchased": "buy", "purchase": "buy",
}

var fillerWords = map[string]bool{"a": true, "the": true, "i": true, "which": true, "was": true, "with": true}

// meaningVector is the test server's embedding of a text: a bag of its
// words' meanings, hashed into 256 dimensions.
func meaningVector(s string) []float32 {
	v := make([]float32, 256)
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if fillerWords[w] {
			continue
		}
		if m, ok := synonyms[w]; ok {
			w = "meaning:" + m
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%255]++
	}
	v[255] = 0.01 // never zero
	return v
}

// providerServer is an OpenAI-compatible server: its embeddings are
// meaningVector, and its summary of a text (see summarize_test.go) is
// "Zeppelin notes: " and the text's first line. fail, while set, makes it
// answer with that status.
type providerServer struct {
	*httptest.Server
	requests atomic.Int32
	inputs   atomic.Int32
	fail     atomic.Int32
}

// newProviderServer returns a test server and a client of it, of the
// embedding model meaning-256 and the chat model summ-1.
func newProviderServer(t *testing.T) (*providerServer, *provider.OpenAI) {
	t.Helper()
	s := &providerServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		if st := s.fail.Load(); st != 0 {
			http.Error(w, `{"error":{"message":"the model is loading"}}`, int(st))
			return
		}
		var req struct {
			Model    string
			Input    []string
			Messages []struct{ Role, Content string }
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		switch {
		case r.URL.Path == "/v1/embeddings" && req.Model == "meaning-256":
			s.inputs.Add(int32(len(req.Input)))
			data := make([]map[string]any, len(req.Input))
			for i, in := range req.Input {
				data[i] = map[string]any{"object": "embedding", "index": i, "embedding": meaningVector(in)}
			}
			json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
		case r.URL.Path == "/v1/chat/completions" && req.Model == "summ-1" && len(req.Messages) == 2:
			_, text, _ := strings.Cut(req.Messages[1].Content, "\n\n")
			json.NewEncoder(w).Encode(map[string]any{
				"object":  "chat.completion",
				"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": zeppelin(text)}}},
			})
		default:
			http.Error(w, "bad request", http.StatusBadRequest)
		}
	}))
	t.Cleanup(s.Close)
	c, err := provider.NewOpenAI(provider.Config{
		BaseURL: s.URL + "/v1", EmbedModel: "meaning-256", ChatModel: "summ-1", APIKey: "test-key",
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
	if n := srv.requests.Load(); n != 3 {
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
	if err := smg.Validate(doc, nil); err != nil {
		t.Fatalf("the document is not valid: %v", err)
	}

	// The vectors go into the file and come back.
	name := filepath.Join(t.TempDir(), "cars.smg")
	if err := m.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	before := srv.requests.Load()
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
	if n := srv.requests.Load() - before; n != 1 {
		t.Errorf("%d requests for a question on an opened memory, want 1", n)
	}
	// More turns after opening: the file's vectors and the new one.
	if err := opened.Ingest(ctx, smg.Turn{Speaker: "Caroline", Content: "We purchased a second car for my brother."}); err != nil {
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
	if got := srv.requests.Load(); got != 4+1 {
		t.Errorf("%d requests, want 5", got)
	}
	if got := srv.inputs.Load(); got != 299 {
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

// TestIngestEmbeddingFails checks that a turn whose embedding fails is
// kept, the failure reported, and the vector made later.
func TestIngestEmbeddingFails(t *testing.T) {
	ctx := context.Background()
	srv, c := newProviderServer(t)
	m := smg.New(&smg.Options{Embedder: c})
	srv.fail.Store(http.StatusServiceUnavailable)
	err := m.Ingest(ctx, carTurns[1])
	if !errors.Is(err, smg.ErrEmbedding) {
		t.Fatalf("Ingest = %v, want ErrEmbedding", err)
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

	srv.fail.Store(0)
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
	srv.fail.Store(http.StatusTooManyRequests)
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
	if vi := m.Document().DeepArchive.VectorIndex; vi == nil || len(vi.Embeddings) != 20 {
		t.Errorf("vectors: %+v", vi)
	}
}
