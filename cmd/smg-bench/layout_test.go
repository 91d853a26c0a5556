package main

import (
	"testing"

	"github.com/smg-memory/smg/smg/importer"
)

// TestLayout: on an aider history, each layout leaves out what the one
// before it holds, so weighs no more; the file as written weighs what
// smg writes; and versions point into the turns that hold them.
func TestLayout(t *testing.T) {
	res, err := importer.ReadFile("../../smg/importer/testdata/aider-architect.md", importer.Options{})
	if err != nil || len(res.Conversations) != 1 {
		t.Fatal(err)
	}
	r, err := measureLayout(res.Conversations[0])
	if err != nil {
		t.Fatal(err)
	}
	raw, smgBytes := sizesOf(t, "../../smg/importer/testdata/aider-architect.md")
	if r.smg != smgBytes || r.q11 <= 0 || r.q11 >= raw {
		t.Errorf("smg %d (want %d), q11 %d of %d raw", r.smg, smgBytes, r.q11, raw)
	}
	chain := []int64{r.noHashes, r.refs, r.refs11, r.noVault, r.noGraph, r.noWM}
	for i := 1; i < len(chain); i++ {
		if chain[i] > chain[i-1] || chain[i] <= 0 {
			t.Errorf("layout %d weighs %d, more than the one before it, %d", i, chain[i], chain[i-1])
		}
	}
	if r.refs >= r.noHashes || r.noVault >= r.refs11 {
		t.Errorf("the vault's references or the vault weigh nothing: %+v", r)
	}
	if r.versions == 0 || r.inTurn == 0 || r.inTurn > r.versions {
		t.Errorf("%d versions, %d in a turn", r.versions, r.inTurn)
	}
}
