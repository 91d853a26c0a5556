package format_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
)

const vectorDir = "../../testdata/vectors"

// TestVectors checks every test vector's outcome, and that every readable
// one encodes back to its own bytes in its own form.
func TestVectors(t *testing.T) {
	vs, err := smgtest.Load(vectorDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			if err := smgtest.Check(v); err != nil {
				t.Fatalf("%s: %v", v.Description, err)
			}
			if v.Expect != "ok" || v.Password != "" {
				return
			}
			doc, err := format.Unmarshal(v.Body, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := format.Marshal(doc, smgtest.Form(v.Body))
			if err != nil {
				t.Fatal(err)
			}
			if v.NotCanonical {
				again, err := format.Unmarshal(got, nil)
				if err != nil {
					t.Fatal(err)
				}
				if got2, _ := format.Marshal(again, smgtest.Form(v.Body)); !bytes.Equal(got, got2) {
					t.Error("the canonical form does not encode to itself")
				}
				return
			}
			if !bytes.Equal(got, v.Body) {
				t.Errorf("decode → encode changed the bytes:\n got %.300q\nwant %.300q", got, v.Body)
			}
		})
	}
}

// TestVectorsUpToDate regenerates the vectors and example memories and
// compares them with the files in testdata.
func TestVectorsUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	out := t.TempDir()
	cmd := exec.Command("go", "run", "./testdata/vectors/gen", "-out", out)
	cmd.Dir = "../.."
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("generator: %v\n%s", err, msg)
	}
	want, err := filepath.Glob(filepath.Join(out, "*.smg*"))
	if err != nil {
		t.Fatal(err)
	}
	vecs, _ := filepath.Glob(filepath.Join(out, "vectors", "*.vec"))
	want = append(want, vecs...)
	have, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "vectors", "*.vec"))
	if len(have) != len(vecs) {
		t.Errorf("testdata/vectors has %d vectors, the generator makes %d: run go run ./testdata/vectors/gen", len(have), len(vecs))
	}
	for _, w := range want {
		rel, _ := filepath.Rel(out, w)
		gen, _ := os.ReadFile(w)
		cur, err := os.ReadFile(filepath.Join("..", "..", "testdata", rel))
		if err != nil || !bytes.Equal(gen, cur) {
			t.Errorf("testdata/%s is not what the generator makes: run go run ./testdata/vectors/gen", rel)
		}
	}
}

// TestLimitVectorsCostLittle: every vector stopped by a limit is stopped
// having allocated little more than MaxDocumentSize in all (spec §9.4): a
// GiB of spaces is read up to the limit and not held, a million nodes are
// not decoded, a key is not derived.
func TestLimitVectorsCostLittle(t *testing.T) {
	vs, err := smgtest.Load(vectorDir)
	if err != nil {
		t.Fatal(err)
	}
	most := uint64(format.DefaultLimits.MaxDocumentSize) + 32<<20
	for _, v := range vs {
		if v.Expect != "limit" {
			continue
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := format.Unmarshal(v.Body, &format.DecodeOptions{Password: []byte(v.Password)})
		runtime.ReadMemStats(&after)
		if !errors.Is(err, format.ErrLimit) {
			t.Errorf("%s: %v, want a limit", v.Name, err)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > most {
			t.Errorf("%s: %d MiB allocated, want at most %d", v.Name, n>>20, most>>20)
		}
	}
}
