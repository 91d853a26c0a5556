package view

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// DefaultEvents is how many events a timeline holds by default: the
// latest.
const DefaultEvents = 500

// TimelineOptions choose a timeline's events. The zero value is the
// DefaultEvents latest decisions and facts, superseded or not.
type TimelineOptions struct {
	// Types are the node types shown; decisions and facts when empty.
	Types []spec.NodeType
	// Limit is the most events, the latest; DefaultEvents when 0, at
	// most MaxLimit.
	Limit int
	// From and To, when set, keep the events within them, inclusive.
	From, To time.Time
}

// Timeline is a memory's decisions and facts in the order they came up,
// with the chains of those that superseded others.
type Timeline struct {
	// Events are oldest first.
	Events []Event `json:"events"`
	// Total counts the events the options choose; Events are the latest
	// of them.
	Total int `json:"total"`
	// Chains are the supersede chains among the events' nodes, each
	// oldest first (a node superseded by the next); a chain may name a
	// node that is not among the events.
	Chains [][]string `json:"chains"`
	// Conflicts are the pairs of the events' nodes in conflict, the older
	// first, in the order of the older.
	Conflicts [][2]string `json:"conflicts"`
}

// Event is a node at the time it came up.
type Event struct {
	MapNode
	// Turn is the turn that first mentioned it.
	Turn        int    `json:"turn,omitzero"`
	Description string `json:"description,omitempty"`
	// Outcome is a decision's, Category and Scope a fact's.
	Outcome  string `json:"outcome,omitempty"`
	Category string `json:"category,omitempty"`
	Scope    string `json:"scope,omitempty"`
	// ValidTo is when the node stopped being current.
	ValidTo time.Time `json:"validTo,omitzero"`
	// Supersedes and SupersededBy are the nodes it replaced and those
	// that replaced it.
	Supersedes   []string `json:"supersedes,omitempty"`
	SupersededBy []string `json:"supersededBy,omitempty"`
	// ConflictsWith are the current nodes it is in conflict with: they
	// contradict each other and neither replaced the other.
	ConflictsWith []string `json:"conflictsWith,omitempty"`
}

// TimelineOf returns the timeline of doc that opts choose.
func TimelineOf(doc *spec.Document, opts TimelineOptions) *Timeline {
	g := index(doc)
	types := opts.Types
	if len(types) == 0 {
		types = []spec.NodeType{spec.NodeDecision, spec.NodeFact}
	}
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultEvents
	}
	limit = min(limit, MaxLimit)
	supersedes, by := map[string][]string{}, map[string][]string{}
	for _, e := range doc.SemanticGraph.Edges {
		if e.Relation == spec.RelSupersedes && e.From != e.To {
			supersedes[e.From] = append(supersedes[e.From], e.To)
			by[e.To] = append(by[e.To], e.From)
		}
	}
	conflicts := graph.Conflicts(doc)
	var events []Event
	for i := range doc.SemanticGraph.Nodes {
		n := &doc.SemanticGraph.Nodes[i]
		if !slices.Contains(types, n.Type) {
			continue
		}
		ev := Event{MapNode: g.mapNode(n), Turn: n.FirstMentioned, Description: n.Description, Outcome: n.Outcome,
			Category: n.Category, Scope: n.Scope, ValidTo: n.ValidTo, Supersedes: supersedes[n.ID], SupersededBy: by[n.ID],
			ConflictsWith: conflicts[n.ID]}
		if (!opts.From.IsZero() && ev.Time.Before(opts.From)) || (!opts.To.IsZero() && ev.Time.After(opts.To)) {
			continue
		}
		events = append(events, ev)
	}
	slices.SortFunc(events, func(a, b Event) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.Turn, b.Turn), strings.Compare(a.ID, b.ID))
	})
	t := &Timeline{Total: len(events), Events: events[max(0, len(events)-limit):], Chains: [][]string{}, Conflicts: [][2]string{}}
	if t.Events == nil {
		t.Events = []Event{}
	}
	// A chain starts at a node that supersedes nothing and goes to the
	// node that superseded it, as long as one did.
	inChain := map[string]bool{}
	for _, ev := range t.Events {
		if inChain[ev.ID] || len(ev.SupersededBy) == 0 {
			continue
		}
		// Back to the oldest: the first node, through the nodes it
		// superseded, that superseded none.
		start, seen := ev.ID, map[string]bool{ev.ID: true}
		for olds := supersedes[start]; len(olds) > 0 && !seen[olds[0]]; olds = supersedes[start] {
			start = olds[0]
			seen[start] = true
		}
		chain, seen := []string{start}, map[string]bool{start: true}
		for next := by[start]; len(next) > 0 && !seen[next[0]]; next = by[chain[len(chain)-1]] {
			chain = append(chain, next[0])
			seen[next[0]] = true
		}
		for _, id := range chain {
			inChain[id] = true
		}
		t.Chains = append(t.Chains, chain)
	}
	// A conflict, from the older of its nodes: each pair once.
	shown := map[string]bool{}
	for _, ev := range t.Events {
		shown[ev.ID] = true
		for _, other := range ev.ConflictsWith {
			if shown[other] {
				t.Conflicts = append(t.Conflicts, [2]string{other, ev.ID})
			}
		}
	}
	return t
}
