package smgtest

import (
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode"
)

// EmbeddingModel is the embedding model a [ProviderServer] answers for,
// EmbeddingDims the length of its vectors, and ChatModel its model of
// summaries.
const (
	EmbeddingModel = "meaning-256"
	EmbeddingDims  = 256
	ChatModel      = "summ-1"
)

// synonyms are the meanings a [ProviderServer] knows: words of one
// meaning get one vector, so that a text and a question that share no word
// can be near.
var synonyms = map[string]string{
	"car": "vehicle", "automobile": "vehicle", "sedan": "vehicle",
	"bought": "buy", "purchased": "buy", "purchase": "buy",
}

// fillerWords carry no meaning: they are left out of a vector.
var fillerWords = map[string]bool{"a": true, "the": true, "i": true, "which": true, "was": true, "with": true}

// MeaningVector is a [ProviderServer]'s embedding of a text: a bag of
// its words' meanings, hashed into EmbeddingDims dimensions, never zero.
// "Which automobile was purchased?" and "I bought a sedan" are one
// vector.
func MeaningVector(s string) []float32 {
	v := make([]float32, EmbeddingDims)
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if fillerWords[w] {
			continue
		}
		if m, ok := synonyms[w]; ok {
			w = "meaning:" + m
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%(EmbeddingDims-1)]++
	}
	v[EmbeddingDims-1] = 0.01 // never zero
	return v
}

// ProviderServer is an OpenAI-compatible server at URL+"/v1": POST
// /v1/embeddings of model EmbeddingModel answers with [MeaningVector]s,
// and POST /v1/chat/completions of model ChatModel, when Summarize is
// set, with Summarize of the text after the prompt (the second message's
// content after its first blank line); anything else is a 400.
type ProviderServer struct {
	*httptest.Server
	// Requests counts the requests, Inputs the texts embedded.
	Requests, Inputs atomic.Int32
	// Fail, while not 0, is the status of every answer.
	Fail atomic.Int32
	// Summarize, when set before the first request, writes the server's
	// summaries.
	Summarize func(text string) string

	mu     sync.Mutex
	texts  [][]string
	failOn string
}

// NewProviderServer starts a [ProviderServer], closed when the test
// ends.
func NewProviderServer(t testing.TB) *ProviderServer {
	t.Helper()
	s := &ProviderServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// BaseURL is the API's root, as provider.Config.BaseURL and
// SMG_PROVIDER_URL take it.
func (s *ProviderServer) BaseURL() string { return s.URL + "/v1" }

// FailOn makes the server answer 500 to every request that has text among
// its inputs; "" ends it.
func (s *ProviderServer) FailOn(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failOn = text
}

// Texts returns the inputs of each request embedded, in order.
func (s *ProviderServer) Texts() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.texts)
}

func (s *ProviderServer) serve(w http.ResponseWriter, r *http.Request) {
	s.Requests.Add(1)
	if st := s.Fail.Load(); st != 0 {
		http.Error(w, `{"error":{"message":"the model is loading"}}`, int(st))
		return
	}
	var req struct {
		Model    string
		Input    []string
		Messages []struct{ Role, Content string }
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.Method != http.MethodPost {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	if r.URL.Path == "/v1/chat/completions" && req.Model == ChatModel && s.Summarize != nil && len(req.Messages) == 2 {
		_, text, _ := strings.Cut(req.Messages[1].Content, "\n\n")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"object":  "chat.completion",
			"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": s.Summarize(text)}}},
		})
		return
	}
	if r.URL.Path != "/v1/embeddings" || req.Model != EmbeddingModel {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	fail := s.failOn != "" && slices.Contains(req.Input, s.failOn)
	if !fail {
		s.texts = append(s.texts, req.Input)
	}
	s.mu.Unlock()
	if fail {
		http.Error(w, `{"error":{"message":"internal error"}}`, http.StatusInternalServerError)
		return
	}
	s.Inputs.Add(int32(len(req.Input)))
	data := make([]map[string]any, len(req.Input))
	for i, in := range req.Input {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": MeaningVector(in)}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
}
