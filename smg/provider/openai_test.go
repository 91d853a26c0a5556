package provider_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/smg-memory/smg/smg/provider"
)

// noKeys clears the environment's keys, so that a test sees only the ones
// it sets.
func noKeys(t *testing.T) {
	t.Helper()
	t.Setenv(provider.EnvAPIKey, "")
	t.Setenv(provider.EnvOpenAIKey, "")
}

// client returns a client of srv's API, with waits of a millisecond.
func client(t *testing.T, srv *httptest.Server, cfg provider.Config) *provider.OpenAI {
	t.Helper()
	cfg.BaseURL = srv.URL + "/v1"
	if cfg.Backoff == 0 {
		cfg.Backoff = time.Millisecond
	}
	if cfg.MaxBackoff == 0 {
		cfg.MaxBackoff = 5 * time.Millisecond
	}
	c, err := provider.NewOpenAI(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// embedRequest is what a test server reads of a request.
type embedRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

// textVector is the vector a test server gives a text: its length and its
// first byte.
func textVector(s string) []float32 {
	first := float32(0)
	if s != "" {
		first = float32(s[0])
	}
	return []float32{float32(len(s)), first, 1}
}

type datum struct {
	Object    string    `json:"object"`
	Index     int       `json:"index"`
	Embedding []float32 `json:"embedding"`
}

// writeEmbeddings answers an embeddings request with textVector of each
// input, listed in reverse order, as a server may.
func writeEmbeddings(w http.ResponseWriter, req embedRequest) {
	var data []datum
	for i := len(req.Input) - 1; i >= 0; i-- {
		data = append(data, datum{"embedding", i, textVector(req.Input[i])})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": req.Model, "data": data})
}

// embedServer is a test server of embeddings that records the requests it
// gets.
type embedServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []embedRequest
	hdrs []http.Header
}

func newEmbedServer(t *testing.T) *embedServer {
	s := &embedServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
			http.Error(w, "not here", http.StatusNotFound)
			return
		}
		var req embedRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, req)
		s.hdrs = append(s.hdrs, r.Header.Clone())
		s.mu.Unlock()
		writeEmbeddings(w, req)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestEmbedRequest(t *testing.T) {
	noKeys(t)
	// OpenAI's key is for OpenAI's server: never sent elsewhere.
	t.Setenv(provider.EnvOpenAIKey, "sk-openai-secret")
	srv := newEmbedServer(t)
	c := client(t, srv.Server, provider.Config{EmbedModel: "nomic-embed-text"})
	if c.Model() != "nomic-embed-text" {
		t.Errorf("Model() = %q", c.Model())
	}
	got, err := c.Embed(context.Background(), []string{"alpha", "be", "gamma ray"})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{textVector("alpha"), textVector("be"), textVector("gamma ray")}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("Embed = %v, want %v (in input order)", got, want)
	}
	if len(srv.reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(srv.reqs))
	}
	if r := srv.reqs[0]; r.Model != "nomic-embed-text" || !slices.Equal(r.Input, []string{"alpha", "be", "gamma ray"}) {
		t.Errorf("request = %+v", r)
	}
	h := srv.hdrs[0]
	if a, ok := h["Authorization"]; ok {
		t.Errorf("Authorization %q sent with no key", a)
	}
	if ct := h.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	// No texts, no request.
	if got, err := c.Embed(context.Background(), nil); err != nil || len(got) != 0 || len(srv.reqs) != 1 {
		t.Errorf("Embed(nil) = %v, %v after %d requests", got, err, len(srv.reqs))
	}
}

