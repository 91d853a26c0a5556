// Package serve is smg as an HTTP service (smg serve): memories kept in a
// store, turns appended, contexts asked for, and the model tools called,
// as JSON over HTTP, described by an OpenAPI 3.1 document made from the
// handlers (github.com/danielgtaylor/huma/v2) and served at /openapi.json.
// Every error is a JSON problem (RFC 9457).
//
// Memories belong to tenants. A store with API keys (see [AddKey]) asks
// every request for one, "Authorization: Bearer KEY": the key's tenant is
// the request's, and its scope (read, write, admin) and memories bound what
// it may do; a memory of another tenant, or one the key does not reach, is
// not found. A store without keys serves one tenant, "default", to anyone
// who can reach it: the smg command then listens on the loopback
// interface only.
package serve

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"golang.org/x/sync/semaphore"
	"golang.org/x/time/rate"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/serve/web"
	"github.com/smg-memory/smg/smg/tools"
	"github.com/smg-memory/smg/spec"
)

// Tenant is the tenant of a store without keys.
const Tenant = "default"

// MaxBody bounds a request's body; MaxFile that of a .smg file imported
// over HTTP: a server's bound, below the 512 MiB a reader of the format
// takes (format.DefaultLimits), so that an upload costs a server shared by
// many users no more than a memory of years (38,912 turns are a file of
// 16 MB). A larger file is imported from the command line (smg serve
// import), within the format's limits.
const (
	MaxBody = 8 << 20
	MaxFile = 64 << 20
)

// Server is the HTTP service of the memories of a store.
type Server struct {
	store   Store
	keys    KeyChecker
	opts    Options
	mux     *http.ServeMux
	api     huma.API
	metrics *metrics
	limit   *limiter
	// imports is held by an import while it reads and checks its file:
	// one at a time, so that uploads cost the server one file's memory.
	imports *semaphore.Weighted
}

// New returns the service of the memories of store, with its keys. opts
// may be nil.
func New(store Store, opts *Options) *Server {
	s := &Server{store: store, keys: store.Keys(), mux: http.NewServeMux(), metrics: newMetrics(store), imports: semaphore.NewWeighted(1)}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Rate > 0 {
		s.limit = &limiter{rate: rate.Limit(s.opts.Rate), burst: max(s.opts.Burst, 1), by: map[string]*rate.Limiter{}}
	}
	cfg := huma.DefaultConfig("smg", "1.0.0")
	cfg.Info.Description = "Semantic memory for chat clients: memories, turns, contexts and the model tools."
	// Huma's page of documentation loads its script from a CDN: nothing
	// smg serves reaches the network, so the document is served alone.
	cfg.DocsPath = ""
	// What a failure says goes through tell, before the link to the
	// schema of what is said.
	cfg.Transformers = append([]huma.Transformer{tell}, cfg.Transformers...)
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"key": {Type: "http", Scheme: "bearer", Description: "An API key of the store (smg serve key add), when it has any."},
	}
	s.api = humago.New(s.mux, cfg)
	s.api.UseMiddleware(s.observe, s.authorize, s.throttle)
	s.mux.Handle("GET /metrics", s.metrics.handler())
	s.mux.Handle("/mcp/{id}", s.mcpHandler())
	// The web interface: files only; what it shows, it asks the API for,
	// with the caller's key.
	ui := web.Handler()
	s.mux.Handle("GET "+web.Prefix, ui)
	s.mux.Handle("GET "+strings.TrimSuffix(web.Prefix, "/"), ui)
	s.mux.Handle("GET /{$}", http.RedirectHandler(web.Prefix, http.StatusFound))
	s.register()
	s.registerFacts()
	s.registerFiles()
	s.registerReads()
	s.registerViews()
	return s
}

type ctxKey struct{}

// recordKey holds the *record of a request that observe, the outer
// middleware, makes and logs.
type recordKey struct{}

// record is what the log says of a request beyond its operation and
// status: whose it was (authorize fills it), and the error behind a
// failure of the server (the transformer tell fills it).
type record struct {
	caller caller
	cause  error
}

// recordOf is the record of a request, or nil.
func recordOf(ctx context.Context) *record {
	rec, _ := ctx.Value(recordKey{}).(*record)
	return rec
}

