package graph

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/smg-memory/smg/artifacts"
	"github.com/smg-memory/smg/classify"
	"github.com/smg-memory/smg/spec"
)

// Defaults of [MaintainOptions].
const (
	// DefaultStaleAfter: a node untouched this long is stale.
	DefaultStaleAfter = 90 * 24 * time.Hour
	// DefaultKeepImportance: a node at least this important is never
	// pruned.
	DefaultKeepImportance = 0.5
	// DefaultMaintainEdgeStrength: maintenance drops the edges weaker
	// than this. (The writer leaves out of the document those weaker than
	// [Config].MinEdgeStrength, 0.3, already: a co-mention seen twice,
	// 0.36, is what maintenance drops.)
	DefaultMaintainEdgeStrength = 0.4
)

// mergedKey is the member of a node's metadata that lists the ids of the
// nodes merged into it (spec §6.3).
const mergedKey = "merged"

// MaintainOptions tell [Builder.Maintain] what to do. The zero value is
// the default of every field.
type MaintainOptions struct {
	// Now is the time maintenance runs at: what "untouched for
	// StaleAfter" is measured against, and the time activation is
	// decayed up to. Zero: the memory's own clock ([Builder.Clock]), not
	// the wall clock, so that a memory imported from an old conversation
	// is not wiped the first time it is maintained.
	Now time.Time
	// StaleAfter: a node whose last mention is older than Now minus
	// StaleAfter is stale. Zero: [DefaultStaleAfter]; negative: prune
	// nothing.
	StaleAfter time.Duration
	// KeepImportance: a node at least this important is never pruned.
	// Zero: [DefaultKeepImportance].
	KeepImportance float64
	// MinEdgeStrength: edges weaker than this are dropped. Zero:
	// [DefaultMaintainEdgeStrength]; negative: drop none.
	MinEdgeStrength float64
	// MaxChain: an artifact whose latest version is more than MaxChain
	// patches from a full copy has that version stored in full. Zero:
	// half the vault's snapshot interval (at least 1); negative: rebase
	// none.
	MaxChain int
	// DryRun: report what maintenance would do, and change nothing.
	DryRun bool
}

// ChangeKind names what one change of maintenance does.
type ChangeKind string

// The kinds of change, in the order maintenance makes them.
const (
	// ChangeMerge: near-duplicate nodes merged into the first of IDs.
	ChangeMerge ChangeKind = "merge"
	// ChangeDropEdge: the edge from IDs[0] to IDs[1] dropped.
	ChangeDropEdge ChangeKind = "drop-edge"
	// ChangePrune: a stale node removed, with its edges.
	ChangePrune ChangeKind = "prune"
	// ChangeDecay: a node's activation decayed up to Now.
	ChangeDecay ChangeKind = "decay"
	// ChangeRebase: an artifact's latest version stored in full.
	ChangeRebase ChangeKind = "rebase"
)

// ChangeKinds are the kinds of change, in the order maintenance makes
// them.
var ChangeKinds = []ChangeKind{ChangeMerge, ChangeDropEdge, ChangePrune, ChangeDecay, ChangeRebase}

// Change is one change maintenance made, or would make.
type Change struct {
	Kind ChangeKind `json:"kind"`
	// IDs: for a merge, the node kept and then those merged into it; for
	// a dropped edge, its from and to nodes; otherwise the one node, or
	// the artifact of a rebase.
	IDs []string `json:"ids"`
	// Relation is the relation of a dropped edge.
	Relation spec.Relation `json:"relation,omitempty"`
	// Before and After are the strength of a dropped edge (After 0), or
	// the activation of a node before and after its decay.
	Before float64 `json:"before,omitzero"`
	After  float64 `json:"after,omitzero"`
	// Detail says what changed, for people.
	Detail string `json:"detail"`
}

// MaintenanceReport is what maintenance did, or would do.
type MaintenanceReport struct {
	// Now is the time it ran at (see [MaintainOptions].Now).
	Now time.Time `json:"now,omitzero"`
	// DryRun: nothing was changed.
	DryRun bool `json:"dryRun,omitempty"`
	// Changes in the order of [ChangeKinds], then of ids.
	Changes []Change `json:"changes"`
}

