package format

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/smg-memory/smg/spec"
)

// cachedIndex is a vector index of three turns' vectors, one of them
// of two excerpts, of 3 dimensions.
func cachedIndex() *spec.VectorIndex {
	v := func(x float32) spec.Bytes { return spec.EncodeVector([]float32{x, 1, 2}) }
	return &spec.VectorIndex{Enabled: true, Model: "m", Dimensions: 3, Encoding: spec.EncodingFloat32, Embeddings: []spec.Embedding{
		{Turn: 1, Vector: v(1)},
		{Turn: 2, Start: 0, End: 10, Vector: v(2)},
		{Turn: 2, Start: 10, End: 30, Vector: v(3)},
		{Turn: 3, Vector: v(4)},
	}}
}

// TestVectorCache: the vectors kept for a file's bytes come back whole,
// and only for those bytes; a damaged file, or one whose vectors are not
// those of the memory, gives none.
func TestVectorCache(t *testing.T) {
	name := filepath.Join(t.TempDir(), "m.smg")
	vi := cachedIndex()
	if err := KeepVectors(name, "sha256:a", vi, nil); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(CacheDir(name)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the cache folder: %v, %v (want readable by its owner alone)", fi, err)
	}
	got, err := ReadVectors(name, "sha256:a", 3, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, vi) {
		t.Errorf("read back %+v, want %+v", got, vi)
	}
	if _, err := ReadVectors(name, "sha256:b", 3, Limits{}); !errors.Is(err, ErrStateMismatch) {
		t.Errorf("for other bytes: %v, want ErrStateMismatch", err)
	}
	if _, err := ReadVectors(name, "sha256:a", 2, Limits{}); !errors.Is(err, ErrVectorCache) {
		t.Errorf("for a memory of 2 turns: %v, want ErrVectorCache", err)
	}
	raw, err := os.ReadFile(VectorsName(name))
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)-1] ^= 1
	if err := os.WriteFile(VectorsName(name), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadVectors(name, "sha256:a", 3, Limits{}); !errors.Is(err, ErrStateMismatch) {
		t.Errorf("damaged: %v, want ErrStateMismatch", err)
	}
	// A file that holds its vectors keeps none beside it.
	if err := KeepVectors(name, "sha256:a", vi, &EncodeOptions{WithVectors: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(VectorsName(name)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("vectors kept beside a file that holds them: %v", err)
	}
}

// FuzzVectorCache: any data of a cache's file of vectors parses without a
// panic, and what parses is a vector index a memory can take: vectors of
// the index's length, of the memory's turns, in order, each once.
func FuzzVectorCache(f *testing.F) {
	var b bytes.Buffer
	name := filepath.Join(f.TempDir(), "m.smg")
	if err := KeepVectors(name, "x", cachedIndex(), nil); err != nil {
		f.Fatal(err)
	}
	data, err := readStamped(VectorsName(name), vectorsMagic, "x", -1)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(append(bytes.Clone(data[:len(data)-5]), 0xff, 0xff, 0xff))
	f.Add([]byte("m\nint8\n4\n1\n\x01\x00\x00\x00\x00\x00\x80\x3f\x01\x02\x03\x04"))
	b.WriteString("m\nfloat32\n16384\n250000\n")
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		vi, err := parseVectors(data, 5, Limits{MaxListLength: 1000}.withDefaults())
		if err != nil {
			if !errors.Is(err, ErrVectorCache) {
				t.Fatalf("an error not of ErrVectorCache: %v", err)
			}
			return
		}
		size, err := spec.VectorSize(vi.Encoding, vi.Dimensions)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range vi.Embeddings {
			if len(e.Vector) != size || e.Turn < 1 || e.Turn > 5 || e.Start > e.End || i > 0 && spec.CompareEmbeddings(vi.Embeddings[i-1], e) >= 0 {
				t.Fatalf("vector %d: %+v", i, e)
			}
		}
	})
}
