package serve

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/spec"
)

// Node is a node of a memory's graph, as the service shows it.
type Node struct {
	ID          string    `json:"id"`
	Type        string    `json:"type"`
	Label       string    `json:"label"`
	Description string    `json:"description,omitempty"`
	Outcome     string    `json:"outcome,omitempty" doc:"A decision's outcome."`
	Rationale   string    `json:"rationale,omitempty" doc:"Why a decision was made."`
	Category    string    `json:"category,omitempty"`
	Scope       string    `json:"scope,omitempty"`
	Importance  float64   `json:"importance"`
	Current     bool      `json:"current" doc:"False once its validity ended."`
	Timestamp   time.Time `json:"timestamp,omitzero"`
	Mentions    []int     `json:"mentions,omitempty" doc:"The turns that mention it."`
}

func nodeOf(n spec.Node) Node {
	return Node{ID: n.ID, Type: string(n.Type), Label: n.Label, Description: n.Description, Outcome: n.Outcome, Rationale: n.Rationale,
		Category: n.Category, Scope: n.Scope, Importance: n.Importance, Current: n.ValidTo.IsZero(), Timestamp: n.Timestamp, Mentions: n.Mentions}
}

// Turn is a turn of a memory, as the service shows it.
type Turn struct {
	Turn         int       `json:"turn"`
	Role         string    `json:"role,omitempty"`
	Speaker      string    `json:"speaker,omitempty"`
	Content      string    `json:"content"`
	Time         time.Time `json:"time,omitzero"`
	ID           string    `json:"id,omitempty"`
	Conversation string    `json:"conversation,omitempty"`
}

// open opens the memory id of a request's tenant, as requests use it
// (see bounded); done, when it is no longer used.
func (s *Server) open(ctx context.Context, id string) (smg.Kept, func(), error) {
	f, done, err := s.store.Open(ctx, callerOf(ctx).tenant, id)
	if err != nil {
		return nil, nil, err
	}
	return s.bounded(f), done, nil
}

// memoryOf opens the memory of a request; done, when it is no longer
// used.
func (s *Server) memoryOf(ctx context.Context, id string) (m *smg.Memory, done func(), err error) {
	f, done, err := s.open(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if m, err = f.Memory(ctx); err != nil {
		done()
		return nil, nil, err
	}
	return m, done, nil
}

// registerReads adds the endpoints that read a memory beyond its context.
func (s *Server) registerReads() {
	search := op("search-memory", http.MethodPost, "/v1/memories/{id}/search", "Search a memory", ScopeRead)
	search.Description = "The nodes, turns and archive blocks that match the text best, with their full-text scores, best first."
	huma.Register(s.api, search, func(ctx context.Context, in *struct {
		MemoryPath
		Body struct {
			Query string `json:"query" minLength:"1" maxLength:"10000"`
			Limit int    `json:"limit,omitempty" minimum:"1" maximum:"100" default:"10"`
		}
	}) (*struct {
		Body struct {
			Results []smg.Found `json:"results"`
		}
	}, error) {
		m, done, err := s.memoryOf(ctx, in.ID)
		if err != nil {
			return nil, problem(err)
		}
		defer done()
		found, err := m.Search(ctx, in.Body.Query, in.Body.Limit)
		if err != nil {
			return nil, problem(err)
		}
		out := &struct {
			Body struct {
				Results []smg.Found `json:"results"`
			}
		}{}
		out.Body.Results = append([]smg.Found{}, found...)
		return out, nil
	})

	query := op("query-memory", http.MethodPost, "/v1/memories/{id}/query", "Query a memory's graph", ScopeRead)
	query.Description = `The nodes a query of smg's query language selects, like FIND decisions WHERE topic = "database" AND CURRENT ORDER BY importance DESC LIMIT 5 (spec/smg-v1.md, Appendix B). A query that does not parse is a problem that shows where.`
	huma.Register(s.api, query, func(ctx context.Context, in *struct {
		MemoryPath
		Body struct {
			Query string `json:"query" minLength:"1" maxLength:"10000"`
		}
	}) (*struct {
		Body struct {
			Nodes []Node `json:"nodes"`
		}
	}, error) {
		q, err := smg.ParseQuery(in.Body.Query)
		if qe, ok := errors.AsType[*smg.QueryError](err); ok {
			return nil, huma.Error422UnprocessableEntity("query: " + qe.Error() + "\n" + qe.Excerpt())
		} else if err != nil {
			return nil, problem(err)
		}
		m, done, err := s.memoryOf(ctx, in.ID)
		if err != nil {
			return nil, problem(err)
		}
		defer done()
		nodes, err := q.Run(m.Document(), nil)
		if qe, ok := errors.AsType[*smg.QueryError](err); ok {
			return nil, huma.Error422UnprocessableEntity("query: " + qe.Error() + "\n" + qe.Excerpt())
		} else if err != nil {
			return nil, problem(err)
		}
		out := &struct {
			Body struct {
				Nodes []Node `json:"nodes"`
			}
		}{}
		out.Body.Nodes = []Node{}
		for _, n := range nodes {
			out.Body.Nodes = append(out.Body.Nodes, nodeOf(n))
		}
		return out, nil
	})

	turns := op("list-turns", http.MethodGet, "/v1/memories/{id}/turns", "List a memory's turns", ScopeRead)
	turns.Description = "The turns from one number on, in order, with their whole text."
	huma.Register(s.api, turns, func(ctx context.Context, in *struct {
		MemoryPath
		From  int `query:"from" minimum:"1" default:"1" doc:"The first turn's number."`
		Limit int `query:"limit" minimum:"1" maximum:"1000" default:"100"`
	}) (*struct {
		Body struct {
			Turns []Turn `json:"turns"`
			Total int    `json:"total" doc:"The turns the memory holds."`
		}
	}, error) {
		m, done, err := s.memoryOf(ctx, in.ID)
		if err != nil {
			return nil, problem(err)
		}
		defer done()
		turns, total, err := m.ReadTurns(in.From, in.Limit)
		if err != nil {
			return nil, problem(err)
		}
		out := &struct {
			Body struct {
				Turns []Turn `json:"turns"`
				Total int    `json:"total" doc:"The turns the memory holds."`
			}
		}{}
		out.Body.Total, out.Body.Turns = total, make([]Turn, 0, len(turns))
		for _, t := range turns {
			out.Body.Turns = append(out.Body.Turns, Turn{Turn: t.Turn, Role: t.Role, Speaker: t.Speaker, Content: t.Content, Time: t.Timestamp,
				ID: t.ExternalID, Conversation: t.ConversationID})
		}
		return out, nil
	})
}
