package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/serve"
)

// service is a server on a store of its own, for one test.
func service(t *testing.T) (*httptest.Server, *testStore) {
	t.Helper()
	return serviceWith(t, nil)
}

// call sends a request with body (nil: none) and returns the status and
// the decoded JSON answer.
func call(t *testing.T, srv *httptest.Server, method, path string, body any) (int, map[string]any, http.Header) {
	t.Helper()
	return callAs(t, srv, "", method, path, body)
}

// callAs is call with an API key ("": none).
func callAs(t *testing.T, srv *httptest.Server, key, method, path string, body any) (int, map[string]any, http.Header) {
	t.Helper()
	status, raw, h, err := send(srv.Client(), srv.URL+path, key, method, body)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s %s: %d, not JSON: %s", method, path, status, raw)
		}
	}
	return status, out, h
}

// send is a request from any goroutine, its body JSON (a string: as it
// is): its status, body and headers, or the error of a request that got
// no answer.
func send(client *http.Client, url, key, method string, body any) (int, []byte, http.Header, error) {
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		js, err := json.Marshal(b)
		if err != nil {
			return 0, nil, nil, err
		}
		r = bytes.NewReader(js)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		return 0, nil, nil, err
	}
	if r != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return do(client, req, key)
}

// do sends req with the API key ("": none), from any goroutine.
func do(client *http.Client, req *http.Request, key string) (int, []byte, http.Header, error) {
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, raw, resp.Header, err
}

// isProblem checks that an answer is a JSON problem (RFC 9457) of status
// whose detail says want.
func isProblem(t *testing.T, what string, status int, body map[string]any, h http.Header, wantStatus int, want string) {
	t.Helper()
	if status != wantStatus || !strings.HasPrefix(h.Get("Content-Type"), "application/problem+json") || body["status"] != float64(wantStatus) {
		t.Errorf("%s: %d %s %v, want the problem %d", what, status, h.Get("Content-Type"), body, wantStatus)
		return
	}
	if js, _ := json.Marshal(body); !strings.Contains(string(js), want) {
		t.Errorf("%s: %s does not say %q", what, js, want)
	}
}

func TestMemories(t *testing.T) {
	srv, store := service(t)
	status, body, _ := call(t, srv, "POST", "/v1/memories", map[string]any{"id": "dana", "project": "checkout"})
	if status != http.StatusCreated || body["id"] != "dana" || body["turns"] != float64(0) {
		t.Fatalf("create: %d %v", status, body)
	}
	status, body, h := call(t, srv, "POST", "/v1/memories", map[string]any{"id": "dana"})
	isProblem(t, "create again", status, body, h, http.StatusConflict, "exists")
	for _, id := range []string{"../etc", "a b", "-x", strings.Repeat("a", 65)} {
		status, body, h = call(t, srv, "POST", "/v1/memories", map[string]any{"id": id})
		isProblem(t, "create "+id, status, body, h, http.StatusUnprocessableEntity, "id")
	}
	if n := store.turns(t, "dana"); n != 0 {
		t.Errorf("the memory, read by another server: %d turns", n)
	}
	call(t, srv, "POST", "/v1/memories", map[string]any{"id": "alex"})
	status, body, _ = call(t, srv, "GET", "/v1/memories", nil)
	if ids, _ := json.Marshal(body["memories"]); status != 200 || string(ids) != `["alex","dana"]` {
		t.Errorf("list: %d %s", status, ids)
	}
	status, body, _ = call(t, srv, "GET", "/v1/memories/dana", nil)
	if status != 200 || body["id"] != "dana" {
		t.Errorf("get: %d %v", status, body)
	}
	status, body, h = call(t, srv, "GET", "/v1/memories/nobody", nil)
	isProblem(t, "get unknown", status, body, h, http.StatusNotFound, "no such memory")
	if status, _, _ = call(t, srv, "DELETE", "/v1/memories/dana", nil); status != http.StatusNoContent {
		t.Errorf("delete: %d", status)
	}
	status, body, h = call(t, srv, "GET", "/v1/memories/dana", nil)
	isProblem(t, "get deleted", status, body, h, http.StatusNotFound, "no such memory")
	status, body, h = call(t, srv, "DELETE", "/v1/memories/dana", nil)
	isProblem(t, "delete again", status, body, h, http.StatusNotFound, "no such memory")
	if n := store.turns(t, "dana"); n != -1 {
		t.Error("the deleted memory is still there")
	}
}

