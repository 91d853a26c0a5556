package format

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/smg/internal/listmsg"
	"github.com/smg-memory/smg/spec"
)

// Side names one of the two memories of a merge: ours, the memory being
// updated, or theirs, the memory merged into it.
type Side string

// The sides of a merge.
const (
	Ours   Side = "ours"
	Theirs Side = "theirs"
)

// MergeOptions tune [Merge]. The zero value fails on a conflict, keeps
// ours' id and dates the result by its parents.
type MergeOptions struct {
	// Prefer resolves every conflict (a node or an edge removed on one
	// side and changed on the other) by taking that side's state of it.
	// Empty, a conflict fails the merge with a [*ConflictError].
	Prefer Side
	// ID is the merged memory's metadata.id; empty, ours' id: the merge
	// is ours, updated.
	ID string
	// Now is when the merge is made. The result's metadata.modified is
	// the later of its parents' modified and Now; a zero Now leaves the
	// result a function of its inputs alone, so that merging twice gives
	// the same bytes.
	Now time.Time
	// Config sets the numbers of the write path the merged memory is
	// built with (the zero value is the default; the block size and the
	// snapshot interval are ours').
	Config graph.Config
}

// Errors of [Merge]: ErrConflict is wrapped by a [*ConflictError];
// ErrMergeBase by the error of a base whose turns do not begin both
// memories.
var (
	ErrConflict  = errors.New("merge conflict")
	ErrMergeBase = errors.New("the base is not an ancestor of both memories")
)

// ConflictError lists the conflicts a merge without a preference cannot
// resolve: the caller must choose a side ([MergeOptions.Prefer]), as git
// makes one resolve a conflict by hand.
type ConflictError struct {
	Conflicts []MergeConflict
}

func (e *ConflictError) Error() string { return listmsg.Of(ErrConflict, "conflict", e.Conflicts, 10) }

func (e *ConflictError) Unwrap() error { return ErrConflict }

// MergeReport says what [Merge] did: how the archives were joined, what
// each side changed that the merge combined, which changes of the same
// node on both sides the policy resolved, which conflicts a preference
// resolved, and which nodes of theirs became nodes of ours.
type MergeReport struct {
	// Unrelated: the memories were merged without a base.
	Unrelated bool `json:"unrelated,omitzero"`
	// BaseTurns are the turns the two memories share (the base's): 0 when
	// unrelated. OursTurns is the number of ours' turns, all kept with
	// their numbers; TheirsTurns the number of theirs' turns after the
	// base's, appended after ours' with Shift added to their numbers.
	BaseTurns   int `json:"baseTurns"`
	OursTurns   int `json:"oursTurns"`
	TheirsTurns int `json:"theirsTurns"`
	Shift       int `json:"shift"`
	// Changes are the changes of one side that the merge took in: nodes
	// and edges added, removed or changed (against the base) on one side
	// only, or on both sides in different fields.
	Changes []MergeChange `json:"changes,omitempty"`
	// Resolved are the nodes and edges both sides changed in the same
	// field, each resolved by the policy (see [Merge]).
	Resolved []MergeResolution `json:"resolved,omitempty"`
	// Conflicts are the nodes and edges removed on one side and changed
	// on the other, with the side [MergeOptions.Prefer] chose.
	Conflicts []MergeConflict `json:"conflicts,omitempty"`
	// Unified are the nodes of theirs that name an entity ours has under
	// another id, and became that node.
	Unified []MergeUnification `json:"unified,omitempty"`
	// Renamed are the nodes of theirs whose id ours uses for another
	// entity: they take a new id.
	Renamed []MergeRename `json:"renamed,omitempty"`
	// Private says how each collaborator's private part was merged.
	Private []MergePrivate `json:"private,omitempty"`
	// DroppedEdges counts the edges left out because a node they link
	// is not in the merge; DroppedEmbeddings the vectors of theirs left
	// out because ours' index is of another model, number of dimensions
	// or encoding (spec §8.3); DroppedSummaries the
	// archive blocks summarized by a model whose turns are not a block
	// of the merge (theirs' new turns, renumbered), whose blocks have an
	// extractive summary again ('smg summarize' writes them anew).
	DroppedEdges      int `json:"droppedEdges,omitzero"`
	DroppedEmbeddings int `json:"droppedEmbeddings,omitzero"`
	DroppedSummaries  int `json:"droppedSummaries,omitzero"`
}

