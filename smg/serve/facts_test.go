package serve_test

import (
	"net/http"
	"strings"
	"testing"
)

// facts returns the contents of a memory's facts that a query selects.
func facts(t *testing.T, body map[string]any) []string {
	t.Helper()
	var out []string
	list, _ := body["facts"].([]any)
	for _, f := range list {
		out = append(out, f.(map[string]any)["content"].(string))
	}
	return out
}

func TestFacts(t *testing.T) {
	srv, _ := service(t)
	call(t, srv, "POST", "/v1/memories", map[string]any{"id": "dana"})
	status, body, _ := call(t, srv, "POST", "/v1/memories/dana/facts", map[string]any{"content": "I prefer dark mode"})
	fact, _ := body["fact"].(map[string]any)
	if status != http.StatusCreated || fact["content"] != "User prefers dark mode" || fact["category"] != "preference" || fact["source"] != "user" || fact["origin"] != "user" || body["duplicate"] != false {
		t.Fatalf("remember: %d %v", status, body)
	}
	dark := fact["id"].(string)
	if _, body, _ = call(t, srv, "POST", "/v1/memories/dana/facts", map[string]any{"content": "I prefer dark mode"}); body["duplicate"] != true {
		t.Errorf("remember again: %v", body)
	}
	call(t, srv, "POST", "/v1/memories/dana/facts", map[string]any{"content": "I live in Paris"})
	_, body, _ = call(t, srv, "POST", "/v1/memories/dana/facts", map[string]any{"content": "I live in Berlin"})
	berlin := body["fact"].(map[string]any)["id"].(string)
	if sup, _ := body["supersedes"].([]any); len(sup) != 1 {
		t.Errorf("Berlin supersedes %v", body["supersedes"])
	}
	_, body, _ = call(t, srv, "GET", "/v1/memories/dana/facts", nil)
	if got := strings.Join(facts(t, body), "; "); strings.Contains(got, "Paris") || !strings.Contains(got, "Berlin") || !strings.Contains(got, "dark mode") {
		t.Errorf("current facts: %s", got)
	}
	_, body, _ = call(t, srv, "GET", "/v1/memories/dana/facts?superseded=true", nil)
	if got := strings.Join(facts(t, body), "; "); !strings.Contains(got, "Paris") {
		t.Errorf("with the superseded: %s", got)
	}
	_, body, _ = call(t, srv, "GET", "/v1/memories/dana/facts?category=preference", nil)
	if got := facts(t, body); len(got) != 1 {
		t.Errorf("preferences: %v", got)
	}

	status, body, _ = call(t, srv, "PATCH", "/v1/memories/dana/facts/"+dark, map[string]any{"pinned": true, "content": "User prefers dark mode in every app"})
	if status != 200 || body["pinned"] != true || body["content"] != "User prefers dark mode in every app" {
		t.Errorf("edit and pin: %d %v", status, body)
	}
	if _, body, _ = call(t, srv, "GET", "/v1/memories/dana/facts?pinned=true", nil); len(facts(t, body)) != 1 {
		t.Errorf("pinned: %v", body)
	}
	status, body, _ = call(t, srv, "DELETE", "/v1/memories/dana/facts/"+berlin, nil)
	if restored, _ := body["restored"].([]any); status != 200 || len(restored) != 1 {
		t.Errorf("forget Berlin: %d %v", status, body)
	}
	if _, body, _ = call(t, srv, "GET", "/v1/memories/dana/facts", nil); !strings.Contains(strings.Join(facts(t, body), ";"), "Paris") {
		t.Errorf("Paris is not current again: %v", body)
	}

	for _, c := range []struct {
		what, method, path string
		body               any
		status             int
		want               string
	}{
		{"no content", "POST", "/v1/memories/dana/facts", map[string]any{"content": ""}, 422, "content"},
		{"a category that is none", "POST", "/v1/memories/dana/facts", map[string]any{"content": "x y z", "category": "gossip"}, 422, "category"},
		{"an unknown fact", "DELETE", "/v1/memories/dana/facts/fact-nope", nil, 404, "fact-nope"},
		{"an unknown fact edited", "PATCH", "/v1/memories/dana/facts/fact-nope", map[string]any{"pinned": true}, 404, "fact-nope"},
		{"clear without a scope", "DELETE", "/v1/memories/dana/facts", nil, 422, "scope"},
	} {
		status, body, h := call(t, srv, c.method, c.path, c.body)
		isProblem(t, c.what, status, body, h, c.status, c.want)
	}

	status, body, _ = call(t, srv, "DELETE", "/v1/memories/dana/facts?scope=user", nil)
	if gone, _ := body["forgotten"].([]any); status != 200 || len(gone) != 2 {
		t.Errorf("clear: %d %v", status, body)
	}
	if _, body, _ = call(t, srv, "GET", "/v1/memories/dana/facts?superseded=true", nil); len(facts(t, body)) != 0 {
		t.Errorf("after clear: %v", body)
	}
}
