package smg

import (
	"context"
	"fmt"
	"strings"

	"github.com/smg-memory/smg/restore"
	"github.com/smg-memory/smg/spec"
)

// Scope is whose memory this is, a user's or a workspace's (spec §4.3),
// or nil when the memory does not say.
func (m *Memory) Scope() *spec.Scope {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.b != nil {
		return m.b.Scope()
	}
	return m.doc.Metadata.Scope
}

// ComposeOptions shape a context composed from several memories: the
// options of a context, and the boosts of the memories by the kind of
// their scope.
type ComposeOptions struct {
	ContextOptions
	// Boosts multiply the scores of a memory's items by the kind of the
	// memory's scope; nil is restore.ScopeBoosts (the current file
	// 1.5×, the team 1.3×).
	Boosts map[string]float64
}

// Compose assembles one context from several memories, a user's and a
// workspace's say: each is searched and expanded as [Memory.Context] does,
// its items weighted by the boost of its scope's kind, and all compete
// for one budget. Facts take at most their own budget (FactBudget, 500
// tokens by default) under "## About This User" and "## About This
// Workspace"; the rest goes to the graph and history. Each item of the
// provenance names its memory (Found.Memory): the memory's scope, like
// "workspace:crawler", or "memory N" for one without a scope (nothing when
// there is one memory). A memory
// that is off adds nothing. opts may be nil.
func Compose(ctx context.Context, query string, opts *ComposeOptions, memories ...*Memory) (*ContextResult, error) {
	var o ComposeOptions
	if opts != nil {
		o = *opts
	}
	boosts := o.Boosts
	if boosts == nil {
		boosts = restore.ScopeBoosts
	}
	var sources []restore.Source
	for i, m := range memories {
		if !m.Enabled() {
			continue
		}
		e, err := m.engine()
		if err != nil {
			return nil, err
		}
		name, boost := fmt.Sprintf("memory %d", i+1), 1.0
		if s := m.Scope(); s != nil && s.Kind != "" {
			name = s.FactScope()
			kind, _, _ := strings.Cut(name, ":")
			if b, ok := boosts[kind]; ok {
				boost = b
			}
		}
		if len(memories) == 1 {
			name = "" // nothing to tell apart
		}
		sources = append(sources, restore.Source{Engine: e, Name: name, Boost: boost})
	}
	if len(sources) == 0 {
		return restore.Empty(&o.ContextOptions), ctx.Err()
	}
	r, err := restore.Compose(ctx, query, o.ContextOptions, sources...)
	if err == nil {
		r.Warnings = appendPending(r.Warnings, memories...)
	}
	return r, err
}
