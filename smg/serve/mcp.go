package serve

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
		c := callerOf(r.Context())
		f, _ := r.Context().Value(fileKey{}).(smg.Kept)
		opts := &mcpserver.Options{Version: "1.0.0"}
		if c.key != nil && !c.key.allows(ScopeWrite, r.PathValue("id")) {
			opts.Tools = readTools
		}
		return mcpserver.New(tools.NewKeptHandler(f, nil, nil), opts)
	}, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &record{}
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		defer func() {
			took := time.Since(start)
			s.metrics.duration.WithLabelValues("mcp", strconv.Itoa(sw.status)).Observe(took.Seconds())
			s.log(r.Context(), r.Method, r.URL.Path, "mcp", sw.status, took, rec)
		}()
		// The whole request, the tool's work with it, within --timeout.
		ctx, cancel := context.WithTimeout(context.WithValue(r.Context(), recordKey{}, rec), cmp.Or(s.opts.Timeout, DefaultTimeout))
		defer cancel()
		c, f, done, err := s.mcpMemory(ctx, r)
		if err != nil {
			p, h := s.refused(ctx, err)
			writeProblem(sw, p, h)
			return
		}
		defer done()
		if s.limit != nil && !s.limit.allow(callerName(c, r.RemoteAddr)) {
			writeProblem(sw, &huma.ErrorModel{Status: http.StatusTooManyRequests, Detail: "too many requests"}, http.Header{"Retry-After": {"1"}})
			return
		}
		body, err := oneMessage(sw, r)
		if err != nil {
			p, h := asProblem(err)
			writeProblem(sw, p, h)
			return
		}
		r = r.WithContext(context.WithValue(contextWith(ctx, c), fileKey{}, f))
		r.Body = io.NopCloser(bytes.NewReader(body))
		if ctx.Err() == nil {
			h.ServeHTTP(sw, r)
		}
		if !sw.wrote && ctx.Err() != nil {
			// Out of time before the call answered: the transport
			// writes nothing then.
			p, h := s.refused(ctx, problem(ctx.Err()))
			writeProblem(sw, p, h)
		}
	})
}

// mcpMemory is the caller of an MCP request and its memory, open for it
// until done; or why the request is refused.
func (s *Server) mcpMemory(ctx context.Context, r *http.Request) (caller, smg.Kept, func(), error) {
	id := r.PathValue("id")
	if err := CheckID("memory", id); err != nil {
		return caller{}, nil, nil, huma.Error404NotFound(err.Error())
	}
	c, err := s.identify(ctx, r.Header.Get("Authorization"), id, ScopeRead)
	if err != nil {
		return caller{}, nil, nil, err
	}
	if rec := recordOf(ctx); rec != nil {
		rec.caller = c
	}
	f, done, err := s.store.Open(ctx, c.tenant, id)
	if err != nil {
		return caller{}, nil, nil, problem(err)
	}
	return c, s.bounded(f), done, nil
}

// oneMessage reads the body of an MCP request, up to MaxBody: one
// JSON-RPC message. A batch of them (a JSON array, which MCP 2025-06-18
// dropped) is refused: each call is a request of its own, counted
// against the caller's rate and bounded by the server's timeout.
func oneMessage(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, huma.Error413RequestEntityTooLarge(fmt.Sprintf("a message may take %d bytes", MaxBody))
	case err != nil:
		return nil, huma.Error400BadRequest("the message could not be read")
	}
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '[' {
		return nil, huma.Error400BadRequest("a batch of JSON-RPC messages is not served: send one message a request")
	}
	return body, nil
}

// statusWriter is a ResponseWriter that keeps the status it was given,
// and whether anything was written.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(status int) {
	w.status, w.wrote = status, true
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// writeProblem writes p as a JSON problem (RFC 9457), with headers h.
func writeProblem(w http.ResponseWriter, p *huma.ErrorModel, h http.Header) {
	if p.Title == "" {
		p.Title = http.StatusText(p.Status)
	}
	for k, vs := range h {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(p)
}