// MergeEdge names an edge.
type MergeEdge struct {
	From     string        `json:"from"`
	To       string        `json:"to"`
	Relation spec.Relation `json:"relation"`
}

func (e MergeEdge) String() string { return e.From + " -" + string(e.Relation) + "-> " + e.To }

// Operations of a [MergeChange].
const (
	MergeAdded   = "added"
	MergeRemoved = "removed"
	MergeChanged = "changed"
)

// MergeChange is a change one side made that the merge took in. Exactly
// one of Node and Edge is set.
type MergeChange struct {
	Side Side       `json:"side"`
	Op   string     `json:"op"`
	Node string     `json:"node,omitempty"`
	Edge *MergeEdge `json:"edge,omitempty"`
	// Fields are the fields changed, for MergeChanged.
	Fields []string `json:"fields,omitempty"`
}

// MergeResolution is a node or an edge that both sides changed in the
// same fields, to different values: the merge took Winner's values of
// Fields, by Rule.
type MergeResolution struct {
	Node   string     `json:"node,omitempty"`
	Edge   *MergeEdge `json:"edge,omitempty"`
	Fields []string   `json:"fields"`
	Winner Side       `json:"winner"`
	// Rule is why Winner won: "later lastActivated", "higher version",
	// "ours on a tie" for a node, "stronger" for an edge's strength.
	Rule string `json:"rule"`
}

func (r MergeResolution) String() string {
	what := "node " + r.Node
	if r.Edge != nil {
		what = "edge " + r.Edge.String()
	}
	return fmt.Sprintf("%s: %s from %s (%s)", what, strings.Join(r.Fields, ", "), r.Winner, r.Rule)
}

// MergeConflict is a node or an edge that one side removed and the other
// changed (Fields). Chosen is the side whose state the merge took, by
// [MergeOptions.Prefer]; empty, none was given and the merge failed.
//
// Private names the collaborator whose private part holds the conflict:
// a node or an edge of their part, or (with neither) the part itself,
// removed on one side and changed on the other, or changed on both and
// sealed, which no merge can read (RemovedBy is then empty).
type MergeConflict struct {
	Private   string     `json:"private,omitempty"`
	Node      string     `json:"node,omitempty"`
	Edge      *MergeEdge `json:"edge,omitempty"`
	RemovedBy Side       `json:"removedBy,omitempty"`
	Fields    []string   `json:"fields"`
	Chosen    Side       `json:"chosen,omitempty"`
}

func (c MergeConflict) String() string {
	what := "node " + c.Node
	switch {
	case c.Edge != nil:
		what = "edge " + c.Edge.String()
	case c.Node == "" && c.Private != "":
		what = privateName(c.Private)
	}
	if c.Private != "" && (c.Node != "" || c.Edge != nil) {
		what += " of " + privateName(c.Private)
	}
	if c.RemovedBy == "" {
		s := what + " changed on both sides and sealed: it cannot be merged without its owner's password"
		if c.Chosen != "" {
			s += ": took " + string(c.Chosen) + "'"
		}
		return s
	}
	s := fmt.Sprintf("%s removed by %s, changed by %s (%s)", what, c.RemovedBy, c.other(), strings.Join(c.Fields, ", "))
	switch c.Chosen {
	case "":
	case c.RemovedBy:
		s += ": removed"
	default:
		s += ": kept"
	}
	return s
}

func (c MergeConflict) other() Side {
	if c.RemovedBy == Ours {
		return Theirs
	}
	return Ours
}

// MergeUnification is a node of theirs that became a node of ours: the
// same type and the same label ("label"), a label of one that is an alias
// of the other ("alias"), or a fact that says what ours says ("fact", as
// smg's Memory.Remember finds duplicates).
type MergeUnification struct {
	Theirs string `json:"theirs"`
	Ours   string `json:"ours"`
	By     string `json:"by"`
}

