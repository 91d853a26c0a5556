package format_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

// TestWriterChecksAsValidate: a writer, which checks a document piece by
// piece while it encodes it (the text without the archive's blocks, then
// each block), refuses exactly what Validate finds (but JSON-LD), with the
// same problems in the same order, for every test vector that decodes.
func TestWriterChecksAsValidate(t *testing.T) {
	vs, err := smgtest.Load(vectorDir)
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, v := range vs {
		if v.Password != "" {
			continue
		}
		doc, err := format.Unmarshal(v.Body, nil)
		if err != nil {
			continue
		}
		t.Run(v.Name, func(t *testing.T) {
			want := format.Validate(doc, &format.ValidateOptions{SkipJSONLD: true})
			// The file holds the vectors: the writer checks what it writes.
			got := format.WriteFile(filepath.Join(t.TempDir(), "m.smg"), doc, &format.EncodeOptions{WithVectors: true})
			wantVE, _ := errors.AsType[*format.ValidationError](want)
			gotVE, _ := errors.AsType[*format.ValidationError](got)
			switch {
			case want == nil && got == nil:
			case wantVE != nil && gotVE != nil:
				refused++
				if !slices.Equal(gotVE.Problems, wantVE.Problems) {
					t.Errorf("the writer's problems differ:\n got %v\nwant %v", gotVE.Problems, wantVE.Problems)
				}
			default:
				t.Errorf("the writer says %v, Validate %v", got, want)
			}
		})
	}
	if refused < 10 {
		t.Errorf("only %d vectors refused: the invalid ones are not being read", refused)
	}
}