// Count is the number of changes of a kind.
func (r MaintenanceReport) Count(kind ChangeKind) int {
	n := 0
	for _, c := range r.Changes {
		if c.Kind == kind {
			n++
		}
	}
	return n
}

// latestTime is the time of the latest dated turn: the last turn's, unless
// the archive is not in time order (a merge of unrelated memories puts
// theirs' turns after ours', whatever their dates). Zero without one.
func (b *Builder) latestTime() time.Time {
	var t time.Time
	for _, u := range b.times {
		if u.After(t) {
			t = u
		}
	}
	return t
}

// Clock is the memory's own clock: the later of its latest dated turn's time
// and metadata.maintenance.lastRun (spec §4.7). Edits (a fact remembered,
// a pin, a fork) do not move it: only the conversation and maintenance
// do. Zero for a memory without dated turns.
func (b *Builder) Clock() time.Time {
	t := b.latestTime()
	if mt := b.meta.Maintenance; mt != nil && mt.LastRun.After(t) {
		t = mt.LastRun
	}
	return t
}

// decayClock is the time activation is computed at: the last turn's
// time, or maintenance's clock when it is later (spec §4.7).
func (b *Builder) decayClock(lastTurn time.Time) time.Time {
	if mt := b.meta.Maintenance; mt != nil && mt.LastRun.After(lastTurn) {
		return mt.LastRun
	}
	return lastTurn
}

// CountWrite adds one to the writes since maintenance last ran
// (metadata.maintenance.writesSince) and returns their number.
func (b *Builder) CountWrite() int {
	mt := spec.Maintenance{}
	if b.meta.Maintenance != nil {
		mt = *b.meta.Maintenance
	}
	mt.WritesSince++
	b.meta.Maintenance = &mt // a new value: documents given out share the old
	return mt.WritesSince
}

// Maintain keeps the memory in shape, and reports each change:
//
//   - merge: nodes of the same type (concepts, problems, solutions) that
//     share a name, label or alias (compared as lowercase words) are
//     merged, and so are current facts of the same scope that are
//     duplicates as [Builder.Remember] tells them. The older node is kept
//     (for facts, the one the user gave, then the more important); it
//     takes the others' mentions, aliases and edges (the stronger of two
//     edges between the same nodes), their labels as aliases, and lists
//     their ids in its metadata, "merged", which [Load] follows.
//   - drop-edge: edges weaker than MinEdgeStrength are dropped.
//   - prune: stale nodes are removed: not pinned, never revised (version
//     1), last mentioned (for a fact without mentions, valid from) more
//     than StaleAfter before Now. Kept whatever their age: artifacts and
//     the nodes linked to one, decisions (the record of why), problems
//     and the solutions that solve them (how it was fixed), the people
//     who speak, nodes mentioned by a turn of working memory, and, of
//     facts, all but the current ones the engine found of the categories
//     project and context: the facts the user gave, those of the
//     categories always in context (identity, preference, relationship),
//     and superseded ones (history stays). Other nodes at least
//     KeepImportance important are kept too. Pruning repeats until
//     nothing more is stale, so that a second run finds nothing.
//   - decay: activation is decayed up to Now; each node whose activation
//     falls is reported.
//   - rebase: the latest version of an artifact more than MaxChain
//     patches from a full copy is stored in full: the same content, the
//     same hash.
//
// It then records Now in metadata.maintenance.lastRun and resets
// writesSince. With DryRun it works on a copy of the memory and changes
// nothing; the report is the one a real run would give.
func (b *Builder) Maintain(opts MaintainOptions) (MaintenanceReport, error) {
	if opts.DryRun {
		c, err := Load(b.Document(), b.cfg, nil)
		if err != nil {
			return MaintenanceReport{}, fmt.Errorf("copying the memory for a dry run: %w", err)
		}
		opts.DryRun = false
		r, err := c.Maintain(opts)
		r.DryRun = true
		return r, err
	}
	if opts.Now.IsZero() {
		opts.Now = b.Clock()
	}
	if opts.StaleAfter == 0 {
		opts.StaleAfter = DefaultStaleAfter
	}
	if opts.KeepImportance == 0 {
		opts.KeepImportance = DefaultKeepImportance
	}
	if opts.MinEdgeStrength == 0 {
		opts.MinEdgeStrength = DefaultMaintainEdgeStrength
	}
	if opts.MaxChain == 0 {
		opts.MaxChain = max(1, b.cfg.SnapshotInterval/2)
	}
	r := MaintenanceReport{Now: opts.Now, Changes: []Change{}}
	r.Changes = append(r.Changes, b.mergeNodes()...)
	r.Changes = append(r.Changes, b.mergeFacts()...)
	r.Changes = append(r.Changes, b.dropWeakEdges(opts.MinEdgeStrength)...)
	r.Changes = append(r.Changes, b.pruneStale(opts)...)
	r.Changes = append(r.Changes, b.decayTo(opts.Now)...)
	r.Changes = append(r.Changes, b.rebase(opts.MaxChain)...)
	if len(r.Changes) > 0 {
		b.touchMeta(opts.Now)
	}
	return r, nil
}

