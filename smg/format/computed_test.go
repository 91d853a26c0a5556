package format_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// TestComputedRoundTrip: a memory of version 1.3 is written without what
// its reader computes (the hashes of versions, artifacts and blocks, and
// the text of a version named by its place in a turn), and read back with
// all of it: the same hashes, the same text, the same content hash.
func TestComputedRoundTrip(t *testing.T) {
	doc := checkoutMemory(t).Document()
	if doc.Version != spec.Version || !spec.Computed(doc.Version) {
		t.Fatalf("the builder writes version %s", doc.Version)
	}
	raw, err := format.MarshalClear(doc, &format.EncodeOptions{Plain: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, member := range []string{`"hash":`, `"contentHash":`, `"contentRefs":`} {
		if bytes.Contains(raw, []byte(member)) {
			t.Errorf("the file holds %s", member)
		}
	}
	placed := 0
	for _, a := range doc.ArtifactVault.Artifacts {
		for _, v := range a.Versions {
			if v.Placed() {
				placed++
			}
		}
	}
	if placed == 0 {
		t.Fatal("no version names its place: the test tests nothing")
	}

	back, err := format.Unmarshal(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := format.Validate(back, nil); err != nil {
		t.Fatal(err)
	}
	for id, a := range doc.ArtifactVault.Artifacts {
		b := back.ArtifactVault.Artifacts[id]
		if b.ContentHash != a.ContentHash || len(b.Versions) != len(a.Versions) {
			t.Fatalf("%s: contentHash %q, %d versions; want %q, %d", id, b.ContentHash, len(b.Versions), a.ContentHash, len(a.Versions))
		}
		for i, v := range a.Versions {
			want, err := format.ArtifactContent(doc, id, v.V)
			if err != nil {
				t.Fatal(err)
			}
			got, err := format.ArtifactContent(back, id, v.V)
			if err != nil || got != want || b.Versions[i].Hash != v.Hash || b.Versions[i].Placed() != v.Placed() {
				t.Errorf("%s v%d reads back as %q (%v), hash %q; want %q, hash %q", id, v.V, got, err, b.Versions[i].Hash, want, v.Hash)
			}
		}
	}
	for i, blk := range doc.DeepArchive.Blocks {
		if got := back.DeepArchive.Blocks[i].ContentHash; got != blk.ContentHash || got == "" {
			t.Errorf("block %s: contentHash %q, want %q", blk.ID, got, blk.ContentHash)
		}
	}
	h1, err1 := format.ContentHash(doc)
	h2, err2 := format.ContentHash(back)
	if err1 != nil || err2 != nil || h1 != h2 {
		t.Errorf("content hashes %s and %s (%v, %v)", h1, h2, err1, err2)
	}
	again, err := format.Marshal(back, &format.EncodeOptions{Plain: true})
	if err != nil || !bytes.Equal(again, raw) {
		t.Errorf("written again, the file differs (%v)", err)
	}
}

// TestPlaceChecked: a writer's document whose version names a place that
// does not hold the version's text is invalid, and is not written: the
// file would give other text.
func TestPlaceChecked(t *testing.T) {
	doc := checkoutMemory(t).Document()
	for id, a := range doc.ArtifactVault.Artifacts {
		for i, v := range a.Versions {
			if v.Placed() && v.Start > 0 {
				a.Versions[i].Start--
				a.Versions[i].End--
				doc.ArtifactVault.Artifacts[id] = a
				err := format.Validate(doc, nil)
				if err == nil || !strings.Contains(err.Error(), "are not the version's content") {
					t.Fatalf("a place one byte early: %v", err)
				}
				if err := format.WriteFile(filepath.Join(t.TempDir(), "m.smg"), doc, nil); err == nil {
					t.Fatal("a document whose place is wrong was written")
				}
				return
			}
		}
	}
	t.Fatal("no placed version after the start of its turn")
}
