package provider

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// The defaults of a zero [Config].
const (
	DefaultBaseURL       = "https://api.openai.com/v1"
	DefaultEmbedModel    = "text-embedding-3-small"
	DefaultChatModel     = "gpt-4o-mini"
	DefaultTimeout       = 60 * time.Second
	DefaultBatchSize     = 64
	DefaultMaxRetries    = 3
	DefaultBackoff       = 500 * time.Millisecond
	DefaultMaxBackoff    = 30 * time.Second
	DefaultMaxInputBytes = 16000
	DefaultSummaryWords  = 100
)

// The environment variables [FromEnv] and [NewOpenAI] read.
const (
	EnvURL        = "SMG_PROVIDER_URL"
	EnvEmbedModel = "SMG_EMBED_MODEL"
	EnvChatModel  = "SMG_CHAT_MODEL"
	EnvAPIKey     = "SMG_API_KEY"
	// EnvOpenAIKey is read only for OpenAI's own server (see
	// Config.APIKey).
	EnvOpenAIKey = "OPENAI_API_KEY"
)

// SummaryPrompt is the system message of every summary request. The user
// message that follows it is "Summarize the following in at most N
// words." and, after a blank line, the text.
const SummaryPrompt = "You summarize part of a conversation for a long-term memory. " +
	"Write one plain-text paragraph that keeps the facts, the decisions and their reasons, " +
	"the problems and their fixes, and the names, numbers and dates that matter; " +
	"leave out greetings and small talk. Never add anything the text does not say. " +
	"Do not address the reader, and do not begin with a phrase like \"Summary:\" or \"This conversation\"."

// maxResponse bounds the body of a response that is read: 64 MiB, some
// 300 requests' worth of 3,072-dimension vectors.
const maxResponse = 64 << 20

// maxErrorBody is how much of an error response's body an [HTTPError]
// keeps.
const maxErrorBody = 512

// Config sets up an [OpenAI] client. The zero value of a field takes its
// default.
type Config struct {
	// BaseURL is the API's root, to which "/embeddings" and
	// "/chat/completions" are added: DefaultBaseURL, or a local server's
	// such as "http://localhost:11434/v1" (Ollama).
	BaseURL string
	// EmbedModel names the model of embeddings (DefaultEmbedModel) and
	// ChatModel the model of summaries (DefaultChatModel).
	EmbedModel, ChatModel string
	// APIKey is sent as a bearer token. Empty: the environment's
	// SMG_API_KEY, or else, when BaseURL is OpenAI's own server (host
	// api.openai.com), OPENAI_API_KEY; OpenAI's key is never sent to
	// another host. With no key, no Authorization header is sent, as a
	// local server wants.
	APIKey string
	// HTTPClient makes the requests; nil is a client of the client's own.
	HTTPClient *http.Client
	// Timeout bounds each attempt of a request (DefaultTimeout); a
	// negative value sets no bound but the caller's context.
	Timeout time.Duration
	// BatchSize is how many texts one embeddings request carries
	// (DefaultBatchSize).
	BatchSize int
	// MaxRetries is how many times a request that failed with 429, a 5xx
	// status or a network error is tried again (DefaultMaxRetries); a
	// negative value is none. A 4xx other than 429 is never retried.
	MaxRetries int
	// Backoff is the wait before the first retry (DefaultBackoff), doubled
	// for each next one, with jitter, up to MaxBackoff (DefaultMaxBackoff).
	// A Retry-After header replaces the wait it answers; one that asks
	// for more than MaxBackoff ends the retries.
	Backoff, MaxBackoff time.Duration
	// MaxInputBytes cuts each text to embed to at most this many bytes,
	// at a character boundary (DefaultMaxInputBytes, some 4,000 tokens:
	// embedding models take 512 to 8,192 tokens and reject longer
	// inputs); a negative value cuts nothing.
	MaxInputBytes int
}

