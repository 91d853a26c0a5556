package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
)

// refScan is the scanner as it was before it took runs of bytes at a
// time (issue 5): byte by byte, every number through ParseFloat. It is
// the reference the scanner must agree with, error for error.
func refScan(r io.Reader, lim Limits, array bool) (header, error) {
	s := &scanner{lim: lim, array: array, stack: make([]frame, 0, 16)}
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if serr := refWrite(s, buf[:n]); serr != nil {
			return s.h, serr
		}
		if err == io.EOF {
			if s.scalar {
				if err := refEndScalar(s); err != nil {
					return s.h, err
				}
			}
			return s.h, s.close()
		}
		if err != nil {
			return s.h, err
		}
	}
}

func refWrite(s *scanner, p []byte) error {
	for i := 0; i < len(p); i++ {
		c := p[i]
		var err error
		switch {
		case s.str && s.mode == keepNone && !s.esc && c != '"' && c != '\\':
			n := bytes.IndexAny(p[i:], `"\`)
			if n < 0 {
				n = len(p) - i
			}
			s.strLen += n
			if s.strLen > s.lim.MaxStringLength {
				return s.limitError("MaxStringLength", int64(s.lim.MaxStringLength))
			}
			s.off += int64(n)
			i += n - 1
			continue
		case s.str:
			err = s.stringByte(c)
		case s.scalar && isScalarByte(c):
			err = s.scalarByte(c)
		case s.scalar:
			if err = refEndScalar(s); err == nil {
				err = s.structural(c)
			}
		default:
			err = s.structural(c)
		}
		if err != nil {
			return err
		}
		s.off++
	}
	return nil
}

func refEndScalar(s *scanner) error {
	s.scalar = false
	v := s.val
	if s.valDst != nil {
		*s.valDst = bytes.Clone(v)
	}
	switch string(v) {
	case "true", "false", "null":
		return nil
	}
	if _, err := strconv.ParseFloat(string(v), 64); errors.Is(err, strconv.ErrRange) {
		return &DecodeError{Path: s.path(), Offset: s.off - int64(len(v)), Err: ErrMalformed, Msg: fmt.Sprintf("number %.40s is not a finite double", v)}
	}
	return nil
}

// smallReader reads n bytes at a time: runs then cross the buffer's ends.
type smallReader struct {
	b []byte
	n int
}

func (r *smallReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), r.n)], r.b)
	r.b = r.b[k:]
	return k, nil
}

// checkScanners scans js with the scanner and the reference, whole and a
// few bytes at a time, under lim, and fails unless they agree.
func checkScanners(t *testing.T, js []byte, lim Limits) {
	t.Helper()
	for _, array := range []bool{false, true} {
		wantH, wantErr := refScan(bytes.NewReader(js), lim, array)
		for _, r := range []io.Reader{bytes.NewReader(js), &smallReader{js, 7}, &smallReader{js, 1}} {
			s := &scanner{lim: lim, array: array, stack: make([]frame, 0, 16)}
			h, err := scanWith(s, r)
			if !reflect.DeepEqual(h, wantH) || fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(err, wantErr) {
				t.Fatalf("scan(%.200q, array %v) = %+v, %v; the reference %+v, %v", js, array, h, err, wantH, wantErr)
			}
		}
	}
}

// scanSamples hold what the scanner takes in runs: long strings and
// names with and without escapes, header values, numbers plain and
// not, and the limits they may break.
var scanSamples = []string{
	`{"@context":"https://smg.dev/v1","@type":"SemanticMemoryGraph","version":"1.0.0","a":[1,-2.5,3e400,1e-400,0.0001,"x\"y\\z"]}`,
	`{"version":"` + strings.Repeat("9", 2000) + `"}`,
	`{"` + strings.Repeat("n", 300) + `":{"x` + strings.Repeat("\\u0041", 100) + `":1}}`,
	`{"a":` + strings.Repeat("1", 1100) + `}`,
	`{"a":` + strings.Repeat("1", 320) + `}`,
	`{"a":-` + strings.Repeat("9", 310) + `.5}`,
	`{"a":0x1p9999,"b":Infinity,"c":1_000}`,
	`{"semanticGraph":{"nodes":[{},{},{}],"edges":[1,2,3,4]}}`,
	`{"s":"` + strings.Repeat(`ab\"`, 50) + `"}`,
	`{"encrypted":true}`, `{"enc\u0072ypted":1}`, `{"a":tru`, `{"a":"abc`, `[1,2]`, `{}{`, ` 7`,
}

func scanLimits() Limits {
	lim := DefaultLimits
	lim.MaxStringLength, lim.MaxDepth, lim.MaxNodes, lim.MaxEdges, lim.MaxListLength = 100, 4, 2, 3, 5
	return lim
}

// TestScanRuns checks the scanner against the reference on the samples,
// the test vectors, and the samples under small limits.
func TestScanRuns(t *testing.T) {
	for _, js := range scanSamples {
		checkScanners(t, []byte(js), DefaultLimits)
		checkScanners(t, []byte(js), scanLimits())
	}
	for _, js := range vectorJSON(t) {
		checkScanners(t, js, DefaultLimits)
		checkScanners(t, js, scanLimits())
	}
}

// FuzzScan checks the scanner against the reference.
func FuzzScan(f *testing.F) {
	for _, js := range scanSamples {
		f.Add([]byte(js), false)
	}
	f.Fuzz(func(t *testing.T, js []byte, small bool) {
		lim := DefaultLimits
		if small {
			lim = scanLimits()
		}
		checkScanners(t, js, lim)
	})
}

// vectorJSON returns the JSON text of every test vector (the first 4 MB
// of it, decompressed) and of testdata/full.smg.json.
func vectorJSON(t *testing.T) [][]byte {
	t.Helper()
	var out [][]byte
	full, err := os.ReadFile(filepath.Join("..", "..", "testdata", "full.smg.json"))
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, full)
	names, err := filepath.Glob(filepath.Join("..", "..", "testdata", "vectors", "*.vec"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no test vectors: %v", err)
	}
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		_, body, ok := bytes.Cut(b, []byte("\n\n"))
		if !ok {
			continue
		}
		if !jsonStart(body) {
			body, _ = io.ReadAll(io.LimitReader(brotli.NewReader(bytes.NewReader(body)), 4<<20))
		}
		out = append(out, body)
	}
	return out
}
