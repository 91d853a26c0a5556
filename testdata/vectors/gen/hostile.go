package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// writeHostile writes into dir the hostile inputs too big to keep as
// vectors (BENCHMARKS.md, "Hostile files"): each is made again from its
// recipe here.
func writeHostile(dir string) {
	check(os.MkdirAll(dir, 0o755))
	files := map[string][]byte{
		"bomb-spaces-1gib.smg": spaceBomb(1 << 30),
		"nodes-2m.smg":         manyNodes(2_000_000),
		"nodes-950k-valid.smg": manyNodes(950_000),
		"nodes-100k-valid.smg": manyNodes(100_000), // the most MaxNodes allows a small file
		// 2,000,000 nodes behind 12 MiB of text no compression shrinks:
		// a file large enough that MaxNodes grows (spec §9.4).
		"nodes-2m-padded.smg": paddedNodes(2_000_000, 12<<20),
	}
	for name, b := range files {
		check(os.WriteFile(filepath.Join(dir, name), b, 0o644))
		fmt.Fprintf(os.Stderr, "%s: %d bytes\n", name, len(b))
	}
}

// spaceBomb is '{' and n spaces, Brotli-compressed: a few hundred bytes
// whose text is n bytes long.
func spaceBomb(n int) []byte {
	return streamBrotli(func(w io.Writer) {
		io.WriteString(w, "{")
		chunk := []byte(strings.Repeat(" ", 1<<20))
		for left := n; left > 0; left -= len(chunk) {
			w.Write(chunk[:min(left, len(chunk))])
		}
	})
}

// manyNodes is a valid memory of n concept nodes, each with a short
// description, Brotli-compressed.
func manyNodes(n int) []byte {
	return paddedNodes(n, 0)
}

// paddedNodes is manyNodes with pad bytes of random base64 text (from a
// fixed seed) in the first node's description.
func paddedNodes(n, pad int) []byte {
	random := make([]byte, pad*3/4)
	rand.NewChaCha8([32]byte{1}).Read(random)
	padding := base64.StdEncoding.EncodeToString(random)
	return streamBrotli(func(w io.Writer) {
		io.WriteString(w, `{"@context":"https://w3id.org/smg/v1/context.jsonld","@type":"SemanticMemoryGraph","artifactVault":{"artifacts":{}},"deepArchive":{"blocks":[],"compressionMethod":"brotli"},"metadata":{"created":"2025-11-03T09:12:00Z","id":"5e0c1b7a-3d2f-4c8e-a1b9-6f4d2e8c0a13","modified":"2025-11-03T09:12:00Z","totalExchanges":0},"semanticGraph":{"edges":[],"nodes":[`)
		var b bytes.Buffer
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			description := fmt.Sprintf("Concept number %d of a synthetic memory", i)
			if i == 0 && padding != "" {
				description = padding
			}
			fmt.Fprintf(&b, `{"activation":0.5,"confidence":0.9,"description":%q,"id":"concept-%07d","importance":0.5,"label":"concept %d","type":"concept","version":1}`, description, i, i)
			if b.Len() > 1<<20 {
				w.Write(b.Bytes())
				b.Reset()
			}
		}
		w.Write(b.Bytes())
		io.WriteString(w, `]},"version":"1.0","workingMemory":{}}`)
	})
}
