package serve_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/smg/serve"
)

// TestObserved: each request is timed in the metrics, by operation and
// status, and logged; the store's opens are counted.
func TestObserved(t *testing.T) {
	var log bytes.Buffer
	srv, _ := serviceWith(t, &serve.Options{Log: slog.New(slog.NewTextHandler(&log, nil))})
	call(t, srv, "POST", "/v1/memories", map[string]any{"id": "dana"})
	call(t, srv, "POST", "/v1/memories/dana/turns", map[string]any{"turns": []map[string]any{{"role": "user", "content": "hello"}}})
	call(t, srv, "GET", "/v1/memories/nobody", nil)
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`smg_http_request_duration_seconds_count{operation="create-memory",status="201"} 1`,
		`smg_http_request_duration_seconds_count{operation="append-turns",status="200"} 1`,
		`smg_http_request_duration_seconds_count{operation="get-memory",status="404"} 1`,
		"smg_memories_open 1",
		"smg_memory_opens_cached_total 1",
		"go_goroutines",
	} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("the metrics lack %q", want)
		}
	}
	for _, want := range []string{"operation=append-turns status=200", "tenant=default", "operation=get-memory status=404"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, log.String())
		}
	}
}

// TestRateLimit: a caller past its rate is answered 429 with Retry-After;
// another key has its own.
func TestRateLimit(t *testing.T) {
	srv, store := serviceWith(t, &serve.Options{Rate: 0.001, Burst: 2})
	a := store.addKey(t, "acme", serve.ScopeRead)
	b := store.addKey(t, "acme", serve.ScopeRead)
	for i := range 2 {
		if status, _, _ := callAs(t, srv, a, "GET", "/v1/memories", nil); status != 200 {
			t.Fatalf("request %d: %d", i+1, status)
		}
	}
	status, body, h := callAs(t, srv, a, "GET", "/v1/memories", nil)
	isProblem(t, "past the rate", status, body, h, http.StatusTooManyRequests, "too many requests")
	if h.Get("Retry-After") != "1" {
		t.Errorf("Retry-After %q", h.Get("Retry-After"))
	}
	if status, _, _ := callAs(t, srv, b, "GET", "/v1/memories", nil); status != 200 {
		t.Errorf("another key: %d", status)
	}
}

// TestReady: ready while the store can be written, 503 when it cannot.
func TestReady(t *testing.T) {
	srv, store := serviceWith(t, nil)
	if status, body, _ := call(t, srv, "GET", "/readyz", nil); status != 200 || body["status"] != "ready" {
		t.Fatalf("%d %v", status, body)
	}
	if back := store.takeAway(t); back != nil {
		defer back()
	}
	status, body, h := call(t, srv, "GET", "/readyz", nil)
	isProblem(t, "the store gone", status, body, h, http.StatusServiceUnavailable, "not ready")
}

// TestTimeout: a request past its time is answered 503, and what it was
// writing is left as it was.
func TestTimeout(t *testing.T) {
	srv, store := service(t)
	call(t, srv, "POST", "/v1/memories", map[string]any{"id": "dana"})
	hurried := httptest.NewServer(serve.New(store.another(t), &serve.Options{Timeout: time.Nanosecond}))
	defer hurried.Close()
	status, body, h := call(t, hurried, "POST", "/v1/memories/dana/turns", map[string]any{"turns": []map[string]any{{"role": "user", "content": "hello"}}})
	isProblem(t, "past its time", status, body, h, http.StatusServiceUnavailable, "longer than the server allows")
	if h.Get("Retry-After") == "" {
		t.Error("a request past its time does not say when to try again (Retry-After)")
	}
	if _, body, _ := call(t, srv, "GET", "/v1/memories/dana", nil); body["turns"] != float64(0) {
		t.Errorf("after the request that ran out of time: %v", body)
	}
}
