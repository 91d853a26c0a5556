package format_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
)

// fuzzLimits keep every fuzzed input cheap: the hostile vectors stop at
// the first megabyte instead of the first 16 MiB, and key derivation costs
// little.
var fuzzLimits = format.Limits{
	MaxDocumentSize: 1 << 20, MaxStringLength: 64 << 10, MaxListLength: 10_000,
	MaxNodes: 10_000, MaxEdges: 10_000, MaxBlockSize: 1 << 20,
	MaxKDFMemoryKiB: 64, MaxKDFTimeCost: 2, MaxKDFIterations: 2000,
}

// decodeLimits bound FuzzDecode's and FuzzDecodeDelta's inputs tighter
// still, so that the work of one input stays small however the fuzzer
// grows it: the input and its JSON text stop at 64 KiB, lists at a
// thousand.
var decodeLimits = format.Limits{
	MaxFileSize: 64 << 10, MaxDocumentSize: 64 << 10, MaxStringLength: 8 << 10, MaxListLength: 1000,
	MaxNodes: 1000, MaxEdges: 1000, MaxBlockSize: 64 << 10,
	MaxKDFMemoryKiB: 64, MaxKDFTimeCost: 2, MaxKDFIterations: 2000,
}

// maxSeed bounds the size of a seed's text (decompressed, when it is
// Brotli): the fuzzer's inputs are mutations of its seeds, about as large,
// and a document's cost (decoding, encoding twice, validating) grows with
// its size.
const maxSeed = 8 << 10

// decodeSeeds are the seeds of FuzzDecode: every test vector and example
// memory whose text is at most maxSeed bytes (a compressed stream that
// expands past that, such as the limit vectors' 300 MB in 300 bytes, costs
// a Brotli window of work per input whatever the limits), and small JSON
// texts that cross each of decodeLimits instead.
func decodeSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	vs, err := smgtest.Load(vectorDir)
	if err != nil {
		tb.Fatal(err)
	}
	var seeds [][]byte
	for _, v := range vs {
		seeds = append(seeds, v.Body)
	}
	for _, name := range []string{"small.smg", "full.smg", "full.smg.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", name))
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	seeds = slices.DeleteFunc(seeds, func(b []byte) bool {
		text, err := archive.Decompress(b, maxSeed)
		if err != nil && !errors.Is(err, archive.ErrTooLarge) {
			text = b // not Brotli
		}
		return errors.Is(err, archive.ErrTooLarge) || len(text) > maxSeed
	})
	lim, deep := decodeLimits, format.DefaultLimits.MaxDepth+1
	for _, s := range []string{
		`{"version":"1.0","semanticGraph":{"nodes":[` + strings.Repeat(`{},`, lim.MaxNodes) + `{}]}}`,
		`{"version":"1.0","semanticGraph":{"edges":[` + strings.Repeat(`{},`, lim.MaxEdges) + `{}]}}`,
		`{"version":"1.0","x":[` + strings.Repeat(`0,`, lim.MaxListLength) + `0]}`,
		`{"version":"1.0","x":"` + strings.Repeat("a", lim.MaxStringLength+1) + `"}`,
		`{"version":"1.0","x":` + strings.Repeat("[", deep) + strings.Repeat("]", deep) + `}`,
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

// FuzzValidate: validating any document that decodes reports its
// problems, and never panics. It takes FuzzDecode's inputs, apart from
// it, so that the inputs of each are cheap.
func FuzzValidate(f *testing.F) {
	opts := decodeTarget(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, err := format.Unmarshal(b, opts)
		if err != nil {
			return
		}
		doc.Metadata.CompressionRatio = 0 // as a writer leaves it
		err = format.Validate(doc, &format.ValidateOptions{SkipJSONLD: true, Limits: decodeLimits})
		if err != nil && !errors.Is(err, format.ErrInvalid) {
			t.Fatalf("validation failed with %v, not a list of problems", err)
		}
		// A writer, which checks the document piece by piece as it
		// writes it, refuses what Validate finds, with the same problems.
		// It checks with the default limits: the blocks it makes plain
		// are kept within the fuzzing's, so that both decompress them.
		for _, b := range doc.DeepArchive.Blocks {
			if b.UncompressedSize > decodeLimits.MaxBlockSize || len(b.CompressedData) > 0 && b.UncompressedSize == 0 {
				return
			}
		}
		_, werr := format.MarshalMemory(doc, &format.EncodeOptions{Plain: true})
		want, _ := errors.AsType[*format.ValidationError](err)
		got, _ := errors.AsType[*format.ValidationError](werr)
		switch {
		case err != nil && werr == nil:
			t.Fatalf("a writer writes a document with problems: %v", err)
		case err == nil && got != nil:
			t.Fatalf("a writer finds problems Validate does not: %v", werr)
		case want != nil && got != nil && !slices.Equal(want.Problems, got.Problems):
			t.Fatalf("a writer's problems differ:\n got %v\nwant %v", got.Problems, want.Problems)
		}
	})
}

// decodeTarget adds the seeds of the decoding fuzz targets to f, and
// returns the options they decode with.
func decodeTarget(f *testing.F) *format.DecodeOptions {
	for _, b := range decodeSeeds(f) {
		f.Add(b)
	}
	return &format.DecodeOptions{Password: []byte("correct horse battery staple"), Limits: decodeLimits}
}

// FuzzDecode feeds Decode arbitrary bytes, seeded with the test vectors
// and example memories (see decodeSeeds). Decode never panics; an error
// is one of the package's and prints; a document that decodes encodes, and
// that encoding decodes and encodes again to the same bytes.
func FuzzDecode(f *testing.F) {
	opts := decodeTarget(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, err := format.Unmarshal(b, opts)
		if err != nil {
			if !typed(err) || err.Error() == "" {
				t.Fatalf("untyped or empty error: %v", err)
			}
			return
		}
		one, err := format.Marshal(doc, &format.EncodeOptions{Plain: true})
		if err != nil {
			t.Fatalf("decoded but does not encode: %v", err)
		}
		// The text, written piece by piece, is the canonical JSON.
		sum := sha256.Sum256(one)
		if h, err := format.ContentHash(doc); err != nil || h != "sha256:"+hex.EncodeToString(sum[:]) {
			t.Fatalf("the written text is not the canonical JSON (content hash %s, %v)", h, err)
		}
		again, err := format.Unmarshal(one, opts)
		if err != nil {
			t.Fatalf("its own encoding does not decode: %v\n%s", err, one)
		}
		two, err := format.Marshal(again, &format.EncodeOptions{Plain: true})
		if err != nil || !bytes.Equal(one, two) {
			t.Fatalf("encoding is not stable: %v\n%s\n%s", err, one, two)
		}
		// Reading its archive never panics: a block reads, or fails alone
		// with an error that names it.
		a := format.NewArchive(doc, decodeLimits)
		for i := range a.Len() {
			if _, err := a.Block(i); err != nil {
				var be *format.BlockError
				if !errors.As(err, &be) || be.Index != i {
					t.Fatalf("block %d: %v is not its BlockError", i, err)
				}
			}
		}
	})
}