// mergeNodes merges the concepts, problems and solutions that share a
// name: their labels, aliases and surface forms, as lowercase words.
func (b *Builder) mergeNodes() []Change {
	parent := map[string]string{}
	var find func(string) string
	find = func(id string) string {
		if p := parent[id]; p != id {
			parent[id] = find(p)
		}
		return parent[id]
	}
	owner := map[string]string{} // type and name → the first node with it
	ids := b.store.IDs()
	for _, id := range ids {
		n := b.store.Node(id)
		if n.Type != spec.NodeConcept && n.Type != spec.NodeProblem && n.Type != spec.NodeSolution {
			continue
		}
		parent[id] = id
		for _, name := range b.names(id) {
			key := string(n.Type) + ":" + NameKey(name)
			if strings.HasSuffix(key, ":") {
				continue
			}
			if o, ok := owner[key]; ok {
				if ro, ri := find(o), find(id); ro != ri {
					parent[ri] = ro
				}
			} else {
				owner[key] = id
			}
		}
	}
	groups := map[string][]string{}
	for _, id := range ids {
		if _, ok := parent[id]; ok {
			groups[find(id)] = append(groups[find(id)], id)
		}
	}
	older := func(x, y string) int {
		a, c := b.store.Node(x), b.store.Node(y)
		first := func(n *spec.Node) int {
			if n.FirstMentioned > 0 {
				return n.FirstMentioned
			}
			return int(^uint(0) >> 1)
		}
		return cmp.Or(cmp.Compare(first(a), first(c)), -cmp.Compare(len(a.Mentions), len(c.Mentions)), strings.Compare(x, y))
	}
	var out []Change
	for _, root := range sortedSet(groups) {
		g := groups[root]
		if len(g) < 2 {
			continue
		}
		slices.SortFunc(g, older)
		out = append(out, b.mergeGroup(g[0], g[1:]))
	}
	return out
}

// names are the names of a node: its label, its aliases and, for a
// concept, the surface forms it was named by.
func (b *Builder) names(id string) []string {
	n := b.store.Node(id)
	out := append([]string{FactText(n), b.labelOf(id)}, n.Aliases...)
	if info := b.info[id]; info != nil {
		out = append(out, sortedSet(info.forms)...)
	}
	return out
}

// labelOf is a node's label as its document gives it.
func (b *Builder) labelOf(id string) string {
	if info := b.info[id]; info != nil && info.forms != nil && b.store.Node(id).Type == spec.NodeConcept {
		label, _ := labelAndAliases(info)
		return label
	}
	return b.store.Node(id).Label
}

