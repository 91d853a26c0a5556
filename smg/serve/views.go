package serve

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/view"
	"github.com/smg-memory/smg/spec"
)

// NodePath names a node of a memory.
type NodePath struct {
	MemoryPath
	Node string `path:"node" minLength:"1" maxLength:"500" doc:"The node's id."`
}

// viewProblem is problem, with a node the memory does not hold a 404.
func viewProblem(err error) error {
	if errors.Is(err, view.ErrNoNode) {
		return huma.Error404NotFound(err.Error())
	}
	return problem(err)
}

// types reads node types given as a query.
func types(in []string) []spec.NodeType {
	out := make([]spec.NodeType, len(in))
	for i, t := range in {
		out[i] = spec.NodeType(t)
	}
	return out
}

// viewOf answers a view's request with what read makes of the memory
// id's document, read in place ([smg.Memory.ReadDocument]), and then,
// when then is not nil, with what then adds from the memory outside its
// lock.
func viewOf[T any](ctx context.Context, s *Server, id string, read func(*spec.Document) (T, error), then func(*smg.Memory, T) error) (*struct{ Body T }, error) {
	m, done, err := s.memoryOf(ctx, id)
	if err != nil {
		return nil, problem(err)
	}
	defer done()
	var v T
	m.ReadDocument(func(doc *spec.Document) { v, err = read(doc) })
	if err == nil && then != nil {
		err = then(m, v)
	}
	if err != nil {
		return nil, viewProblem(err)
	}
	return &struct{ Body T }{v}, nil
}

// registerViews adds the endpoints the web views draw: the knowledge map,
// a node's detail and neighbourhood, and the timeline.
func (s *Server) registerViews() {
	mapOp := op("get-map", http.MethodGet, "/v1/memories/{id}/map", "The knowledge map: the most important nodes and their edges", ScopeRead)
	mapOp.Description = "The most important nodes that pass the filters (type, time, current or superseded, text), and the edges among them; total counts those that pass, types what a type filter would show."
	huma.Register(s.api, mapOp, func(ctx context.Context, in *struct {
		MemoryPath
		Limit      int       `query:"limit" minimum:"1" maximum:"5000" default:"300" doc:"The most nodes."`
		Types      []string  `query:"type" enum:"concept,decision,problem,solution,fact,artifact" doc:"Nodes of these types only."`
		From       time.Time `query:"from" doc:"Nodes that came up at or after this time."`
		To         time.Time `query:"to" doc:"Nodes that came up at or before this time."`
		Superseded bool      `query:"superseded" doc:"The nodes that are no longer current too."`
		Query      string    `query:"q" maxLength:"200" doc:"Nodes whose label, description or an alias holds this, in any case."`
	}) (*struct{ Body *view.Map }, error) {
		return viewOf(ctx, s, in.ID, func(doc *spec.Document) (*view.Map, error) {
			return view.MapOf(doc, view.MapOptions{Limit: in.Limit, Types: types(in.Types), From: in.From, To: in.To, Superseded: in.Superseded, Query: in.Query}), nil
		}, nil)
	})

	huma.Register(s.api, op("get-node", http.MethodGet, "/v1/memories/{id}/nodes/{node}", "A node's detail", ScopeRead), func(ctx context.Context, in *NodePath) (*struct{ Body *view.Detail }, error) {
		return viewOf(ctx, s, in.ID, func(doc *spec.Document) (*view.Detail, error) { return view.NodeOf(doc, in.Node) },
			func(m *smg.Memory, d *view.Detail) error { return d.ReadMentions(m.ReadTurns) })
	})

	huma.Register(s.api, op("get-neighbours", http.MethodGet, "/v1/memories/{id}/nodes/{node}/neighbours", "A node and its neighbours", ScopeRead), func(ctx context.Context, in *struct {
		NodePath
		Limit int `query:"limit" minimum:"1" maximum:"5000" default:"300" doc:"The most neighbours, the most important."`
	}) (*struct{ Body *view.Map }, error) {
		return viewOf(ctx, s, in.ID, func(doc *spec.Document) (*view.Map, error) { return view.Neighbours(doc, in.Node, in.Limit) }, nil)
	})

	timeline := op("get-timeline", http.MethodGet, "/v1/memories/{id}/timeline", "Decisions and facts over time", ScopeRead)
	timeline.Description = "The latest decisions and facts (or the types asked for), oldest first, superseded ones included, with their supersede chains."
	huma.Register(s.api, timeline, func(ctx context.Context, in *struct {
		MemoryPath
		Types []string  `query:"type" enum:"concept,decision,problem,solution,fact,artifact" doc:"These types instead of decisions and facts."`
		Limit int       `query:"limit" minimum:"1" maximum:"5000" default:"500" doc:"The most events, the latest."`
		From  time.Time `query:"from" doc:"Events at or after this time."`
		To    time.Time `query:"to" doc:"Events at or before this time."`
	}) (*struct{ Body *view.Timeline }, error) {
		return viewOf(ctx, s, in.ID, func(doc *spec.Document) (*view.Timeline, error) {
			return view.TimelineOf(doc, view.TimelineOptions{Types: types(in.Types), Limit: in.Limit, From: in.From, To: in.To}), nil
		}, nil)
	})
}