// caller is who a request is from: its tenant, and its key when the store
// has keys.
type caller struct {
	tenant string
	key    *Key
}

// contextWith is ctx with the caller c, for callerOf.
func contextWith(ctx context.Context, c caller) context.Context {
	return context.WithValue(ctx, ctxKey{}, c)
}

// callerOf is the caller of a request that authorize let through.
func callerOf(ctx context.Context) caller {
	c, _ := ctx.Value(ctxKey{}).(caller)
	return c
}

// may reports whether the caller may see the memory id: a key limited to
// some memories sees no other.
func (c caller) may(id string) bool {
	return c.key == nil || c.key.allows(ScopeRead, id)
}

// authorize lets a request through with its caller when the store has no
// keys, or when it gives a key that may do what the operation needs
// (Operation.Metadata["scope"]); otherwise it answers 401, 403 or, for a
// memory the key does not reach, 404.
func (s *Server) authorize(ctx huma.Context, next func(huma.Context)) {
	scope, _ := ctx.Operation().Metadata["scope"].(Scope)
	if scope == "" {
		next(ctx)
		return
	}
	c, err := s.identify(ctx.Context(), ctx.Header("Authorization"), ctx.Param("id"), scope)
	if err != nil {
		p, h := s.refused(ctx.Context(), err)
		for k, vs := range h {
			for _, v := range vs {
				ctx.AppendHeader(k, v)
			}
		}
		_ = huma.WriteErr(s.api, ctx, p.Status, p.Detail)
		return
	}
	s.let(ctx, next, c)
}

// refused is the problem of a request refused before its operation ran,
// and its headers; the error behind a failure of the server goes to the
// request's record.
func (s *Server) refused(ctx context.Context, err error) (*huma.ErrorModel, http.Header) {
	p, h := asProblem(err)
	if p.Status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", "Bearer")
	}
	var f *failure
	if rec := recordOf(ctx); rec != nil && errors.As(err, &f) {
		rec.cause = f.cause
	}
	return p, h
}

// identify is the caller of a request with the Authorization header authz
// on the memory id ("" for none in particular) that needs scope, or why it
// is refused.
func (s *Server) identify(ctx context.Context, authz, id string, scope Scope) (caller, error) {
	on, err := s.keys.Enabled(ctx)
	if err != nil {
		return caller{}, keysUnread(err)
	}
	if !on {
		return caller{tenant: Tenant}, nil
	}
	secret, ok := bearer(authz)
	if !ok {
		return caller{}, &huma.ErrorModel{Status: http.StatusUnauthorized, Detail: "an API key is required: Authorization: Bearer KEY"}
	}
	key, err := s.keys.Check(ctx, secret)
	if err != nil && !errors.Is(err, ErrKey) {
		return caller{}, keysUnread(err)
	} else if err != nil {
		return caller{}, &huma.ErrorModel{Status: http.StatusUnauthorized, Detail: err.Error()}
	}
	switch {
	case id != "" && !key.allows(ScopeRead, id):
		return caller{}, &huma.ErrorModel{Status: http.StatusNotFound, Detail: fmt.Sprintf("%v: %s", ErrNotFound, id)}
	case !key.allows(scope, id):
		return caller{}, &huma.ErrorModel{Status: http.StatusForbidden, Detail: fmt.Sprintf("the key may %s, not %s", key.Scope, scope)}
	}
	return caller{tenant: key.Tenant, key: key}, nil
}

// let lets a request of c through.
func (s *Server) let(ctx huma.Context, next func(huma.Context), c caller) {
	if rec := recordOf(ctx.Context()); rec != nil {
		rec.caller = c
	}
	next(huma.WithValue(ctx, ctxKey{}, c))
}

// op is an operation that needs scope.
func op(id, method, path, summary string, scope Scope) huma.Operation {
	return huma.Operation{OperationID: id, Method: method, Path: path, Summary: summary, MaxBodyBytes: MaxBody,
		Metadata: map[string]any{"scope": scope}, Security: []map[string][]string{{"key": {}}, {}}}
}

// ServeHTTP serves a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mux.ServeHTTP(w, r)
}