// mergeFacts merges the current facts of a scope that are duplicates of
// each other, as [Builder.Remember] tells a duplicate: the one the user
// gave, then the more important, then the older is kept.
func (b *Builder) mergeFacts() []Change {
	byScope := map[string][]string{}
	for _, id := range b.store.IDs() {
		if n := b.store.Node(id); n.Type == spec.NodeFact && n.ValidTo.IsZero() {
			byScope[n.Scope] = append(byScope[n.Scope], id)
		}
	}
	var out []Change
	for _, scope := range sortedSet(byScope) {
		ids := byScope[scope]
		rank := map[string]float64{}
		for _, id := range ids {
			rank[id] = b.factImportance(b.store.Node(id))
		}
		slices.SortFunc(ids, func(x, y string) int {
			a, c := b.store.Node(x), b.store.Node(y)
			user := func(n *spec.Node) int {
				if n.Source == spec.SourceUser {
					return 0
				}
				return 1
			}
			return cmp.Or(cmp.Compare(user(a), user(c)), -cmp.Compare(rank[x], rank[y]),
				a.ValidFrom.Compare(c.ValidFrom), cmp.Compare(a.FirstMentioned, c.FirstMentioned), strings.Compare(x, y))
		})
		gone := map[string]bool{}
		for i, keep := range ids {
			if gone[keep] {
				continue
			}
			st := b.statementOf(keep)
			var dups []string
			for _, other := range ids[i+1:] {
				if !gone[other] && SameFact(st, b.statementOf(other)) {
					dups = append(dups, other)
					gone[other] = true
				}
			}
			if len(dups) > 0 {
				out = append(out, b.mergeGroup(keep, dups))
			}
		}
	}
	slices.SortFunc(out, func(x, y Change) int { return strings.Compare(x.IDs[0], y.IDs[0]) })
	return out
}

// SameFact tells whether two facts' statements (as the analyzer reads
// them with the subject [FactSubject]) say one thing, as
// [Builder.Remember] tells a duplicate: the same names and numbers, the
// same polarity, and terms similar enough.
func SameFact(a, c classify.Statement) bool {
	_, near := closeFacts(a, c)
	return near && a.Negative == c.Negative
}

// mergeGroup merges nodes into keep and reports it.
func (b *Builder) mergeGroup(keep string, others []string) Change {
	slices.Sort(others)
	labels := make([]string, len(others))
	for i, id := range others {
		labels[i] = fmt.Sprintf("%q", b.labelOf(id))
	}
	c := Change{Kind: ChangeMerge, IDs: append([]string{keep}, others...),
		Detail: fmt.Sprintf("%s %q ← %s", b.store.Node(keep).Type, b.labelOf(keep), strings.Join(labels, ", "))}
	for _, id := range others {
		b.absorb(id, keep)
	}
	return c
}

// absorb merges node from into node into: into keeps its id and fields,
// and takes from's mentions, surface forms, edges and label (as an
// alias), its pin and its source when the user gave it; from's names now
// name into. into's metadata lists from (and what from had absorbed).
func (b *Builder) absorb(from, into string) {
	f, t := b.store.Node(from), b.store.Node(into)
	merged := append(mergedIDs(t.Metadata), from)
	merged = append(merged, mergedIDs(f.Metadata)...)
	slices.Sort(merged)
	merged = slices.Compact(merged)
	list := make([]any, len(merged))
	for i, id := range merged {
		list[i] = id
	}
	t.Metadata = cloneMap(t.Metadata)
	if t.Metadata == nil {
		t.Metadata = map[string]any{}
	}
	t.Metadata[mergedKey] = list

	aliases := append(slices.Clone(t.Aliases), f.Aliases...)
	if l := b.labelOf(from); l != b.labelOf(into) {
		aliases = append(aliases, l)
	}
	slices.Sort(aliases)
	t.Aliases = slices.DeleteFunc(slices.Compact(aliases), func(a string) bool { return a == t.Label })
	if len(t.Aliases) == 0 {
		t.Aliases = nil
	}
	t.Pinned = t.Pinned || f.Pinned
	t.Confidence = max(t.Confidence, f.Confidence)
	if f.Source == spec.SourceUser {
		t.Source = spec.SourceUser
	}
	if ti, fi := b.info[into], b.info[from]; ti != nil && fi != nil && ti.forms == nil && fi.forms != nil {
		// A concept the document gave without its forms keeps its label.
		ti.forms, ti.firstForm = map[string]int{t.Label: 1}, t.Label
	}
	b.redirect(from, into)
	b.merge(from, into)
}

// mergedIDs are the ids a node's metadata lists as merged into it.
func mergedIDs(md map[string]any) []string {
	list, _ := md[mergedKey].([]any)
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}