// TestMarshalClear: the blocks a document holds compressed are written in
// the clear, as if the document held them so, and the document is left
// as it was.
func TestMarshalClear(t *testing.T) {
	vs, err := smgtest.Load(vectorDir)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(vs, func(v *smgtest.Vector) bool { return v.Name == "ok-version-1.0" })
	if i < 0 {
		t.Fatal("no vector ok-version-1.0")
	}
	doc, err := format.Unmarshal(vs[i].Body, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.DeepArchive.Blocks) == 0 || doc.DeepArchive.Blocks[0].CompressedData == nil {
		t.Fatal("the vector's blocks are not compressed")
	}
	clear := *doc
	clear.DeepArchive.Blocks = slices.Clone(doc.DeepArchive.Blocks)
	graph.PlainBlocks(&clear)
	want, err := format.Marshal(&clear, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := format.MarshalClear(doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("MarshalClear does not write the blocks as the document in the clear")
	}
	if doc.DeepArchive.Blocks[0].CompressedData == nil || doc.DeepArchive.Blocks[0].Turns != nil {
		t.Error("MarshalClear changed the document's blocks")
	}
	back, err := format.Unmarshal(got, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range back.DeepArchive.Blocks {
		if b.Turns == nil || b.CompressedData != nil {
			t.Errorf("block %s is not in the clear", b.ID)
		}
	}
	// Kept compressed, the same document encodes as it was read.
	same, err := format.Marshal(doc, smgtest.Form(vs[i].Body))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(same, vs[i].Body) {
		t.Error("Marshal of a document with compressed blocks changed its bytes")
	}
}

// TestWriterRefusesBrokenBlock: a block whose turns do not decode is
// refused by the writer, which names it, and nothing is written.
func TestWriterRefusesBrokenBlock(t *testing.T) {
	doc := smallDoc(t)
	if len(doc.DeepArchive.Blocks) == 0 {
		t.Fatal("no blocks")
	}
	b := doc.DeepArchive.Blocks[0]
	if b.Turns == nil {
		p, err := graph.PlainBlock(b)
		if err != nil {
			t.Fatal(err)
		}
		b = p
	}
	b.Turns = append(b.Turns[:len(b.Turns)-1:len(b.Turns)-1], []byte(`,{"turn":"x"}]`)...)
	doc.DeepArchive.Blocks[0] = b
	name := filepath.Join(t.TempDir(), "m.smg")
	_, err := format.MarshalMemory(doc, nil)
	ve, ok := errors.AsType[*format.ValidationError](err)
	if !ok {
		t.Fatalf("MarshalMemory: %v, want a validation error", err)
	}
	found := false
	for _, p := range ve.Problems {
		found = found || bytes.HasPrefix([]byte(p.Path), []byte("$.deepArchive.blocks[0]"))
	}
	if !found {
		t.Errorf("no problem names the block: %v", ve.Problems)
	}
	if err := format.WriteFile(name, doc, nil); err == nil {
		t.Error("WriteFile wrote a broken block")
	}
}

// smallDoc is the document of testdata/small.smg.
func smallDoc(t *testing.T) *spec.Document {
	t.Helper()
	doc, err := format.ReadFile(filepath.Join("..", "..", "testdata", "small.smg"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestWriteStateFrom: a state streamed to its file reads back whole; one
// whose writing fails leaves the old state as it was, and no temporary
// file beside it.
func TestWriteStateFrom(t *testing.T) {
	dir := t.TempDir()
	name := format.StateName(filepath.Join(dir, "m.smg"))
	base := "sha256:" + strings.Repeat("ab", 32)
	old := bytes.Repeat([]byte("the builder's state "), 10_000)
	if err := format.WriteState(name, base, old); err != nil {
		t.Fatal(err)
	}
	if got, err := format.ReadState(name, base); err != nil || !bytes.Equal(got, old) {
		t.Fatalf("ReadState: %d bytes, %v", len(got), err)
	}
	boom := errors.New("boom")
	err := format.WriteStateFrom(name, base, func(w io.Writer) error {
		w.Write([]byte("half a state"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("WriteStateFrom: %v, want the writer's error", err)
	}
	if got, err := format.ReadState(name, base); err != nil || !bytes.Equal(got, old) {
		t.Errorf("after a failed write: %d bytes, %v; want the old state", len(got), err)
	}
	if _, err := format.ReadState(name, "sha256:"+strings.Repeat("cd", 32)); !errors.Is(err, format.ErrStateMismatch) {
		t.Errorf("a state read for other bytes: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files beside the state, want none", len(entries)-1)
	}
	// Damaged after it was written: its hash no longer matches.
	raw, _ := os.ReadFile(name)
	raw[len(raw)-1] ^= 1
	os.WriteFile(name, raw, 0o600)
	if _, err := format.ReadState(name, base); !errors.Is(err, format.ErrStateMismatch) {
		t.Errorf("a damaged state: %v", err)
	}
}

// TestStreamedIsCanonical: the text a writer streams, piece by piece, is
// the document's canonical JSON, whose hash is its content hash, with its
// artifacts, nodes and edges in canonical order whatever the order of the
// document's map and lists.
func TestStreamedIsCanonical(t *testing.T) {
	doc, err := format.ReadFile(filepath.Join("..", "..", "testdata", "full.smg"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var one spec.Artifact
	for _, a := range doc.ArtifactVault.Artifacts {
		one = a
		break
	}
	for i := range 40 {
		doc.ArtifactVault.Artifacts[fmt.Sprintf("art-%c%d", 'z'-i%26, i)] = one
	}
	slices.Reverse(doc.SemanticGraph.Nodes)
	slices.Reverse(doc.SemanticGraph.Edges)
	want, err := format.ContentHash(doc)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 { // maps iterate in another order each time
		js, err := format.Marshal(doc, &format.EncodeOptions{Plain: true})
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(js)
		if got := "sha256:" + hex.EncodeToString(sum[:]); got != want {
			t.Fatalf("the streamed text hashes to %s, the canonical JSON to %s", got, want)
		}
	}
}

// TestWriterChecksArtifactIDs: an artifact whose id is not one is found
// by Validate and by a writer alike, at its own path.
func TestWriterChecksArtifactIDs(t *testing.T) {
	doc, err := format.ReadFile(filepath.Join("..", "..", "testdata", "full.smg"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for id, a := range doc.ArtifactVault.Artifacts {
		doc.ArtifactVault.Artifacts["bad id!"] = a
		delete(doc.ArtifactVault.Artifacts, id)
		break
	}
	for name, err := range map[string]error{
		"Validate":  format.Validate(doc, &format.ValidateOptions{SkipJSONLD: true}),
		"WriteFile": format.WriteFile(filepath.Join(t.TempDir(), "m.smg"), doc, nil),
	} {
		paths := smgtest.ProblemPaths(err)
		if !slices.Contains(paths, "$.artifactVault.artifacts['bad id!']") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestMarshalClearRefusesOversizeBlock: a compressed block that claims
// more than a reader takes is not decompressed to be written in the clear.
func TestMarshalClearRefusesOversizeBlock(t *testing.T) {
	vs, err := smgtest.Load(vectorDir)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(vs, func(v *smgtest.Vector) bool { return v.Name == "ok-version-1.0" })
	doc, err := format.Unmarshal(vs[i].Body, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc.DeepArchive.Blocks[0].UncompressedSize = format.DefaultLimits.MaxBlockSize + 1
	_, err = format.MarshalClear(doc, nil)
	if le, ok := errors.AsType[*format.LimitError](err); !ok || le.Limit != "MaxBlockSize" {
		t.Errorf("MarshalClear: %v, want MaxBlockSize", err)
	}
	if _, err := format.Marshal(doc, nil); err != nil {
		t.Errorf("Marshal, which keeps the block compressed: %v", err)
	}
}