// OpenAPI is the service's OpenAPI document.
func (s *Server) OpenAPI() *huma.OpenAPI { return s.api.OpenAPI() }

// Memory is what the service tells of a memory.
type Memory struct {
	ID        string    `json:"id" doc:"The memory's id."`
	Turns     int       `json:"turns" doc:"Turns it holds."`
	Nodes     int       `json:"nodes" doc:"Nodes of its semantic graph."`
	Edges     int       `json:"edges" doc:"Edges of its semantic graph."`
	Artifacts int       `json:"artifacts" doc:"Artifacts of its vault."`
	Modified  time.Time `json:"modified,omitzero" doc:"When it last changed."`
}

// described is the answer of a request that made, or opened, the memory
// id: what it holds, or the problem of err.
func described(ctx context.Context, id string, f smg.Kept, done func(), err error) (*memoryOutput, error) {
	if err != nil {
		return nil, problem(err)
	}
	defer done()
	m, err := describe(ctx, id, f)
	return &memoryOutput{m}, problem(err)
}

func describe(ctx context.Context, id string, f smg.Kept) (Memory, error) {
	m, err := f.Memory(ctx)
	if err != nil {
		return Memory{}, err
	}
	var out Memory
	m.ReadDocument(func(doc *spec.Document) {
		out = Memory{ID: id, Turns: doc.Metadata.TotalExchanges, Nodes: len(doc.SemanticGraph.Nodes), Edges: len(doc.SemanticGraph.Edges),
			Artifacts: len(doc.ArtifactVault.Artifacts), Modified: doc.Metadata.Modified}
	})
	return out, nil
}

// MemoryPath is the memory a request is about.
type MemoryPath struct {
	ID string `path:"id" doc:"The memory's id." pattern:"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"`
}

type memoryOutput struct {
	Body Memory
}

// TurnInput is a turn given to the service.
type TurnInput struct {
	Role    string    `json:"role" enum:"user,assistant,system,tool" doc:"Who wrote it."`
	Content string    `json:"content" minLength:"1" doc:"What was said."`
	Time    time.Time `json:"time,omitzero" doc:"When (RFC 3339); the server's time when left out."`
	ID      string    `json:"id,omitempty" doc:"The message id: a turn with a conversation and id the memory holds is not added again."`
	Speaker string    `json:"speaker,omitempty" doc:"The speaker's name."`
}

type healthOutput struct {
	Body struct {
		Status string `json:"status"`
	}
}

type listOutput struct {
	Body struct {
		Memories []string `json:"memories" doc:"The memories' ids, sorted."`
	}
}

type appendOutput struct {
	Body struct {
		Added int `json:"added" doc:"Turns added."`
		Held  int `json:"held" doc:"Turns the memory held already."`
		First int `json:"first,omitzero" doc:"The number of the first turn added."`
	}
}