func TestEmbedKey(t *testing.T) {
	noKeys(t)
	srv := newEmbedServer(t)
	c := client(t, srv.Server, provider.Config{APIKey: "k-given"})
	t.Setenv(provider.EnvAPIKey, "k-env")
	env := client(t, srv.Server, provider.Config{})
	for _, c := range []*provider.OpenAI{c, env} {
		if _, err := c.Embed(context.Background(), []string{"x"}); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range []string{"Bearer k-given", "Bearer k-env"} {
		if got := srv.hdrs[i].Get("Authorization"); got != want {
			t.Errorf("request %d: Authorization = %q, want %q", i, got, want)
		}
	}
}

// roundTripper answers requests without a network.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestOpenAIKey checks that OPENAI_API_KEY goes to OpenAI's server, when
// no other key is given.
func TestOpenAIKey(t *testing.T) {
	noKeys(t)
	t.Setenv(provider.EnvOpenAIKey, "sk-openai")
	var auth []string
	hc := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		auth = append(auth, r.URL.Host+" "+r.Header.Get("Authorization"))
		return &http.Response{
			StatusCode: 200, Header: http.Header{}, Request: r,
			Body: io.NopCloser(strings.NewReader(`{"data":[{"index":0,"embedding":[1,2]}]}`)),
		}, nil
	})}
	for _, base := range []string{"", "https://API.openai.com/v1/", "https://proxy.example/v1"} {
		c, err := provider.NewOpenAI(provider.Config{BaseURL: base, HTTPClient: hc})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Embed(context.Background(), []string{"x"}); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"api.openai.com Bearer sk-openai", "API.openai.com Bearer sk-openai", "proxy.example "}
	if !slices.Equal(auth, want) {
		t.Errorf("requests %q, want %q", auth, want)
	}
}

func TestEmbedBatches(t *testing.T) {
	noKeys(t)
	srv := newEmbedServer(t)
	c := client(t, srv.Server, provider.Config{BatchSize: 64})
	texts := make([]string, 150)
	for i := range texts {
		texts[i] = strings.Repeat("x", i+1)
	}
	got, err := c.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(got), len(texts))
	}
	for i, v := range got {
		if !slices.Equal(v, textVector(texts[i])) {
			t.Fatalf("vector %d = %v, want %v", i, v, textVector(texts[i]))
		}
	}
	var sizes []int
	next := 0
	for _, r := range srv.reqs {
		sizes = append(sizes, len(r.Input))
		for _, in := range r.Input {
			if in != texts[next] {
				t.Fatalf("input %d sent as %q", next, in)
			}
			next++
		}
	}
	if !slices.Equal(sizes, []int{64, 64, 22}) {
		t.Errorf("batch sizes %v, want [64 64 22]", sizes)
	}
}

func TestEmbedCutsInputs(t *testing.T) {
	noKeys(t)
	srv := newEmbedServer(t)
	c := client(t, srv.Server, provider.Config{MaxInputBytes: 5})
	if _, err := c.Embed(context.Background(), []string{"héllo wörld", "abc", "ééé"}); err != nil {
		t.Fatal(err)
	}
	// "hé" is 3 bytes, "hél" 4, "héll" 5; "éé" is 4: cut at a boundary.
	if got := srv.reqs[0].Input; !slices.Equal(got, []string{"héll", "abc", "éé"}) {
		t.Errorf("inputs %q", got)
	}
	for _, in := range srv.reqs[0].Input {
		if !utf8.ValidString(in) {
			t.Errorf("%q is not UTF-8", in)
		}
	}
}

// flaky answers with the given statuses first, then with embeddings.
func flaky(t *testing.T, calls *atomic.Int32, retryAfter string, statuses ...int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(calls.Add(1))
		if n <= len(statuses) {
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			http.Error(w, fmt.Sprintf(`{"error":{"message":"try %d"}}`, n), statuses[n-1])
			return
		}
		var req embedRequest
		json.NewDecoder(r.Body).Decode(&req)
		writeEmbeddings(w, req)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRetry(t *testing.T) {
	noKeys(t)
	for _, tc := range []struct {
		name       string
		retryAfter string
		statuses   []int
	}{
		{"429", "", []int{429, 429}},
		{"5xx", "", []int{500, 502, 503}},
		{"Retry-After seconds", "0", []int{429}},
		{"Retry-After date", time.Unix(0, 0).UTC().Format(http.TimeFormat), []int{503}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			c := client(t, flaky(t, &calls, tc.retryAfter, tc.statuses...), provider.Config{MaxRetries: 3})
			got, err := c.Embed(context.Background(), []string{"abc"})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got[0], textVector("abc")) {
				t.Errorf("vector %v", got[0])
			}
			if n := int(calls.Load()); n != len(tc.statuses)+1 {
				t.Errorf("%d requests, want %d", n, len(tc.statuses)+1)
			}
		})
	}
}

