package format

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/smg-memory/smg/classify"
	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// nodeField is a field of a node that a merge takes from one side as a
// whole: eq compares it on two nodes, set copies it from src to dst.
type nodeField struct {
	name string
	eq   func(a, b *spec.Node) bool
	set  func(dst, src *spec.Node)
}

// fieldText is the node's text: its label and description, one field.
const fieldText = "text"

// nodeFields are the fields a merge compares with the base: what a person
// or the engine says about a node. The fields of use (mentions,
// importance, activation, aliases, the artifact version) are combined
// instead, and metadata is merged member by member.
var nodeFields = []nodeField{
	{fieldText, func(a, b *spec.Node) bool { return a.Label == b.Label && a.Description == b.Description },
		func(d, s *spec.Node) { d.Label, d.Description = s.Label, s.Description }},
	{"kind", func(a, b *spec.Node) bool { return a.Kind == b.Kind },
		func(d, s *spec.Node) { d.Kind = s.Kind }},
	{"confidence", func(a, b *spec.Node) bool { return a.Confidence == b.Confidence },
		func(d, s *spec.Node) { d.Confidence = s.Confidence }},
	{"validFrom", func(a, b *spec.Node) bool { return a.ValidFrom.Equal(b.ValidFrom) },
		func(d, s *spec.Node) { d.ValidFrom = s.ValidFrom }},
	{"validTo", func(a, b *spec.Node) bool { return a.ValidTo.Equal(b.ValidTo) },
		func(d, s *spec.Node) { d.ValidTo = s.ValidTo }},
	{"pinned", func(a, b *spec.Node) bool { return a.Pinned == b.Pinned },
		func(d, s *spec.Node) { d.Pinned = s.Pinned }},
	{"outcome", func(a, b *spec.Node) bool { return a.Outcome == b.Outcome },
		func(d, s *spec.Node) { d.Outcome = s.Outcome }},
	{"rationale", func(a, b *spec.Node) bool { return a.Rationale == b.Rationale },
		func(d, s *spec.Node) { d.Rationale = s.Rationale }},
	{"alternatives", func(a, b *spec.Node) bool { return reflect.DeepEqual(a.Alternatives, b.Alternatives) },
		func(d, s *spec.Node) { d.Alternatives = slices.Clone(s.Alternatives) }},
	{"timestamp", func(a, b *spec.Node) bool { return a.Timestamp.Equal(b.Timestamp) },
		func(d, s *spec.Node) { d.Timestamp = s.Timestamp }},
	{"category", func(a, b *spec.Node) bool { return a.Category == b.Category },
		func(d, s *spec.Node) { d.Category = s.Category }},
	{"scope", func(a, b *spec.Node) bool { return a.Scope == b.Scope },
		func(d, s *spec.Node) { d.Scope = s.Scope }},
	{"source", func(a, b *spec.Node) bool { return a.Source == b.Source },
		func(d, s *spec.Node) { d.Source = s.Source }},
	{"createdBy", func(a, b *spec.Node) bool { return a.CreatedBy == b.CreatedBy },
		func(d, s *spec.Node) { d.CreatedBy = s.CreatedBy }},
	{"extra", func(a, b *spec.Node) bool { return bytes.Equal(a.Extra, b.Extra) },
		func(d, s *spec.Node) { d.Extra = bytes.Clone(s.Extra) }},
}

// nodeMap returns copies of the nodes of doc by id; none for a nil doc.
func nodeMap(doc *spec.Document) map[string]*spec.Node {
	out := map[string]*spec.Node{}
	if doc == nil {
		return out
	}
	for i := range doc.SemanticGraph.Nodes {
		n := cloneNode(&doc.SemanticGraph.Nodes[i])
		out[n.ID] = n
	}
	return out
}

// cloneNode returns a copy of n that shares no list or map with it.
func cloneNode(n *spec.Node) *spec.Node {
	c := *n
	c.Aliases = slices.Clone(n.Aliases)
	c.Mentions = slices.Clone(n.Mentions)
	c.PreviousSummaries = slices.Clone(n.PreviousSummaries)
	c.Alternatives = slices.Clone(n.Alternatives)
	c.Metadata = maps.Clone(n.Metadata)
	c.Extra = bytes.Clone(n.Extra)
	return &c
}