func (s *Server) register() {
	huma.Register(s.api, huma.Operation{
		OperationID: "health", Method: http.MethodGet, Path: "/healthz", Summary: "Whether the service runs",
	}, func(ctx context.Context, _ *struct{}) (*healthOutput, error) {
		out := &healthOutput{}
		out.Body.Status = "ok"
		return out, nil
	})

	huma.Register(s.api, huma.Operation{
		OperationID: "ready", Method: http.MethodGet, Path: "/readyz", Summary: "Whether the service can read and write its store",
	}, func(ctx context.Context, _ *struct{}) (*healthOutput, error) {
		if err := s.store.Ready(ctx); err != nil {
			return nil, serverFailed(http.StatusServiceUnavailable, "the store is not ready: the server's log says why", err)
		}
		out := &healthOutput{}
		out.Body.Status = "ready"
		return out, nil
	})

	create := op("create-memory", http.MethodPost, "/v1/memories", "Create a memory", ScopeWrite)
	create.DefaultStatus = http.StatusCreated
	huma.Register(s.api, create, func(ctx context.Context, in *struct {
		Body struct {
			ID      string `json:"id" pattern:"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$" doc:"The new memory's id."`
			Project string `json:"project,omitempty" maxLength:"200" doc:"The project it is the memory of."`
			Scope   string `json:"scope,omitempty" enum:"user,workspace,drive,app,team,file," doc:"Whose memory it is: a user's (the default) or a workspace's; a context composes a user's with workspaces' by it."`
			Name    string `json:"name,omitempty" maxLength:"200" pattern:"^[^:]*$" doc:"The scope's name: the workspace's, the team's… (a context names the memory's items by the scope and this: workspace:crawler)."`
		}
	}) (*memoryOutput, error) {
		c := callerOf(ctx)
		if !c.may(in.Body.ID) {
			return nil, huma.Error403Forbidden("the key may not reach the memory " + in.Body.ID)
		}
		opts := &smg.Options{ProjectName: in.Body.Project, Scope: &spec.Scope{Kind: cmp.Or(in.Body.Scope, spec.ScopeUser), ID: in.Body.Name}}
		f, done, err := s.store.Create(ctx, c.tenant, in.Body.ID, opts)
		return described(ctx, in.Body.ID, f, done, err)
	})

	huma.Register(s.api, op("list-memories", http.MethodGet, "/v1/memories", "List the memories", ScopeRead), func(ctx context.Context, _ *struct{}) (*listOutput, error) {
		c := callerOf(ctx)
		ids, err := s.store.List(ctx, c.tenant)
		if err != nil {
			return nil, problem(err)
		}
		ids = slices.DeleteFunc(ids, func(id string) bool { return !c.may(id) })
		out := &listOutput{}
		out.Body.Memories = ids
		return out, nil
	})

	huma.Register(s.api, op("get-memory", http.MethodGet, "/v1/memories/{id}", "Describe a memory", ScopeRead), func(ctx context.Context, in *MemoryPath) (*memoryOutput, error) {
		f, done, err := s.open(ctx, in.ID)
		return described(ctx, in.ID, f, done, err)
	})

	del := op("delete-memory", http.MethodDelete, "/v1/memories/{id}", "Delete a memory", ScopeAdmin)
	del.DefaultStatus = http.StatusNoContent
	huma.Register(s.api, del, func(ctx context.Context, in *MemoryPath) (*struct{}, error) {
		return nil, problem(s.store.Delete(ctx, callerOf(ctx).tenant, in.ID))
	})

	appendTurns := op("append-turns", http.MethodPost, "/v1/memories/{id}/turns", "Append turns", ScopeWrite)
	appendTurns.Description = "Adds the turns to the memory, in order, durably before it answers. A turn the memory holds already (same conversation and id, or without an id the same author, time and text) is not added again."
	huma.Register(s.api, appendTurns, func(ctx context.Context, in *struct {
		MemoryPath
		Body struct {
			Conversation string      `json:"conversation,omitempty" maxLength:"200" doc:"The conversation the turns are of."`
			Turns        []TurnInput `json:"turns" minItems:"1" maxItems:"1000"`
		}
	}) (*appendOutput, error) {
		f, done, err := s.open(ctx, in.ID)
		if err != nil {
			return nil, problem(err)
		}
		defer done()
		now := time.Now().UTC()
		turns := make([]smg.Turn, len(in.Body.Turns))
		for i, t := range in.Body.Turns {
			at := t.Time
			if at.IsZero() {
				at = now
			}
			// As record_turns reads them: an id, a speaker or a
			// conversation of white space is none.
			turns[i] = smg.Turn{Role: t.Role, Content: t.Content, Timestamp: at, ExternalID: strings.TrimSpace(t.ID),
				Speaker: strings.TrimSpace(t.Speaker), ConversationID: strings.TrimSpace(in.Body.Conversation)}
		}
		rec, err := f.Record(ctx, turns, nil)
		if err != nil {
			return nil, problem(err)
		}
		out := &appendOutput{}
		out.Body.Added, out.Body.Held, out.Body.First = rec.Added, rec.Held, rec.First
		return out, nil
	})

	getContext := op("get-context", http.MethodPost, "/v1/memories/{id}/context", "Assemble the context for a question", ScopeRead)
	getContext.Description = "What a model needs from the memory to answer the question, inside the token budget, with what went in and why."
	huma.Register(s.api, getContext, func(ctx context.Context, in *struct {
		MemoryPath
		Body struct {
			Question   string    `json:"question" minLength:"1" maxLength:"10000"`
			Budget     int       `json:"budget,omitempty" minimum:"1" maximum:"200000" default:"1000" doc:"The most tokens the context may take."`
			Tokenizer  string    `json:"tokenizer,omitempty" enum:"cl100k,o200k,estimate" default:"cl100k" doc:"What counts the tokens: cl100k (GPT-4), o200k (GPT-4o) or estimate (about four bytes a token)."`
			FactBudget int       `json:"factBudget,omitempty" minimum:"0" maximum:"200000" doc:"The most tokens facts may take; 0: smg's default."`
			Left       int       `json:"left,omitempty" minimum:"0" maximum:"100" doc:"How many of the items found that did not fit to tell (left), best first, with the start of their text."`
			Scopes     []string  `json:"scopes,omitempty" doc:"The scopes whose facts may go in; none: every scope."`
			With       []string  `json:"with,omitempty" maxItems:"8" doc:"Other memories of the tenant composed in, a workspace's beside a user's: each is searched, its items weighted by its scope, all within the one budget."`
			At         time.Time `json:"at,omitzero" doc:"Answer from what the memory held at this time (RFC 3339): the turns said by then, the facts current then."`
		}
	}) (*struct{ Body *smg.ContextResult }, error) {
		tok, err := smg.NewTokenizer(in.Body.Tokenizer)
		if err != nil {
			return nil, huma.Error422UnprocessableEntity("tokenizer: " + err.Error())
		}
		m, done, err := s.memoryOf(ctx, in.ID)
		if err != nil {
			return nil, problem(err)
		}
		defer done()
		opts := smg.ContextOptions{Budget: in.Body.Budget, Tokenizer: tok, FactBudget: in.Body.FactBudget, Scopes: in.Body.Scopes, Left: in.Body.Left, Wait: true, At: in.Body.At}
		if len(in.Body.With) > 0 {
			all := []*smg.Memory{m}
			for _, id := range in.Body.With {
				if err := CheckID("memory", id); err != nil {
					return nil, problem(err)
				}
				if !callerOf(ctx).may(id) {
					return nil, problem(fmt.Errorf("%w: %s", ErrNotFound, id))
				}
				w, done, err := s.memoryOf(ctx, id)
				if err != nil {
					return nil, problem(err)
				}
				defer done()
				all = append(all, w)
			}
			res, err := smg.Compose(ctx, in.Body.Question, &smg.ComposeOptions{ContextOptions: opts}, all...)
			if err != nil {
				return nil, problem(err)
			}
			return &struct{ Body *smg.ContextResult }{res}, nil
		}
		res, err := m.Context(ctx, in.Body.Question, &opts)
		if err != nil {
			return nil, problem(err)
		}
		return &struct{ Body *smg.ContextResult }{res}, nil
	})

	callTool := op("call-tool", http.MethodPost, "/v1/memories/{id}/tools/{tool}", "Call a model tool on a memory", ScopeRead)
	callTool.Description = "Calls one of the tools smg gives a model (record_turns, get_context, save_memory, remove_memory, search_memory) with its input, as an MCP client would; a key that may only read calls get_context and search_memory. A call the tool refuses is a reply with an error, not a failed request."
	huma.Register(s.api, callTool, func(ctx context.Context, in *struct {
		MemoryPath
		Tool string `path:"tool" enum:"record_turns,get_context,save_memory,remove_memory,search_memory"`
		Body json.RawMessage
	}) (*struct{ Body tools.Reply }, error) {
		f, done, err := s.open(ctx, in.ID)
		if err != nil {
			return nil, problem(err)
		}
		defer done()
		if c := callerOf(ctx); c.key != nil && !c.key.allows(ScopeWrite, in.ID) && in.Tool != "get_context" && in.Tool != "search_memory" {
			return nil, huma.Error403Forbidden(fmt.Sprintf("the key may %s, and %s writes", c.key.Scope, in.Tool))
		}
		reply, err := tools.NewKeptHandler(f, nil, nil).Call(ctx, in.Tool, in.Body)
		if err != nil {
			return nil, problem(err)
		}
		return &struct{ Body tools.Reply }{reply}, nil
	})
}
