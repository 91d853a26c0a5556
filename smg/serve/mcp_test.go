package serve_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/smg-memory/smg/smg/serve"
)

// withKey adds an API key to every request.
type withKey struct{ key string }

func (k withKey) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if k.key != "" {
		r.Header.Set("Authorization", "Bearer "+k.key)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens an MCP session, as a remote client would, on url with key.
func connect(t *testing.T, url, key string) (*mcp.ClientSession, error) {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	return client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: url, HTTPClient: &http.Client{Transport: withKey{key}}, DisableStandaloneSSE: true, MaxRetries: -1,
	}, nil)
}

func toolNames(t *testing.T, s *mcp.ClientSession) []string {
	t.Helper()
	list, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// TestMCP: a real MCP client (the go-sdk's, over streamable HTTP) records
// turns and gets a context from a memory; a key that may only read is
// served the tools that read; a memory the key does not reach is not found.
func TestMCP(t *testing.T) {
	srv, store := service(t)
	writer, _, _ := store.Keys().Add(context.Background(), serve.Key{Tenant: "acme", Scope: serve.ScopeWrite})
	reader, _, _ := store.Keys().Add(context.Background(), serve.Key{Tenant: "acme", Scope: serve.ScopeRead})
	other, _, _ := store.Keys().Add(context.Background(), serve.Key{Tenant: "globex", Scope: serve.ScopeAdmin})
	callAs(t, srv, writer, "POST", "/v1/memories", map[string]any{"id": "dana"})

	s, err := connect(t, srv.URL+"/mcp/dana", writer)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := toolNames(t, s); len(got) != 5 {
		t.Errorf("tools %v", got)
	}
	ctx := context.Background()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "record_turns", Arguments: map[string]any{
		"conversation": "c1", "turns": []map[string]any{{"role": "user", "content": "We picked PostgreSQL for the ledger.", "id": "m1"}}}})
	if err != nil || res.IsError {
		t.Fatalf("record_turns: %v %+v", err, res)
	}
	res, err = s.CallTool(ctx, &mcp.CallToolParams{Name: "get_context", Arguments: map[string]any{"query": "Which database for the ledger?"}})
	if err != nil || res.IsError {
		t.Fatalf("get_context: %v %+v", err, res)
	}
	js, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(js), "PostgreSQL") {
		t.Errorf("the context: %s", js)
	}
	if _, body, _ := callAs(t, srv, writer, "GET", "/v1/memories/dana", nil); body["turns"] != float64(1) {
		t.Errorf("the memory after record_turns: %v", body)
	}

	r, err := connect(t, srv.URL+"/mcp/dana", reader)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := toolNames(t, r); !slices.Equal(got, []string{"get_context", "search_memory"}) {
		t.Errorf("a reader's tools: %v", got)
	}

	for _, c := range []struct {
		what, url, key string
		status         int
	}{
		{"no key", "/mcp/dana", "", 401},
		{"another tenant's memory", "/mcp/dana", other, 404},
		{"a memory that is none", "/mcp/nobody", writer, 404},
	} {
		req, _ := http.NewRequest("POST", srv.URL+c.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if c.key != "" {
			req.Header.Set("Authorization", "Bearer "+c.key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status || resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d %s, want %d", c.what, resp.StatusCode, resp.Header.Get("Content-Type"), c.status)
		}
	}
}
