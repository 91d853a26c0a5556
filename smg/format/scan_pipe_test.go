package format

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/spec"
)

// decodeRef is decode as it was before the scanner and the unmarshaller
// ran together: the whole text scanned, then unmarshalled. It is the
// oracle for TestPipelinedDecode.
func decodeRef(js []byte, lim Limits) (*spec.Document, error) {
	h, err := scan(bytes.NewReader(js), lim)
	if err != nil {
		if herr := checkHeader(h); h.version != nil && herr != nil {
			return nil, herr
		}
		return nil, err
	}
	if err := checkHeader(h); err != nil {
		return nil, err
	}
	doc := new(spec.Document)
	if err := json.Unmarshal(js, doc); err != nil {
		return nil, unmarshalError(js, err)
	}
	complete(doc, lim)
	return doc, nil
}

// bigDocument is full.smg.json with its nodes repeated under new ids until
// the text spans several of the scanner's chunks.
func bigDocument(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "full.smg.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Unmarshal(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	nodes := doc.SemanticGraph.Nodes
	for i := 0; len(b) < 5*scanChunk+scanChunk/2; i++ {
		for _, n := range nodes {
			n.ID = fmt.Sprintf("%s-copy-%d", n.ID, i)
			doc.SemanticGraph.Nodes = append(doc.SemanticGraph.Nodes, n)
		}
		if b, err = Marshal(doc, &EncodeOptions{Plain: true}); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// The scanner and the unmarshaller run together over chunks of the text:
// the document, and the error of a damaged text, are those of scanning
// the whole text and then unmarshalling it, in plain and in compressed
// files, wherever the damage falls against the chunks.
func TestPipelinedDecode(t *testing.T) {
	js := bigDocument(t)
	lim := Limits{}.withDefaults()
	want, err := decodeRef(js, lim)
	if err != nil {
		t.Fatal(err)
	}
	for _, compressed := range []bool{false, true} {
		file := func(js []byte) []byte {
			if compressed {
				return archive.Compress(js, 5)
			}
			return js
		}
		got, err := Unmarshal(file(js), nil)
		if err != nil {
			t.Fatalf("compressed %v: %v", compressed, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("compressed %v: the document differs from the one unmarshalled whole", compressed)
		}
		for _, at := range []int{100, scanChunk - 1, scanChunk, scanChunk + 1, 3*scanChunk + 7, len(js) - 2} {
			for _, damage := range []struct {
				name string
				f    func([]byte) []byte
			}{
				{"cut", func(b []byte) []byte { return b[:at] }},
				{"brace", func(b []byte) []byte { b[at] = '}'; return b }},
				{"letter", func(b []byte) []byte { b[at] = 'x'; return b }},
				{"nul", func(b []byte) []byte { b[at] = 0; return b }},
			} {
				bad := damage.f(bytes.Clone(js))
				_, wantErr := decodeRef(bad, lim)
				_, err := Unmarshal(file(bad), nil)
				if wantErr == nil && err == nil {
					continue
				}
				if err == nil || wantErr == nil || err.Error() != wantErr.Error() {
					t.Errorf("compressed %v, %s at %d: got %v, want %v", compressed, damage.name, at, err, wantErr)
				}
			}
		}
	}
}

// Long runs of white space are not held: a document whose text is mostly
// spaces keeps, of its text, what the unmarshaller was given, and a file
// of a GiB of spaces stops at the limit without holding them.
func TestBlankRunsNotHeld(t *testing.T) {
	js, err := os.ReadFile(filepath.Join("..", "..", "testdata", "full.smg.json"))
	if err != nil {
		t.Fatal(err)
	}
	spaced := bytes.Replace(js, []byte(`{`), []byte("{"+strings.Repeat(" ", 8<<20)+"\n"), 1)
	for form, b := range map[string][]byte{"plain": spaced, "brotli": archive.Compress(spaced, 5)} {
		d, err := decode(bytes.NewReader(b), nil)
		if err != nil {
			t.Fatalf("%s: %v", form, err)
		}
		held := 0
		for _, p := range d.text {
			held += len(p)
		}
		if held > len(js)+2*maxBlank || d.Form.JSONSize != int64(len(spaced)) {
			t.Errorf("%s: %d bytes of the text held (the document's are %d), JSON size %d of %d", form, held, len(js), d.Form.JSONSize, len(spaced))
		}
	}
}