// mapTheirs gives each node of theirs its id in the merge (its own; ours'
// node of the same entity; a new one when ours uses the id for another
// entity) and lays theirs' nodes out under those ids, their turns shifted.
func (m *merger) mapTheirs() {
	m.bn, m.on = nodeMap(m.base), nodeMap(m.ours)
	m.tid, m.tn = map[string]string{}, map[string]*spec.Node{}
	m.dupes = &factMatcher{}
	theirs := nodeMap(m.theirs)
	taken := map[string]bool{}
	for _, ids := range []map[string]*spec.Node{m.bn, m.on, theirs} {
		for id := range ids {
			taken[id] = true
		}
	}
	for _, doc := range []*spec.Document{m.ours, m.theirs} {
		for id := range doc.ArtifactVault.Artifacts {
			taken[id] = true
		}
	}
	ix := m.entities()
	for _, id := range sortedKeys(theirs) {
		t := theirs[id]
		for i, turn := range t.Mentions {
			t.Mentions[i] = m.shift(turn)
		}
		if t.FirstMentioned > 0 {
			t.FirstMentioned = m.shift(t.FirstMentioned)
		}
		if t.LastMentioned > 0 {
			t.LastMentioned = m.shift(t.LastMentioned)
		}
		to := id
		switch o := m.on[id]; {
		case m.bn[id] != nil: // the base's node: the same on both sides
		case o != nil:
			if !m.sameEntity(o, t) {
				to = renamed(id, taken)
				taken[to] = true
				m.rep.Renamed = append(m.rep.Renamed, MergeRename{From: id, To: to})
			}
		default:
			if oid, by := ix.match(m, t); oid != "" {
				to = oid
				m.rep.Unified = append(m.rep.Unified, MergeUnification{Theirs: id, Ours: oid, By: by})
			}
		}
		m.tid[id] = to
		t.ID = to
		if prev := m.tn[to]; prev != nil {
			// Two nodes of theirs that are one entity of ours: one node.
			t = m.mergeNode(nil, prev, t).node
		}
		m.tn[to] = t
	}
}

// renamed is a new id for a node of theirs whose id ours uses for another
// entity: the id and a short hash, unique among the ids taken.
func renamed(id string, taken map[string]bool) string {
	sum := sha256.Sum256([]byte("theirs\x00" + id))
	base := id
	if len(base) > 110 {
		base = base[:110]
	}
	base += "-" + hex.EncodeToString(sum[:3])
	out := base
	for i := 2; taken[out]; i++ {
		out = base + "-" + strconv.Itoa(i)
	}
	return out
}

// nodeMerge is a node merged from both sides, and what each side changed.
type nodeMerge struct {
	node *spec.Node
	// ours and theirs are the fields only that side changed (against the
	// base); both those both changed to different values, taken from
	// winner by rule.
	ours, theirs, both []string
	winner             Side
	rule               string
}

// winner is the side whose values a merge takes for a field both sides
// changed: the node activated later, then the one of the higher version,
// then ours.
func winner(o, t *spec.Node) (Side, string) {
	switch {
	case t.LastActivated.After(o.LastActivated):
		return Theirs, "later lastActivated"
	case o.LastActivated.After(t.LastActivated):
		return Ours, "later lastActivated"
	case t.Version > o.Version:
		return Theirs, "higher version"
	case o.Version > t.Version:
		return Ours, "higher version"
	}
	return Ours, "ours on a tie"
}