// redirect makes what the builder keeps of node from point at node into:
// the names that find it, the decisions, the predicates of facts, the
// open problems.
func (b *Builder) redirect(from, into string) {
	for k, v := range b.ents.byKey {
		if v == from {
			b.ents.byKey[k] = into
		}
	}
	for k, v := range b.decisionKeys {
		if v == from {
			b.decisionKeys[k] = into
		}
	}
	replace := func(ids []string) []string {
		if slices.Contains(ids, into) {
			return slices.DeleteFunc(ids, func(s string) bool { return s == from })
		}
		for i, s := range ids {
			if s == from {
				ids[i] = into
			}
		}
		return ids
	}
	for k, ids := range b.factPreds {
		b.factPreds[k] = replace(ids)
	}
	b.openProblems = replace(b.openProblems)
	for i, id := range b.lastAsked.ids {
		if id == from {
			b.lastAsked.ids[i] = into
		}
	}
	if b.lastDecision.id == from {
		b.lastDecision.id = into
	}
}

// dropWeakEdges drops the edges of the document weaker than min. (Those
// weaker than Config.MinEdgeStrength are in no document: the builder
// keeps them to reinforce, and they are not reported.)
func (b *Builder) dropWeakEdges(min float64) []Change {
	var out []Change
	for _, e := range b.store.Edges() {
		if e.Strength < b.cfg.MinEdgeStrength || e.Strength >= min {
			continue
		}
		b.store.Unlink(e.From, e.To, e.Relation)
		s := round4(e.Strength)
		out = append(out, Change{Kind: ChangeDropEdge, IDs: []string{e.From, e.To}, Relation: e.Relation, Before: s,
			Detail: fmt.Sprintf("%s, strength %.4g below %.4g", e.Relation, s, min)})
	}
	return out
}

// pruneStale removes stale nodes (see [Builder.Maintain]) until none is
// left: a node pruned can make another less important.
func (b *Builder) pruneStale(opts MaintainOptions) []Change {
	if opts.StaleAfter < 0 || opts.Now.IsZero() {
		return nil
	}
	cutoff := opts.Now.Add(-opts.StaleAfter)
	var out []Change
	for {
		edges := b.keptEdges()
		protected := map[string]bool{}
		for _, key := range b.ents.speakers {
			protected[b.ents.byKey[key]] = true // the people who speak
		}
		for _, e := range edges {
			if e.Relation == spec.RelSolves {
				protected[e.From], protected[e.To] = true, true // how it was fixed
			}
			if b.store.Node(e.From).Type == spec.NodeArtifact {
				protected[e.To] = true
			}
			if b.store.Node(e.To).Type == spec.NodeArtifact {
				protected[e.From] = true
			}
		}
		var round []Change
		for _, n := range b.nodes(edges) {
			last := n.LastActivated
			if last.IsZero() && n.Type == spec.NodeFact && len(n.Mentions) == 0 {
				last = n.ValidFrom
			}
			if last.IsZero() || !last.Before(cutoff) || protected[n.ID] || b.keeps(&n, opts.KeepImportance) {
				continue
			}
			round = append(round, Change{Kind: ChangePrune, IDs: []string{n.ID},
				Detail: fmt.Sprintf("%s %q: untouched since %s (%d days), importance %.2g", n.Type, n.Label,
					last.UTC().Format("2006-01-02"), int(opts.Now.Sub(last).Hours()/24), n.Importance)})
		}
		if len(round) == 0 {
			return out
		}
		for _, c := range round {
			b.remove(c.IDs[0])
		}
		out = append(out, round...)
	}
}

// alwaysKept are the categories of facts that are in every context.
var alwaysKept = []string{spec.CategoryIdentity, spec.CategoryPreference, spec.CategoryRelationship}

// keeps tells whether a node is kept whatever its age.
func (b *Builder) keeps(n *spec.Node, keepImportance float64) bool {
	switch {
	case n.Pinned, n.Version > 1, n.Type == spec.NodeArtifact, n.Type == spec.NodeDecision:
		return true
	case n.LastMentioned > 0 && n.LastMentioned > b.turns-b.cfg.RecentTurns:
		return true // in working memory
	case n.Type == spec.NodeFact:
		// History stays: a superseded fact is kept, as are the facts the
		// user gave and those of the categories always in context.
		return !n.ValidTo.IsZero() || n.Source == spec.SourceUser || n.Metadata["remembered"] == true ||
			slices.Contains(alwaysKept, n.Category)
	}
	return n.Importance >= keepImportance
}

