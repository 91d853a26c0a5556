package serve_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg/serve"
)

func TestReads(t *testing.T) {
	srv, _ := service(t)
	call(t, srv, "POST", "/v1/memories", map[string]any{"id": "dana"})
	call(t, srv, "POST", "/v1/memories/dana/turns", map[string]any{"conversation": "c1", "turns": []map[string]any{
		{"role": "user", "content": "Which database should the ledger use?", "id": "m1"},
		{"role": "assistant", "content": "PostgreSQL: the ledger needs transactions.", "id": "m2"},
		{"role": "user", "content": "OK, we decided to use PostgreSQL for the ledger instead of SQLite.", "id": "m3"},
	}})

	status, body, _ := call(t, srv, "POST", "/v1/memories/dana/search", map[string]any{"query": "PostgreSQL ledger", "limit": 5})
	if js, _ := json.Marshal(body["results"]); status != 200 || !strings.Contains(string(js), "PostgreSQL") {
		t.Errorf("search: %d %s", status, js)
	}
	status, body, _ = call(t, srv, "POST", "/v1/memories/dana/query", map[string]any{"query": "FIND decisions WHERE CURRENT"})
	nodes, _ := body["nodes"].([]any)
	if status != 200 || len(nodes) == 0 || nodes[0].(map[string]any)["type"] != "decision" {
		t.Errorf("query: %d %v", status, body)
	}
	status, body, h := call(t, srv, "POST", "/v1/memories/dana/query", map[string]any{"query": "FIND decisions WHERE"})
	isProblem(t, "a query that does not parse", status, body, h, http.StatusUnprocessableEntity, "^")

	status, body, _ = call(t, srv, "GET", "/v1/memories/dana/turns?from=2&limit=1", nil)
	turns, _ := body["turns"].([]any)
	if status != 200 || body["total"] != float64(3) || len(turns) != 1 {
		t.Fatalf("turns: %d %v", status, body)
	}
	if tu := turns[0].(map[string]any); tu["turn"] != float64(2) || tu["id"] != "m2" || tu["conversation"] != "c1" || tu["role"] != "assistant" {
		t.Errorf("turn 2: %v", tu)
	}
	if _, body, _ = call(t, srv, "GET", "/v1/memories/dana/turns?from=3&limit=10", nil); len(body["turns"].([]any)) != 1 {
		t.Errorf("from the last: %v", body)
	}
	status, body, h = call(t, srv, "GET", "/v1/memories/dana/turns?limit=0", nil)
	isProblem(t, "a limit out of range", status, body, h, http.StatusUnprocessableEntity, "limit")
}

// TestComposedContext: a context composes a user's memory with a
// workspace's, each item naming its memory; a memory to compose that the
// caller does not reach is not found.
func TestComposedContext(t *testing.T) {
	srv, store := service(t)
	call(t, srv, "POST", "/v1/memories", map[string]any{"id": "dana"})
	if status, body, _ := call(t, srv, "POST", "/v1/memories", map[string]any{"id": "crawler", "scope": "workspace", "name": "crawler"}); status != 201 {
		t.Fatalf("a workspace's memory: %d %v", status, body)
	}
	call(t, srv, "POST", "/v1/memories/dana/facts", map[string]any{"content": "I prefer short answers"})
	call(t, srv, "POST", "/v1/memories/crawler/facts", map[string]any{"content": "The crawler stores pages in S3", "category": "project", "scope": "workspace:crawler"})
	status, body, _ := call(t, srv, "POST", "/v1/memories/dana/context", map[string]any{"question": "Where does the crawler store pages?", "with": []string{"crawler"}})
	text, _ := body["text"].(string)
	if status != 200 || !strings.Contains(text, "S3") || !strings.Contains(text, "short answers") {
		t.Errorf("composed: %d %v", status, body)
	}
	if js, _ := json.Marshal(body["items"]); !strings.Contains(string(js), `"memory":"workspace:crawler"`) {
		t.Errorf("the items do not name the workspace's memory: %s", js)
	}
	status, body, h := call(t, srv, "POST", "/v1/memories/dana/context", map[string]any{"question": "x", "with": []string{"nobody"}})
	isProblem(t, "a memory to compose that is none", status, body, h, http.StatusNotFound, "nobody")
	only, _, _ := store.Keys().Add(context.Background(), serve.Key{Tenant: serve.Tenant, Scope: serve.ScopeRead, Memories: []string{"dana"}})
	status, body, h = callAs(t, srv, only, "POST", "/v1/memories/dana/context", map[string]any{"question": "x", "with": []string{"crawler"}})
	isProblem(t, "a memory to compose the key does not reach", status, body, h, http.StatusNotFound, "crawler")
}
