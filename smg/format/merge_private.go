package format

import (
	"bytes"
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/smg-memory/smg/spec"
)

// How a collaborator's private part came into a merge ([MergePrivate]).
const (
	PrivateSame   = "same"   // both sides hold the same part
	PrivateOurs   = "ours"   // only ours changed it, or only ours has it
	PrivateTheirs = "theirs" // only theirs changed it, or only theirs has it
	PrivateMerged = "merged" // both changed it: merged as memories are
)

// MergePrivate says how a collaborator's private part was merged: taken
// from one side, or, changed on both, merged itself (in the clear only:
// a part sealed on either side cannot be read, and is a conflict).
type MergePrivate struct {
	Owner string `json:"owner"`
	How   string `json:"how"`
}

// mergePrivate merges the collaborators and their private parts (spec
// §4.5, §4.6): the collaborators of either side, less those the other
// removed from the base; each part as the side that changed it has it,
// merged when both changed it. A part changed on both sides that is
// sealed on either is a conflict: [MergeOptions.Prefer] takes that side's.
func (m *merger) mergePrivate() (collabs []spec.Collaborator, parts []spec.PrivateContext, err error) {
	var b *spec.Document
	if m.base != nil {
		b = m.base
	}
	had := func(d *spec.Document, id string) bool {
		return d != nil && slices.ContainsFunc(d.Metadata.Collaborators, func(c spec.Collaborator) bool { return c.ID == id })
	}
	byID := map[string]spec.Collaborator{}
	kept := map[string]bool{}                              // removed on one side, kept by preference
	for _, d := range []*spec.Document{m.theirs, m.ours} { // ours' names win
		for _, c := range d.Metadata.Collaborators {
			byID[c.ID] = c
		}
	}
	for _, id := range sortedKeys(byID) {
		if had(b, id) && (!had(m.ours, id) || !had(m.theirs, id)) {
			// Removed on one side: a conflict if the other changed their
			// part, as for a node.
			remover, keeper := Ours, m.theirs
			if had(m.ours, id) {
				remover, keeper = Theirs, m.ours
			}
			if samePart(privateOf(b, id), privateOf(keeper, id)) {
				continue
			}
			m.rep.Conflicts = append(m.rep.Conflicts, MergeConflict{Private: id, RemovedBy: remover, Fields: []string{"private part"}, Chosen: m.opts.Prefer})
			if m.opts.Prefer == "" || m.opts.Prefer == remover {
				continue // removed; without a preference the merge fails
			}
			kept[id] = true
		}
		collabs = append(collabs, byID[id])
	}
	for _, c := range collabs {
		pb, po, pt := privateOf(b, c.ID), privateOf(m.ours, c.ID), privateOf(m.theirs, c.ID)
		if kept[c.ID] { // the conflict above: the side preferred, as it is
			if part := cmp.Or(po, pt); part != nil {
				parts = append(parts, *part)
				m.rep.Private = append(m.rep.Private, MergePrivate{Owner: c.ID, How: string(m.opts.Prefer)})
			}
			continue
		}
		how, part, err := m.mergePart(c.ID, pb, po, pt)
		if err != nil {
			return nil, nil, err
		}
		if part != nil {
			parts = append(parts, *part)
			m.rep.Private = append(m.rep.Private, MergePrivate{Owner: c.ID, How: how})
		}
	}
	return collabs, parts, nil
}

// mergePart merges one owner's part as the base (pb), ours (po) and
// theirs (pt) hold it; a nil part is absent.
func (m *merger) mergePart(owner string, pb, po, pt *spec.PrivateContext) (string, *spec.PrivateContext, error) {
	eb, eo, et := samePart(pb, po), samePart(po, pt), samePart(pb, pt)
	switch {
	case eo:
		return PrivateSame, po, nil
	case eb || po == nil && pb == nil: // ours unchanged, or new on theirs only
		return PrivateTheirs, pt, nil
	case et || pt == nil && pb == nil:
		return PrivateOurs, po, nil
	}
	if po == nil || pt == nil || po.Memory == nil || pt.Memory == nil {
		// Removed on one side and changed on the other, or sealed.
		c := MergeConflict{Private: owner, Fields: []string{"private part"}, Chosen: m.opts.Prefer}
		switch {
		case po == nil:
			c.RemovedBy = Ours
		case pt == nil:
			c.RemovedBy = Theirs
		}
		m.rep.Conflicts = append(m.rep.Conflicts, c)
		if m.opts.Prefer == Theirs {
			return PrivateTheirs, pt, nil
		}
		return PrivateOurs, po, nil // Ours, or none: the merge fails on the conflict
	}
	var base *spec.Document
	if pb != nil && pb.Memory != nil {
		base = pb.Memory
	}
	opts := m.opts
	opts.ID = ""
	doc, _, err := Merge(base, po.Memory, pt.Memory, opts)
	if ce, ok := errors.AsType[*ConflictError](err); ok {
		for _, c := range ce.Conflicts {
			c.Private = owner
			m.rep.Conflicts = append(m.rep.Conflicts, c)
		}
		return PrivateMerged, po, nil // the merge fails on the conflicts
	}
	if err != nil {
		return "", nil, &PrivateError{Owner: owner, Err: err}
	}
	return PrivateMerged, &spec.PrivateContext{Owner: owner, Memory: doc}, nil
}

// privateOf is owner's private part in d, or nil.
func privateOf(d *spec.Document, owner string) *spec.PrivateContext {
	if d == nil {
		return nil
	}
	for i := range d.PrivateContexts {
		if d.PrivateContexts[i].Owner == owner {
			return &d.PrivateContexts[i]
		}
	}
	return nil
}

// samePart tells whether two parts are the same: both absent, or the
// same canonical JSON. (An unchanged sealed part keeps its bytes.)
func samePart(a, b *spec.PrivateContext) bool {
	if a == nil || b == nil {
		return a == b
	}
	ja, erra := spec.MarshalCanonical(canonicalPart(*a))
	jb, errb := spec.MarshalCanonical(canonicalPart(*b))
	return erra == nil && errb == nil && bytes.Equal(ja, jb)
}

// canonicalPart is pc with its memory in canonical order.
func canonicalPart(pc spec.PrivateContext) spec.PrivateContext {
	if pc.Memory != nil {
		pc.Memory = canonicalOrder(pc.Memory)
	}
	return pc
}

// privateName names a conflict's private part, for [MergeConflict.String].
func privateName(owner string) string {
	return "the private part of " + strings.TrimSpace(owner)
}