func TestRetriesEnd(t *testing.T) {
	noKeys(t)
	for _, tc := range []struct {
		name       string
		cfg        provider.Config
		retryAfter string
		status     int
		calls      int
	}{
		{"4xx is not retried", provider.Config{MaxRetries: 3}, "", 400, 1},
		{"401 is not retried", provider.Config{MaxRetries: 3}, "", 401, 1},
		{"retries are bounded", provider.Config{MaxRetries: 2}, "", 500, 3},
		{"no retries", provider.Config{MaxRetries: -1}, "", 503, 1},
		{"Retry-After beyond MaxBackoff", provider.Config{MaxRetries: 3, MaxBackoff: time.Second}, "3600", 429, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			statuses := slices.Repeat([]int{tc.status}, 10)
			srv := flaky(t, &calls, tc.retryAfter, statuses...)
			_, err := client(t, srv, tc.cfg).Embed(context.Background(), []string{"abc"})
			he, ok := errors.AsType[*provider.HTTPError](err)
			if !ok {
				t.Fatalf("err = %v, want an HTTPError", err)
			}
			if he.Status != tc.status || he.URL != srv.URL+"/v1/embeddings" || !strings.Contains(he.Body, "try ") {
				t.Errorf("HTTPError %+v", he)
			}
			if n := int(calls.Load()); n != tc.calls {
				t.Errorf("%d requests, want %d", n, tc.calls)
			}
		})
	}
}

func TestHTTPErrorBody(t *testing.T) {
	noKeys(t)
	long := strings.Repeat("é", 2000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, long, http.StatusBadRequest)
	}))
	defer srv.Close()
	_, err := client(t, srv, provider.Config{}).Embed(context.Background(), []string{"x"})
	he, ok := errors.AsType[*provider.HTTPError](err)
	if !ok {
		t.Fatalf("err = %v", err)
	}
	if len(he.Body) > 512+len("…") || !strings.HasSuffix(he.Body, "…") || !utf8.ValidString(he.Body) {
		t.Errorf("body of %d bytes: %q", len(he.Body), he.Body)
	}
	msg := err.Error()
	if !strings.Contains(msg, "400 Bad Request") || !strings.Contains(msg, srv.URL+"/v1/embeddings") || !strings.Contains(msg, "texts 1 to 1 of 1") {
		t.Errorf("message %q", msg)
	}
}

// TestNetworkErrors checks that a refused connection fails at once and
// another network error is retried.
func TestNetworkErrors(t *testing.T) {
	noKeys(t)
	for _, tc := range []struct {
		err   error
		calls int
	}{
		{syscall.ECONNREFUSED, 1},
		{io.ErrUnexpectedEOF, 3},
	} {
		calls := 0
		hc := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
			calls++
			return nil, tc.err
		})}
		c, err := provider.NewOpenAI(provider.Config{BaseURL: "http://localhost:1/v1", HTTPClient: hc, MaxRetries: 2, Backoff: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Embed(context.Background(), []string{"x"})
		if !errors.Is(err, tc.err) {
			t.Errorf("err = %v, want %v", err, tc.err)
		}
		if calls != tc.calls {
			t.Errorf("%v: %d attempts, want %d", tc.err, calls, tc.calls)
		}
	}
}