// mergeNode merges ours' and theirs' node of one id against the base's
// (nil: the node is new on both sides, or the memories are unrelated).
func (m *merger) mergeNode(b, o, t *spec.Node) nodeMerge {
	r := nodeMerge{node: cloneNode(o)}
	r.winner, r.rule = winner(o, t)
	out := r.node
	if o.Type != t.Type { // not one thing: the winner's node
		if r.winner == Theirs {
			r.node = cloneNode(t)
		}
		r.both = []string{"type"}
		return r
	}
	for _, f := range nodeFields {
		oc := b == nil || !f.eq(b, o)
		tc := b == nil || !f.eq(b, t)
		switch {
		case f.eq(o, t):
		case !tc:
			r.ours = append(r.ours, f.name)
		case !oc:
			f.set(out, t)
			r.theirs = append(r.theirs, f.name)
		default:
			if r.winner == Theirs {
				f.set(out, t)
			}
			r.both = append(r.both, f.name)
		}
	}
	m.mergeMetadata(&r, b, o, t)

	out.Version = max(o.Version, t.Version)
	out.PreviousSummaries = nil
	for _, s := range append(slices.Clone(o.PreviousSummaries), t.PreviousSummaries...) {
		if !slices.ContainsFunc(out.PreviousSummaries, func(x spec.PreviousSummary) bool { return x.Version == s.Version && x.Text == s.Text }) {
			out.PreviousSummaries = append(out.PreviousSummaries, s)
		}
	}
	if slices.Contains(r.both, fieldText) {
		loser := t
		if r.winner == Theirs {
			loser = o
		}
		if text := nodeText(loser); text != "" && text != nodeText(out) {
			out.PreviousSummaries = append(out.PreviousSummaries, spec.PreviousSummary{Version: out.Version, Text: text, ReplacedAt: m.at})
			out.Version++
		}
	}
	slices.SortStableFunc(out.PreviousSummaries, bySummaryVersion)
	if k := len(out.PreviousSummaries) - spec.MaxPreviousSummaries; k > 0 {
		out.PreviousSummaries = slices.Delete(out.PreviousSummaries, 0, k)
	}
	if len(out.PreviousSummaries) == 0 {
		out.PreviousSummaries = nil
	}

	// The fields of use combine.
	out.Mentions = slices.Sorted(slices.Values(append(slices.Clone(o.Mentions), t.Mentions...)))
	out.Mentions = slices.Compact(out.Mentions)
	if len(out.Mentions) == 0 {
		out.Mentions = nil
	}
	if out.FirstMentioned == 0 || (t.FirstMentioned > 0 && t.FirstMentioned < out.FirstMentioned) {
		out.FirstMentioned = t.FirstMentioned
	}
	out.LastMentioned = max(o.LastMentioned, t.LastMentioned)
	out.Importance = max(o.Importance, t.Importance)
	out.Activation = max(o.Activation, t.Activation)
	out.LastActivated = latest(o.LastActivated, t.LastActivated)
	out.Aliases = mergeAliases(b, o, t, out.Label)
	return r
}

// mergeMetadata merges the members of the nodes' metadata one by one, as
// mergeNode merges fields; without a base, a member of one side only is
// kept.
func (m *merger) mergeMetadata(r *nodeMerge, b, o, t *spec.Node) {
	keys := map[string]bool{}
	for _, n := range []*spec.Node{b, o, t} {
		if n != nil {
			for k := range n.Metadata {
				keys[k] = true
			}
		}
	}
	get := func(n *spec.Node, k string) (any, bool) {
		if n == nil {
			return nil, false
		}
		v, ok := n.Metadata[k]
		return v, ok
	}
	same := func(x any, xok bool, y any, yok bool) bool { return xok == yok && reflect.DeepEqual(x, y) }
	md := map[string]any{}
	var oc, tc, both bool
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		bv, bok := get(b, k)
		ov, ook := get(o, k)
		tv, tok := get(t, k)
		v, ok := ov, ook
		switch {
		case same(ov, ook, tv, tok):
		case b == nil && !(ook && tok):
			if tok {
				v, ok = tv, tok
			}
		case b != nil && same(bv, bok, tv, tok):
			oc = true
		case b != nil && same(bv, bok, ov, ook):
			v, ok, tc = tv, tok, true
		default:
			both = true
			if r.winner == Theirs {
				v, ok = tv, tok
			}
		}
		if ok {
			md[k] = v
		}
	}
	if len(md) == 0 {
		md = nil
	}
	r.node.Metadata = md
	for _, x := range []struct {
		changed bool
		list    *[]string
	}{{oc, &r.ours}, {tc, &r.theirs}, {both, &r.both}} {
		if x.changed {
			*x.list = append(*x.list, "metadata")
		}
	}
}

