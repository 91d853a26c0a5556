package serve_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
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