func TestTurnsAndContext(t *testing.T) {
	srv, store := service(t)
	call(t, srv, "POST", "/v1/memories", map[string]any{"id": "dana"})
	turns := map[string]any{"conversation": "c1", "turns": []map[string]any{
		{"role": "user", "content": "Which database should the ledger use?", "id": "m1"},
		{"role": "assistant", "content": "Use PostgreSQL: the ledger needs transactions, and SQLite locks the whole file on writes.", "id": "m2"},
		{"role": "user", "content": "OK, we decided to use PostgreSQL for the ledger.", "id": "m3", "time": "2026-11-01T10:00:00Z"},
	}}
	status, body, _ := call(t, srv, "POST", "/v1/memories/dana/turns", turns)
	if status != 200 || body["added"] != float64(3) || body["first"] != float64(1) {
		t.Fatalf("append: %d %v", status, body)
	}
	status, body, _ = call(t, srv, "POST", "/v1/memories/dana/turns", turns)
	if status != 200 || body["added"] != float64(0) || body["held"] != float64(3) {
		t.Errorf("append again: %d %v", status, body)
	}
	// An id with white space around it is the id.
	status, body, _ = call(t, srv, "POST", "/v1/memories/dana/turns", map[string]any{"conversation": " c1 ", "turns": []map[string]any{
		{"role": "user", "content": "Which database should the ledger use?", "id": " m1 "}}})
	if status != 200 || body["held"] != float64(1) {
		t.Errorf("append with spaces around the id: %d %v", status, body)
	}
	status, body, _ = call(t, srv, "POST", "/v1/memories/dana/context", map[string]any{"question": "What database does the ledger use?", "budget": 500})
	if text, _ := body["text"].(string); status != 200 || !strings.Contains(text, "PostgreSQL") || body["tokens"].(float64) > 500 {
		t.Errorf("context: %d %v", status, body)
	}
	if items, _ := body["items"].([]any); len(items) == 0 || body["tokenizer"] != "cl100k" {
		t.Errorf("context without items, or not counted by cl100k: %v", body)
	}
	_, body, _ = call(t, srv, "POST", "/v1/memories/dana/context", map[string]any{"question": "What database does the ledger use?", "budget": 500, "tokenizer": "o200k"})
	if body["tokenizer"] != "o200k" {
		t.Errorf("asked for o200k: %v", body)
	}
	// As of a time: what was said by then, nothing after.
	status, body, _ = call(t, srv, "POST", "/v1/memories/dana/context", map[string]any{"question": "What database does the ledger use?", "at": "2026-11-02T00:00:00Z"})
	if items, _ := body["items"].([]any); status != 200 || len(items) == 0 {
		t.Errorf("context at a time: %d %v", status, body)
	} else {
		for _, it := range items {
			if ts, _ := it.(map[string]any)["timestamp"].(string); ts == "" || ts > "2026-11-02" {
				t.Errorf("context at 2 November 2026 holds %v", it)
			}
		}
	}
	// The store holds the turns, for every other server.
	if n := store.turns(t, "dana"); n != 3 {
		t.Errorf("another server reads %d turns, want 3", n)
	}

	for _, c := range []struct {
		what   string
		path   string
		body   any
		status int
		want   string
	}{
		{"no content", "/v1/memories/dana/turns", map[string]any{"turns": []map[string]any{{"role": "user", "content": ""}}}, 422, "content"},
		{"a role that is none", "/v1/memories/dana/turns", map[string]any{"turns": []map[string]any{{"role": "narrator", "content": "x"}}}, 422, "role"},
		{"no turns", "/v1/memories/dana/turns", map[string]any{"turns": []any{}}, 422, "turns"},
		{"a field that is not one", "/v1/memories/dana/turns", map[string]any{"turns": []map[string]any{{"role": "user", "content": "x"}}, "colour": 1}, 422, "colour"},
		{"a time that does not parse", "/v1/memories/dana/turns", map[string]any{"turns": []map[string]any{{"role": "user", "content": "x", "time": "yesterday"}}}, 422, "time"},
		{"not JSON", "/v1/memories/dana/turns", `{"turns": [`, 400, "unexpected"},
		{"an unknown memory", "/v1/memories/nobody/turns", map[string]any{"turns": []map[string]any{{"role": "user", "content": "x"}}}, 404, "no such memory"},
		{"a budget out of range", "/v1/memories/dana/context", map[string]any{"question": "x", "budget": 0}, 422, "budget"},
		{"a tokenizer that is none", "/v1/memories/dana/context", map[string]any{"question": "x", "tokenizer": "gpt2"}, 422, "tokenizer"},
		{"no question", "/v1/memories/dana/context", map[string]any{}, 422, "question"},
		{"a time that does not parse", "/v1/memories/dana/context", map[string]any{"question": "x", "at": "yesterday"}, 422, "at"},
		{"a body too large", "/v1/memories/dana/turns", `{"turns": [{"role": "user", "content": "` + strings.Repeat("x", serve.MaxBody) + `"}]}`, 413, ""},
	} {
		status, body, h := call(t, srv, "POST", c.path, c.body)
		isProblem(t, c.what, status, body, h, c.status, c.want)
	}
	if n := store.turns(t, "dana"); n != 3 {
		t.Errorf("after the bad requests: %d turns", n)
	}
}