func TestMalformed(t *testing.T) {
	noKeys(t)
	for _, tc := range []struct{ name, body string }{
		{"not JSON", `<html>bad gateway</html>`},
		{"empty", ``},
		{"too few", `{"data":[{"index":0,"embedding":[1,2]}]}`},
		{"too many", `{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[1]},{"index":2,"embedding":[1]}]}`},
		{"no index", `{"data":[{"embedding":[1,2]},{"index":1,"embedding":[1,2]}]}`},
		{"index twice", `{"data":[{"index":1,"embedding":[1,2]},{"index":1,"embedding":[1,2]}]}`},
		{"index out of range", `{"data":[{"index":0,"embedding":[1,2]},{"index":2,"embedding":[1,2]}]}`},
		{"dimensions differ", `{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1,2,3]}]}`},
		{"empty vector", `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[]}]}`},
		{"no vector", `{"data":[{"index":0},{"index":1,"embedding":[1]}]}`},
		{"not numbers", `{"data":[{"index":0,"embedding":["a"]},{"index":1,"embedding":[1]}]}`},
		{"beyond float32", `{"data":[{"index":0,"embedding":[1e39]},{"index":1,"embedding":[1]}]}`},
		{"bad base64", `{"data":[{"index":0,"embedding":"!!"},{"index":1,"embedding":"!!"}]}`},
		{"an error", `{"error":{"message":"model not loaded"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			got, err := client(t, srv, provider.Config{}).Embed(context.Background(), []string{"a", "b"})
			if !errors.Is(err, provider.ErrMalformed) {
				t.Fatalf("Embed = %v, %v; want ErrMalformed", got, err)
			}
			if !strings.Contains(err.Error(), srv.URL+"/v1/embeddings") {
				t.Errorf("%q does not name the endpoint", err)
			}
			if calls.Load() != 1 {
				t.Errorf("%d requests: a malformed answer is not retried", calls.Load())
			}
		})
	}
}

// TestDimensionsAcrossBatches checks that vectors of one call have one
// length, batch after batch.
func TestDimensionsAcrossBatches(t *testing.T) {
	noKeys(t)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			io.WriteString(w, `{"data":[{"index":0,"embedding":[1,2]}]}`)
			return
		}
		io.WriteString(w, `{"data":[{"index":0,"embedding":[1,2,3]}]}`)
	}))
	defer srv.Close()
	if _, err := client(t, srv, provider.Config{BatchSize: 1}).Embed(context.Background(), []string{"a", "b"}); !errors.Is(err, provider.ErrMalformed) {
		t.Errorf("err = %v, want ErrMalformed", err)
	}
}

func TestBase64Embeddings(t *testing.T) {
	// (0.25, −1, 0.5, 0), as spec §8.3's example encodes it.
	got, err := provider.DecodeEmbeddings([]byte(`{"data":[{"index":0,"embedding":"AACAPgAAgL8AAAA/AAAAAA=="}]}`), 1)
	if err != nil || !slices.Equal(got[0], []float32{0.25, -1, 0.5, 0}) {
		t.Errorf("DecodeEmbeddings = %v, %v", got, err)
	}
}

func TestCancel(t *testing.T) {
	noKeys(t)
	arrived, end := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		close(arrived)
		select {
		case <-r.Context().Done(): // the client hung up
		case <-end:
		}
	}))
	defer srv.Close()
	defer close(end)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	_, err := client(t, srv, provider.Config{MaxRetries: 3}).Embed(ctx, []string{"x"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestCancelWhileWaiting checks that a wait before a retry ends with ctx.
func TestCancelWhileWaiting(t *testing.T) {
	noKeys(t)
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Retry-After", "600")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.(http.Flusher).Flush()
		cancel()
	}))
	defer srv.Close()
	_, err := client(t, srv, provider.Config{MaxRetries: 3, MaxBackoff: time.Hour}).Embed(ctx, []string{"x"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if calls.Load() != 1 {
		t.Errorf("%d requests after the cancellation", calls.Load())
	}
}

func TestSummarize(t *testing.T) {
	noKeys(t)
	var raw map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		io.WriteString(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":"  one two\nthree four five six seven eight nine ten  "}}]}`)
	}))
	defer srv.Close()
	c := client(t, srv, provider.Config{ChatModel: "llama3.2"})
	got, err := c.Summarize(context.Background(), "We chose Postgres over MySQL.", 7)
	if err != nil {
		t.Fatal(err)
	}
	if got != "one two three four five six seven" {
		t.Errorf("Summarize = %q", got)
	}
	if raw["model"] != "llama3.2" {
		t.Errorf("model %v", raw["model"])
	}
	if temp, ok := raw["temperature"]; !ok || temp != 0.0 {
		t.Errorf("temperature %v (sent: %v), want 0", temp, ok)
	}
	msgs, _ := raw["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("messages %v", raw["messages"])
	}
	sys, user := msgs[0].(map[string]any), msgs[1].(map[string]any)
	if sys["role"] != "system" || sys["content"] != provider.SummaryPrompt {
		t.Errorf("system message %v", sys)
	}
	if user["role"] != "user" || user["content"] != "Summarize the following in at most 7 words.\n\nWe chose Postgres over MySQL." {
		t.Errorf("user message %v", user)
	}
}

func TestSummarizeMalformed(t *testing.T) {
	noKeys(t)
	for _, body := range []string{`{}`, `{"choices":[]}`, `{"choices":[{"message":{"content":"  "}}]}`, `{"choices":[{"message":{}}]}`, `{"error":"no"}`, `nope`} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) }))
		_, err := client(t, srv, provider.Config{}).Summarize(context.Background(), "text", 0)
		srv.Close()
		if !errors.Is(err, provider.ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", body, err)
		}
	}
}

