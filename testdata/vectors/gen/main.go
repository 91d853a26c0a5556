// Command gen writes the test vectors of testdata/vectors (spec/smg-v1.md
// §13) and the example memories testdata/small.smg, testdata/full.smg and
// testdata/full.smg.json. Run it from the repository root:
//
//	go run ./testdata/vectors/gen
//
// Its output is deterministic: salts and nonces come from a seeded source,
// times are fixed. The expectations (expect: and path: lines) are written
// here by hand, not derived from what the reader does; the tests in smg and
// cmd/smg check the reader against them, and smg's TestVectorsUpToDate
// checks that the files match this program.
package main

import (
	"bytes"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

const generator = "smg-vectorgen/1"

func main() {
	out := flag.String("out", "testdata", "the testdata folder to write into")
	hostile := flag.String("hostile", "", "write the big hostile inputs (not vectors) into this folder, and nothing else")
	flag.Parse()
	if *hostile != "" {
		writeHostile(*hostile)
		return
	}
	files := generate()
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	// Vectors that are no longer generated go.
	old, _ := filepath.Glob(filepath.Join(*out, "vectors", "*.vec"))
	for _, o := range old {
		rel, _ := filepath.Rel(*out, o)
		if _, ok := files[filepath.ToSlash(rel)]; !ok {
			check(os.Remove(o))
		}
	}
	for _, name := range names {
		p := filepath.Join(*out, filepath.FromSlash(name))
		check(os.MkdirAll(filepath.Dir(p), 0o755))
		check(os.WriteFile(p, files[name], 0o644))
	}
	fmt.Fprintf(os.Stderr, "wrote %d files into %s\n", len(files), *out)
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}

// generate returns every file, by its path under testdata.
func generate() map[string][]byte {
	files := map[string][]byte{}
	small := smallMemory()
	smallHash, err := format.ContentHash(small)
	check(err)
	full := fullMemory(smallHash)
	files["small.smg"] = encode(small, nil)
	files["full.smg"] = encode(full, nil)
	files["full.smg.json"] = encode(full, pretty)
	for _, v := range vectors(small, full) {
		files["vectors/"+v.Name+".vec"] = v.Format()
	}
	return files
}

var (
	compact = &smg.EncodeOptions{Plain: true}
	pretty  = &smg.EncodeOptions{Plain: true, Indent: true}
)

func encode(doc *spec.Document, opts *smg.EncodeOptions) []byte {
	b, err := format.Marshal(doc, opts)
	check(err)
	return b
}

// clone returns a deep copy of doc.
func clone(doc *spec.Document) *spec.Document {
	d, err := format.Unmarshal(encode(doc, compact), nil)
	check(err)
	return d
}

// edit returns a copy of doc changed by f.
func edit(doc *spec.Document, f func(d *spec.Document)) *spec.Document {
	d := clone(doc)
	f(d)
	return d
}

// v10 is doc as version 1.0 writes it: each archive block compressed
// on its own, in compressedData.
func v10(doc *spec.Document) *spec.Document {
	return edit(doc, func(d *spec.Document) {
		d.Version = "1.0"
		for i, b := range d.DeepArchive.Blocks {
			b.CompressedData, b.Turns = archive.Compress(b.Turns, smgtest.BlockQuality), nil
			d.DeepArchive.Blocks[i] = b
		}
	})
}

// replace changes the JSON text of doc once, where Go types cannot.
func replace(doc *spec.Document, old, new string) []byte {
	js := string(encode(doc, compact))
	if strings.Count(js, old) != 1 {
		panic(fmt.Sprintf("%q occurs %d times", old, strings.Count(js, old)))
	}
	return []byte(strings.Replace(js, old, new, 1))
}

func brotliOf(b []byte) []byte {
	var buf bytes.Buffer
	w := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: 5, LGWin: 22})
	_, err := w.Write(b)
	check(err)
	check(w.Close())
	return buf.Bytes()
}

// streamBrotli compresses what write produces without holding it.
func streamBrotli(write func(w io.Writer)) []byte {
	var buf bytes.Buffer
	w := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: 5, LGWin: 24})
	write(w)
	check(w.Close())
	return buf.Bytes()
}

const password = "correct horse battery staple"

func encrypt(body []byte, kdf smg.KDF, seed uint64) []byte {
	doc, err := format.Unmarshal(body, nil)
	check(err)
	return encode(doc, &smg.EncodeOptions{Password: []byte(password), KDF: kdf, InsecureKDF: true, Rand: smgtest.Rand(seed)})
}