func TestTools(t *testing.T) {
	srv, _ := service(t)
	call(t, srv, "POST", "/v1/memories", map[string]any{"id": "dana"})
	status, body, _ := call(t, srv, "POST", "/v1/memories/dana/tools/save_memory", map[string]any{"content": "User prefers dark mode", "category": "preference", "reasoning": "said so", "scope": "user"})
	if status != 200 || body["error"] != nil {
		t.Fatalf("save_memory: %d %v", status, body)
	}
	status, body, _ = call(t, srv, "POST", "/v1/memories/dana/tools/search_memory", map[string]any{"query": "dark mode"})
	if js, _ := json.Marshal(body); status != 200 || !strings.Contains(string(js), "dark mode") {
		t.Errorf("search_memory: %d %s", status, js)
	}
	// A call the tool refuses is its reply, not a failed request.
	status, body, _ = call(t, srv, "POST", "/v1/memories/dana/tools/save_memory", map[string]any{})
	if status != 200 || body["error"] == nil {
		t.Errorf("save_memory without a fact: %d %v", status, body)
	}
	status, body, h := call(t, srv, "POST", "/v1/memories/dana/tools/rm_rf", map[string]any{})
	isProblem(t, "a tool that is none", status, body, h, 422, "tool")
}

func TestOpenAPI(t *testing.T) {
	srv, _ := service(t)
	status, body, _ := call(t, srv, "GET", "/openapi.json", nil)
	if status != 200 || !strings.HasPrefix(body["openapi"].(string), "3.1") {
		t.Fatalf("%d %v", status, body["openapi"])
	}
	paths, _ := body["paths"].(map[string]any)
	for _, p := range []string{"/healthz", "/v1/memories", "/v1/memories/{id}", "/v1/memories/{id}/turns", "/v1/memories/{id}/context", "/v1/memories/{id}/tools/{tool}"} {
		if paths[p] == nil {
			t.Errorf("the document does not describe %s", p)
		}
	}
	// No page that would load a script from the network.
	if resp, err := http.Get(srv.URL + "/docs"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("/docs: %v %v", err, resp.Status)
	} else {
		resp.Body.Close()
	}
	if status, body, _ := call(t, srv, "GET", "/healthz", nil); status != 200 || body["status"] != "ok" {
		t.Errorf("health: %d %v", status, body)
	}
}

// TestDirKeepsFewOpen: past its bound the store lets go of the memory
// used least recently, and opens it again when asked.
func TestDirKeepsFewOpen(t *testing.T) {
	store, err := serve.NewDir(t.TempDir(), 2, smg.FileOptions{Open: smg.OpenOptions{NoVectors: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	var first smg.Kept
	for i, id := range []string{"a", "b", "c"} {
		f, done, err := store.Create(ctx, serve.Tenant, id, nil)
		if err != nil {
			t.Fatal(err)
		}
		done()
		if i == 0 {
			first = f
		}
	}
	again, done, err := store.Open(ctx, serve.Tenant, "a")
	if err != nil || again == first {
		t.Errorf("a, used least recently, was kept open past the bound: %v", err)
	}
	done()
	if b, done, err := store.Open(ctx, serve.Tenant, "c"); err != nil || b == nil {
		t.Error(err)
	} else {
		done()
	}
	if ids, err := store.List(ctx, serve.Tenant); err != nil || strings.Join(ids, ",") != "a,b,c" {
		t.Errorf("%v %v", ids, err)
	}
}
