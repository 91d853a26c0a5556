// Package smgtest provides what tests of .smg readers need: the test
// vectors of testdata/vectors, the error each expected outcome names,
// cheap, deterministic encryption settings, and a model provider of
// deterministic embeddings ([ProviderServer]).
//
// A vector file is one case. It starts with a header of "key: value" lines,
// ends the header with an empty line, and holds the case's bytes after it,
// verbatim:
//
//	smg test vector
//	description: an edge points at a node that does not exist
//	expect: invalid
//	path: $.semanticGraph.edges[0].to
//
//	{"@context":...
//
// The keys are:
//   - description: what the case is about (one line).
//   - expect: the outcome of decoding the bytes and then validating the
//     document; one of the names of [Expectations].
//   - path: for a decode or limit error, the JSON path the error names;
//     for "invalid", one line per problem, and the problems are exactly
//     these paths (a path may repeat).
//   - password: the password to decode with.
//   - canonical: "no" for a readable document that is not in canonical
//     form, so that encoding it does not give back its bytes (it gives the
//     canonical form, which encodes to itself).
//
// Where a header value is needed twice ("path"), the key repeats.
package smgtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/graph/graphtest"
	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/examples"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/spec"
)

// Magic is the first line of every vector file.
const Magic = "smg test vector"

// Expectations maps the outcomes a vector can expect to the error that
// decoding or validating it must match with errors.Is; "ok" maps to nil.
var Expectations = map[string]error{
	"ok":                  nil,
	"not-smg":             smg.ErrNotSMG,
	"unsupported-version": smg.ErrUnsupportedVersion,
	"malformed":           smg.ErrMalformed,
	"truncated":           smg.ErrTruncated,
	"limit":               smg.ErrLimit,
	"invalid":             smg.ErrInvalid,
	"password-required":   smg.ErrPasswordRequired,
	"wrong-password":      smg.ErrWrongPassword,
	"tampered":            smg.ErrTampered,
}

// Vector is one test case.
type Vector struct {
	// Name is the file's name without ".vec".
	Name        string
	Description string
	Expect      string
	Paths       []string
	Password    string
	// NotCanonical marks a readable document whose bytes are not the
	// canonical form ("canonical: no").
	NotCanonical bool
	Body         []byte
}

// Form returns the options that encode a document in the form of body:
// Brotli, compact JSON, or pretty JSON (which ends with a newline).
func Form(body []byte) *smg.EncodeOptions {
	switch {
	case len(body) == 0 || body[0] != '{':
		return nil
	case body[len(body)-1] == '\n':
		return &smg.EncodeOptions{Plain: true, Indent: true}
	}
	return &smg.EncodeOptions{Plain: true}
}

// Err returns the error the vector expects, or nil for "ok".
func (v *Vector) Err() error { return Expectations[v.Expect] }

// Parse reads a vector file.
func Parse(name string, data []byte) (*Vector, error) {
	v := &Vector{Name: name}
	r := bufio.NewReader(bytes.NewReader(data))
	first := true
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("%s: the header does not end with an empty line", name)
		}
		line = strings.TrimSuffix(line, "\n")
		if first {
			if line != Magic {
				return nil, fmt.Errorf("%s: the first line is not %q", name, Magic)
			}
			first = false
			continue
		}
		if line == "" {
			break
		}
		key, value, ok := strings.Cut(line, ": ")
		if !ok {
			return nil, fmt.Errorf("%s: header line %q is not \"key: value\"", name, line)
		}
		switch key {
		case "description":
			v.Description = value
		case "expect":
			if _, ok := Expectations[value]; !ok {
				return nil, fmt.Errorf("%s: unknown expectation %q", name, value)
			}
			v.Expect = value
		case "path":
			v.Paths = append(v.Paths, value)
		case "password":
			v.Password = value
		case "canonical":
			if value != "no" {
				return nil, fmt.Errorf("%s: canonical: %q, want no", name, value)
			}
			v.NotCanonical = true
		default:
			return nil, fmt.Errorf("%s: unknown header key %q", name, key)
		}
	}
	if v.Expect == "" {
		return nil, fmt.Errorf("%s: no expect line", name)
	}
	body, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	v.Body = body
	return v, nil
}

// Format returns the bytes of a vector file.
func (v *Vector) Format() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\ndescription: %s\nexpect: %s\n", Magic, v.Description, v.Expect)
	for _, p := range v.Paths {
		fmt.Fprintf(&b, "path: %s\n", p)
	}
	if v.Password != "" {
		fmt.Fprintf(&b, "password: %s\n", v.Password)
	}
	if v.NotCanonical {
		b.WriteString("canonical: no\n")
	}
	b.WriteByte('\n')
	b.Write(v.Body)
	return b.Bytes()
}

// Load reads every *.vec file of a folder, in name order.
func Load(dir string) ([]*Vector, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.vec"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no vectors in %s", dir)
	}
	var out []*Vector
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		v, err := Parse(strings.TrimSuffix(filepath.Base(n), ".vec"), data)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// CheapKDF is a key derivation that costs almost nothing, for tests. It is
// below the minimums, so encoding with it needs EncodeOptions.InsecureKDF.
// Never use it for real files.
var CheapKDF = smg.KDF{Function: "argon2id", TimeCost: 1, MemoryKiB: 8, Parallelism: 1}