type vec = smgtest.Vector

func vectors(small, full *spec.Document) []*vec {
	minimal := spec.New("5e0c1b7a-3d2f-4c8e-a1b9-6f4d2e8c0a13", t0)
	version := `"version":"` + spec.Version + `"` // as this version writes it
	var vs []*vec
	add := func(name, expect, description string, body []byte, paths ...string) *vec {
		v := &vec{Name: name, Expect: expect, Description: description, Body: body, Paths: paths}
		vs = append(vs, v)
		return v
	}

	// Documents that must read, validate, and re-encode to the same bytes.
	add("ok-minimal-compact", "ok", "an empty memory, compact canonical JSON", encode(minimal, compact))
	add("ok-minimal-pretty", "ok", "an empty memory, canonical pretty JSON", encode(minimal, pretty))
	add("ok-minimal-brotli", "ok", "an empty memory, Brotli-compressed canonical JSON", encode(minimal, nil))
	add("ok-small", "ok", "four turns of a coding conversation: one block, concepts, a decision", encode(small, nil))
	add("ok-full-pretty", "ok", "every section filled: metadata with scope and lineage, working memory, every node type, edges, two artifacts (one a patch chain), two archive blocks, a vector index", encode(full, pretty))
	add("ok-full-brotli", "ok", "the full memory, Brotli-compressed", encode(full, nil))
	add("ok-unknown-members", "ok", "members this version does not know, at every level, are kept on a round trip", encode(withUnknownMembers(full), compact))
	add("ok-minor-version", "ok", "a later minor version with a member of its own reads as 1.x", encode(edit(minimal, func(d *spec.Document) {
		d.Version = "1.9"
		d.Extra = jsontext.Value(`{"retention":{"days":30}}`)
	}), compact))
	add("ok-kinds", "ok", "nodes of every registered kind (instruction, goal and request facts, a change) and a concept of a kind that is not registered", encode(kindsMemory(full), compact))
	okEdit := editMemory(full)
	add("ok-edit-version", "ok", "an artifact whose second version is an edit block (edit: true), stored as a patch, and whose third is the whole file again, a patch against the block", encode(okEdit, compact))
	add("ok-unicode", "ok", "non-ASCII text everywhere: emoji, U+2028, combining marks, <&>, in nodes, turns and an artifact's patches", encode(unicodeMemory(), compact))
	add("ok-vectors-int8", "ok", "the full memory's vectors in int8 (a scale and a signed byte a value), with vectors of two excerpts of a turn", encode(withInt8Vectors(full), compact))
	add("ok-content-refs", "ok", "the full memory as version 1.2 writes it with the code of its archived turns stored as references to artifact versions", encode(withContentRefs(full, nil), compact))
	add("ok-model-summary", "ok", "an archive block whose summary a model wrote, named by summaryModel; the other block's summary is the writer's own", encode(edit(full, func(d *spec.Document) {
		b := &d.DeepArchive.Blocks[0]
		b.Summary = "Dana picks Stripe Elements over Checkout so the card form matches the site, then the webhook's 401 is traced to verifying a re-read body and fixed."
		b.SummaryModel = "example-chat-1"
	}), compact))
	add("ok-snapshots", "ok", "an artifact of seven versions with a full copy every three (v1, v4, v7) and patches between", encode(snapshotMemory(), compact))
	add("ok-timestamps", "ok", "timestamps keep their UTC offset and fractional seconds", encode(edit(minimal, func(d *spec.Document) {
		d.Metadata.Created = mustTime("2025-06-01T10:00:00.25+02:00")
		d.Metadata.Modified = mustTime("2025-06-01T08:30:00Z")
	}), compact))
	add("ok-encrypted-argon2id", "ok", "the small memory encrypted, argon2id (cheap test parameters)", encrypt(encode(small, nil), smgtest.CheapKDF, 1)).Password = password
	add("ok-encrypted-pbkdf2", "ok", "the small memory encrypted, PBKDF2-HMAC-SHA256 (cheap test parameters)", encrypt(encode(small, nil), smg.KDF{Function: "pbkdf2-sha256", Iterations: 1000}, 2)).Password = password

	// Not an smg file at all.
	add("not-smg-empty", "not-smg", "an empty file", nil)
	add("not-smg-text", "not-smg", "a line of text", []byte("hello, world\n"))
	add("not-smg-json-array", "not-smg", "JSON, but an array", []byte("[1, 2, 3]\n"))
	add("not-smg-package-json", "not-smg", "JSON of another kind, with a version member of its own", []byte(`{"name":"shop","version":"1.0.0"}`))
	add("not-smg-png", "not-smg", "the start of a PNG image", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"))

	// Versions.
	add("unsupported-version-2", "unsupported-version", "major version 2", replace(minimal, version, `"version":"2.0"`))
	add("unsupported-version-0", "unsupported-version", "major version 0", replace(minimal, version, `"version":"0.9"`))
	add("unsupported-version-2-huge", "unsupported-version", "a version 2 document that also breaks version 1's limits: the version speaks first",
		streamBrotli(func(w io.Writer) {
			io.WriteString(w, `{"@context":"https://w3id.org/smg/v2/context.jsonld","@type":"SemanticMemoryGraph","version":"2.0","semanticGraph":{"edges":[{}`)
			io.WriteString(w, strings.Repeat(`,{}`, 5_000_000))
			io.WriteString(w, `]}}`)
		}))
	add("malformed-version-missing", "malformed", "no version member", replace(minimal, version+",", ``), "$.version")
	add("malformed-version-syntax", "malformed", "a version that is not MAJOR.MINOR", replace(minimal, version, `"version":"1"`), "$.version")
	add("malformed-version-number", "malformed", "a version that is a number", replace(minimal, version, `"version":1.0`), "$.version")
	add("malformed-context", "malformed", "another @context", replace(minimal, `"@context":"https://w3id.org/smg/v1/context.jsonld"`, `"@context":"https://example.org/context.jsonld"`), "$['@context']")

	// Syntax and types.
	add("malformed-duplicate-member", "malformed", "a member twice in one object", replace(minimal, `"id":"5e0c1b7a-3d2f-4c8e-a1b9-6f4d2e8c0a13"`, `"id":"a","id":"b"`), "$.metadata.id")
	add("malformed-invalid-utf8", "malformed", "a string that is not UTF-8", replace(small, `"label":"Stripe Checkout"`, "\"label\":\"Stripe \xff\xfe\""), "$.semanticGraph.nodes[0].label")
	add("malformed-wrong-type", "malformed", "importance as a string", replace(small, `"importance":0.5,"label":"Stripe Checkout"`, `"importance":"high","label":"Stripe Checkout"`), "$.semanticGraph.nodes[0].importance")
	add("malformed-timestamp", "malformed", "a timestamp that is not RFC 3339", replace(minimal, `"created":"2025-11-03T09:12:00Z"`, `"created":"yesterday"`), "$.metadata.created")
	add("malformed-base64", "malformed", "compressedData that is not base64", replace(v10(small), `"compressedData":"`, `"compressedData":"@@@@`), "$.deepArchive.blocks[0].compressedData")
	add("ok-version-1.0", "ok", "a memory of version 1.0, its archive blocks compressed one by one", encode(v10(small), compact))
	add("ok-version-1.1", "ok", "a memory of version 1.1, which stays 1.1 on a round trip", encode(edit(small, func(d *spec.Document) { d.Version = "1.1" }), compact))
	add("ok-version-1.2", "ok", "the full memory as version 1.2 writes it, each version, artifact and block with its hash, which stays 1.2 on a round trip", encode(edit(full, func(d *spec.Document) { d.Version = "1.2" }), compact))
	add("ok-placed-versions", "ok", "the full memory with each artifact version that its turn holds whole named by its place there (start, end): the vault stores no copy of it", encode(placedVersions(full), compact))
	add("malformed-number-range", "malformed", "a number beyond the range of a double", replace(minimal, `"totalExchanges":0`, `"totalExchanges":0,"x-size":1e400`), "$.metadata['x-size']")
	add("malformed-edit-type", "malformed", "an artifact version's edit that is not a boolean", replace(okEdit, `"edit":true`, `"edit":"yes"`), "$.artifactVault.artifacts['artifact-orders-go'].versions[1].edit")
	add("malformed-trailing-text", "malformed", "text after the document", append(encode(minimal, compact), " {}"...), "$")
	add("malformed-turn-range", "malformed", "a turnRange of three numbers", replace(small, `"turnRange":[1,4]`, `"turnRange":[1,2,4]`), "$.deepArchive.blocks[0].turnRange")
	add("malformed-brotli", "malformed", "a Brotli stream damaged in the middle", damage(encode(full, nil)))
	add("malformed-brotli-trailing", "malformed", "bytes after the end of the Brotli stream", append(encode(small, nil), "trailing"...))

	// Truncated files.
	js := encode(full, compact)
	add("truncated-json", "truncated", "plain JSON cut in half", js[:len(js)/2])
	br := encode(full, nil)
	add("truncated-brotli", "truncated", "a Brotli stream cut in half", br[:len(br)/2])

	// Limits, with the default Limits.
	add("limit-decompression-bomb", "limit", "264 bytes that decompress to a 300 MB string: stopped by MaxStringLength after 16 MiB",
		streamBrotli(func(w io.Writer) {
			io.WriteString(w, `{"@context":"https://w3id.org/smg/v1/context.jsonld","@type":"SemanticMemoryGraph","x":"`)
			chunk := strings.Repeat("a", 1<<20)
			for range 300 {
				io.WriteString(w, chunk)
			}
			io.WriteString(w, `","version":"1.0"}`)
		}), "$.x")
	add("limit-ten-million-edges", "limit", "ten million (empty) edges: stopped by MaxEdges at the 500,001st",
		streamBrotli(func(w io.Writer) {
			io.WriteString(w, `{"@context":"https://w3id.org/smg/v1/context.jsonld","@type":"SemanticMemoryGraph","semanticGraph":{"edges":[{}`)
			chunk := strings.Repeat(`,{}`, 100_000)
			for range 100 {
				io.WriteString(w, chunk)
			}
			io.WriteString(w, `],"nodes":[]},"version":"1.0"}`)
		}), "$.semanticGraph.edges[500000]")
	add("limit-many-nodes", "limit", "a million and one (empty) nodes: stopped by MaxNodes at the 100,001st",
		streamBrotli(func(w io.Writer) {
			io.WriteString(w, `{"@context":"https://w3id.org/smg/v1/context.jsonld","@type":"SemanticMemoryGraph","semanticGraph":{"edges":[],"nodes":[{}`)
			io.WriteString(w, strings.Repeat(`,{}`, 1_000_000))
			io.WriteString(w, `]},"version":"1.0"}`)
		}), "$.semanticGraph.nodes[100000]")
	add("limit-long-list", "limit", "a list of a million and one numbers: stopped by MaxListLength at the 250,001st",
		streamBrotli(func(w io.Writer) {
			io.WriteString(w, `{"@context":"https://w3id.org/smg/v1/context.jsonld","@type":"SemanticMemoryGraph","x":[0`)
			io.WriteString(w, strings.Repeat(`,0`, 1_000_000))
			io.WriteString(w, `],"version":"1.0"}`)
		}), "$.x[250000]")
	add("limit-whitespace-bomb", "limit", "815 bytes that decompress to '{' and a GiB of spaces: stopped by MaxDocumentSize at 256 MiB, the spaces never held",
		spaceBomb(1<<30))
	add("limit-full-nodes", "limit", "a million identical nodes with every member a concept has: stopped by MaxNodes at the 100,001st, with 100,000 of them decoded",
		streamBrotli(func(w io.Writer) {
			io.WriteString(w, `{"@context":"https://w3id.org/smg/v1/context.jsonld","@type":"SemanticMemoryGraph","semanticGraph":{"edges":[],"nodes":[`)
			node := `{"activation":0.5,"aliases":["a concept"],"confidence":0.9,"description":"A concept of a synthetic memory","firstMentioned":1,"id":"concept-x","importance":0.5,"label":"concept","lastActivated":"2025-11-03T09:12:00Z","lastMentioned":1,"mentions":[1],"type":"concept","version":1}`
			io.WriteString(w, node)
			io.WriteString(w, strings.Repeat(","+node, 1_000_000-1))
			io.WriteString(w, `]},"version":"1.0"}`)
		}), "$.semanticGraph.nodes[100000]")
	add("limit-deep-nesting", "limit", "arrays nested a hundred thousand deep: stopped by MaxDepth when a 65th level opens",
		streamBrotli(func(w io.Writer) {
			io.WriteString(w, `{"@context":"https://w3id.org/smg/v1/context.jsonld","@type":"SemanticMemoryGraph","x":`)
			io.WriteString(w, strings.Repeat("[", 100_000))
			io.WriteString(w, strings.Repeat("]", 100_000))
			io.WriteString(w, `,"version":"1.0"}`)
		}), "$.x"+strings.Repeat("[0]", 63))

	add("ok-escaped-names", "ok", "member names written with escapes are the names they spell", replace(minimal, version, `"\u0076ersion":"`+spec.Version+`"`)).NotCanonical = true
	add("malformed-base64-unused-bits", "malformed", "base64 whose unused bits are not zero: one byte string has one encoding",
		setUnusedBits(encode(full, compact)), "$.deepArchive.vectorIndex.embeddings[0].vector")
	add("malformed-base64-line-break", "malformed", "base64 broken across lines", replace(v10(small), `"compressedData":"`, `"compressedData":"\n`), "$.deepArchive.blocks[0].compressedData")
	add("malformed-null-version", "malformed", "a version that is null", replace(minimal, version, `"version":null`), "$.version")

	// Encryption.
	enc := encrypt(encode(small, nil), smgtest.CheapKDF, 3)
	add("password-required", "password-required", "an encrypted file read without a password", enc)
	add("wrong-password", "wrong-password", "an encrypted file read with the wrong password", enc).Password = "wrong password"
	add("tampered-ciphertext", "tampered", "one bit of the ciphertext flipped", editEnvelope(enc, "data", flipLast)).Password = password
	add("tampered-nonce", "tampered", "one bit of the nonce flipped", editEnvelope(enc, "nonce", flipLast)).Password = password
	add("wrong-password-kdf-changed", "wrong-password", "the key derivation's parameters changed: no password can open it, and it reads as a wrong password (spec §12)",
		bytes.Replace(enc, []byte(`"timeCost":1`), []byte(`"timeCost":2`), 1)).Password = password
	add("unsupported-version-envelope", "unsupported-version", "an envelope of major version 2",
		bytes.Replace(enc, []byte(`"version":"1.0"`), []byte(`"version":"2.0"`), 1)).Password = password
	add("malformed-envelope-algorithm", "malformed", "an envelope with an unknown algorithm",
		bytes.Replace(enc, []byte(`"AES-256-GCM"`), []byte(`"ChaCha20-Poly1305"`), 1)).Password = password
	add("limit-kdf-memory", "limit", "an envelope asking for 4 GiB of argon2id memory: refused before deriving",
		bytes.Replace(enc, []byte(`"memoryKiB":8`), []byte(`"memoryKiB":4194304`), 1)).Password = password
	add("limit-kdf-heavy", "limit", "an envelope asking for argon2id with 1 GiB and 64 passes (a minute of work before a wrong password): refused before deriving",
		bytes.Replace(bytes.Replace(enc, []byte(`"memoryKiB":8`), []byte(`"memoryKiB":1048576`), 1), []byte(`"timeCost":1`), []byte(`"timeCost":64`), 1)).Password = "wrong password"
	add("limit-kdf-iterations", "limit", "an envelope asking for a billion PBKDF2 iterations: refused before deriving",
		bytes.Replace(encrypt(encode(minimal, nil), smg.KDF{Function: "pbkdf2-sha256", Iterations: 1000}, 4),
			[]byte(`"iterations":1000`), []byte(`"iterations":1000000000`), 1)).Password = password

	vs = append(vs, invalidVectors(small, full)...)
	vs = append(vs, sharedVectors(small)...)
	return vs
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	check(err)
	return t
}

// setUnusedBits sets an unused bit of the first embedding's base64 (16
// bytes: two padding characters, four unused bits before them).
func setUnusedBits(js []byte) []byte {
	doc, err := format.Unmarshal(js, nil)
	check(err)
	enc := base64.StdEncoding.EncodeToString(doc.DeepArchive.VectorIndex.Embeddings[0].Vector)
	if !strings.HasSuffix(enc, "==") {
		panic("no padding")
	}
	b := []byte(enc)
	i := len(b) - 3
	b[i] = base64Alphabet[strings.IndexByte(base64Alphabet, b[i])|1]
	return bytes.Replace(js, []byte(`"`+enc+`"`), []byte(`"`+string(b)+`"`), 1)
}

const base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// damage flips bytes in the middle of a Brotli stream.
func damage(b []byte) []byte {
	b = bytes.Clone(b)
	for i := len(b) / 2; i < len(b)/2+8; i++ {
		b[i] ^= 0x55
	}
	return b
}

func flipLast(b []byte) []byte {
	b = bytes.Clone(b)
	b[len(b)-1] ^= 1
	return b
}
