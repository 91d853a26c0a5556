package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/danielgtaylor/huma/v2"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
)

// fileType is the media type of a .smg file (spec §9).
const fileType = "application/vnd.smg"

type fileOutput struct {
	ContentType        string `header:"Content-Type"`
	ContentDisposition string `header:"Content-Disposition"`
	Body               []byte
}

// registerFiles adds the endpoints that move memories as files: export,
// import and fork.
func (s *Server) registerFiles() {
	export := op("export-memory", http.MethodGet, "/v1/memories/{id}/file", "Export a memory as a .smg file", ScopeRead)
	export.Description = "The memory whole (with the changes its journal holds), as the smg command writes it: Brotli-compressed JSON-LD (spec/smg-v1.md), without its vectors unless asked (they are derived from the turns, and a reader makes them again)."
	huma.Register(s.api, export, func(ctx context.Context, in *exportInput) (*fileOutput, error) {
		m, done, err := s.memoryOf(ctx, in.ID)
		if err != nil {
			return nil, problem(err)
		}
		defer done()
		b, err := m.Marshal(&smg.EncodeOptions{WithVectors: in.Vectors})
		if err != nil {
			return nil, problem(err)
		}
		return &fileOutput{ContentType: fileType, ContentDisposition: `attachment; filename="` + in.ID + `.smg"`, Body: b}, nil
	})

	imp := op("import-memory", http.MethodPut, "/v1/memories/{id}/file", "Import a .smg file as a new memory", ScopeWrite)
	imp.DefaultStatus = http.StatusCreated
	imp.Description = fmt.Sprintf("Makes the memory from a .smg file (compressed or plain, not encrypted), checked within the format's limits; a memory of that id is not replaced. A file over %d bytes (the server's bound; `smg serve import` takes a larger one) is refused, 413, as soon as the request says it is or its body reaches the limit.", MaxFile)
	// The body is read by the handler, bounded as it streams in, rather
	// than whole by the framework.
	imp.RequestBody = &huma.RequestBody{Required: true, Description: "The .smg file.",
		Content: map[string]*huma.MediaType{fileType: {Schema: &huma.Schema{Type: "string", Format: "binary"}}}}
	imp.Middlewares = huma.Middlewares{func(ctx huma.Context, next func(huma.Context)) {
		next(huma.WithValue(ctx, bodyKey{}, upload{body: ctx.BodyReader(), length: ctx.Header("Content-Length")}))
	}}
	huma.Register(s.api, imp, func(ctx context.Context, in *MemoryPath) (*memoryOutput, error) {
		c := callerOf(ctx)
		if !c.may(in.ID) {
			return nil, huma.Error403Forbidden("the key may not reach the memory " + in.ID)
		}
		if err := s.imports.Acquire(ctx, 1); err != nil {
			return nil, problem(err)
		}
		defer s.imports.Release(1)
		up, _ := ctx.Value(bodyKey{}).(upload)
		file, err := up.read(MaxFile)
		if err != nil {
			return nil, err
		}
		f, done, err := s.store.Import(ctx, c.tenant, in.ID, file)
		return described(ctx, in.ID, f, done, err)
	})

	fork := op("fork-memory", http.MethodPost, "/v1/memories/{id}/fork", "Fork a memory", ScopeWrite)
	fork.DefaultStatus = http.StatusCreated
	fork.Description = "Copies the memory into a new one that records where it came from (its lineage), as smg fork does."
	huma.Register(s.api, fork, func(ctx context.Context, in *struct {
		MemoryPath
		Body struct {
			ID   string `json:"id" pattern:"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$" doc:"The new memory's id."`
			Name string `json:"name,omitempty" maxLength:"200" doc:"What the fork is for."`
		}
	}) (*memoryOutput, error) {
		c := callerOf(ctx)
		if !c.may(in.Body.ID) {
			return nil, huma.Error403Forbidden("the key may not reach the memory " + in.Body.ID)
		}
		m, done, err := s.memoryOf(ctx, in.ID)
		if err != nil {
			return nil, problem(err)
		}
		defer done()
		doc, err := smg.Fork(m.Document(), smg.ForkOptions{Name: in.Body.Name})
		if err != nil {
			return nil, problem(err)
		}
		// The fork keeps the vectors: its store has no cache of them.
		b, err := format.MarshalMemory(doc, &smg.EncodeOptions{WithVectors: true})
		if err != nil {
			return nil, problem(err)
		}
		nf, done, err := s.store.Import(ctx, c.tenant, in.Body.ID, b)
		return described(ctx, in.Body.ID, nf, done, err)
	})
}

// bodyKey holds the upload of an import.
type bodyKey struct{}

// upload is the body of a request that the handler reads, and the length
// the request said it has ("" when it did not).
type upload struct {
	body   io.Reader
	length string
}

// read reads an upload of up to max bytes: one that says it is larger is
// refused before anything is read, and one that turns out larger is
// refused when it passes max. An upload of a known length costs its
// length in memory, one of an unknown length (chunked) twice its length.
func (u upload) read(max int64) ([]byte, error) {
	tooLarge := huma.Error413RequestEntityTooLarge(fmt.Sprintf("the file is larger than the %d bytes a reader of the format takes", max))
	if u.body == nil {
		return nil, huma.Error400BadRequest("the request has no file")
	}
	if u.length != "" {
		n, err := strconv.ParseInt(u.length, 10, 64)
		switch {
		case err != nil || n < 0:
			return nil, huma.Error400BadRequest("Content-Length is not a length")
		case n > max:
			return nil, tooLarge
		}
		file := make([]byte, n)
		if _, err := io.ReadFull(u.body, file); err != nil {
			return nil, huma.Error400BadRequest("the file could not be read whole")
		}
		return file, nil
	}
	// Chunks of a MiB, joined once the whole file is in.
	var chunks [][]byte
	var size int64
	for {
		chunk := make([]byte, 1<<20)
		n, err := io.ReadFull(u.body, chunk)
		if size += int64(n); size > max {
			return nil, tooLarge
		}
		chunks = append(chunks, chunk[:n])
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return bytes.Join(chunks, nil), nil
		}
		if err != nil {
			return nil, huma.Error400BadRequest("the file could not be read whole")
		}
	}
}

// exportInput is what an export is asked: the memory, and whether its
// file holds its vectors.
type exportInput struct {
	MemoryPath
	Vectors bool `query:"vectors" doc:"Whether the file holds the memory's vectors (spec §8.3): without them it is smaller, and a reader makes them again."`
}