// MergeRename is a node of theirs given a new id.
type MergeRename struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Merge merges two memories: a three-way merge of ours and theirs against
// base, the memory both come from (a [Fork] of it, or the same file
// continued), or, with a nil base, a merge of two unrelated memories. The
// result is ours, updated: ours' id (unless [MergeOptions.ID]) and a
// lineage of operation "merge" whose parents are ours then theirs (spec
// §4.4). ours, theirs and base are not changed.
//
// # Turns
//
// The merged archive holds ours' turns, with their numbers, then theirs'
// turns after the base's, renumbered to follow ours'; every turn number of
// theirs' new material (mentions, artifact versions, embeddings) moves
// with them. The base's turns must begin both memories: otherwise the
// error wraps ErrMergeBase. Without a base, all of theirs' turns come
// after ours'.
//
// # Nodes and edges
//
// Nodes are matched by id. A change one side made against the base (a
// node added, removed, or changed in some fields) is taken in. When both
// sides changed the same field of a node to different values, the side
// whose node was activated later wins (then the one with the higher
// version, then ours); when that field is the node's text (label and
// description), the loser's text is kept in previousSummaries (at most
// [spec.MaxPreviousSummaries]) and the version goes up. Mentions are the
// union of both sides', aliases combine, and importance and activation are
// computed again from the merged mentions, as on every save. Edges are
// matched by their ends and relation; both sides' new edges are kept, and
// an edge both reweighted keeps the stronger weight.
//
// A node one side removed (forgot) stays removed unless the other side
// changed it (its text, validity, pin, metadata…) or mentioned it in
// turns after the base's; likewise an edge removed on one side and reweighted on
// the other. Those are conflicts: with [MergeOptions.Prefer] the preferred
// side's state is taken and the conflict is reported; without, Merge
// changes nothing and returns a [*ConflictError] listing every conflict.
// Edges whose node is not in the merge are dropped.
//
// Without a base, and for nodes that neither the base nor ours has, a
// node of theirs that names an entity ours has under another id becomes
// that node: the same type and label (or a label that is the other's
// alias), or a fact that duplicates one of ours in the same scope. A node
// of theirs whose id ours uses for another entity gets a new id.
//
// # The rest
//
// The merged memory is rebuilt from its turns as graph.Load continues a
// memory, with the merged graph laid over: the archive's blocks, summaries
// and key points, the artifact vault (theirs' new versions of an artifact
// follow ours', their patches made again), the turns' references to it,
// working memory (recent turns, goals, summary), totalExchanges and
// transcriptBytes are those of the merged conversation. A block summary a
// model wrote stays with its block while the block's turns are the same
// (ours', and the base's); those of theirs' new turns are counted in
// MergeReport.DroppedSummaries. The vector index keeps ours' vectors and
// theirs' (renumbered) when both are of one model.
//
// Merge is deterministic: the same inputs give the same document. It
// costs about what ingesting the merged turns costs.
func Merge(base, ours, theirs *spec.Document, opts MergeOptions) (*spec.Document, *MergeReport, error) {
	if ours == nil || theirs == nil {
		return nil, nil, errors.New("merging: no document")
	}
	switch opts.Prefer {
	case "", Ours, Theirs:
	default:
		return nil, nil, fmt.Errorf("merging: prefer %q: it is %q or %q", opts.Prefer, Ours, Theirs)
	}
	if opts.ID != "" && !spec.ValidID(opts.ID) {
		return nil, nil, fmt.Errorf("merging: %w %q", ErrInvalidID, opts.ID)
	}
	m := &merger{base: base, ours: ours, theirs: theirs, opts: opts, rep: &MergeReport{Unrelated: base == nil}}
	for i, doc := range []*spec.Document{ours, theirs} {
		h, err := ContentHash(doc)
		if err != nil {
			return nil, nil, fmt.Errorf("merging: %s: %w", []Side{Ours, Theirs}[i], err)
		}
		m.parents = append(m.parents, spec.Parent{ID: doc.Metadata.ID, ContentHash: h})
	}
	if err := m.turns(); err != nil {
		return nil, m.rep, err
	}
	m.at = latest(ours.Metadata.Modified, theirs.Metadata.Modified, opts.Now)
	m.mapTheirs()
	m.mergeNodes()
	m.mergeEdges()
	collabs, parts, err := m.mergePrivate()
	if err != nil {
		return nil, m.rep, err
	}
	var unresolved []MergeConflict
	for _, c := range m.rep.Conflicts {
		if c.Chosen == "" {
			unresolved = append(unresolved, c)
		}
	}
	if len(unresolved) > 0 {
		return nil, m.rep, &ConflictError{Conflicts: unresolved}
	}
	doc, err := m.build(collabs, parts)
	if err != nil {
		return nil, m.rep, err
	}
	return doc, m.rep, nil
}