// OpenAI is a client of an OpenAI-compatible HTTP API: it implements
// [Embedder] with POST {BaseURL}/embeddings and [Summarizer] with POST
// {BaseURL}/chat/completions, at temperature 0 with [SummaryPrompt]. It
// uses nothing but the standard library, and is safe for concurrent use.
type OpenAI struct {
	cfg  Config
	base string // BaseURL without a trailing slash
	hc   *http.Client
}

var (
	_ Embedder   = (*OpenAI)(nil)
	_ Summarizer = (*OpenAI)(nil)
)

// ErrNotConfigured reports an environment that names no provider: none of
// SMG_PROVIDER_URL, SMG_EMBED_MODEL and SMG_CHAT_MODEL is set.
var ErrNotConfigured = errors.New("provider: not configured (set SMG_PROVIDER_URL, SMG_EMBED_MODEL or SMG_CHAT_MODEL)")

// FromEnv returns the client the environment describes: SMG_PROVIDER_URL
// (the base URL), SMG_EMBED_MODEL, SMG_CHAT_MODEL and SMG_API_KEY, with
// the defaults of [Config] for what is unset. An environment that sets none
// of the first three gives ErrNotConfigured, so that a program can leave
// providers off unless asked.
func FromEnv() (*OpenAI, error) {
	cfg, err := ConfigFromEnv(os.LookupEnv)
	if err != nil {
		return nil, err
	}
	return NewOpenAI(cfg)
}

// ConfigFromEnv returns the configuration [FromEnv] makes its client of,
// looking the environment variables up with lookupEnv (os.LookupEnv for
// the process's own environment; a program that keeps its own, or a
// test, passes another): SMG_PROVIDER_URL, SMG_EMBED_MODEL,
// SMG_CHAT_MODEL and SMG_API_KEY or, for OpenAI's own server only,
// OPENAI_API_KEY. A variable set to the empty string is unset; the
// fields of what is unset are left empty, for [NewOpenAI]'s defaults. An
// environment that sets none of the first three gives ErrNotConfigured.
// The values are not checked: NewOpenAI checks them.
func ConfigFromEnv(lookupEnv func(key string) (string, bool)) (Config, error) {
	get := func(key string) string {
		v, _ := lookupEnv(key)
		return v
	}
	cfg := Config{BaseURL: get(EnvURL), EmbedModel: get(EnvEmbedModel), ChatModel: get(EnvChatModel)}
	if cfg.BaseURL == "" && cfg.EmbedModel == "" && cfg.ChatModel == "" {
		return Config{}, ErrNotConfigured
	}
	cfg.APIKey = get(EnvAPIKey)
	if u, err := url.Parse(cmp.Or(cfg.BaseURL, DefaultBaseURL)); err == nil && cfg.APIKey == "" && isOpenAI(u) {
		cfg.APIKey = get(EnvOpenAIKey)
	}
	return cfg, nil
}

// isOpenAI reports whether u is on OpenAI's own server, the only one
// OPENAI_API_KEY is sent to.
func isOpenAI(u *url.URL) bool { return strings.EqualFold(u.Hostname(), "api.openai.com") }

// NewOpenAI returns a client of the API cfg describes. The base URL must be
// an absolute http or https URL.
func NewOpenAI(cfg Config) (*OpenAI, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("provider: base URL %q is not an http or https URL", cfg.BaseURL)
	}
	if cfg.EmbedModel == "" {
		cfg.EmbedModel = DefaultEmbedModel
	}
	if cfg.ChatModel == "" {
		cfg.ChatModel = DefaultChatModel
	}
	if cfg.APIKey == "" {
		cfg.APIKey = os.Getenv(EnvAPIKey)
	}
	if cfg.APIKey == "" && isOpenAI(u) {
		cfg.APIKey = os.Getenv(EnvOpenAIKey)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = DefaultMaxBackoff
	}
	if cfg.MaxInputBytes == 0 {
		cfg.MaxInputBytes = DefaultMaxInputBytes
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	return &OpenAI{cfg: cfg, base: strings.TrimRight(cfg.BaseURL, "/"), hc: hc}, nil
}

