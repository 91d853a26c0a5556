package restore

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/smg-memory/smg/spec"
)

// FileVersion is a version of a file a change made: artifact ArtifactID,
// named Path, at version Version. A client reads it from the vault.
type FileVersion struct {
	ArtifactID string `json:"artifactId"`
	Path       string `json:"path"`
	Version    int    `json:"version"`
}

// fixes is what the engine knows of the problems solved and the changes
// that solved them, worked out by setGraph for each version of the graph:
// a change, the error it fixed and the files as it left them are found
// together, whichever of them a question reaches.
type fixes struct {
	// solves are, for each solution, the problems it solves; solvedBy,
	// for each problem, the solutions that solve it: ids, sorted.
	solves, solvedBy map[string][]string
	// files are, for each change, the versions of the files it made.
	files map[string][]FileVersion
}

// newFixes reads the solves edges of a graph, and the about edges of its
// changes to the artifact nodes of their files, whose version is the
// latest one made by the change's last turn.
func newFixes(doc *spec.Document, nodes map[string]*spec.Node) fixes {
	f := fixes{solves: map[string][]string{}, solvedBy: map[string][]string{}, files: map[string][]FileVersion{}}
	for _, e := range doc.SemanticGraph.Edges {
		from, to := nodes[e.From], nodes[e.To]
		if from == nil || to == nil || e.From == e.To {
			continue
		}
		switch {
		case e.Relation == spec.RelSolves && to.Type == spec.NodeProblem:
			f.solves[e.From] = appendSorted(f.solves[e.From], e.To)
			f.solvedBy[e.To] = appendSorted(f.solvedBy[e.To], e.From)
		case e.Relation == spec.RelAbout && from.Kind == spec.KindChange && to.Type == spec.NodeArtifact && to.ArtifactID != "":
			if v := versionBy(doc.ArtifactVault.Artifacts[to.ArtifactID], lastTurn(from)); v > 0 {
				fv := FileVersion{ArtifactID: to.ArtifactID, Path: to.Label, Version: v}
				if !slices.Contains(f.files[e.From], fv) {
					f.files[e.From] = append(f.files[e.From], fv)
				}
			}
		}
	}
	for _, fs := range f.files {
		slices.SortFunc(fs, func(a, b FileVersion) int { return strings.Compare(a.Path, b.Path) })
	}
	return f
}

// appendSorted adds id to ids, sorted, once.
func appendSorted(ids []string, id string) []string {
	if i, found := slices.BinarySearch(ids, id); !found {
		ids = slices.Insert(ids, i, id)
	}
	return ids
}

// lastTurn is the last turn that mentions n, 0 if none says.
func lastTurn(n *spec.Node) int {
	last := max(n.LastMentioned, n.FirstMentioned)
	if len(n.Mentions) > 0 {
		last = max(last, n.Mentions[len(n.Mentions)-1]) // sorted (spec §9.2)
	}
	return last
}

// versionBy is the latest version of a made by turn, 0 if none was (or
// the versions do not say their turns).
func versionBy(a spec.Artifact, turn int) int {
	v := 0
	for _, av := range a.Versions {
		if av.Turn > 0 && av.Turn <= turn && av.V > v {
			v = av.V
		}
	}
	return v
}

// fixNote is what a context's line says of the problem a change solved,
// or of the change that solved a problem, and of the files as the change
// left them: "(fixes: Error: … isn't defined; files: main.dart v7)",
// "(solved by: commit 0b05cf7; files: main.dart v7)".
func (e *Engine) fixNote(n *spec.Node) string {
	var links []string
	word := "fixes"
	if n.Type == spec.NodeProblem {
		links, word = e.fix.solvedBy[n.ID], "solved by"
	} else {
		links = e.fix.solves[n.ID]
	}
	var labels []string
	for _, id := range links {
		// A change is named by its commit, when it has one: shorter, and
		// what a person looks up.
		l := e.nodes[id].Label
		if c, ok := e.nodes[id].Metadata["commit"].(string); ok && c != "" {
			l = "commit " + c
		}
		labels = append(labels, l)
	}
	var note []string
	if len(labels) > 0 {
		note = append(note, word+": "+noteList(labels))
	}
	if fs := e.filesOf(n); len(fs) > 0 {
		names := make([]string, len(fs))
		for i, f := range fs {
			names[i] = fmt.Sprintf("%s v%d", path.Base(f.Path), f.Version)
		}
		note = append(note, "files: "+strings.Join(names, ", "))
	}
	if len(note) == 0 {
		return ""
	}
	return "(" + strings.Join(note, "; ") + ")"
}

// filesOf are the versions of the files that n made, a change, or that
// the changes that solved n made, a problem.
func (e *Engine) filesOf(n *spec.Node) []FileVersion {
	if n.Type != spec.NodeProblem {
		return e.fix.files[n.ID]
	}
	var out []FileVersion
	for _, c := range e.fix.solvedBy[n.ID] {
		for _, f := range e.fix.files[c] {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}
