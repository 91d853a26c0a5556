package serve_test

import (
	"fmt"
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

// A fact in conflict with another current one says with which, in the list
// of facts; forgetting one side ends the conflict.
func TestFactsConflicts(t *testing.T) {
	srv, _ := service(t)
	call(t, srv, "POST", "/v1/memories", map[string]any{"id": "dana"})
	status, _, _ := call(t, srv, "POST", "/v1/memories/dana/turns", map[string]any{"conversation": "c1", "turns": []map[string]any{
		{"role": "user", "content": "I'm trying to implement the basic homepage route with Flask, and I have managed to return static HTML, tested at about 150ms.", "time": "2026-03-01T10:00:00Z"},
		{"role": "user", "content": "I'm trying to integrate Chart.js v4.3.0 for rendering expense pie charts on the dashboard.", "time": "2026-03-02T10:00:00Z"},
		{"role": "user", "content": "I have never written any Flask routes or handled HTTP requests in this project.", "time": "2026-03-03T10:00:00Z"},
	}})
	if status != 200 {
		t.Fatalf("append: %d", status)
	}
	_, body, _ := call(t, srv, "GET", "/v1/memories/dana/facts", nil)
	byContent := map[string]map[string]any{}
	for _, f := range body["facts"].([]any) {
		f := f.(map[string]any)
		byContent[f["content"].(string)] = f
	}
	var route, never map[string]any
	for c, f := range byContent {
		switch {
		case strings.Contains(c, "homepage route"):
			route = f
		case strings.Contains(c, "never written"):
			never = f
		}
	}
	if route == nil || never == nil {
		t.Fatalf("facts %v", byContent)
	}
	if fmt.Sprint(route["conflictsWith"]) != fmt.Sprint([]any{never["id"]}) || fmt.Sprint(never["conflictsWith"]) != fmt.Sprint([]any{route["id"]}) {
		t.Errorf("conflicts: route %v, never %v", route["conflictsWith"], never["conflictsWith"])
	}
	for c, f := range byContent {
		if f["origin"] != "conversation" {
			t.Errorf("%q, which the engine found in the turns, has the origin %v", c, f["origin"])
		}
		if f["id"] != route["id"] && f["id"] != never["id"] && f["conflictsWith"] != nil {
			t.Errorf("%q is in conflict: %v", c, f["conflictsWith"])
		}
	}
	if status, _, _ := call(t, srv, "DELETE", "/v1/memories/dana/facts/"+never["id"].(string), nil); status != 204 && status != 200 {
		t.Fatalf("forget: %d", status)
	}
	_, body, _ = call(t, srv, "GET", "/v1/memories/dana/facts", nil)
	for _, f := range body["facts"].([]any) {
		if c := f.(map[string]any)["conflictsWith"]; c != nil {
			t.Errorf("after forgetting a side, a conflict: %v", f)
		}
	}
}