// Model is the name of the embedding model.
func (c *OpenAI) Model() string { return c.cfg.EmbedModel }

// ChatModel is the name of the model of summaries.
func (c *OpenAI) ChatModel() string { return c.cfg.ChatModel }

// BaseURL is the API's root, without a trailing slash.
func (c *OpenAI) BaseURL() string { return c.base }

type embedRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

// Embed returns the embeddings of texts, in their order, making one
// request per BatchSize texts, one after the other. A failed request, or a
// response that is not what was asked for (see [ErrMalformed]), fails the
// whole call; so do vectors of different lengths in different batches.
// Some servers reject an empty text.
func (c *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	endpoint := c.base + "/embeddings"
	for start := 0; start < len(texts); start += c.cfg.BatchSize {
		end := min(start+c.cfg.BatchSize, len(texts))
		input := make([]string, end-start)
		for i, t := range texts[start:end] {
			input[i] = cut(t, c.cfg.MaxInputBytes)
		}
		body, err := c.post(ctx, endpoint, embedRequest{Model: c.cfg.EmbedModel, Input: input})
		if err != nil {
			return nil, fmt.Errorf("embedding texts %d to %d of %d: %w", start+1, end, len(texts), err)
		}
		vecs, err := DecodeEmbeddings(body, len(input))
		if err != nil {
			return nil, malformed(endpoint, err)
		}
		if len(out) > 0 && len(vecs[0]) != len(out[0]) {
			return nil, malformed(endpoint, fmt.Errorf("vectors of %d values after vectors of %d", len(vecs[0]), len(out[0])))
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// cut returns s cut to at most n bytes at a character boundary; n < 0
// cuts nothing.
func cut(s string, n int) string {
	if n < 0 || len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	Temperature float64       `json:"temperature"`
}

// Summarize asks the chat model for a summary of text in at most maxWords
// words (DefaultSummaryWords when maxWords ≤ 0), with [SummaryPrompt] as
// the system message and temperature 0. A reply longer than maxWords words
// is cut to its first maxWords words, its white space made single spaces.
func (c *OpenAI) Summarize(ctx context.Context, text string, maxWords int) (string, error) {
	if maxWords <= 0 {
		maxWords = DefaultSummaryWords
	}
	endpoint := c.base + "/chat/completions"
	body, err := c.post(ctx, endpoint, chatRequest{
		Model: c.cfg.ChatModel,
		Messages: []chatMessage{
			{Role: "system", Content: SummaryPrompt},
			{Role: "user", Content: fmt.Sprintf("Summarize the following in at most %d words.\n\n%s", maxWords, text)},
		},
	})
	if err != nil {
		return "", fmt.Errorf("summarizing: %w", err)
	}
	s, err := decodeChat(body)
	if err != nil {
		return "", malformed(endpoint, err)
	}
	if w := strings.Fields(s); len(w) > maxWords {
		s = strings.Join(w[:maxWords], " ")
	}
	return s, nil
}

// post sends req as JSON to endpoint and returns the body of the answer,
// trying again as Config says.
func (c *OpenAI) post(ctx context.Context, endpoint string, req any) ([]byte, error) {
	payload, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("provider: encoding the request: %w", err)
	}
	retries := max(c.cfg.MaxRetries, 0)
	for attempt := 0; ; attempt++ {
		body, retryAfter, err := c.once(ctx, endpoint, payload)
		if err == nil {
			return body, nil
		}
		if attempt > 0 {
			err = fmt.Errorf("%w (attempt %d of %d)", err, attempt+1, retries+1)
		}
		if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
			// The caller gave up while the answer arrived: say so, so
			// that errors.Is(err, context.Canceled) holds either way.
			return nil, fmt.Errorf("%w: %w", err, ctx.Err())
		}
		if attempt >= retries || !retryable(ctx, err) {
			return nil, err
		}
		wait := c.backoff(attempt)
		if retryAfter > 0 {
			if retryAfter > c.cfg.MaxBackoff {
				return nil, fmt.Errorf("%w; the server asks to wait %v", err, retryAfter)
			}
			wait = retryAfter
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%w, while waiting to retry: %w", err, ctx.Err())
		case <-t.C:
		}
	}
}

// backoff is the wait before retry attempt+1: Backoff doubled attempt
// times, at most MaxBackoff, less up to a half at random so that clients
// that failed together do not retry together.
func (c *OpenAI) backoff(attempt int) time.Duration {
	d := c.cfg.Backoff << min(attempt, 30)
	if d <= 0 || d > c.cfg.MaxBackoff {
		d = c.cfg.MaxBackoff
	}
	return d/2 + rand.N(d/2+1)
}

// once makes one attempt. It returns the wait a Retry-After header of a
// failed answer asked for, if any.
func (c *OpenAI) once(ctx context.Context, endpoint string, payload []byte) ([]byte, time.Duration, error) {
	if c.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.Timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(payload))
	if err != nil {
		return nil, 0, fmt.Errorf("provider: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		// url.Error names the method and the URL.
		return nil, 0, &netError{err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, 0, &netError{fmt.Errorf("provider: POST %s: reading the response: %w", endpoint, err)}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, retryAfter(resp.Header.Get("Retry-After")), &HTTPError{URL: endpoint, Status: resp.StatusCode, Body: excerpt(body)}
	}
	if len(body) > maxResponse {
		return nil, 0, malformed(endpoint, fmt.Errorf("a response longer than %d bytes", maxResponse))
	}
	return body, 0, nil
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date. None,
// or one that cannot be read, is 0.
func retryAfter(h string) time.Duration {
	if h == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(min(s, 1<<20)) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// retryable reports whether a failed attempt is worth another: a 429 or a
// 5xx answer, or a network error other than a refused connection (nothing
// listens there: retrying would only make the caller wait), unless ctx is
// done.
func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	if he, ok := errors.AsType[*HTTPError](err); ok {
		return he.Status == http.StatusTooManyRequests || he.Status >= 500
	}
	if _, ok := errors.AsType[*netError](err); ok {
		return !errors.Is(err, syscall.ECONNREFUSED)
	}
	return false
}

// netError marks an error of the network (or a timeout of one attempt),
// which may be retried.
type netError struct{ err error }

func (e *netError) Error() string { return e.err.Error() }
func (e *netError) Unwrap() error { return e.err }

// HTTPError is an answer with a status other than 2xx.
type HTTPError struct {
	// URL is the endpoint the request went to.
	URL string
	// Status is the HTTP status code.
	Status int
	// Body is the start of the answer's body: at most 512 bytes, cut at
	// a character boundary, followed by "…" when cut.
	Body string
}

func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("provider: POST %s: %d %s", e.URL, e.Status, http.StatusText(e.Status))
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// excerpt is the start of an error body, for an HTTPError.
func excerpt(body []byte) string {
	s := strings.TrimSpace(strings.ToValidUTF8(string(body[:min(len(body), maxErrorBody+4)]), "\uFFFD"))
	if len(s) > maxErrorBody {
		return cut(s, maxErrorBody) + "…"
	}
	return s
}

// ErrMalformed reports a 2xx answer that is not what was asked for: not
// JSON, not the number of vectors asked for, vectors of different
// lengths, an index missing or out of range, a summary missing. The error
// that wraps it names the endpoint and what is wrong.
var ErrMalformed = errors.New("malformed response")

func malformed(endpoint string, err error) error {
	return fmt.Errorf("provider: POST %s: %w: %w", endpoint, ErrMalformed, err)
}
