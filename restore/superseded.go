package restore

import (
	"slices"
	"strings"
	"time"

	"github.com/smg-memory/smg/spec"
)

// Supersession says that something a context includes is no longer
// current: node NodeID (the item's node, or a fact the item's turn
// stated) was superseded, at At, by node By, whose label is Label.
type Supersession struct {
	NodeID string    `json:"nodeId"`
	By     string    `json:"by"`
	Label  string    `json:"label"`
	At     time.Time `json:"at,omitzero"`
}

// superseded is what the engine knows of the nodes that are no longer
// current, worked out by setGraph for each version of the graph.
type superseded struct {
	// by is, for each node whose validity has ended and that a supersedes
	// edge points at, what replaced it (the first of its replacements by
	// id, when several did).
	by map[string]Supersession
	// stated are, by turn, the superseded nodes the turn stated, but for
	// those it stated the replacement of.
	stated map[int][]Supersession
}

// newSuperseded finds the superseded nodes of a graph: the targets of its
// supersedes edges whose validity has ended; source gives the turn each
// node was stated in.
func newSuperseded(nodes map[string]*spec.Node, edges []spec.Edge, source map[string]int) superseded {
	s := superseded{by: map[string]Supersession{}, stated: map[int][]Supersession{}}
	for _, ed := range edges {
		if ed.Relation != spec.RelSupersedes || ed.From == ed.To {
			continue
		}
		old, repl := nodes[ed.To], nodes[ed.From]
		if old == nil || repl == nil || old.ValidTo.IsZero() {
			continue
		}
		if cur, ok := s.by[old.ID]; ok && cur.By < repl.ID {
			continue
		}
		s.by[old.ID] = Supersession{NodeID: old.ID, By: repl.ID, Label: repl.Label, At: old.ValidTo}
	}
	for _, id := range sortedKeys(s.by) {
		// A turn that said what replaced it too ("We switched from
		// SQLite to PostgreSQL") is current.
		if t, ok := source[id]; ok && source[s.by[id].By] != t {
			s.stated[t] = append(s.stated[t], s.by[id])
		}
	}
	return s
}

// supersededNote is what a context's line says of what superseded it:
// "(superseded on 2 May 2024 by: Ana lives in Lisbon)".
func supersededNote(ss []Supersession) string {
	if len(ss) == 0 {
		return ""
	}
	parts := make([]string, 0, len(ss))
	for _, s := range ss {
		p := "superseded"
		if d := dateOf(s.At); d != "" {
			p += " on " + d
		}
		p += " by: " + strings.TrimSuffix(s.Label, ".")
		if !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	return "(" + strings.Join(parts, "; ") + ")"
}

// supersededShare is what a turn that stated a fact superseded since,
// and a superseded node, keep of their score: the current fact ranks
// above the one it replaced, which still goes in when there is room (a
// question may ask where someone lived before).
const supersededShare = 0.7

// demote lowers the turns gathered that stated a node superseded since
// (their "superseded" part, which their score is multiplied by) and the
// superseded nodes among the candidates.
func demote(g *gathering) {
	for n := range g.e.sup.stated {
		if parts := g.turns[n]; parts != nil {
			parts["superseded"] = supersededShare
		}
	}
	for i := range g.out {
		c := &g.out[i]
		if c.item.Kind != "turn" && len(c.item.SupersededBy) > 0 {
			c.item.Score = round4(c.item.Score * supersededShare)
			if c.parts == nil {
				c.parts = map[string]float64{}
			}
			c.parts["superseded"] = supersededShare
		}
	}
}