func TestFromEnv(t *testing.T) {
	noKeys(t)
	for _, k := range []string{provider.EnvURL, provider.EnvEmbedModel, provider.EnvChatModel} {
		t.Setenv(k, "")
	}
	if _, err := provider.FromEnv(); !errors.Is(err, provider.ErrNotConfigured) {
		t.Errorf("FromEnv() with nothing set: %v", err)
	}
	t.Setenv(provider.EnvURL, "http://localhost:11434/v1/")
	t.Setenv(provider.EnvEmbedModel, "nomic-embed-text")
	c, err := provider.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL() != "http://localhost:11434/v1" || c.Model() != "nomic-embed-text" || c.ChatModel() != provider.DefaultChatModel {
		t.Errorf("client of %s, %s, %s", c.BaseURL(), c.Model(), c.ChatModel())
	}
	for _, bad := range []string{"localhost:11434", "ftp://x/v1", "http://", "://"} {
		if _, err := provider.NewOpenAI(provider.Config{BaseURL: bad}); err == nil {
			t.Errorf("NewOpenAI with base URL %q: no error", bad)
		}
	}
}

// TestConfigFromEnv reads an environment that is not the process's.
func TestConfigFromEnv(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want provider.Config
		err  error
	}{
		{env: nil, err: provider.ErrNotConfigured},
		{env: map[string]string{provider.EnvURL: "", provider.EnvAPIKey: "k"}, err: provider.ErrNotConfigured},
		{
			env:  map[string]string{provider.EnvURL: "http://localhost:11434/v1", provider.EnvEmbedModel: "nomic-embed-text", provider.EnvOpenAIKey: "sk-openai"},
			want: provider.Config{BaseURL: "http://localhost:11434/v1", EmbedModel: "nomic-embed-text"},
		},
		{
			env:  map[string]string{provider.EnvChatModel: "gpt-4o", provider.EnvAPIKey: "k-smg", provider.EnvOpenAIKey: "sk-openai"},
			want: provider.Config{ChatModel: "gpt-4o", APIKey: "k-smg"},
		},
		// OpenAI's server, by default or by name: its key.
		{
			env:  map[string]string{provider.EnvEmbedModel: "text-embedding-3-large", provider.EnvOpenAIKey: "sk-openai"},
			want: provider.Config{EmbedModel: "text-embedding-3-large", APIKey: "sk-openai"},
		},
		{
			env:  map[string]string{provider.EnvURL: "https://API.openai.com/v1", provider.EnvOpenAIKey: "sk-openai"},
			want: provider.Config{BaseURL: "https://API.openai.com/v1", APIKey: "sk-openai"},
		},
		// Not checked here: NewOpenAI does.
		{env: map[string]string{provider.EnvURL: "localhost:11434"}, want: provider.Config{BaseURL: "localhost:11434"}},
	} {
		got, err := provider.ConfigFromEnv(func(k string) (string, bool) {
			v, ok := tc.env[k]
			return v, ok
		})
		if !errors.Is(err, tc.err) || got != tc.want {
			t.Errorf("ConfigFromEnv(%v) = %+v, %v, want %+v, %v", tc.env, got, err, tc.want, tc.err)
		}
	}
}

func TestCosine(t *testing.T) {
	for _, tc := range []struct {
		a, b []float32
		want float64
	}{
		{[]float32{1, 0}, []float32{1, 0}, 1},
		{[]float32{1, 0}, []float32{0, 2}, 0},
		{[]float32{1, 1}, []float32{-3, -3}, -1},
		{[]float32{3, 4}, []float32{4, 3}, 24.0 / 25},
		{[]float32{1, 2}, []float32{1, 2, 3}, 0},
		{nil, nil, 0},
		{[]float32{0, 0}, []float32{1, 1}, 0},
	} {
		if got := provider.Cosine(tc.a, tc.b); got < tc.want-1e-9 || got > tc.want+1e-9 {
			t.Errorf("Cosine(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestMain(m *testing.M) {
	// The tests set what they need; a developer's own key must not leak
	// into a test server's logs.
	os.Unsetenv(provider.EnvAPIKey)
	os.Unsetenv(provider.EnvOpenAIKey)
	os.Exit(m.Run())
}
