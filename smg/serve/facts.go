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

// Fact is a fact of a memory, as the service shows it: the "manage
// memories" list of a chat client.
type Fact struct {
	ID         string    `json:"id"`
	Content    string    `json:"content"`
	Category   string    `json:"category" enum:"identity,preference,relationship,project,context"`
	Scope      string    `json:"scope,omitempty" doc:"Whose fact it is: user, user:NAME, workspace:NAME…"`
	Source     string    `json:"source,omitempty" doc:"Who saved it: user or ai."`
	Origin     string    `json:"origin" enum:"conversation,assistant,user" doc:"Where it came from: found in the conversation by smg, saved by the assistant (a model's save_memory), or saved by the user."`
	Kind       string    `json:"kind,omitempty" doc:"What else it is: instruction (a standing instruction to the assistant), goal, request."`
	Pinned     bool      `json:"pinned" doc:"Always in context."`
	Current    bool      `json:"current" doc:"False once a newer fact superseded it."`
	Importance float64   `json:"importance"`
	ValidFrom  time.Time `json:"validFrom,omitzero"`
	ValidTo    time.Time `json:"validTo,omitzero"`
	// ConflictsWith are the current facts (or other nodes) it is in
	// conflict with, by id: in a list of facts only.
	ConflictsWith []string `json:"conflictsWith,omitempty" doc:"The current nodes it contradicts or that contradict it, neither having replaced the other: which holds is for the person to say."`
}

func factOf(n spec.Node) Fact {
	return Fact{ID: n.ID, Content: smg.FactText(n), Category: n.Category, Scope: n.Scope, Source: n.Source, Origin: originOf(n), Kind: string(n.Kind),
		Pinned: n.Pinned, Current: n.ValidTo.IsZero(), Importance: n.Importance, ValidFrom: n.ValidFrom, ValidTo: n.ValidTo}
}

// originOf is where a fact came from: saved by the user, found in the
// conversation by smg's engine (which creates it as "smg"), or saved by
// a model (its save_memory tool, or another program in its name).
func originOf(n spec.Node) string {
	switch {
	case n.Source == spec.SourceUser:
		return "user"
	case n.CreatedBy == "smg":
		return "conversation"
	}
	return "assistant"
}

// factProblem is problem for the errors of facts.
func factProblem(err error) error {
	switch {
	case errors.Is(err, smg.ErrInvalidFact), errors.Is(err, smg.ErrArtifactNode):
		return huma.Error422UnprocessableEntity(err.Error())
	case errors.Is(err, smg.ErrNoNode):
		return huma.Error404NotFound(err.Error())
	case errors.Is(err, smg.ErrDisabled):
		return huma.Error409Conflict(err.Error())
	}
	return problem(err)
}

// FactPath is the fact a request is about.
type FactPath struct {
	MemoryPath
	Fact string `path:"fact" maxLength:"300" doc:"The fact's id."`
}

type factOutput struct{ Body Fact }

type factsOutput struct {
	Body struct {
		Facts []Fact `json:"facts"`
	}
}

