package extraction

import (
	"regexp"
	"slices"
	"strings"

	"github.com/smg-memory/smg/spec"
)

// A coding session's memory should hold its history (issue 36): each
// commit the log records a change linked to the files it changed and to
// the request it answers; each artifact a file, named by its path (or a
// stated name), never a fragment of an edit.

// History is what a coding session's memory holds of its log's work.
type History struct {
	// Commits are the commits the log records ("> Commit 1a2b3c4 …"),
	// each counted once.
	Commits int `json:"commits"`
	// Changes are the change nodes of those commits; Linked, those linked
	// to a file they changed and to their request.
	Changes int `json:"changes"`
	Linked  int `json:"linked"`
	// Requests are the request nodes.
	Requests int `json:"requests"`
	// Artifacts are the artifacts of the vault; Named, those with a file
	// name; Fragments, those whose latest version is an edit block kept
	// as an artifact of its own (not a version of its file).
	Artifacts int `json:"artifacts"`
	Named     int `json:"named"`
	Fragments int `json:"fragments"`
}

// commitLog is a commit line of an aider history.
var commitLog = regexp.MustCompile(`(?m)^> Commit ([0-9a-f]{7,40}) `)

// MeasureHistory measures what doc holds of the history of the coding
// session log.
func MeasureHistory(log []byte, doc *spec.Document) History {
	var h History
	seen := map[string]bool{}
	for _, m := range commitLog.FindAllSubmatch(log, -1) {
		if !seen[string(m[1])] {
			seen[string(m[1])] = true
			h.Commits++
		}
	}
	nodes := map[string]*spec.Node{}
	for i := range doc.SemanticGraph.Nodes {
		nodes[doc.SemanticGraph.Nodes[i].ID] = &doc.SemanticGraph.Nodes[i]
	}
	toFile, fromRequest := map[string]bool{}, map[string]bool{}
	for _, e := range doc.SemanticGraph.Edges {
		from, to := nodes[e.From], nodes[e.To]
		if from == nil || to == nil {
			continue
		}
		if e.Relation == spec.RelAbout && to.Type == spec.NodeArtifact {
			toFile[e.From] = true
		}
		if e.Relation == spec.RelResultedIn && NodeKind(*from) == Request {
			fromRequest[e.To] = true
		}
	}
	for _, n := range doc.SemanticGraph.Nodes {
		switch NodeKind(n) {
		case Change:
			if c, _ := n.Metadata["commit"].(string); c != "" && seen[c] {
				h.Changes++
				if toFile[n.ID] && fromRequest[n.ID] {
					h.Linked++
				}
			}
		case Request:
			h.Requests++
		}
	}
	for _, a := range doc.ArtifactVault.Artifacts {
		h.Artifacts++
		if a.Filename != "" {
			h.Named++
		}
		if n := len(a.Versions); n > 0 && a.Filename == "" && a.Versions[n-1].Content != nil && strings.HasPrefix(*a.Versions[n-1].Content, "<<<<<<< SEARCH") {
			h.Fragments++
		}
	}
	return h
}

// NodeKind is the kind of item a node is: its kind (a fact's instruction,
// goal or request, a solution's change) or else its type. A person is
// judged as the concept it is: the rubric judges speakers' names among
// concepts.
func NodeKind(n spec.Node) string {
	if slices.Contains(spec.Kinds, n.Kind) && spec.KindTypes[n.Kind] == n.Type && n.Kind != spec.KindPerson {
		return string(n.Kind)
	}
	return string(n.Type)
}
