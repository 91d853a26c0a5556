package format

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/smg-memory/smg/artifacts"
	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// ArtifactInfo describes an artifact of the vault (spec §7) without
// reconstructing its versions.
type ArtifactInfo struct {
	ID       string            `json:"id"`
	Type     spec.ArtifactType `json:"type"`
	Language string            `json:"language,omitempty"`
	Filename string            `json:"filename,omitempty"`
	Versions int               `json:"versions"`
	// Size is the length of the latest version's content in bytes.
	Size int64 `json:"size"`
	// StoredBytes is what the vault stores for the artifact: the lengths
	// of its full copies and of its patches; Snapshots counts the full
	// copies, and InTurns the versions the vault does not store, named by
	// their place in the turn that holds them whole (spec §7.2.2).
	StoredBytes int64 `json:"storedBytes"`
	Snapshots   int   `json:"snapshots"`
	InTurns     int   `json:"inTurns"`
	// FirstTurn and LastTurn are the turns of the first and the last
	// version, when the vault records them.
	FirstTurn int `json:"firstTurn,omitzero"`
	LastTurn  int `json:"lastTurn,omitzero"`
}

// Artifacts describes the artifacts of a document, sorted by id.
func Artifacts(doc *spec.Document) []ArtifactInfo {
	out := make([]ArtifactInfo, 0, len(doc.ArtifactVault.Artifacts))
	for id, a := range doc.ArtifactVault.Artifacts {
		info := ArtifactInfo{ID: id, Type: a.Type, Language: a.Language, Filename: a.Filename, Versions: len(a.Versions)}
		for _, v := range a.Versions {
			switch {
			case v.Placed():
				info.InTurns++
			case v.Content != nil:
				info.StoredBytes += int64(len(*v.Content))
				info.Snapshots++
			case v.Patch != nil:
				info.StoredBytes += int64(len(*v.Patch))
			}
			if v.Turn > 0 {
				if info.FirstTurn == 0 {
					info.FirstTurn = v.Turn
				}
				info.LastTurn = v.Turn
			}
		}
		if n := len(a.Versions); n > 0 {
			info.Size = a.Versions[n-1].Size
		}
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b ArtifactInfo) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// ArtifactContent returns the full content of version v (from 1) of the
// artifact id, the vault's id or that of the artifact's node; v = 0 means
// the latest version. The content is reconstructed from the nearest full
// copy and checked against the version's hash (spec §7.3). An unknown
// artifact is a [*NotFoundError], an unknown version ErrNotFound; a
// version that does not reconstruct makes the document
// invalid, and its error matches ErrInvalid as well as the cause
// (artifacts.ErrPatch, artifacts.ErrHashMismatch…).
func ArtifactContent(doc *spec.Document, id string, v int) (string, error) {
	a, id, v, err := artifactVersion(doc, id, v)
	if err != nil {
		return "", err
	}
	content, err := artifacts.Reconstruct(graph.Chain(a), v-1)
	if err != nil {
		return "", fmt.Errorf("artifact %q version %d: %w: %w", id, v, ErrInvalid, err)
	}
	return content, nil
}

// artifactVersion returns the artifact id names, its vault id and the
// number of its version v, the latest for 0.
func artifactVersion(doc *spec.Document, id string, v int) (spec.Artifact, string, int, error) {
	vid, ok := artifactID(doc, id)
	if !ok {
		return spec.Artifact{}, "", 0, noArtifact(doc, id)
	}
	a := doc.ArtifactVault.Artifacts[vid]
	if v == 0 {
		v = len(a.Versions)
	}
	if v < 1 || v > len(a.Versions) {
		return a, vid, 0, fmt.Errorf("artifact %q version %d (it has %d): %w", vid, v, len(a.Versions), ErrNotFound)
	}
	return a, vid, v, nil
}

// diffContext is the number of unchanged lines around each change of a
// unified diff.
const diffContext = 3

// ArtifactDiff returns the unified diff from version a to version b of
// the artifact id (0 for either means the latest version): a "--- id@vA"
// and a "+++ id@vB" line, then hunks of changed lines with 3 lines of
// context, as diff -u writes them. Two versions with the same content
// give the empty string. Errors are those of [ArtifactContent].
//
// The lines are diffed with github.com/sergi/go-diff, as the vault's
// patches are (spec §7.4.4), with no time limit, so the same versions
// always give the same diff.
func ArtifactDiff(doc *spec.Document, id string, a, b int) (string, error) {
	_, id, a, err := artifactVersion(doc, id, a)
	if err != nil {
		return "", err
	}
	_, _, b, err = artifactVersion(doc, id, b)
	if err != nil {
		return "", err
	}
	from, err := ArtifactContent(doc, id, a)
	if err != nil {
		return "", err
	}
	to, err := ArtifactContent(doc, id, b)
	if err != nil {
		return "", err
	}
	return unifiedDiff(fmt.Sprintf("%s@v%d", id, a), fmt.Sprintf("%s@v%d", id, b), from, to), nil
}

// diffLine is a line of a diff: ' ' kept, '-' deleted, '+' inserted. Its
// text ends with a line feed, but for the last line of a text that has
// none.
type diffLine struct {
	op   byte
	text string
}

// unifiedDiff returns the unified diff from one text to another, with
// diffContext lines of context, or "" when they are equal.
func unifiedDiff(fromName, toName, from, to string) string {
	if from == to {
		return ""
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	a, b, lines := dmp.DiffLinesToChars(from, to)
	var seq []diffLine
	for _, d := range dmp.DiffCharsToLines(dmp.DiffMain(a, b, false), lines) {
		op := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = '-'
		case diffmatchpatch.DiffInsert:
			op = '+'
		}
		for _, l := range strings.SplitAfter(d.Text, "\n") {
			if l != "" {
				seq = append(seq, diffLine{op, l})
			}
		}
	}

	// A line goes into a hunk when it is a change, or a kept line at
	// most diffContext lines from one; hunks are the runs of such lines.
	// (Between a kept line and its nearest change every line is kept, so
	// the distance in seq is the number of lines of context.)
	near := make([]bool, len(seq))
	last := -1 << 30
	for i, l := range seq {
		if l.op != ' ' {
			last = i
		}
		near[i] = i-last <= diffContext
	}
	last = 1 << 30
	for i := len(seq) - 1; i >= 0; i-- {
		if seq[i].op != ' ' {
			last = i
		}
		near[i] = near[i] || last-i <= diffContext
	}

	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", fromName, toName)
	oldLine, newLine := 0, 0 // the lines of each text before seq[i]
	for i := 0; i < len(seq); {
		if !near[i] {
			oldLine, newLine = oldLine+1, newLine+1 // only kept lines are far from changes
			i++
			continue
		}
		end := i
		oldN, newN := 0, 0
		for ; end < len(seq) && near[end]; end++ {
			if seq[end].op != '+' {
				oldN++
			}
			if seq[end].op != '-' {
				newN++
			}
		}
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(oldLine, oldN), hunkRange(newLine, newN))
		for _, l := range seq[i:end] {
			sb.WriteByte(l.op)
			sb.WriteString(l.text)
			if !strings.HasSuffix(l.text, "\n") {
				sb.WriteString("\n\\ No newline at end of file\n")
			}
		}
		oldLine, newLine, i = oldLine+oldN, newLine+newN, end
	}
	return sb.String()
}

// hunkRange writes the lines of a hunk as diff -u does: the first line's
// number and the count, without a count of 1, and for no lines the number
// of the line before them.
func hunkRange(before, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", before)
	case 1:
		return fmt.Sprint(before + 1)
	default:
		return fmt.Sprintf("%d,%d", before+1, n)
	}
}
