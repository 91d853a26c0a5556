package format_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/internal/envelope"
	"github.com/smg-memory/smg/smg/smgtest"
)

// TestSummaryIsTheInspection: a summary that reads past the turns
// (InspectFileWith asked for nothing more) says of every test vector
// that the reader reads what the whole inspection says, but the content
// hash; it refuses what the whole inspection refuses for its limits, its
// version, its form or its password, with the same error.
func TestSummaryIsTheInspection(t *testing.T) {
	vectors, err := smgtest.Load(filepath.Join("..", "..", "testdata", "vectors"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	summarized := 0
	for _, v := range vectors {
		name := filepath.Join(dir, v.Name+".smg")
		if err := os.WriteFile(name, v.Body, 0o600); err != nil {
			t.Fatal(err)
		}
		opts := &format.DecodeOptions{}
		if v.Password != "" {
			opts.Password = []byte(v.Password)
		}
		whole, werr := format.InspectFile(name, opts)
		sum, serr := format.InspectFileWith(name, opts, format.InspectOptions{})
		switch {
		case werr == nil && serr != nil:
			t.Errorf("%s: the summary fails where the inspection does not: %v", v.Name, serr)
		case werr == nil:
			summarized++
			if sum.ContentHash != "" || whole.ContentHash == "" {
				t.Errorf("%s: content hash %q in the summary, %q in the inspection", v.Name, sum.ContentHash, whole.ContentHash)
			}
			whole.ContentHash = ""
			if !reflect.DeepEqual(sum, whole) {
				t.Errorf("%s: the summary\n%+v\nthe inspection\n%+v", v.Name, sum, whole)
			}
		default:
			for _, refused := range []error{format.ErrLimit, format.ErrUnsupportedVersion, format.ErrNotSMG, format.ErrTruncated,
				format.ErrPasswordRequired, format.ErrWrongPassword, format.ErrTampered} {
				if errors.Is(werr, refused) && !errors.Is(serr, refused) {
					t.Errorf("%s: the inspection refuses it (%v), the summary says %v", v.Name, werr, serr)
				}
			}
		}
	}
	if summarized < 20 {
		t.Errorf("only %d vectors summarized", summarized)
	}
}

// TestSummaryReadsPastTheTurns: the summary reads what it counts, so a
// member it does not count (a node's label of the wrong type) does not
// stop it, where the inspection, which decodes the whole document, fails.
func TestSummaryReadsPastTheTurns(t *testing.T) {
	bad, _ := spoiltLabel(t)
	name := filepath.Join(t.TempDir(), "m.smg")
	if err := os.WriteFile(name, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := format.InspectFile(name, nil); !errors.Is(err, format.ErrMalformed) {
		t.Errorf("the inspection: %v, want ErrMalformed", err)
	}
	sum, err := format.InspectFileWith(name, nil, format.InspectOptions{})
	if err != nil || sum.TotalNodes != 12 || sum.ArchivedTurns != 12 {
		t.Errorf("the summary: %v", err)
	}
}

// TestDecodePlacesErrorsOnce: a reader keeps no copy of the JSON text it
// reads, so the error of a document that does not unmarshal is placed by
// reading it again: at its line and path as before, asking for the
// password of an encrypted file once.
func TestDecodePlacesErrorsOnce(t *testing.T) {
	bad, line := spoiltLabel(t)
	sealed, err := envelope.Seal(bad, []byte("pw"), envelope.SealOptions{KDF: envelope.KDF{Function: "argon2id", MemoryKiB: 8, TimeCost: 1, Parallelism: 1}, InsecureKDF: true})
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	opts := &format.DecodeOptions{PasswordFunc: func() ([]byte, error) { asked++; return []byte("pw"), nil }}
	_, err = format.Unmarshal(sealed, opts)
	if !errors.Is(err, format.ErrMalformed) || !strings.Contains(err.Error(), fmt.Sprintf("line %d", line)) || asked != 1 {
		t.Errorf("%v (line %d), the password asked for %d times", err, line, asked)
	}
}

// spoiltLabel is testdata/full.smg in the canonical pretty form, its first
// label a number, and the line of that label.
func spoiltLabel(t *testing.T) ([]byte, int) {
	t.Helper()
	doc, _ := readExample(t, "full.smg")
	js, err := format.Marshal(doc, &format.EncodeOptions{Plain: true, Indent: true})
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(js, []byte(`"label": "`), []byte(`"label": 7, "spoilt": "`), 1)
	if bytes.Equal(bad, js) {
		t.Fatal("no label to spoil")
	}
	return bad, bytes.Count(bad[:bytes.Index(bad, []byte(`"label": 7`))], []byte("\n")) + 1
}
