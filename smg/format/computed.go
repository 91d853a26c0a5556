package format

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/smg-memory/smg/artifacts"
	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// What a file of version 1.3 or later leaves out and a reader computes
// (spec §14, [spec.Computed]): the content hashes of artifact versions,
// artifacts and archive blocks, and the text of a version that names its
// place in a turn. A document in memory always holds them: [complete]
// fills them in when a file is read, and [leaveComputed] takes them out
// of the document a writer writes, so that merge, diff, validation and
// the engine work on one model whatever the file's version.

// leaveComputed returns d without what a reader of its version computes,
// sharing what it does not change with d; d itself is not modified. A
// document of a version before 1.3 is returned as it is.
func leaveComputed(d *spec.Document) *spec.Document {
	if !spec.Computed(d.Version) {
		return d
	}
	out := *d
	out.ArtifactVault.Artifacts = make(map[string]spec.Artifact, len(d.ArtifactVault.Artifacts))
	for id, a := range d.ArtifactVault.Artifacts {
		a.ContentHash = ""
		a.Versions = slices.Clone(a.Versions)
		for i := range a.Versions {
			v := &a.Versions[i]
			v.Hash = ""
			if v.Placed() {
				v.Content, v.Patch = nil, nil
			}
		}
		out.ArtifactVault.Artifacts[id] = a
	}
	out.DeepArchive.Blocks = slices.Clone(d.DeepArchive.Blocks)
	for i := range out.DeepArchive.Blocks {
		out.DeepArchive.Blocks[i].ContentHash = ""
	}
	return &out
}

// complete fills in what a file of doc's version leaves out (see
// [leaveComputed]), and does the same in every private part in the clear.
// What cannot be computed (a place outside its turn, a patch that does
// not apply) is left empty, for [Validate] to report: a reader that needs
// it fails then as it would on a damaged file of any version.
func complete(doc *spec.Document, lim Limits) {
	for i := range doc.PrivateContexts {
		if m := doc.PrivateContexts[i].Memory; m != nil {
			complete(m, lim)
		}
	}
	if !spec.Computed(doc.Version) {
		return
	}
	t := newTurnIndex(doc, lim)
	for i := range doc.DeepArchive.Blocks {
		if b := &doc.DeepArchive.Blocks[i]; b.ContentHash == "" {
			if raw, err := t.data(i); err == nil {
				b.ContentHash = artifacts.HashBytes(raw)
			}
		}
	}
	arts := doc.ArtifactVault.Artifacts
	for p, text := range t.places(arts) {
		if text.err == nil {
			v := &arts[p.id].Versions[p.i]
			v.Content, v.Patch = &text.text, nil
		}
	}
	for _, id := range slices.Sorted(maps.Keys(arts)) {
		a := arts[id]
		_ = artifacts.Walk(graph.Chain(a), func(i int, content string, err error) error {
			if v := &a.Versions[i]; err == nil && v.Hash == "" {
				v.Hash = artifacts.Hash(content)
			}
			return nil
		})
		if n := len(a.Versions); n > 0 && a.ContentHash == "" {
			a.ContentHash = a.Versions[n-1].Hash
		}
		arts[id] = a
	}
}

// turnIndex reads archived turns by number, a block at a time, keeping
// the last block it decoded. The blocks a file holds compressed on their
// own (the form of version 1.0) are decompressed within a budget of
// MaxDocumentSize bytes in all: a hostile file of many blocks that each
// decompress to MaxBlockSize costs its reader no more than one document's
// text.
type turnIndex struct {
	blocks []spec.ArchiveBlock
	lim    Limits
	budget int64
	// last is the index of the block decoded last, and turns its turns.
	last  int
	turns []spec.Turn
}

func newTurnIndex(doc *spec.Document, lim Limits) *turnIndex {
	return &turnIndex{blocks: doc.DeepArchive.Blocks, lim: lim, budget: lim.MaxDocumentSize, last: -1}
}

// versionAt names version i of the artifact id.
type versionAt struct {
	id string
	i  int
}

// placed is the text at a version's place, or why there is none.
type placed struct {
	text string
	err  error
}

