// Package web is smg's web interface: a page of plain HTML, CSS and
// JavaScript modules (no build step) that draws a memory from smg serve's
// JSON API on the same origin: the knowledge map, the facts to manage,
// the timeline of decisions and facts, and what a context for a question
// holds. Its files, Cytoscape.js among them (static/vendor, see
// README.md), are embedded in the binary; nothing it shows loads from
// elsewhere.
package web

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed static
var files embed.FS

// Prefix is the path the interface is served under.
const Prefix = "/ui/"

// CSP is the Content-Security-Policy of every file served: scripts,
// styles, fonts and requests of the same origin only.
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'"

// types are the Content-Types of the files served, by extension: set here
// so that no system table of MIME types can change them.
var types = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".json": "application/json",
	".png":  "image/png",
}

// Handler serves the interface under Prefix: index.html at Prefix itself,
// the rest by their path below it; a request for Prefix without its
// trailing slash is redirected to it, and a folder other than Prefix is
// not found.
func Handler() http.Handler {
	static, err := fs.Sub(files, "static")
	if err != nil {
		panic(err) // the embedded folder is there, or the build failed
	}
	fileServer := http.StripPrefix(strings.TrimSuffix(Prefix, "/"), http.FileServerFS(static))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case p == strings.TrimSuffix(Prefix, "/"):
			http.Redirect(w, r, Prefix, http.StatusMovedPermanently)
			return
		case !strings.HasPrefix(p, Prefix), p != Prefix && strings.HasSuffix(p, "/"):
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-cache")
		ext := path.Ext(p)
		if p == Prefix {
			ext = ".html"
		}
		if t, ok := types[ext]; ok {
			h.Set("Content-Type", t)
		}
		fileServer.ServeHTTP(w, r)
	})
}
