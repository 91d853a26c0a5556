package smg_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/smgtest"
)

// fuzzLimits keep every fuzzed input cheap: the hostile vectors stop at
// the first megabyte instead of the first 16 MiB, and key derivation costs
// little.
var fuzzLimits = smg.Limits{
	MaxDocumentSize: 1 << 20, MaxStringLength: 64 << 10, MaxListLength: 10_000,
	MaxNodes: 10_000, MaxEdges: 10_000, MaxBlockSize: 1 << 20,
	MaxKDFMemoryKiB: 64, MaxKDFTimeCost: 2, MaxKDFIterations: 2000,
}

// FuzzDecode feeds Decode arbitrary bytes, seeded with every test vector
// and example memory. Decode never panics; an error is one of the
// package's and prints; a document that decodes encodes, and that encoding
// decodes and encodes again to the same bytes.
func FuzzDecode(f *testing.F) {
	vs, err := smgtest.Load(vectorDir)
	if err != nil {
		f.Fatal(err)
	}
	for _, v := range vs {
		if len(v.Body) < 1<<20 {
			f.Add(v.Body)
		}
	}
	for _, name := range []string{"small.smg", "full.smg", "full.smg.json"} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	opts := &smg.DecodeOptions{Password: []byte("correct horse battery staple"), Limits: fuzzLimits}
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, err := smg.Unmarshal(b, opts)
		if err != nil {
			if !typed(err) || err.Error() == "" {
				t.Fatalf("untyped or empty error: %v", err)
			}
			return
		}
		one, err := smg.Marshal(doc, &smg.EncodeOptions{Plain: true})
		if err != nil {
			t.Fatalf("decoded but does not encode: %v", err)
		}
		again, err := smg.Unmarshal(one, opts)
		if err != nil {
			t.Fatalf("its own encoding does not decode: %v\n%s", err, one)
		}
		two, err := smg.Marshal(again, &smg.EncodeOptions{Plain: true})
		if err != nil || !bytes.Equal(one, two) {
			t.Fatalf("encoding is not stable: %v\n%s\n%s", err, one, two)
		}
		// Validation of any document reports, never panics.
		_ = smg.Validate(doc, &smg.ValidateOptions{SkipJSONLD: true, Limits: fuzzLimits})
		// Nor does reading its archive: a block reads, or fails alone with
		// an error that names it.
		a := smg.NewArchive(doc, fuzzLimits)
		for i := range a.Len() {
			if _, err := a.Block(i); err != nil {
				var be *smg.BlockError
				if !errors.As(err, &be) || be.Index != i {
					t.Fatalf("block %d: %v is not its BlockError", i, err)
				}
			}
		}
	})
}