// decayTo decays activation up to now: it moves maintenance's clock
// (metadata.maintenance.lastRun) to now, unless it is later already, and
// resets the count of writes.
func (b *Builder) decayTo(now time.Time) []Change {
	before := map[string]float64{}
	edges := b.keptEdges()
	for _, n := range b.nodes(edges) {
		before[n.ID] = n.Activation
	}
	mt := spec.Maintenance{}
	if b.meta.Maintenance != nil {
		mt = *b.meta.Maintenance
	}
	if now.After(mt.LastRun) {
		mt.LastRun = now
	}
	mt.WritesSince = 0
	b.meta.Maintenance = &mt
	var out []Change
	for _, n := range b.nodes(edges) {
		if was := before[n.ID]; n.Activation != was {
			out = append(out, Change{Kind: ChangeDecay, IDs: []string{n.ID}, Before: was, After: n.Activation,
				Detail: fmt.Sprintf("%s %q: activation %.4g → %.4g", n.Type, n.Label, was, n.Activation)})
		}
	}
	return out
}

// rebase stores in full the latest version of each artifact that is more
// than maxChain patches from a full copy.
func (b *Builder) rebase(maxChain int) []Change {
	if maxChain < 0 {
		return nil
	}
	var out []Change
	for _, id := range sortedSet(b.vault.arts) {
		st := b.vault.arts[id]
		vs := st.art.Versions
		last := len(vs) - 1
		if last < 0 || vs[last].Content != nil {
			continue
		}
		base := last
		for base >= 0 && vs[base].Content == nil {
			base--
		}
		if last-base <= maxChain {
			continue
		}
		content, ok := st.latest, artifacts.Hash(st.latest) == vs[last].Hash
		if !ok {
			// An artifact the document gave: read it from its chain.
			_ = artifacts.Walk(Chain(st.art), func(i int, c string, err error) error {
				if i == last && err == nil {
					content, ok = c, true
				}
				return nil
			})
		}
		if !ok {
			continue // a broken chain is validation's to report
		}
		vs = slices.Clone(vs) // the document's versions may share the array
		vs[last].Content, vs[last].Patch = &content, nil
		st.art.Versions = vs
		from := "none"
		if base >= 0 {
			from = fmt.Sprintf("v%d", vs[base].V)
		}
		out = append(out, Change{Kind: ChangeRebase, IDs: []string{id},
			Detail: fmt.Sprintf("v%d stored in full (%d bytes): %d patches led to it from %s", vs[last].V, len(content), last-base, from)})
	}
	return out
}

// replayMaintenance makes a builder that replayed a document's turns
// what the document's maintenance made of them, before the document is
// laid over it: the nodes the document lists as merged into another are
// merged into it again, with their names and forms, so that the names
// of a merged node keep finding the node kept; and a version the
// document stores in full is stored in full.
func (b *Builder) replayMaintenance(doc *spec.Document) {
	inDoc := make(map[string]bool, len(doc.SemanticGraph.Nodes))
	for _, n := range doc.SemanticGraph.Nodes {
		inDoc[n.ID] = true
	}
	for _, dn := range doc.SemanticGraph.Nodes {
		into := b.store.Node(dn.ID)
		for _, from := range mergedIDs(dn.Metadata) {
			if f := b.store.Node(from); f != nil && into != nil && !inDoc[from] && f.Type == into.Type {
				b.redirect(from, dn.ID)
				b.merge(from, dn.ID)
			}
		}
	}
	for id, a := range doc.ArtifactVault.Artifacts {
		st := b.vault.arts[id]
		if st == nil {
			continue
		}
		for i, dv := range a.Versions {
			if i >= len(st.art.Versions) {
				break
			}
			if v := &st.art.Versions[i]; dv.Content != nil && v.Content == nil && dv.V == v.V && dv.Hash == v.Hash {
				c := *dv.Content
				v.Content, v.Patch = &c, nil
			}
		}
	}
}