// merger holds the state of one [Merge].
type merger struct {
	base, ours, theirs *spec.Document
	opts               MergeOptions
	rep                *MergeReport
	// parents are ours and theirs, for the lineage.
	parents []spec.Parent
	// at is the time of the merge: metadata.modified, and when a text
	// that lost went into previousSummaries.
	at time.Time

	// merged are the turns of the merge, whole and numbered.
	merged []spec.Turn
	// baseN and oursN count the base's and ours' turns.
	baseN, oursN int

	// bn and on are the base's and ours' nodes by id; tn theirs' nodes
	// by their id in the merge (renamed, unified), turns shifted.
	bn, on, tn map[string]*spec.Node
	// tid maps an id of theirs to its id in the merge.
	tid map[string]string
	// nodes are the merged nodes by id; artifactRefs, for an artifact
	// node, the hashes of the versions each side's node referred to.
	nodes        map[string]*spec.Node
	artifactRefs map[string][]string
	edges        []spec.Edge
	// dupes finds facts that say the same thing (merge_entity.go).
	dupes *factMatcher
}

// latest returns the latest of the times.
func latest(ts ...time.Time) time.Time {
	var out time.Time
	for _, t := range ts {
		if t.After(out) {
			out = t
		}
	}
	return out
}

// turns reads the archives, checks that the base's turns begin both
// memories, and lays out the merged turns: ours', then theirs' new ones.
func (m *merger) turns() error {
	read := func(side string, doc *spec.Document) ([]spec.Turn, error) {
		var out []spec.Turn
		err := graph.EachTurn(doc, ReadBlocks(Limits{}), func(t spec.Turn) error {
			out = append(out, t)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("merging: reading %s' archive: %w: %w", side, ErrInvalid, err)
		}
		return out, nil
	}
	ours, err := read("ours", m.ours)
	if err != nil {
		return err
	}
	theirs, err := read("theirs", m.theirs)
	if err != nil {
		return err
	}
	if m.base != nil {
		base, err := read("the base", m.base)
		if err != nil {
			return err
		}
		for side, turns := range map[Side][]spec.Turn{Ours: ours, Theirs: theirs} {
			if len(turns) < len(base) {
				return fmt.Errorf("merging: %w: the base has %d turns, %s %d", ErrMergeBase, len(base), side, len(turns))
			}
		}
		for i, t := range base {
			for _, side := range []struct {
				name Side
				t    spec.Turn
			}{{Ours, ours[i]}, {Theirs, theirs[i]}} {
				if !sameTurn(t, side.t) {
					return fmt.Errorf("merging: %w: turn %d of %s differs from the base's", ErrMergeBase, t.Turn, side.name)
				}
			}
		}
		m.baseN = len(base)
	}
	m.oursN = len(ours)
	m.merged = slices.Clone(ours)
	for _, t := range theirs[m.baseN:] {
		t.Turn = m.shift(t.Turn)
		if t.SameIDAs != 0 {
			t.SameIDAs = m.shift(t.SameIDAs)
		}
		m.merged = append(m.merged, t)
	}
	m.rep.BaseTurns, m.rep.OursTurns = m.baseN, m.oursN
	m.rep.TheirsTurns, m.rep.Shift = len(theirs)-m.baseN, m.oursN-m.baseN
	return nil
}

// shift returns the number in the merge of theirs' turn t.
func (m *merger) shift(t int) int {
	if t > m.baseN {
		return t + m.oursN - m.baseN
	}
	return t
}

// build makes the merged document: ours, with the merged graph, the
// merged archive, vault and vector index, rebuilt from its turns as Load
// continues a memory.
func (m *merger) build(collabs []spec.Collaborator, parts []spec.PrivateContext) (*spec.Document, error) {
	d := Clone(m.ours)
	d.Metadata = m.metadata()
	d.SemanticGraph.Nodes = make([]spec.Node, 0, len(m.nodes))
	for _, id := range sortedKeys(m.nodes) {
		d.SemanticGraph.Nodes = append(d.SemanticGraph.Nodes, *m.nodes[id])
	}
	d.SemanticGraph.Edges = m.edges
	// Theirs' artifacts that ours does not have. Those theirs' turns made,
	// the replay below makes again; the others keep their versions, at
	// their turns in the merge.
	if d.ArtifactVault.Artifacts == nil {
		d.ArtifactVault.Artifacts = map[string]spec.Artifact{}
	}
	for id, a := range m.theirs.ArtifactVault.Artifacts {
		if _, ok := d.ArtifactVault.Artifacts[id]; !ok {
			a.Versions = slices.Clone(a.Versions)
			for i := range a.Versions {
				if a.Versions[i].Turn > 0 {
					a.Versions[i].Turn = m.shift(a.Versions[i].Turn)
				}
			}
			d.ArtifactVault.Artifacts[id] = a
		}
	}
	// The archive as the builder reads it to replay the turns: whole
	// turns, quickly compressed. The builder makes the real blocks.
	size := d.DeepArchive.BlockSize
	if size <= 0 {
		size = cmp.Or(max(m.opts.Config.BlockSize, 0), graph.DefaultConfig().BlockSize)
	}
	d.DeepArchive.Blocks = nil
	for i := 0; i < len(m.merged); i += size {
		b, err := graph.NewBlock(fmt.Sprintf("block-%04d", i/size+1), m.merged[i:min(i+size, len(m.merged))])
		if err != nil {
			return nil, fmt.Errorf("merging: %w", err)
		}
		d.DeepArchive.Blocks = append(d.DeepArchive.Blocks, b)
	}
	d.DeepArchive.VectorIndex = m.vectors()
	b, err := graph.Load(d, m.opts.Config, ReadBlocks(Limits{}))
	if err != nil {
		return nil, fmt.Errorf("merging: rebuilding the merged memory: %w", err)
	}
	// What a model wrote of a block stays while the block's turns are
	// the same: ours' blocks, and the base's that theirs shares. Theirs'
	// new turns take new numbers, so their summaries describe no block
	// of the merge: the report counts them.
	sides := slices.Concat(m.ours.DeepArchive.Blocks, m.theirs.DeepArchive.Blocks)
	summarized := map[string]bool{}
	for _, blk := range sides {
		if blk.SummaryModel != "" && blk.Summary != "" {
			summarized[blk.ContentHash] = true
		}
	}
	m.rep.DroppedSummaries = len(summarized) - b.KeepModelSummaries(sides)
	out := b.Document()
	graph.PlainBlocks(out) // as version 1.1 writes them
	m.fixArtifactNodes(out)
	out.Metadata.Collaborators, out.PrivateContexts = collabs, parts
	out.Metadata.CompressionRatio = 0 // the writer's to leave out (spec §4.2)
	return out, nil
}

// metadata is the merged memory's metadata: ours', with its lineage,
// dates and the descriptive members either side changed.
func (m *merger) metadata() spec.Metadata {
	o, t := m.ours.Metadata, m.theirs.Metadata
	md := o
	md.ID = o.ID
	if m.opts.ID != "" {
		md.ID = m.opts.ID
	}
	var b *spec.Metadata
	if m.base != nil {
		b = &m.base.Metadata
	}
	pick := func(ov, tv string, bv func(*spec.Metadata) string) string {
		switch {
		case b == nil && ov == "":
			return tv
		case b != nil && ov == bv(b):
			return tv
		}
		return ov
	}
	md.Description = pick(o.Description, t.Description, func(x *spec.Metadata) string { return x.Description })
	md.ProjectName = pick(o.ProjectName, t.ProjectName, func(x *spec.Metadata) string { return x.ProjectName })
	md.ProjectID = pick(o.ProjectID, t.ProjectID, func(x *spec.Metadata) string { return x.ProjectID })
	if md.Scope == nil {
		md.Scope = t.Scope
	}
	var tags []string
	for _, tag := range append(slices.Clone(o.Tags), t.Tags...) {
		removed := b != nil && slices.Contains(b.Tags, tag) && (!slices.Contains(o.Tags, tag) || !slices.Contains(t.Tags, tag))
		if !removed && !slices.Contains(tags, tag) {
			tags = append(tags, tag)
		}
	}
	slices.Sort(tags)
	md.Tags = tags
	if !t.Created.IsZero() && t.Created.Before(md.Created) {
		md.Created = t.Created
	}
	md.Modified = latest(md.Created, m.at)
	md.Lineage = &spec.Lineage{Operation: spec.OpMerge, Parents: m.parents}
	md.TotalExchanges = len(m.merged)
	md.TranscriptBytes, md.CompressionRatio = 0, 0 // the builder counts them
	return md
}

// vectors is the merged vector index: ours', and theirs' vectors of the
// turns and excerpts it brings when they are of the same model,
// dimensions and encoding (theirs' are dropped and counted otherwise);
// theirs' alone when ours has none.
func (m *merger) vectors() *spec.VectorIndex {
	o, t := m.ours.DeepArchive.VectorIndex, m.theirs.DeepArchive.VectorIndex
	if t == nil || len(t.Embeddings) == 0 {
		return o
	}
	if o != nil && len(o.Embeddings) > 0 && (o.Model != t.Model || o.Dimensions != t.Dimensions || o.VectorEncoding() != t.VectorEncoding()) {
		m.rep.DroppedEmbeddings = len(t.Embeddings)
		return o
	}
	out := &spec.VectorIndex{Enabled: true, Model: t.Model, Dimensions: t.Dimensions, Encoding: t.Encoding}
	have := map[[3]int]bool{}
	if o != nil {
		out = &spec.VectorIndex{Enabled: o.Enabled || t.Enabled, Model: o.Model, Dimensions: o.Dimensions, Encoding: o.Encoding, Extra: o.Extra}
		if len(o.Embeddings) == 0 {
			out.Model, out.Dimensions, out.Encoding = t.Model, t.Dimensions, t.Encoding
		}
		for _, e := range o.Embeddings {
			out.Embeddings = append(out.Embeddings, e)
			have[[3]int{e.Turn, e.Start, e.End}] = true
		}
	}
	for _, e := range t.Embeddings {
		e.Turn = m.shift(e.Turn)
		if k := [3]int{e.Turn, e.Start, e.End}; !have[k] {
			have[k] = true
			out.Embeddings = append(out.Embeddings, e)
		}
	}
	slices.SortFunc(out.Embeddings, spec.CompareEmbeddings)
	return out
}

// fixArtifactNodes points each artifact node of the rebuilt document at
// the version of the rebuilt vault that holds what its node referred to
// on either side (the latest of them): versions are numbered again when
// theirs' follow ours'. A node whose artifact is not in the vault is
// dropped, with its edges.
func (m *merger) fixArtifactNodes(doc *spec.Document) {
	type version struct {
		id string
		v  int
	}
	where := map[string][]version{} // content hash → the versions that hold it
	for _, id := range sortedKeys(doc.ArtifactVault.Artifacts) {
		for _, v := range doc.ArtifactVault.Artifacts[id].Versions {
			where[v.Hash] = append(where[v.Hash], version{id, v.V})
		}
	}
	for i := range doc.SemanticGraph.Nodes {
		n := &doc.SemanticGraph.Nodes[i]
		hashes, ok := m.artifactRefs[n.ID]
		if n.Type != spec.NodeArtifact || !ok {
			continue
		}
		var found []version
		for _, h := range hashes {
			found = append(found, where[h]...)
		}
		latestOf := func(id string) int {
			v := 0
			for _, f := range found {
				if f.id == id {
					v = max(v, f.v)
				}
			}
			return v
		}
		if v := latestOf(n.ArtifactID); v > 0 {
			n.ArtifactVersion = v
		} else if len(found) > 0 {
			n.ArtifactID, n.ArtifactVersion = found[0].id, latestOf(found[0].id)
		}
	}
	gone := map[string]bool{}
	nodes := doc.SemanticGraph.Nodes[:0]
	for _, n := range doc.SemanticGraph.Nodes {
		if n.Type == spec.NodeArtifact {
			a, ok := doc.ArtifactVault.Artifacts[n.ArtifactID]
			if !ok {
				gone[n.ID] = true
				continue
			}
			if n.ArtifactVersion > len(a.Versions) {
				n.ArtifactVersion = len(a.Versions)
			}
		}
		nodes = append(nodes, n)
	}
	doc.SemanticGraph.Nodes = nodes
	if len(gone) > 0 {
		doc.SemanticGraph.Edges = slices.DeleteFunc(doc.SemanticGraph.Edges, func(e spec.Edge) bool {
			if gone[e.From] || gone[e.To] {
				m.rep.DroppedEdges++
				return true
			}
			return false
		})
	}
}
