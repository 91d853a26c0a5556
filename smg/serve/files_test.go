package serve_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/smg-memory/smg/smg/format"
)

// raw sends body as a .smg file and returns the status and the answer.
func raw(t *testing.T, srv *httptest.Server, method, path string, body []byte) (int, []byte, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/vnd.smg")
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header
}

func TestFiles(t *testing.T) {
	srv, _ := service(t)
	call(t, srv, "POST", "/v1/memories", map[string]any{"id": "dana"})
	call(t, srv, "POST", "/v1/memories/dana/turns", map[string]any{"turns": []map[string]any{
		{"role": "user", "content": "We chose PostgreSQL for the ledger."}, {"role": "assistant", "content": "Noted."}}})
	call(t, srv, "POST", "/v1/memories/dana/facts", map[string]any{"content": "I prefer dark mode"})

	status, file, h := raw(t, srv, "GET", "/v1/memories/dana/file", nil)
	if status != 200 || h.Get("Content-Type") != "application/vnd.smg" || h.Get("Content-Disposition") != `attachment; filename="dana.smg"` {
		t.Fatalf("export: %d %v", status, h)
	}
	doc, err := format.Unmarshal(file, nil)
	if err != nil || doc.Metadata.TotalExchanges != 2 {
		t.Fatalf("the exported file: %v", err)
	}

	status, _, _ = raw(t, srv, "PUT", "/v1/memories/copy/file", file)
	if _, body, _ := call(t, srv, "GET", "/v1/memories/copy", nil); status != http.StatusCreated || body["turns"] != float64(2) ||
		body["nodes"] != float64(len(doc.SemanticGraph.Nodes)) || body["edges"] != float64(len(doc.SemanticGraph.Edges)) || len(doc.SemanticGraph.Nodes) == 0 {
		t.Errorf("import: %d %v; the file has %d nodes, %d edges", status, body, len(doc.SemanticGraph.Nodes), len(doc.SemanticGraph.Edges))
	}
	if _, body, _ := call(t, srv, "GET", "/v1/memories/copy/facts", nil); len(facts(t, body)) != 1 {
		t.Errorf("the import's facts: %v", body)
	}
	sealed, err := format.Marshal(doc, &format.EncodeOptions{Password: []byte("correct horse")})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what   string
		path   string
		file   []byte
		status int
		want   string
	}{
		{"an id that is taken", "/v1/memories/dana/file", file, 409, "exists"},
		{"not a .smg", "/v1/memories/x/file", []byte("hello"), 422, "not an smg file"},
		{"cut short", "/v1/memories/x/file", file[:len(file)/2], 422, "smg"},
		{"encrypted", "/v1/memories/x/file", sealed, 422, "smg decrypt"},
	} {
		status, b, h := raw(t, srv, "PUT", c.path, c.file)
		if status != c.status || h.Get("Content-Type") != "application/problem+json" || !bytes.Contains(b, []byte(c.want)) {
			t.Errorf("import %s: %d %s", c.what, status, b)
		}
	}
	if status, _, _ := call(t, srv, "GET", "/v1/memories/x", nil); status != 404 {
		t.Errorf("a refused import left a memory: %d", status)
	}

	status, body, _ := call(t, srv, "POST", "/v1/memories/dana/fork", map[string]any{"id": "dana-try", "name": "an experiment"})
	if status != http.StatusCreated || body["turns"] != float64(2) {
		t.Fatalf("fork: %d %v", status, body)
	}
	_, file, _ = raw(t, srv, "GET", "/v1/memories/dana-try/file", nil)
	fork, err := format.Unmarshal(file, nil)
	if err != nil || fork.Metadata.Lineage == nil || fork.Metadata.ID == doc.Metadata.ID || fork.Metadata.Description != "an experiment" {
		t.Errorf("the fork: %v %+v", err, fork.Metadata)
	}
	status, body, h = call(t, srv, "POST", "/v1/memories/dana/fork", map[string]any{"id": "copy"})
	isProblem(t, "fork onto a memory", status, body, h, http.StatusConflict, "exists")
}
