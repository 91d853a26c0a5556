package format_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

// readExample decodes one of the example memories in testdata.
func readExample(t testing.TB, name string) (*spec.Document, []byte) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := format.Unmarshal(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	return doc, raw
}

func marshal(t testing.TB, doc *spec.Document, opts *format.EncodeOptions) []byte {
	t.Helper()
	b, err := format.Marshal(doc, opts)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sentinels are the errors every failure of Decode must match one of.
var sentinels = []error{
	format.ErrNotSMG, format.ErrUnsupportedVersion, format.ErrMalformed, format.ErrTruncated, format.ErrLimit,
	format.ErrPasswordRequired, format.ErrWrongPassword, format.ErrTampered,
}

func typed(err error) bool {
	return slices.ContainsFunc(sentinels, func(s error) bool { return errors.Is(err, s) })
}

func TestFormsHoldTheSameDocument(t *testing.T) {
	doc, _ := readExample(t, "full.smg")
	want, err := format.ContentHash(doc)
	if err != nil {
		t.Fatal(err)
	}
	forms := map[string]*format.EncodeOptions{
		"brotli":         nil,
		"brotli q11":     {Quality: 11},
		"compact":        {Plain: true},
		"pretty":         {Plain: true, Indent: true},
		"pretty brotli":  {Indent: true},
		"encrypted":      {Password: []byte("pw"), KDF: smgtest.CheapKDF, InsecureKDF: true, Rand: smgtest.Rand(1)},
		"encrypted json": {Plain: true, Password: []byte("pw"), KDF: smgtest.CheapKDF, InsecureKDF: true, Rand: smgtest.Rand(2)},
	}
	for name, opts := range forms {
		b := marshal(t, doc, opts)
		got, err := format.Unmarshal(b, &format.DecodeOptions{Password: []byte("pw")})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if h, _ := format.ContentHash(got); h != want {
			t.Errorf("%s: content hash %s, want %s", name, h, want)
		}
	}
}

func TestCanonicalIgnoresListOrder(t *testing.T) {
	doc, _ := readExample(t, "full.smg")
	want := marshal(t, doc, &format.EncodeOptions{Plain: true})

	shuffled := *doc
	shuffled.SemanticGraph.Nodes = slices.Clone(doc.SemanticGraph.Nodes)
	slices.Reverse(shuffled.SemanticGraph.Nodes)
	shuffled.SemanticGraph.Edges = slices.Clone(doc.SemanticGraph.Edges)
	slices.Reverse(shuffled.SemanticGraph.Edges)
	n := &shuffled.SemanticGraph.Nodes[0]
	n.Mentions = []int{10, 1, 5}
	shuffled.DeepArchive.Blocks = slices.Clone(doc.DeepArchive.Blocks)
	slices.Reverse(shuffled.DeepArchive.Blocks)
	shuffled.Metadata.Tags = []string{"stripe", "go", "checkout"}
	firstNode := shuffled.SemanticGraph.Nodes[0].ID

	got := marshal(t, &shuffled, &format.EncodeOptions{Plain: true})
	if shuffled.SemanticGraph.Nodes[0].ID != firstNode || !slices.Equal(n.Mentions, []int{10, 1, 5}) {
		t.Error("Marshal reordered the caller's lists")
	}
	// The reversed document differs from the original only in order, but
	// for the mentions of one node, which were changed.
	n.Mentions = []int{1, 5, 10}
	d, err := format.Unmarshal(got, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSortedFunc(d.SemanticGraph.Nodes, func(a, b spec.Node) int { return strings.Compare(a.ID, b.ID) }) {
		t.Error("nodes are not in id order")
	}
	if got2 := marshal(t, d, &format.EncodeOptions{Plain: true}); !bytes.Equal(got, got2) {
		t.Error("encoding is not idempotent")
	}
	wantDoc, _ := format.Unmarshal(want, nil)
	wantDoc.SemanticGraph.Nodes[len(wantDoc.SemanticGraph.Nodes)-1].Mentions = []int{1, 5, 10}
	if w := marshal(t, wantDoc, &format.EncodeOptions{Plain: true}); !bytes.Equal(got, w) {
		t.Error("the same memory in another list order encodes to other bytes")
	}
}

func TestMarshalRejects(t *testing.T) {
	doc, _ := readExample(t, "small.smg")
	for name, f := range map[string]func(d *spec.Document){
		"NaN importance": func(d *spec.Document) { d.SemanticGraph.Nodes[0].Importance = math.NaN() },
		"version 2":      func(d *spec.Document) { d.Version = "2.0" },
		"no @context":    func(d *spec.Document) { d.Context = "" },
	} {
		d := *doc
		d.SemanticGraph.Nodes = slices.Clone(doc.SemanticGraph.Nodes)
		f(&d)
		if _, err := format.Marshal(&d, nil); err == nil {
			t.Errorf("%s: Marshal succeeded", name)
		}
	}
	if _, err := format.Marshal(doc, &format.EncodeOptions{Quality: 12}); err == nil {
		t.Error("quality 12 accepted")
	}
}

func limitError(t *testing.T, err error, limit string) {
	t.Helper()
	le, ok := errors.AsType[*format.LimitError](err)
	if !ok || le.Limit != limit {
		t.Fatalf("got %v, want a %s LimitError", err, limit)
	}
}

func TestLimits(t *testing.T) {
	_, raw := readExample(t, "full.smg")
	doc, _ := format.Unmarshal(raw, nil)
	plain := marshal(t, doc, &format.EncodeOptions{Plain: true})
	pretty := marshal(t, doc, &format.EncodeOptions{Plain: true, Indent: true})

	_, err := format.Unmarshal(raw, &format.DecodeOptions{Limits: format.Limits{MaxFileSize: int64(len(raw) - 1)}})
	limitError(t, err, "MaxFileSize")
	if _, err := format.Unmarshal(raw, &format.DecodeOptions{Limits: format.Limits{MaxDocumentSize: int64(len(plain))}}); err != nil {
		t.Errorf("a document exactly at MaxDocumentSize: %v", err)
	}
	_, err = format.Unmarshal(raw, &format.DecodeOptions{Limits: format.Limits{MaxDocumentSize: int64(len(plain) - 1)}})
	limitError(t, err, "MaxDocumentSize")
	_, err = format.Unmarshal(plain, &format.DecodeOptions{Limits: format.Limits{MaxDocumentSize: int64(len(plain) - 1)}})
	limitError(t, err, "MaxDocumentSize")

	// A bomb of white space: only the document size stops it.
	var bomb bytes.Buffer
	w := brotli.NewWriterOptions(&bomb, brotli.WriterOptions{Quality: 5, LGWin: 22})
	w.Write([]byte(`{"@type":"SemanticMemoryGraph","version":"1.0"`))
	w.Write(bytes.Repeat([]byte(" "), 8<<20))
	w.Write([]byte(`}`))
	w.Close()
	_, err = format.Unmarshal(bomb.Bytes(), &format.DecodeOptions{Limits: format.Limits{MaxDocumentSize: 1 << 20}})
	limitError(t, err, "MaxDocumentSize")

	_, err = format.Unmarshal(plain, &format.DecodeOptions{Limits: format.Limits{MaxNodes: 11}})
	limitError(t, err, "MaxNodes")
	_, err = format.Unmarshal(plain, &format.DecodeOptions{Limits: format.Limits{MaxEdges: 9}})
	limitError(t, err, "MaxEdges")
	_, err = format.Unmarshal(pretty, &format.DecodeOptions{Limits: format.Limits{MaxStringLength: 100}})
	limitError(t, err, "MaxStringLength")
	_, err = format.Unmarshal(plain, &format.DecodeOptions{Limits: format.Limits{MaxDepth: 4}})
	limitError(t, err, "MaxDepth")
	// The artifacts object has two members, the vault three.
	_, err = format.Unmarshal(plain, &format.DecodeOptions{Limits: format.Limits{MaxListLength: 2}})
	limitError(t, err, "MaxListLength")
	members := []byte(`{"@type":"SemanticMemoryGraph","version":"1.0","x":{"a":1,"b":2,"c":3,"d":4}}`)
	_, err = format.Unmarshal(members, &format.DecodeOptions{Limits: format.Limits{MaxListLength: 3}})
	limitError(t, err, "MaxListLength")
	if p := smgtest.ErrorPath(err); p != "$.x" {
		t.Errorf("the members limit is reported at %q, want $.x", p)
	}
}

// TestTruncation cuts a file at every length: each cut is an error of its
// own kind, never a document and never a panic.
func TestTruncation(t *testing.T) {
	doc, raw := readExample(t, "small.smg")
	plain := marshal(t, doc, &format.EncodeOptions{Plain: true})
	enc := marshal(t, doc, &format.EncodeOptions{Password: []byte("pw"), KDF: smgtest.CheapKDF, InsecureKDF: true, Rand: smgtest.Rand(3)})
	for name, b := range map[string][]byte{"brotli": raw, "json": plain, "encrypted": enc} {
		for n := range len(b) {
			_, err := format.Unmarshal(b[:n], &format.DecodeOptions{Password: []byte("pw")})
			if err == nil || !typed(err) {
				t.Fatalf("%s cut at %d of %d: %v", name, n, len(b), err)
			}
		}
	}
}

// TestEveryFlippedBitIsDetected flips a bit of each byte of an encrypted
// file (bit i%8 of byte i, so that every bit position is tried): no flip
// decrypts, and each is reported as one of the known failures.
func TestEveryFlippedBitIsDetected(t *testing.T) {
	doc, _ := readExample(t, "small.smg")
	enc := marshal(t, doc, &format.EncodeOptions{Password: []byte("pw"), KDF: smgtest.CheapKDF, InsecureKDF: true, Rand: smgtest.Rand(4)})
	kinds := map[string]int{}
	for i := range enc {
		b := bytes.Clone(enc)
		b[i] ^= 1 << (i % 8)
		_, err := format.Unmarshal(b, &format.DecodeOptions{Password: []byte("pw")})
		if err == nil {
			t.Fatalf("byte %d flipped: decoded", i)
		}
		if !typed(err) {
			t.Fatalf("byte %d flipped: untyped error %v", i, err)
		}
		for _, s := range sentinels {
			if errors.Is(err, s) {
				kinds[s.Error()]++
			}
		}
	}
	if kinds[format.ErrTampered.Error()] == 0 || kinds[format.ErrMalformed.Error()] == 0 {
		t.Errorf("expected both tampering and malformed envelopes among %v", kinds)
	}
}

func TestDamagedBrotliNeverPanics(t *testing.T) {
	_, raw := readExample(t, "small.smg")
	for i := range raw {
		b := bytes.Clone(raw)
		b[i] ^= 0xA5
		doc, err := format.Unmarshal(b, nil)
		if err != nil {
			if !typed(err) {
				t.Fatalf("byte %d: untyped error %v", i, err)
			}
			continue
		}
		// Brotli has no checksum: a damaged stream can still decode. Then
		// the damage is in the JSON text, and it still encodes.
		if _, err := format.Marshal(doc, nil); err != nil {
			t.Fatalf("byte %d: decoded but does not encode: %v", i, err)
		}
	}
}

func TestEncryption(t *testing.T) {
	doc, _ := readExample(t, "small.smg")
	for _, kdf := range []format.KDF{smgtest.CheapKDF, {Function: "pbkdf2-sha256", Iterations: 10}} {
		a := marshal(t, doc, &format.EncodeOptions{Password: []byte("secret"), KDF: kdf, InsecureKDF: true, Rand: smgtest.Rand(5)})
		b := marshal(t, doc, &format.EncodeOptions{Password: []byte("secret"), KDF: kdf, InsecureKDF: true, Rand: smgtest.Rand(5)})
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the same salt and nonce give different files", kdf.Function)
		}
		c := marshal(t, doc, &format.EncodeOptions{Password: []byte("secret"), KDF: kdf, InsecureKDF: true})
		if bytes.Equal(a, c) {
			t.Errorf("%s: fresh randomness gives the same file", kdf.Function)
		}
		if !format.IsEncrypted(a) {
			t.Errorf("%s: IsEncrypted is false", kdf.Function)
		}
		if _, err := format.Unmarshal(a, &format.DecodeOptions{Password: []byte("secret")}); err != nil {
			t.Errorf("%s: %v", kdf.Function, err)
		}
		if _, err := format.Unmarshal(a, &format.DecodeOptions{Password: []byte("Secret")}); !errors.Is(err, format.ErrWrongPassword) {
			t.Errorf("%s, wrong password: %v", kdf.Function, err)
		}
		if _, err := format.Unmarshal(a, nil); !errors.Is(err, format.ErrPasswordRequired) {
			t.Errorf("%s, no password: %v", kdf.Function, err)
		}
		if bytes.Contains(a, []byte("Stripe")) {
			t.Errorf("%s: the plaintext shows through", kdf.Function)
		}
	}
	if _, err := format.Marshal(doc, &format.EncodeOptions{Password: []byte{}}); err == nil {
		t.Error("an empty password encrypts")
	}
	if _, err := format.Marshal(doc, &format.EncodeOptions{Password: []byte("x"), KDF: format.KDF{Function: "scrypt"}}); err == nil {
		t.Error("an unknown key derivation encrypts")
	}
	if _, err := format.Marshal(doc, &format.EncodeOptions{Password: []byte("x"), KDF: smgtest.CheapKDF}); err == nil {
		t.Error("a key derivation below the minimums encrypts without InsecureKDF")
	}
	if format.IsEncrypted(marshal(t, doc, &format.EncodeOptions{Plain: true})) {
		t.Error("IsEncrypted of a plain document")
	}
}

func TestWriteFileIsAtomic(t *testing.T) {
	doc, _ := readExample(t, "small.smg")
	dir := t.TempDir()
	name := filepath.Join(dir, "memory.smg")
	if err := format.WriteFile(name, doc, nil); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(name)

	bad := *doc
	bad.SemanticGraph.Nodes = slices.Clone(doc.SemanticGraph.Nodes)
	bad.SemanticGraph.Nodes[0].Activation = math.Inf(1)
	if err := format.WriteFile(name, &bad, nil); err == nil {
		t.Fatal("writing an unencodable document succeeded")
	}
	after, _ := os.ReadFile(name)
	if !bytes.Equal(before, after) {
		t.Error("a failed write changed the file")
	}
	// The target is a folder: the rename fails, and nothing is left over.
	sub := filepath.Join(dir, "folder.smg")
	os.Mkdir(sub, 0o755)
	if err := format.WriteFile(sub, doc, nil); err == nil {
		t.Error("writing over a folder succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	got, err := format.ReadFile(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h1, h2 := mustHash(t, got), mustHash(t, doc); h1 != h2 {
		t.Error("ReadFile does not give back what WriteFile wrote")
	}
	if fi, _ := os.Stat(name); fi.Mode().Perm() != 0o644 {
		t.Errorf("a new file has mode %v", fi.Mode().Perm())
	}
	os.Chmod(name, 0o640)
	format.WriteFile(name, doc, nil)
	if fi, _ := os.Stat(name); fi.Mode().Perm() != 0o640 {
		t.Errorf("rewriting changed the mode to %v", fi.Mode().Perm())
	}
}

func mustHash(t testing.TB, doc *spec.Document) string {
	t.Helper()
	h, err := format.ContentHash(doc)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestEncryptDecryptFile(t *testing.T) {
	dir := t.TempDir()
	_, raw := readExample(t, "small.smg")
	plain := filepath.Join(dir, "m.smg")
	os.WriteFile(plain, raw, 0o644)
	enc := filepath.Join(dir, "m.enc.smg")
	pw := []byte("hunter2")
	opts := &format.EncodeOptions{Password: pw, KDF: smgtest.CheapKDF, InsecureKDF: true}
	if err := format.EncryptFile(plain, enc, opts); err != nil {
		t.Fatal(err)
	}
	if err := format.EncryptFile(enc, enc, opts); !errors.Is(err, format.ErrAlreadyEncrypted) {
		t.Errorf("encrypting twice: %v", err)
	}
	if err := format.DecryptFile(plain, plain, &format.DecodeOptions{Password: pw}); !errors.Is(err, format.ErrNotEncrypted) {
		t.Errorf("decrypting a plain file: %v", err)
	}
	sealed, _ := os.ReadFile(enc)
	if err := format.DecryptFile(enc, enc, &format.DecodeOptions{Password: []byte("hunter3")}); !errors.Is(err, format.ErrWrongPassword) {
		t.Errorf("wrong password: %v", err)
	}
	if now, _ := os.ReadFile(enc); !bytes.Equal(now, sealed) {
		t.Error("a failed decryption changed the file")
	}
	out := filepath.Join(dir, "m.out.smg")
	if err := format.DecryptFile(enc, out, &format.DecodeOptions{Password: pw}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, raw) {
		t.Error("encrypt then decrypt does not give back the same bytes")
	}
	if fi, _ := os.Stat(enc); fi.Mode().Perm() != 0o600 {
		t.Errorf("the encrypted file has mode %v, want 0600", fi.Mode().Perm())
	}
	// In place, a world-readable file becomes its owner's.
	if err := format.EncryptFile(plain, plain, opts); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(plain); fi.Mode().Perm() != 0o600 {
		t.Errorf("encrypted in place, the file has mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestDecodeErrorsSayWhere(t *testing.T) {
	doc, _ := readExample(t, "small.smg")
	pretty := marshal(t, doc, &format.EncodeOptions{Plain: true, Indent: true})
	// Long runs of white space, which the reader does not hold, move
	// nothing: before the error, and both before and after a line break.
	spaced := bytes.Replace(pretty, []byte(`"nodes": [`), []byte(`"nodes":`+strings.Repeat(" ", 5000)+"\n"+strings.Repeat("\t", 3000)+`[`), 1)
	for name, text := range map[string][]byte{"pretty": pretty, "spaced": spaced} {
		bad := bytes.Replace(text, []byte(`"importance": 0.5`), []byte(`"importance": "high"`), 1)
		for form, b := range map[string][]byte{"plain": bad, "brotli": archive.Compress(bad, 5)} {
			_, err := format.Unmarshal(b, nil)
			de, ok := errors.AsType[*format.DecodeError](err)
			if !ok {
				t.Fatalf("%s, %s: got %v", name, form, err)
			}
			at := bytes.Index(bad, []byte(`"importance": "high"`)) + len(`"importance": `)
			line := bytes.Count(bad[:at], []byte("\n")) + 1
			col := at - bytes.LastIndexByte(bad[:at], '\n')
			if de.Path != "$.semanticGraph.nodes[0].importance" || de.Offset != int64(at) || de.Line != line || de.Column != col {
				t.Errorf("%s, %s: error at %s, offset %d, line %d, column %d; want $.semanticGraph.nodes[0].importance, %d, %d, %d: %v", name, form, de.Path, de.Offset, de.Line, de.Column, at, line, col, err)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("line %d", line)) {
				t.Errorf("%s, %s: the message does not say the line: %v", name, form, err)
			}
		}
	}
}

func TestInspect(t *testing.T) {
	full := filepath.Join("..", "..", "testdata", "full.smg")
	info, err := format.InspectFileWith(full, nil, format.InspectOptions{ContentHash: true, Sections: true})
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := format.InspectFile(full, nil); err != nil || plain.Sections != nil || plain.TotalNodes != info.TotalNodes || plain.ContentHash != info.ContentHash {
		t.Errorf("without sections: %v, sections %v", err, plain.Sections)
	}
	if info.TotalNodes != 12 || info.Nodes[spec.NodeConcept] != 5 || info.Nodes[spec.NodeFact] != 1 ||
		info.Edges != 10 || info.Relations[spec.RelSolves] != 1 || info.Artifacts != 2 || info.ArtifactVersions != 4 ||
		info.ArchiveBlocks != 2 || info.ArchivedTurns != 12 || info.RecentTurns != 4 || info.Embeddings != 12 {
		t.Errorf("counts: %+v", info)
	}
	if !info.Form.Compressed || info.Form.Encrypted || info.Form.FileSize == 0 || info.Form.JSONSize <= info.Form.FileSize {
		t.Errorf("form: %+v", info.Form)
	}
	var sum int64
	for _, s := range info.Sections {
		sum += s.JSON
	}
	if len(info.Sections) != 5 || sum > info.Form.JSONSize || sum < info.Form.JSONSize*9/10 {
		t.Errorf("sections %+v do not add up to most of the %d bytes", info.Sections, info.Form.JSONSize)
	}
	if want := float64(info.Form.FileSize) / float64(info.Metadata.TranscriptBytes); math.Abs(info.CompressionRatio-want) > 1e-4 {
		t.Errorf("compression ratio %v, want %v", info.CompressionRatio, want)
	}
}

func TestNQuadsOffline(t *testing.T) {
	doc, _ := readExample(t, "full.smg")
	nq, err := format.NQuads(doc)
	if err != nil {
		t.Fatal(err)
	}
	base := "<https://w3id.org/smg/v1/memory/7d3e9b1a-2c4f-4a6e-8b0d-5f1c3a9e2b67/"
	for _, want := range []string{
		base + "decision-use-stripe-elements> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://w3id.org/smg/v1#Decision> .",
		base + "decision-use-stripe-elements> <https://w3id.org/smg/v1#rationale> \"the designers want the payment form to match the rest of the site\" .",
		"<https://w3id.org/smg/v1#relation> <https://w3id.org/smg/v1#solves> .",
		"<https://w3id.org/smg/v1#to> " + base + "problem-webhook-401> .",
		base + "fact-user-prefers-go> <https://w3id.org/smg/v1#category> \"preference\" .",
		"<https://w3id.org/smg/v1#created> \"2025-11-03T09:12:00Z\"^^<http://www.w3.org/2001/XMLSchema#dateTime> .",
		base + "fact-user-prefers-go> <https://w3id.org/smg/v1#nodeMetadata> \"{\\\"rememberRequested\\\":true}\"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON> .",
	} {
		if !strings.Contains(nq, want+"\n") {
			t.Errorf("the N-Quads lack %s", want)
		}
	}
	if strings.Contains(nq, "<urn:") || !strings.Contains(nq, "<https://w3id.org/smg/v1#semanticGraph> _:c14n") {
		t.Error("ids do not resolve against the memory's base IRI, or the document has no graph")
	}
	exp, err := format.ExpandJSONLD(doc)
	if err != nil || !bytes.Contains(exp, []byte(`"@id": "https://w3id.org/smg/v1#supersedes"`)) {
		t.Errorf("expanded JSON-LD: %v", err)
	}
}

func TestTimestampsKeepTheirOffset(t *testing.T) {
	doc := spec.New("m", time.Date(2025, 6, 1, 10, 0, 0, 250_000_000, time.FixedZone("", 2*3600)))
	b := marshal(t, doc, &format.EncodeOptions{Plain: true})
	if !bytes.Contains(b, []byte(`"created":"2025-06-01T10:00:00.25+02:00"`)) {
		t.Errorf("got %s", b)
	}
}

func TestNQuadsAreDeterministic(t *testing.T) {
	doc, _ := readExample(t, "full.smg")
	first, err := format.NQuads(doc)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if again, _ := format.NQuads(doc); again != first {
			t.Fatal("the same memory gives other N-Quads")
		}
	}
}