// places resolves every version of arts that names its place (spec
// §7.2.2), in the order of their turns, so that each block is decoded
// once. Each text is a copy: it does not keep its turn's text in memory.
func (x *turnIndex) places(arts map[string]spec.Artifact) map[versionAt]placed {
	var vs []versionAt
	for id, a := range arts {
		for i, v := range a.Versions {
			if v.Placed() {
				vs = append(vs, versionAt{id, i})
			}
		}
	}
	turn := func(p versionAt) int { return arts[p.id].Versions[p.i].Turn }
	slices.SortFunc(vs, func(a, b versionAt) int {
		return cmp.Or(cmp.Compare(turn(a), turn(b)), strings.Compare(a.id, b.id), cmp.Compare(a.i, b.i))
	})
	out := make(map[versionAt]placed, len(vs))
	for _, p := range vs {
		text, err := x.place(arts[p.id].Versions[p.i])
		out[p] = placed{strings.Clone(text), err}
	}
	return out
}

// data returns the data of block i (see [graph.BlockData]).
func (x *turnIndex) data(i int) ([]byte, error) {
	b := x.blocks[i]
	if b.Turns != nil {
		return graph.BlockData(b, x.lim.MaxBlockSize)
	}
	if x.budget <= 0 {
		return nil, &LimitError{Limit: "MaxDocumentSize", Max: x.lim.MaxDocumentSize}
	}
	raw, err := graph.BlockData(b, min(x.lim.MaxBlockSize, x.budget))
	x.budget -= int64(len(raw))
	return raw, err
}

// errPlace reports a version's place that names no text of its turn.
var errPlace = errors.New("the place names no text of its turn")

// turn returns archived turn n as it is stored.
func (x *turnIndex) turn(n int) (spec.Turn, error) {
	i, ok := slices.BinarySearchFunc(x.blocks, n, func(b spec.ArchiveBlock, n int) int {
		switch {
		case b.TurnRange[1] < n:
			return -1
		case b.TurnRange[0] > n:
			return 1
		}
		return 0
	})
	if !ok {
		return spec.Turn{}, fmt.Errorf("%w: no block holds turn %d", errPlace, n)
	}
	if x.last != i {
		raw, err := x.data(i)
		var turns []spec.Turn
		if err == nil {
			turns, err = ReadBlocks(x.lim).Decode(raw)
		}
		if err != nil {
			return spec.Turn{}, fmt.Errorf("%w: turn %d's block %s: %v", errPlace, n, x.blocks[i].ID, err)
		}
		x.last, x.turns = i, turns
	}
	turns := x.turns
	if j := n - x.blocks[i].TurnRange[0]; j < len(turns) && turns[j].Turn == n {
		return turns[j], nil
	}
	return spec.Turn{}, fmt.Errorf("%w: block %s does not hold turn %d in its place", errPlace, x.blocks[i].ID, n)
}

// place returns the text version v names by its place in its turn
// (spec §7.2.2): bytes [Start, End) of the turn's content, which must
// start and end characters and be as long as the version's size.
func (x *turnIndex) place(v spec.ArtifactVersion) (string, error) {
	if v.Turn < 1 {
		return "", fmt.Errorf("%w: a version that names its place names its turn", errPlace)
	}
	t, err := x.turn(v.Turn)
	if err != nil {
		return "", err
	}
	if len(t.ContentRefs) > 0 {
		return "", fmt.Errorf("%w: turn %d holds contentRefs, which a file of 1.3 does not", errPlace, v.Turn)
	}
	c := t.Content
	switch {
	case v.Start < 0 || v.Start >= v.End || v.End > len(c):
		return "", fmt.Errorf("%w: [%d, %d) is not within the %d bytes of turn %d", errPlace, v.Start, v.End, len(c), v.Turn)
	case !utf8.RuneStart(c[v.Start]) || v.End < len(c) && !utf8.RuneStart(c[v.End]):
		return "", fmt.Errorf("%w: [%d, %d) of turn %d splits a character", errPlace, v.Start, v.End, v.Turn)
	case int64(v.End-v.Start) != v.Size:
		return "", fmt.Errorf("%w: [%d, %d) of turn %d holds %d bytes, the version's size is %d", errPlace, v.Start, v.End, v.Turn, v.End-v.Start, v.Size)
	}
	return c[v.Start:v.End], nil
}