// registerFacts adds the endpoints of a memory's facts.
func (s *Server) registerFacts() {
	huma.Register(s.api, op("list-facts", http.MethodGet, "/v1/memories/{id}/facts", "List the facts", ScopeRead), func(ctx context.Context, in *struct {
		MemoryPath
		Category   string   `query:"category" enum:"identity,preference,relationship,project,context," doc:"Facts of this category only."`
		Scopes     []string `query:"scope" doc:"Facts of these scopes, or within them (user holds user:dana)."`
		Superseded bool     `query:"superseded" doc:"The superseded facts too."`
		Pinned     bool     `query:"pinned" doc:"Pinned facts only."`
	}) (*factsOutput, error) {
		m, done, err := s.memoryOf(ctx, in.ID)
		if err != nil {
			return nil, problem(err)
		}
		defer done()
		out := &factsOutput{}
		out.Body.Facts = []Fact{}
		conflicts := m.Conflicts()
		for _, n := range m.Facts(smg.FactFilter{Scopes: in.Scopes, Category: in.Category, Superseded: in.Superseded, Pinned: in.Pinned}) {
			f := factOf(n)
			f.ConflictsWith = conflicts[n.ID]
			out.Body.Facts = append(out.Body.Facts, f)
		}
		return out, nil
	})

	remember := op("remember-fact", http.MethodPost, "/v1/memories/{id}/facts", "Remember a fact", ScopeWrite)
	remember.DefaultStatus = http.StatusCreated
	remember.Description = "Saves a fact, as the person's request (\"I prefer dark mode\" is kept as \"User prefers dark mode\"). A fact the memory holds is not saved again: the answer is that one, with duplicate set. A fact that contradicts a current one supersedes it."
	huma.Register(s.api, remember, func(ctx context.Context, in *struct {
		MemoryPath
		Body struct {
			Content   string `json:"content" minLength:"1" maxLength:"2000"`
			Category  string `json:"category,omitempty" enum:"identity,preference,relationship,project,context," doc:"Guessed from the content when left out."`
			Scope     string `json:"scope,omitempty" maxLength:"200" doc:"Whose fact it is; the memory's own scope when left out."`
			Reasoning string `json:"reasoning,omitempty" maxLength:"2000"`
			Pinned    bool   `json:"pinned,omitempty"`
		}
	}) (*struct {
		Body struct {
			Fact       Fact     `json:"fact"`
			Duplicate  bool     `json:"duplicate"`
			Supersedes []string `json:"supersedes,omitempty"`
		}
	}, error) {
		f, done, err := s.open(ctx, in.ID)
		if err != nil {
			return nil, problem(err)
		}
		defer done()
		b := in.Body
		r, err := f.Remember(ctx, smg.Fact{Content: b.Content, Category: b.Category, Scope: b.Scope, Reasoning: b.Reasoning, Pinned: b.Pinned,
			Source: spec.SourceUser, CreatedBy: "smg serve"})
		if err != nil {
			return nil, factProblem(err)
		}
		out := &struct {
			Body struct {
				Fact       Fact     `json:"fact"`
				Duplicate  bool     `json:"duplicate"`
				Supersedes []string `json:"supersedes,omitempty"`
			}
		}{}
		out.Body.Fact, out.Body.Duplicate, out.Body.Supersedes = factOf(r.Fact), r.Duplicate, r.Supersedes
		return out, nil
	})

	edit := op("edit-fact", http.MethodPatch, "/v1/memories/{id}/facts/{fact}", "Edit, pin or unpin a fact", ScopeWrite)
	edit.Description = "Rewrites the fact (its old text is kept in its history), and pins or unpins it."
	huma.Register(s.api, edit, func(ctx context.Context, in *struct {
		FactPath
		Body struct {
			Content *string `json:"content,omitempty" minLength:"1" maxLength:"2000"`
			Pinned  *bool   `json:"pinned,omitempty"`
		}
	}) (*factOutput, error) {
		f, done, err := s.open(ctx, in.ID)
		if err != nil {
			return nil, problem(err)
		}
		defer done()
		var fact Fact
		err = f.Update(ctx, func(m *smg.Memory) error {
			if c := in.Body.Content; c != nil {
				if _, err := m.EditFact(ctx, in.Fact, *c); err != nil {
					return err
				}
			}
			if p := in.Body.Pinned; p != nil {
				pin := m.Pin
				if !*p {
					pin = m.Unpin
				}
				if err := pin(ctx, in.Fact); err != nil {
					return err
				}
			}
			for _, n := range m.Facts(smg.FactFilter{Superseded: true}) {
				if n.ID == in.Fact {
					fact = factOf(n)
					return nil
				}
			}
			return smg.ErrNoNode
		})
		if err != nil {
			return nil, factProblem(err)
		}
		return &factOutput{fact}, nil
	})

	forget := op("forget-fact", http.MethodDelete, "/v1/memories/{id}/facts/{fact}", "Forget a fact", ScopeWrite)
	forget.Description = "Removes the fact; what it superseded is current again."
	huma.Register(s.api, forget, func(ctx context.Context, in *FactPath) (*struct {
		Body smg.Forgotten
	}, error) {
		f, done, err := s.open(ctx, in.ID)
		if err != nil {
			return nil, problem(err)
		}
		defer done()
		var gone smg.Forgotten
		err = f.Update(ctx, func(m *smg.Memory) error {
			var err error
			gone, err = m.Forget(ctx, in.Fact)
			return err
		})
		if err != nil {
			return nil, factProblem(err)
		}
		return &struct{ Body smg.Forgotten }{gone}, nil
	})

	clear := op("clear-facts", http.MethodDelete, "/v1/memories/{id}/facts", "Forget every fact of a scope", ScopeWrite)
	huma.Register(s.api, clear, func(ctx context.Context, in *struct {
		MemoryPath
		Scope string `query:"scope" required:"true" minLength:"1" doc:"The scope to clear (user clears user:dana too); * clears every fact."`
	}) (*struct {
		Body struct {
			Forgotten []string `json:"forgotten"`
		}
	}, error) {
		f, done, err := s.open(ctx, in.ID)
		if err != nil {
			return nil, problem(err)
		}
		defer done()
		scope := in.Scope
		if scope == "*" {
			scope = ""
		}
		var gone []string
		err = f.Update(ctx, func(m *smg.Memory) error {
			var err error
			if gone, err = m.ClearFacts(ctx, scope); err == nil && len(gone) == 0 {
				return smg.ErrNoChange
			}
			return err
		})
		if err != nil {
			return nil, factProblem(err)
		}
		out := &struct {
			Body struct {
				Forgotten []string `json:"forgotten"`
			}
		}{}
		out.Body.Forgotten = append([]string{}, gone...)
		return out, nil
	})
}
