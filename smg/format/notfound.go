package format

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// NotFoundError is an id that names no node, or no artifact, of a memory,
// with the ids the caller may have meant. It matches [ErrNotFound], and,
// for a node, graph.ErrNoNode (smg.ErrNoNode).
type NotFoundError struct {
	// Kind is what the id should have named: "node" or "artifact".
	Kind string
	ID   string
	// Use are ids the memory holds that the caller may have meant, at
	// most [maxSuggestions]: for a node, the node of the artifact whose
	// vault id ID is, or the nodes whose ids hold ID; for an artifact,
	// the artifacts whose ids hold ID, or, when none does, the vault's.
	Use []string
	// More counts the ids like those of Use that were left out.
	More int
}

// maxSuggestions is the most ids a [NotFoundError] suggests.
const maxSuggestions = 5

func (e *NotFoundError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no %s %q", e.Kind, e.ID)
	switch {
	case len(e.Use) == 1:
		fmt.Fprintf(&b, "; did you mean %s?", e.Use[0])
	case len(e.Use) > 1:
		fmt.Fprintf(&b, "; did you mean one of %s", strings.Join(e.Use, ", "))
		if e.More > 0 {
			fmt.Fprintf(&b, " (or %d more)", e.More)
		}
		b.WriteString("?")
	}
	return b.String()
}

// Is matches ErrNotFound, and graph.ErrNoNode for a node.
func (e *NotFoundError) Is(target error) bool {
	return target == ErrNotFound || target == graph.ErrNoNode && e.Kind == "node"
}

// NodeNotFound is the error of the id of no node of nodes.
func NodeNotFound(nodes []spec.Node, id string) *NotFoundError {
	e := &NotFoundError{Kind: "node", ID: id}
	var like []string
	for _, n := range nodes {
		if n.ArtifactID == id {
			e.Use = []string{n.ID} // the node of the artifact
			return e
		}
		if strings.Contains(strings.ToLower(n.ID), strings.ToLower(id)) {
			like = append(like, n.ID)
		}
	}
	e.Use, e.More = shortest(like)
	return e
}

// noArtifact is the error of the id of no artifact of doc's vault.
func noArtifact(doc *spec.Document, id string) *NotFoundError {
	e := &NotFoundError{Kind: "artifact", ID: id}
	ids := slices.Collect(maps.Keys(doc.ArtifactVault.Artifacts))
	like := slices.DeleteFunc(slices.Clone(ids), func(a string) bool {
		return !strings.Contains(strings.ToLower(a), strings.ToLower(id))
	})
	if len(like) == 0 {
		like = ids
	}
	e.Use, e.More = shortest(like)
	return e
}

// artifactID is the artifact that id names: the vault's id, or the id of
// its node in the graph. ok is false when it names none.
func artifactID(doc *spec.Document, id string) (string, bool) {
	if _, ok := doc.ArtifactVault.Artifacts[id]; ok {
		return id, true
	}
	for _, n := range doc.SemanticGraph.Nodes {
		if n.ID == id && n.Type == spec.NodeArtifact && n.ArtifactID != "" {
			_, ok := doc.ArtifactVault.Artifacts[n.ArtifactID]
			return n.ArtifactID, ok
		}
	}
	return "", false
}

// shortest returns the maxSuggestions shortest ids (then by id), and how
// many were left out.
func shortest(ids []string) ([]string, int) {
	slices.SortFunc(ids, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b)) })
	if len(ids) > maxSuggestions {
		return ids[:maxSuggestions], len(ids) - maxSuggestions
	}
	return ids, 0
}