// Rand returns a deterministic source of bytes for salts and nonces, so
// that encrypted test files come out the same every time.
func Rand(seed uint64) io.Reader {
	var key [32]byte
	key[0] = byte(seed)
	key[1] = byte(seed >> 8)
	return rand.NewChaCha8(key)
}

// ErrorPath returns the JSON path a decode or limit error names, or "".
func ErrorPath(err error) string {
	if de, ok := errors.AsType[*format.DecodeError](err); ok {
		return de.Path
	}
	if le, ok := errors.AsType[*format.LimitError](err); ok {
		return le.Path
	}
	return ""
}

// ProblemPaths returns the paths of the problems a validation error lists.
func ProblemPaths(err error) []string {
	ve, ok := errors.AsType[*format.ValidationError](err)
	if !ok {
		return nil
	}
	paths := make([]string, len(ve.Problems))
	for i, p := range ve.Problems {
		paths[i] = p.Path
	}
	return paths
}

// Check decodes and validates a vector's body and reports how the outcome
// differs from what the vector expects, or nil.
func Check(v *Vector) error {
	opts := &format.ValidateOptions{}
	if v.Password != "" {
		opts.Password = []byte(v.Password)
	}
	_, err := format.ValidateBytes(v.Body, opts)
	want := v.Err()
	switch {
	case want == nil && err != nil:
		return fmt.Errorf("want ok, got %v", err)
	case want != nil && !errors.Is(err, want):
		return fmt.Errorf("want %s (%v), got %v", v.Expect, want, err)
	case v.Expect == "invalid":
		got := ProblemPaths(err)
		if !sameMultiset(got, v.Paths) {
			return fmt.Errorf("problems at %q, want %q (%v)", got, v.Paths, err)
		}
	case want != nil && len(v.Paths) > 0:
		if got := ErrorPath(err); got != v.Paths[0] {
			return fmt.Errorf("error at %q, want %q (%v)", got, v.Paths[0], err)
		}
	}
	return nil
}

func sameMultiset(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
		if count[s] < 0 {
			return false
		}
	}
	return true
}

// BlockQuality is the Brotli quality of the blocks Block builds: fixed, so
// that the test vectors and examples of testdata keep their bytes when the
// writer's default (archive.DefaultQuality) is tuned.
const BlockQuality = 9

// Block builds an archive block of consecutive turns as spec §8 defines
// it, in the form version 1.1 writes (the turns in the clear). It is for
// building test documents.
func Block(id string, turns []spec.Turn) (spec.ArchiveBlock, error) {
	return graph.NewBlock(id, turns)
}

// CompressedBlock builds the block as Block does, in the form of version
// 1.0 (compressed at BlockQuality): a reader still reads it.
func CompressedBlock(id string, turns []spec.Turn) (spec.ArchiveBlock, error) {
	return graph.NewCompressedBlock(id, turns, BlockQuality)
}

// TranscriptBytes is spec §4.2's size of the raw transcript of turns: the
// sum of the lengths of their canonical JSON.
func TranscriptBytes(turns []spec.Turn) (int64, error) {
	var n int64
	for _, t := range turns {
		js, err := spec.MarshalCanonical(t)
		if err != nil {
			return 0, err
		}
		n += int64(len(js))
	}
	return n, nil
}

// CurrentFacts reads the named memory file with its journal, as another
// process would, and returns the labels of its current facts, sorted.
// opts may be nil.
func CurrentFacts(t testing.TB, name string, opts *smg.DecodeOptions) []string {
	t.Helper()
	doc, err := smg.ReadDocument(name, opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range graph.Facts(doc, graph.FactFilter{}) {
		out = append(out, n.Label)
	}
	slices.Sort(out)
	return out
}

// CheckoutTurns returns the turns of the checkout conversation that smg
// ships for its demo, as its importer reads them.
func CheckoutTurns(t testing.TB) []spec.Turn {
	t.Helper()
	res, err := importer.Read(bytes.NewReader(examples.Checkout), importer.Options{Name: "checkout.json", Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	return res.Conversations[0].Turns
}

// LoCoMoPath is the path of the LoCoMo conversations the benchmarks read:
// the file SMG_BENCH_LOCOMO names, or else ../shared/bench/locomo-dev.json
// beside the module, from a test of any package of it.
func LoCoMoPath() string {
	if p := os.Getenv("SMG_BENCH_LOCOMO"); p != "" {
		return p
	}
	dir, err := graphtest.ModuleDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "..", "shared", "bench", "locomo-dev.json")
}

// Turns returns the archived turns of doc, in order, with their whole
// content.
func Turns(t testing.TB, doc *spec.Document) []spec.Turn {
	t.Helper()
	var out []spec.Turn
	if err := graph.EachTurn(doc, nil, func(tu spec.Turn) error {
		out = append(out, tu)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// FileTurns reads the named memory file with its journal, as another
// process would, and returns its turns.
func FileTurns(t testing.TB, name string) []spec.Turn {
	t.Helper()
	doc, err := smg.ReadDocument(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return Turns(t, doc)
}
