package format_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// manyNodes is a memory of n concept nodes, and with pad bytes of random
// text in its first node's description, which no compression shrinks.
func manyNodes(t testing.TB, n, pad int) *spec.Document {
	t.Helper()
	doc := spec.New("m", time.Date(2025, 11, 3, 9, 12, 0, 0, time.UTC))
	doc.SemanticGraph.Nodes = make([]spec.Node, n)
	for i := range doc.SemanticGraph.Nodes {
		doc.SemanticGraph.Nodes[i] = spec.Node{ID: fmt.Sprintf("concept-%07d", i), Type: spec.NodeConcept,
			Label: fmt.Sprintf("concept %d", i), Description: fmt.Sprintf("Concept number %d of a synthetic memory", i),
			Importance: 0.5, Activation: 0.5, Confidence: 0.9, Version: 1}
	}
	if pad > 0 {
		random := make([]byte, pad*3/4)
		rand.Read(random)
		doc.SemanticGraph.Nodes[0].Description = base64.StdEncoding.EncodeToString(random)
	}
	return doc
}

// TestNodesGrowWithFile: a file of a few megabytes is held to 100,000
// nodes, by reader and writer alike, while a file large enough for more
// (a node a 64 bytes) holds them, and is written and read back.
func TestNodesGrowWithFile(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("validates 101,000 nodes four times: 10 s, minutes under the race detector")
	}
	const n = 101_000
	dir := t.TempDir()

	small := manyNodes(t, n, 0)
	b, err := format.Marshal(small, nil) // unchecked: what a writer must not write
	if err != nil {
		t.Fatal(err)
	}
	if len(b) >= n*64 {
		t.Fatalf("the small file is %d bytes, large enough for %d nodes", len(b), n)
	}
	_, err = format.Unmarshal(b, nil)
	limitError(t, err, "MaxNodes")
	if le, ok := errors.AsType[*format.LimitError](err); !ok || le.Max != 100_000 {
		t.Errorf("%v: want the limit of 100,000 nodes", err)
	}
	err = format.WriteFile(filepath.Join(dir, "small.smg"), small, nil)
	limitError(t, err, "MaxNodes")
	_, err = format.MarshalMemory(small, &format.EncodeOptions{Indent: true})
	limitError(t, err, "MaxNodes")

	large := manyNodes(t, n, 8<<20)
	name := filepath.Join(dir, "large.smg")
	if err := format.WriteFile(name, large, &format.EncodeOptions{Indent: true}); err != nil {
		t.Fatalf("a file of 8 MiB with %d nodes: %v", n, err)
	}
	doc, err := format.ReadFile(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(doc.SemanticGraph.Nodes); got != n {
		t.Errorf("read back %d nodes, want %d", got, n)
	}
	if _, err := format.MarshalMemory(large, nil); err != nil {
		t.Errorf("MarshalMemory of the large memory: %v", err)
	}
}

// TestListsGrowWithFile: a list of 300,000 members is refused in a file
// of 2 MB, at the 250,000 of a small file, and read in one of 3 MB; one
// past what its file's size allows says that its limit grew.
func TestListsGrowWithFile(t *testing.T) {
	file := func(members, size int) []byte {
		b := []byte(`{"@context":"https://w3id.org/smg/v1/context.jsonld","@type":"SemanticMemoryGraph","version":"1.0","x":[0` + strings.Repeat(",0", members-1) + `]`)
		return append(b, bytes.Repeat([]byte(" "), size-len(b)-1)...) // white space to the size, then '}'
	}
	close := func(b []byte) []byte { return append(b, '}') }
	_, err := format.Unmarshal(close(file(300_000, 2_000_000)), nil)
	limitError(t, err, "MaxListLength")
	if le, _ := errors.AsType[*format.LimitError](err); le == nil || le.Max != 250_000 || le.GrownFor != 0 {
		t.Errorf("%v: want the limit of a small file, 250,000, not grown", err)
	}
	if _, err := format.Unmarshal(close(file(300_000, 3_000_000)), nil); err != nil {
		t.Errorf("300,000 members in a file of 3 MB: %v", err)
	}
	_, err = format.Unmarshal(close(file(400_000, 3_000_000)), nil)
	limitError(t, err, "MaxListLength")
	if le, _ := errors.AsType[*format.LimitError](err); le == nil || le.Max != 375_000 || le.GrownFor != 3_000_000 {
		t.Errorf("%v: want the limit grown to 375,000 for the file's 3,000,000 bytes", err)
	} else if !strings.Contains(err.Error(), "grown with the file's 3000000 bytes") {
		t.Errorf("%q does not say the limit grew with the file", err)
	}
	_, err = format.Unmarshal(close(file(400_000, 3_000_000)), &format.DecodeOptions{Limits: format.Limits{MaxListLength: 300_000}})
	if le, _ := errors.AsType[*format.LimitError](err); le == nil || le.Max != 300_000 || le.GrownFor != 0 {
		t.Errorf("%v: want the limit that is set, 300,000, not grown", err)
	}
}

// TestLargeFileOfAnotherKind: a file larger than the 64 MiB a reader took
// before its limits grew, that is no memory (here a PNG's first bytes and
// nothing), is refused as not-smg from its first bytes, not held; one
// that starts as a memory is read to its end (here, truncated).
func TestLargeFileOfAnotherKind(t *testing.T) {
	dir := t.TempDir()
	sparse := func(name string, start []byte) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, start, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, 80<<20); err != nil { // sparse: no 80 MiB on the disk
			t.Fatal(err)
		}
		return p
	}
	png := sparse("image.png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00"))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := format.ReadBytes(png, format.Limits{})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, format.ErrNotSMG) {
		t.Errorf("a PNG of 80 MiB: %v, want not-smg", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("refusing a PNG of 80 MiB allocated %d MiB", got>>20)
	}
	if _, err := format.ReadFile(png, nil); !errors.Is(err, format.ErrNotSMG) {
		t.Errorf("ReadFile of the PNG: %v, want not-smg", err)
	}
	// JSON text, then zeros: read whole, and malformed, not refused unread.
	js := sparse("memory.smg", []byte(`{"@context":"https://w3id.org/smg/v1/context.jsonld","@type":"SemanticMemoryGraph",`))
	b, err := format.ReadBytes(js, format.Limits{})
	if err != nil || len(b) != 80<<20 {
		t.Errorf("a file of 80 MiB that starts as JSON: %d bytes read, %v", len(b), err)
	}
}