// mergeAliases combines the aliases of both sides: what either added
// stays, what either removed goes, and the label is not its own alias.
func mergeAliases(b, o, t *spec.Node, label string) []string {
	var out []string
	for _, a := range append(slices.Clone(o.Aliases), t.Aliases...) {
		removed := b != nil && slices.Contains(b.Aliases, a) && (!slices.Contains(o.Aliases, a) || !slices.Contains(t.Aliases, a))
		if a != label && !removed && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}

// nodeText is what a node says: a fact's whole text, another node's
// description or, without one, its label.
func nodeText(n *spec.Node) string {
	switch {
	case n.Type == spec.NodeFact:
		return graph.FactText(n)
	case n.Description != "":
		return n.Description
	}
	return n.Label
}

// editedFields are the fields (of nodeFields, and metadata) in which n
// differs from the base's node b: what makes removing it on the other
// side a conflict.
func editedFields(b, n *spec.Node) []string {
	var out []string
	for _, f := range nodeFields {
		if !f.eq(b, n) {
			out = append(out, f.name)
		}
	}
	if !reflect.DeepEqual(b.Metadata, n.Metadata) && (len(b.Metadata) > 0 || len(n.Metadata) > 0) {
		out = append(out, "metadata")
	}
	return out
}

// mergeNodes merges the nodes of both sides against the base's, and
// records what it did in the report.
func (m *merger) mergeNodes() {
	m.nodes, m.artifactRefs = map[string]*spec.Node{}, map[string][]string{}
	ids := map[string]bool{}
	for _, ns := range []map[string]*spec.Node{m.bn, m.on, m.tn} {
		for id := range ns {
			ids[id] = true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		b, o, t := m.bn[id], m.on[id], m.tn[id]
		switch {
		case o != nil && t != nil:
			r := m.mergeNode(b, o, t)
			m.keep(r.node, o, t)
			if b != nil && len(r.ours) > 0 {
				m.change(Ours, MergeChanged, id, nil, r.ours)
			}
			if b != nil && len(r.theirs) > 0 {
				m.change(Theirs, MergeChanged, id, nil, r.theirs)
			}
			if len(r.both) > 0 {
				m.rep.Resolved = append(m.rep.Resolved, MergeResolution{Node: id, Fields: r.both, Winner: r.winner, Rule: r.rule})
			}
		case o != nil && b == nil:
			m.keep(o, o, nil)
			m.change(Ours, MergeAdded, id, nil, nil)
		case t != nil && b == nil:
			m.keep(t, nil, t)
			m.change(Theirs, MergeAdded, id, nil, nil)
		case o != nil:
			m.removedOn(Theirs, b, o, nil)
		case t != nil:
			m.removedOn(Ours, b, nil, t)
		}
	}
}

// removedOn decides a node of the base that one side removed and the
// other kept as o or t: removed, unless the other side changed it or
// mentioned it in turns after the base's, which is a conflict.
func (m *merger) removedOn(remover Side, b, o, t *spec.Node) {
	kept := cmp.Or(o, t)
	fields := editedFields(b, kept)
	if slices.ContainsFunc(kept.Mentions, func(turn int) bool { return turn > m.baseN }) {
		// Mentioned in turns the remover never saw: a node pruned as
		// untouched that the other side touched again.
		fields = append(fields, "new mentions")
	}
	if len(fields) == 0 {
		m.change(remover, MergeRemoved, b.ID, nil, nil)
		return
	}
	c := MergeConflict{Node: b.ID, RemovedBy: remover, Fields: fields, Chosen: m.opts.Prefer}
	m.rep.Conflicts = append(m.rep.Conflicts, c)
	if c.Chosen != "" && c.Chosen != remover {
		m.keep(kept, o, t)
	}
}

// keep puts n into the merge; o and t are the sides' nodes it comes from,
// whose artifact versions an artifact node refers to.
func (m *merger) keep(n, o, t *spec.Node) {
	m.nodes[n.ID] = n
	if n.Type != spec.NodeArtifact {
		return
	}
	for _, x := range []struct {
		n   *spec.Node
		doc *spec.Document
	}{{o, m.ours}, {t, m.theirs}} {
		if x.n == nil || x.n.ArtifactVersion < 1 {
			continue
		}
		if a, ok := x.doc.ArtifactVault.Artifacts[x.n.ArtifactID]; ok && x.n.ArtifactVersion <= len(a.Versions) {
			m.artifactRefs[n.ID] = append(m.artifactRefs[n.ID], a.Versions[x.n.ArtifactVersion-1].Hash)
		}
	}
}

// change records a change of one side that the merge took in.
func (m *merger) change(side Side, op, node string, edge *MergeEdge, fields []string) {
	m.rep.Changes = append(m.rep.Changes, MergeChange{Side: side, Op: op, Node: node, Edge: edge, Fields: fields})
}

// edgeKey is an edge's identity.
type edgeKey struct {
	from, to string
	rel      spec.Relation
}

// mergeEdges merges the edges of both sides against the base's, between
// the merged nodes.
func (m *merger) mergeEdges() {
	collect := func(doc *spec.Document, ids map[string]string) map[edgeKey]spec.Edge {
		out := map[edgeKey]spec.Edge{}
		if doc == nil {
			return out
		}
		for _, e := range doc.SemanticGraph.Edges {
			if ids != nil {
				e.From, e.To = ids[e.From], ids[e.To]
			}
			if e.From == "" || e.To == "" || e.From == e.To {
				continue
			}
			k := edgeKey{e.From, e.To, e.Relation}
			if prev, ok := out[k]; !ok || e.Strength > prev.Strength {
				out[k] = e
			}
		}
		return out
	}
	be, oe, te := collect(m.base, nil), collect(m.ours, nil), collect(m.theirs, m.tid)
	keys := map[edgeKey]bool{}
	for _, es := range []map[edgeKey]spec.Edge{be, oe, te} {
		for k := range es {
			keys[k] = true
		}
	}
	sorted := slices.SortedFunc(maps.Keys(keys), func(a, b edgeKey) int {
		return cmp.Or(strings.Compare(a.from, b.from), strings.Compare(a.to, b.to), strings.Compare(string(a.rel), string(b.rel)))
	})
	m.edges = nil
	for _, k := range sorted {
		b, bok := be[k]
		o, ook := oe[k]
		t, tok := te[k]
		if m.nodes[k.from] == nil || m.nodes[k.to] == nil {
			if ook || tok {
				m.rep.DroppedEdges++
			}
			continue
		}
		ref := &MergeEdge{From: k.from, To: k.to, Relation: k.rel}
		switch {
		case ook && tok:
			e := o
			switch {
			case o.Strength == t.Strength:
			case bok && o.Strength == b.Strength:
				e.Strength = t.Strength
				m.change(Theirs, MergeChanged, "", ref, []string{"strength"})
			case bok && t.Strength == b.Strength:
				m.change(Ours, MergeChanged, "", ref, []string{"strength"})
			default:
				w := Ours
				if t.Strength > o.Strength {
					e.Strength, w = t.Strength, Theirs
				}
				m.rep.Resolved = append(m.rep.Resolved, MergeResolution{Edge: ref, Fields: []string{"strength"}, Winner: w, Rule: "stronger"})
			}
			m.edges = append(m.edges, e)
		case ook:
			m.edgeOneSide(Ours, ref, b, bok, o, m.tn)
		case tok:
			m.edgeOneSide(Theirs, ref, b, bok, t, m.on)
		}
	}
}

// edgeOneSide decides an edge that side has and the other does not;
// others are the other side's nodes.
func (m *merger) edgeOneSide(side Side, ref *MergeEdge, b spec.Edge, bok bool, e spec.Edge, others map[string]*spec.Node) {
	other := Theirs
	if side == Theirs {
		other = Ours
	}
	switch {
	case !bok:
		m.edges = append(m.edges, e)
		m.change(side, MergeAdded, "", ref, nil)
	case others[ref.From] == nil || others[ref.To] == nil:
		// The other side removed a node of the edge, which the merge
		// keeps: the edge was not removed for itself.
		m.edges = append(m.edges, e)
	case e.Strength == b.Strength:
		m.change(other, MergeRemoved, "", ref, nil)
	default:
		c := MergeConflict{Edge: ref, RemovedBy: other, Fields: []string{"strength"}, Chosen: m.opts.Prefer}
		m.rep.Conflicts = append(m.rep.Conflicts, c)
		if c.Chosen == side {
			m.edges = append(m.edges, e)
		}
	}
}

// sameEntity reports whether ours' node o and theirs' node t, of one id
// and new on both sides, are one thing: of one type, and of one name (a
// label or an alias in common), one artifact, or one fact.
func (m *merger) sameEntity(o, t *spec.Node) bool {
	switch {
	case o.Type != t.Type:
		return false
	case o.Type == spec.NodeArtifact:
		return o.ArtifactID == t.ArtifactID
	case o.Type == spec.NodeFact:
		return o.Scope == t.Scope && (graph.NameKey(graph.FactText(o)) == graph.NameKey(graph.FactText(t)) || m.dupes.same(o, t))
	}
	names := func(n *spec.Node) []string {
		out := []string{graph.NameKey(n.Label)}
		for _, a := range n.Aliases {
			out = append(out, graph.NameKey(a))
		}
		return out
	}
	on := names(o)
	return slices.ContainsFunc(names(t), func(s string) bool { return slices.Contains(on, s) })
}

// entityIndex finds, for a node of theirs, ours' node of the same entity
// among ours' nodes the base does not have.
type entityIndex struct {
	labels, aliases map[string]string // type and name → ours' node
	facts           []*spec.Node      // ours' current facts
}

// entities indexes ours' nodes that are not the base's: those a node of
// theirs may name under another id.
func (m *merger) entities() *entityIndex {
	ix := &entityIndex{labels: map[string]string{}, aliases: map[string]string{}}
	for _, id := range sortedKeys(m.on) {
		n := m.on[id]
		if m.bn[id] != nil || n.Type == spec.NodeArtifact {
			continue
		}
		k := string(n.Type) + "\x00"
		if _, ok := ix.labels[k+graph.NameKey(n.Label)]; !ok {
			ix.labels[k+graph.NameKey(n.Label)] = id
		}
		for _, a := range n.Aliases {
			if _, ok := ix.aliases[k+graph.NameKey(a)]; !ok {
				ix.aliases[k+graph.NameKey(a)] = id
			}
		}
		if n.Type == spec.NodeFact && n.ValidTo.IsZero() {
			ix.facts = append(ix.facts, n)
		}
	}
	return ix
}

// match returns ours' node of the entity t names, and how it was found
// (see [MergeUnification]), or "".
func (ix *entityIndex) match(m *merger, t *spec.Node) (string, string) {
	if t.Type == spec.NodeArtifact {
		return "", ""
	}
	k := string(t.Type) + "\x00"
	if t.Type == spec.NodeFact {
		if id := ix.labels[k+graph.NameKey(t.Label)]; id != "" && m.on[id].Scope == t.Scope {
			return id, "label"
		}
		if t.ValidTo.IsZero() {
			for _, o := range ix.facts {
				if o.Scope == t.Scope && m.dupes.same(o, t) {
					return o.ID, "fact"
				}
			}
		}
		return "", ""
	}
	if id := ix.labels[k+graph.NameKey(t.Label)]; id != "" {
		return id, "label"
	}
	if id := ix.aliases[k+graph.NameKey(t.Label)]; id != "" {
		return id, "alias"
	}
	for _, a := range t.Aliases {
		if id := cmp.Or(ix.labels[k+graph.NameKey(a)], ix.aliases[k+graph.NameKey(a)]); id != "" {
			return id, "alias"
		}
	}
	return "", ""
}

// factMatcher tells facts that say the same thing, by the test
// [graph.Builder.Remember] applies to a new fact: the same names and
// numbers, the same polarity, and a [classify.Similarity] of at least
// [graph.DuplicateSimilarity].
type factMatcher struct {
	an    *classify.Analyzer
	cache map[string]classify.Statement
}

func (f *factMatcher) statement(n *spec.Node) classify.Statement {
	if f.an == nil {
		f.an, f.cache = classify.New(), map[string]classify.Statement{}
	}
	text := graph.FactText(n)
	st, ok := f.cache[text]
	if !ok {
		st = f.an.Statement(text, graph.FactSubject)
		f.cache[text] = st
	}
	return st
}

// same reports whether two current facts say the same thing.
func (f *factMatcher) same(a, b *spec.Node) bool {
	if !a.ValidTo.IsZero() || !b.ValidTo.IsZero() {
		return false
	}
	return graph.SameFact(f.statement(a), f.statement(b))
}
