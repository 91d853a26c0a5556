package web_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg/serve/web"
)

// csp is the policy every file is served with: nothing from elsewhere.
const csp = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'"

// get requests path of the interface's handler and returns the response
// and its body.
func get(t *testing.T, path string) (*http.Response, string) {
	t.Helper()
	w := httptest.NewRecorder()
	web.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
	res := w.Result()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(body)
}

// TestFiles checks that the page, its modules, its style sheet and the
// vendored Cytoscape.js are served with their types and the policy that
// keeps anything external from loading.
func TestFiles(t *testing.T) {
	for _, c := range []struct{ path, ctype, holds string }{
		{"/ui/", "text/html", `<script type="module" src="app.js">`},
		{"/ui/app.js", "text/javascript", "import "},
		{"/ui/api.js", "text/javascript", "Bearer"},
		{"/ui/style.css", "text/css", "font-family"},
		{"/ui/vendor/cytoscape.min.js", "text/javascript", "cytoscape"},
		{"/ui/vendor/LICENSE", "", "Permission is hereby granted"},
	} {
		res, body := get(t, c.path)
		if res.StatusCode != http.StatusOK {
			t.Errorf("%s: status %d", c.path, res.StatusCode)
			continue
		}
		if got := res.Header.Get("Content-Type"); !strings.HasPrefix(got, c.ctype) {
			t.Errorf("%s: Content-Type %q, want %s", c.path, got, c.ctype)
		}
		if got := res.Header.Get("Content-Security-Policy"); got != csp {
			t.Errorf("%s: Content-Security-Policy %q, want %q", c.path, got, csp)
		}
		if !strings.Contains(body, c.holds) {
			t.Errorf("%s does not hold %q", c.path, c.holds)
		}
	}
}

// TestNotFound checks that what the interface does not hold is not found,
// folders included, and that its path without the slash redirects.
func TestNotFound(t *testing.T) {
	for _, p := range []string{"/ui/nothing.js", "/ui/vendor/", "/ui/static/app.js", "/v1/memories", "/app.js"} {
		if res, _ := get(t, p); res.StatusCode != http.StatusNotFound {
			t.Errorf("%s: status %d, want 404", p, res.StatusCode)
		}
	}
	res, _ := get(t, "/ui")
	if res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != "/ui/" {
		t.Errorf("/ui: status %d to %q, want a redirect to /ui/", res.StatusCode, res.Header.Get("Location"))
	}
}

// TestLocal checks that every module the page imports is served, and
// that the page names nothing outside its origin.
func TestLocal(t *testing.T) {
	_, index := get(t, "/ui/")
	if m := regexp.MustCompile(`(?i)(src|href)="(https?:)?//`).FindString(index); m != "" {
		t.Errorf("index.html loads from elsewhere: %s", m)
	}
	seen := map[string]bool{}
	todo := []string{"app.js"}
	imports := regexp.MustCompile(`(?m)^\s*import\s[^'"]*['"]\./([^'"]+)['"]`)
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		res, body := get(t, "/ui/"+name)
		if res.StatusCode != http.StatusOK {
			t.Errorf("%s: status %d", name, res.StatusCode)
			continue
		}
		if strings.Contains(body, "console.error") {
			t.Errorf("%s calls console.error", name)
		}
		for _, m := range imports.FindAllStringSubmatch(body, -1) {
			todo = append(todo, m[1])
		}
	}
	if len(seen) < 5 {
		t.Errorf("the modules reached from app.js: %v", seen)
	}
}
