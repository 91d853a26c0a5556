package restore

import (
	"slices"
	"time"
)

// asOf keeps of the candidates cs what the memory held at time at, as it
// was then (Options.At): the turns said by then; the nodes stated or
// valid from by then; their supersessions by then, a fact superseded
// later being current and scored so; the conflicts of two nodes that both
// existed. Working memory, which is of now, is left out.
func (e *Engine) asOf(cs []cand, at time.Time) []cand {
	out := cs[:0]
	for _, c := range cs {
		if c.item.Section == secWorking || c.item.Timestamp.After(at) {
			continue
		}
		if c.item.Kind == "node" {
			if n := e.nodes[c.item.NodeID]; n == nil || n.ValidFrom.After(at) {
				continue
			}
		}
		sup := slices.DeleteFunc(slices.Clone(c.item.SupersededBy), func(s Supersession) bool { return s.At.IsZero() || s.At.After(at) })
		if len(sup) == 0 && len(c.item.SupersededBy) > 0 {
			if f, ok := c.parts["superseded"]; ok && f > 0 {
				c.item.Score = round4(c.item.Score / f)
				delete(c.parts, "superseded")
			}
		}
		con := slices.DeleteFunc(slices.Clone(c.item.ConflictsWith), func(cf Conflict) bool { return !e.existed(cf.With, at) })
		if len(sup) == 0 {
			sup = nil
		}
		if len(con) == 0 {
			con = nil
		}
		c.item.SupersededBy, c.item.ConflictsWith = sup, con
		c.note = notes(supersededNote(sup), conflictNote(con))
		out = append(out, c)
	}
	return out
}

// existed reports whether node id existed at time at: valid from then or
// before, and stated by a turn said then or before.
func (e *Engine) existed(id string, at time.Time) bool {
	n := e.nodes[id]
	if n == nil || n.ValidFrom.After(at) {
		return false
	}
	if t, ok := e.source[id]; ok {
		if tu, ok := e.turn(t); ok && tu.Timestamp.After(at) {
			return false
		}
	}
	return true
}
