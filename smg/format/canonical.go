package format

import (
	"cmp"
	"slices"
	"strings"

	"github.com/smg-memory/smg/spec"
)

// canonicalOrder returns doc as a file holds it, without what a reader of
// its version computes ([leaveComputed]), and with its unordered lists in
// canonical order
// (spec §9.2): nodes by id; edges by from, to, relation; recent turns,
// blocks and embeddings by turn; versions by v; previous summaries by
// version; tags, aliases and mentions ascending; collaborators by id and
// private contexts by owner, each private memory in canonical order too. Lists whose order carries
// meaning (goals, active artifacts, alternatives, key points, parents) keep
// it. doc itself is not modified: a list that needs sorting is copied.
func canonicalOrder(doc *spec.Document) *spec.Document {
	d := *leaveComputed(doc)
	d.Metadata.Tags = sorted(d.Metadata.Tags, strings.Compare)
	d.Metadata.Collaborators = sortedStable(d.Metadata.Collaborators, func(a, b spec.Collaborator) int {
		return strings.Compare(a.ID, b.ID)
	})
	if len(d.PrivateContexts) > 0 {
		pcs := sortedStable(slices.Clone(d.PrivateContexts), func(a, b spec.PrivateContext) int {
			return strings.Compare(a.Owner, b.Owner)
		})
		for i := range pcs {
			if pcs[i].Memory != nil {
				pcs[i].Memory = canonicalOrder(pcs[i].Memory)
			}
		}
		d.PrivateContexts = pcs
	}
	d.WorkingMemory.RecentContext = sortedStable(d.WorkingMemory.RecentContext, byTurn)
	d.SemanticGraph.Nodes = canonicalNodes(d.SemanticGraph.Nodes)
	d.SemanticGraph.Edges = sortedStable(d.SemanticGraph.Edges, func(a, b spec.Edge) int {
		return cmp.Or(strings.Compare(a.From, b.From), strings.Compare(a.To, b.To), strings.Compare(string(a.Relation), string(b.Relation)))
	})
	d.ArtifactVault.Artifacts = canonicalArtifacts(d.ArtifactVault.Artifacts)
	d.DeepArchive.Blocks = sortedStable(d.DeepArchive.Blocks, func(a, b spec.ArchiveBlock) int {
		return cmp.Compare(a.TurnRange[0], b.TurnRange[0])
	})
	d.DeepArchive.VectorIndex = canonicalVectors(d.DeepArchive.VectorIndex)
	return &d
}

// canonicalVectors is vi with its embeddings in canonical order: vi when
// they are, a copy otherwise; nil for nil.
func canonicalVectors(vi *spec.VectorIndex) *spec.VectorIndex {
	if vi == nil || slices.IsSortedFunc(vi.Embeddings, spec.CompareEmbeddings) {
		return vi
	}
	c := *vi
	c.Embeddings = sortedStable(c.Embeddings, spec.CompareEmbeddings)
	return &c
}

func byTurn(a, b spec.Turn) int { return cmp.Compare(a.Turn, b.Turn) }

func bySummaryVersion(a, b spec.PreviousSummary) int { return cmp.Compare(a.Version, b.Version) }

func byV(a, b spec.ArtifactVersion) int { return cmp.Compare(a.V, b.V) }

func byID(a, b spec.Node) int { return strings.Compare(a.ID, b.ID) }

func canonicalNodes(nodes []spec.Node) []spec.Node {
	inOrder := func(n *spec.Node) bool {
		return slices.IsSorted(n.Aliases) && slices.IsSorted(n.Mentions) &&
			slices.IsSortedFunc(n.PreviousSummaries, bySummaryVersion)
	}
	ok := slices.IsSortedFunc(nodes, byID)
	for i := 0; ok && i < len(nodes); i++ {
		ok = inOrder(&nodes[i])
	}
	if ok {
		return nodes
	}
	nodes = slices.Clone(nodes)
	for i := range nodes {
		n := &nodes[i]
		n.Aliases = sorted(n.Aliases, strings.Compare)
		n.Mentions = sorted(n.Mentions, cmp.Compare)
		n.PreviousSummaries = sortedStable(n.PreviousSummaries, bySummaryVersion)
	}
	slices.SortStableFunc(nodes, byID)
	return nodes
}

func canonicalArtifacts(arts map[string]spec.Artifact) map[string]spec.Artifact {
	ok := true
	for _, a := range arts {
		ok = ok && slices.IsSortedFunc(a.Versions, byV)
	}
	if ok {
		return arts
	}
	out := make(map[string]spec.Artifact, len(arts))
	for id, a := range arts {
		a.Versions = sortedStable(a.Versions, byV)
		out[id] = a
	}
	return out
}

// sorted returns s if it is in order, or a sorted copy.
func sorted[T any](s []T, cmp func(a, b T) int) []T {
	if slices.IsSortedFunc(s, cmp) {
		return s
	}
	s = slices.Clone(s)
	slices.SortFunc(s, cmp)
	return s
}

// sortedStable is sorted with a stable sort, for lists whose elements may
// compare equal but differ.
func sortedStable[T any](s []T, cmp func(a, b T) int) []T {
	if slices.IsSortedFunc(s, cmp) {
		return s
	}
	s = slices.Clone(s)
	slices.SortStableFunc(s, cmp)
	return s
}
