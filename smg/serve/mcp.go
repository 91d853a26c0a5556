package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/mcpserver"
	"github.com/smg-memory/smg/smg/tools"
)

// fileKey holds the memory of an MCP request, open for it.
type fileKey struct{}

// readTools are the tools a key that may only read is served.
var readTools = []string{"get_context", "search_memory"}

// mcpHandler serves the model tools of the memory /mcp/{id} to a remote
// MCP client over streamable HTTP (the go-sdk's transport, stateless),
// with the keys and problems of the other endpoints: a key that may only
// read is served the tools that read.
func (s *Server) mcpHandler() http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		c, _ := r.Context().Value(ctxKey{}).(caller)
		f, _ := r.Context().Value(fileKey{}).(smg.Kept)
		opts := &mcpserver.Options{Version: "1.0.0"}
		if c.key != nil && !c.key.allows(ScopeWrite, r.PathValue("id")) {
			opts.Tools = readTools
		}
		return mcpserver.New(tools.NewKeptHandler(f, nil, nil), opts)
	}, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.PathValue("id")
		status := http.StatusOK
		defer func() {
			s.metrics.duration.WithLabelValues("mcp", strconv.Itoa(status)).Observe(time.Since(start).Seconds())
		}()
		if err := CheckID("memory", id); err != nil {
			status = http.StatusNotFound
			writeProblem(w, &huma.ErrorModel{Status: status, Detail: err.Error()})
			return
		}
		c, refused := s.identify(r.Header.Get("Authorization"), id, ScopeRead)
		var f smg.Kept
		if refused == nil {
			var done func()
			var err error
			if f, done, err = s.store.Open(r.Context(), c.tenant, id); err != nil {
				refused = &huma.ErrorModel{Status: http.StatusNotFound, Detail: err.Error()}
			} else {
				defer done()
			}
		}
		if refused != nil {
			status = refused.Status
			if status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", "Bearer")
			}
			writeProblem(w, refused)
			return
		}
		if s.limit != nil && !s.limit.allow(callerName(c, r.RemoteAddr)) {
			status = http.StatusTooManyRequests
			w.Header().Set("Retry-After", "1")
			writeProblem(w, &huma.ErrorModel{Status: status, Detail: "too many requests"})
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(contextWith(r, c), fileKey{}, f)))
	})
}

// writeProblem writes p as a JSON problem (RFC 9457).
func writeProblem(w http.ResponseWriter, p *huma.ErrorModel) {
	p.Title = http.StatusText(p.Status)
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(p)
}
