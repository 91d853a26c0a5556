package serve

import (
	"context"
	"net/http"

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
	export.Description = "The memory whole (with the changes its journal holds), as the smg command writes it: Brotli-compressed JSON-LD (spec/smg-v1.md)."
	huma.Register(s.api, export, func(ctx context.Context, in *MemoryPath) (*fileOutput, error) {
		m, done, err := s.memoryOf(ctx, in.ID)
		if err != nil {
			return nil, problem(err)
		}
		defer done()
		b, err := m.Marshal(nil)
		if err != nil {
			return nil, problem(err)
		}
		return &fileOutput{ContentType: fileType, ContentDisposition: `attachment; filename="` + in.ID + `.smg"`, Body: b}, nil
	})

	imp := op("import-memory", http.MethodPut, "/v1/memories/{id}/file", "Import a .smg file as a new memory", ScopeWrite)
	imp.DefaultStatus = http.StatusCreated
	imp.MaxBodyBytes = MaxFile
	imp.Description = "Makes the memory from a .smg file (compressed or plain, not encrypted), checked within the format's limits; a memory of that id is not replaced."
	huma.Register(s.api, imp, func(ctx context.Context, in *struct {
		MemoryPath
		RawBody []byte `contentType:"application/vnd.smg"`
	}) (*memoryOutput, error) {
		c := callerOf(ctx)
		if !c.may(in.ID) {
			return nil, huma.Error403Forbidden("the key may not reach the memory " + in.ID)
		}
		f, done, err := s.store.Import(ctx, c.tenant, in.ID, in.RawBody)
		return described(in.ID, f, done, err)
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
		b, err := format.MarshalMemory(doc, nil)
		if err != nil {
			return nil, problem(err)
		}
		nf, done, err := s.store.Import(ctx, c.tenant, in.Body.ID, b)
		return described(in.Body.ID, nf, done, err)
	})
}
