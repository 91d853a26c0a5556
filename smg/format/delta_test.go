package format_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

// history is a memory changed by a seeded random sequence of operations,
// with a snapshot of its document after each step.
type history struct {
	m     *smg.Memory
	r     *rand.Rand
	turns []smg.Turn // the fixture conversation, ingested in order
	next  int        // the next turn of turns to ingest
	now   time.Time  // the memory's clock
	// docs and files are the snapshots: the documents and their compact
	// canonical JSON.
	docs  []*spec.Document
	files [][]byte
}

// historyOp is one kind of step of a generated history. It reports
// whether it changed anything worth a snapshot.
type historyOp struct {
	name string
	do   func(t testing.TB, h *history) bool
}

// facts the remember step draws from: some of them contradict others, so
// that facts get superseded.
var historyFacts = []string{
	"I live in Berlin", "I live in Paris", "I prefer short answers", "I prefer detailed answers",
	"My sister is called Ana", "The shop's staging server is called mercury", "We deploy on Fridays",
	"I work at Globex", "I use Go for the backend", "The designers want the payment form to match the site",
}

// historyOps are the steps of a generated history: ingest, remember,
// forget, maintain, and a collaborator's private fact.
var historyOps = []historyOp{
	{"ingest", func(t testing.TB, h *history) bool {
		if h.next >= len(h.turns) {
			return false
		}
		n := 1 + h.r.IntN(4)
		for ; n > 0 && h.next < len(h.turns); n-- {
			if err := h.m.Ingest(context.Background(), h.turns[h.next]); err != nil {
				t.Fatal(err)
			}
			h.next++
		}
		// The vectors are made in the background: a snapshot waits for
		// them, so that the history is the same every run.
		if err := h.m.WaitVectors(context.Background()); err != nil {
			t.Fatal(err)
		}
		return true
	}},
	{"remember", func(t testing.TB, h *history) bool {
		f := smg.Fact{Content: historyFacts[h.r.IntN(len(historyFacts))], Source: spec.SourceUser, Pinned: h.r.IntN(4) == 0}
		r, err := h.m.Remember(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		return !r.Duplicate
	}},
	{"forget", func(t testing.TB, h *history) bool {
		facts := h.m.Facts(smg.FactFilter{Superseded: true})
		if len(facts) == 0 {
			return false
		}
		if _, err := h.m.Forget(context.Background(), facts[h.r.IntN(len(facts))].ID); err != nil {
			t.Fatal(err)
		}
		return true
	}},
	{"maintain", func(t testing.TB, h *history) bool {
		// Up to a year on: stale nodes go, decay applies, near-duplicates
		// merge, weak edges drop.
		at := h.now.Add(time.Duration(h.r.IntN(365)) * 24 * time.Hour)
		r, err := h.m.Maintain(context.Background(), smg.MaintainOptions{Now: at, StaleAfter: time.Duration(1+h.r.IntN(90)) * 24 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		return len(r.Changes) > 0
	}},
	{"private", func(t testing.TB, h *history) bool {
		// A collaborator, and a fact in their private part, sealed or not.
		owner := []string{"alice", "bob"}[h.r.IntN(2)]
		if err := h.m.AddCollaborator(smg.Collaborator{ID: owner}); err != nil {
			t.Fatal(err)
		}
		p, err := h.m.Private(owner, nil)
		if errors.Is(err, smg.ErrSealed) {
			p, err = h.m.Private(owner, []byte(owner))
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.r.IntN(3) == 0 {
			if err := h.m.SealPrivate(owner, []byte(owner), weakKDF); err != nil {
				t.Fatal(err)
			}
		}
		_, err = p.Remember(context.Background(), smg.Fact{Content: historyFacts[h.r.IntN(len(historyFacts))], Source: spec.SourceUser})
		if err != nil {
			t.Fatal(err)
		}
		return true
	}},
}

// newHistory runs steps random operations of ops on a new memory that
// ingests the checkout conversation, snapshotting it after each change.
func newHistory(t testing.TB, seed uint64, steps int, ops []historyOp) *history {
	t.Helper()
	h := &history{r: rand.New(rand.NewPCG(seed, 1)), turns: smgtest.CheckoutTurns(t), now: time.Date(2025, 11, 3, 9, 0, 0, 0, time.UTC)}
	h.m = smg.New(&smg.Options{ID: "history", Embedder: hashEmbedder{}, Now: func() time.Time { return h.now }})
	t.Cleanup(func() { h.m.Close() })
	for range steps {
		h.now = h.now.Add(time.Duration(1+h.r.IntN(3600)) * time.Second)
		if op := ops[h.r.IntN(len(ops))]; op.do(t, h) {
			h.snapshot(t)
		}
	}
	return h
}

// hashEmbedder embeds a text as the first bytes of its SHA-256: vectors
// that cost nothing, the same every run, and far apart, so that histories
// have vectors (of more turns than nine: a patch must keep them in the
// order of their turns, not of their numbers as text).
type hashEmbedder struct{}

func (hashEmbedder) Model() string { return "sha256-32" }

func (hashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, text := range texts {
		sum := sha256.Sum256([]byte(text))
		v := make([]float32, len(sum))
		for j, b := range sum {
			v[j] = float32(b)/255 - 0.5
		}
		out[i] = v
	}
	return out, nil
}

func (h *history) snapshot(t testing.TB) {
	t.Helper()
	doc := h.m.Document()
	b, err := format.Marshal(doc, &format.EncodeOptions{Plain: true})
	if err != nil {
		t.Fatal(err)
	}
	h.docs, h.files = append(h.docs, doc), append(h.files, b)
}

// applyDelta makes the delta from a to b, writes and reads it back, and
// applies it to a: the patched document's file must be b's, byte for byte.
func applyDelta(t testing.TB, a, b *spec.Document, want []byte) *spec.Document {
	t.Helper()
	d, err := format.NewDelta(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if d.Full() {
		t.Error("the delta carries the whole target")
	}
	raw, err := format.MarshalDelta(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := format.UnmarshalDelta(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := format.Patch(a, back)
	if err != nil {
		t.Fatal(err)
	}
	file, err := format.Marshal(got, &format.EncodeOptions{Plain: true})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(file, want) {
		t.Fatalf("the patched document differs from the target:\n%.300s\n%.300s", file, want)
	}
	return got
}

func TestDeltaRoundTripHistories(t *testing.T) {
	seeds, steps, pairs := uint64(4), 40, 25
	if testing.Short() || raceEnabled {
		// The race detector makes each step ten times slower; the
		// histories are no more racy for being long.
		seeds, steps, pairs = 2, 15, 8
	}
	for seed := range seeds {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			h := newHistory(t, seed, steps, historyOps)
			n := len(h.docs)
			if n < 3 {
				t.Fatalf("only %d snapshots", n)
			}
			for range pairs {
				i, j := h.r.IntN(n), h.r.IntN(n)
				// Backwards too. A memory's history gives valid documents.
				if err := format.Validate(applyDelta(t, h.docs[i], h.docs[j], h.files[j]), nil); err != nil {
					t.Fatalf("v%d to v%d: %v", i, j, err)
				}
				c, err := format.Diff(h.docs[i], h.docs[j], nil)
				if err != nil {
					t.Fatal(err)
				}
				if c.Empty() != bytes.Equal(h.files[i], h.files[j]) {
					t.Errorf("v%d to v%d: Empty is %v", i, j, c.Empty())
				}
			}
			// A chain: v_i + d(i, j) + d(j, k) = v_k.
			i := h.r.IntN(n - 2)
			j := i + 1 + h.r.IntN(n-i-2)
			k := j + 1 + h.r.IntN(n-j-1)
			mid := applyDelta(t, h.docs[i], h.docs[j], h.files[j])
			applyDelta(t, mid, h.docs[k], h.files[k])
		})
	}
}

// marshalPlain is the compact canonical file of doc.
func marshalPlain(t testing.TB, doc *spec.Document) []byte {
	t.Helper()
	return marshal(t, doc, &format.EncodeOptions{Plain: true})
}

func TestDeltaEachKindOfChange(t *testing.T) {
	base, target := changedFull(t)
	applyDelta(t, base, target, marshalPlain(t, target))
	applyDelta(t, target, base, marshalPlain(t, base))
	applyDelta(t, base, base, marshalPlain(t, base))
}

// TestDeltaVerbatimValues changes members whose names are those of the
// patch's operations, and values that are null, which a patch must carry
// as they are.
func TestDeltaVerbatimValues(t *testing.T) {
	base, _ := readExample(t, "full.smg")
	target, _ := readExample(t, "full.smg")
	base.SemanticGraph.Nodes[0].Metadata = map[string]any{"-": 1.0, "~": map[string]any{"a": 1.0}, "=": nil, "keep": nil, "gone": "x", "list": []any{1.0}}
	target.SemanticGraph.Nodes[0].Metadata = map[string]any{"-": 2.0, "~": map[string]any{"a": 2.0}, "=": "now", "keep": nil, "new": nil, "+": map[string]any{"b": nil}, "list": []any{1.0, nil}}
	base.Metadata.Extra = []byte(`{"x-note":{"a":null,"b":[1]}}`)
	target.Metadata.Extra = []byte(`{"x-note":{"a":null,"b":[1,null],"c":null}}`)
	applyDelta(t, base, target, marshalPlain(t, target))
	applyDelta(t, target, base, marshalPlain(t, base))
}

func TestDeltaFullWhenKeysRepeat(t *testing.T) {
	base, _ := readExample(t, "full.smg")
	target, _ := readExample(t, "full.smg")
	target.SemanticGraph.Nodes = append(target.SemanticGraph.Nodes, target.SemanticGraph.Nodes[3])
	target.SemanticGraph.Nodes[len(target.SemanticGraph.Nodes)-1].Label = "Another"
	d, err := format.NewDelta(base, target)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Full() {
		t.Error("a delta to a document with a node id twice is a patch")
	}
	raw, err := format.MarshalDelta(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := format.UnmarshalDelta(raw, nil)
	if err != nil || !back.Full() {
		t.Fatal(err)
	}
	got, err := format.Patch(base, back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(marshalPlain(t, got), marshalPlain(t, target)) {
		t.Error("the full delta does not give the target")
	}
}

func TestPatchWrongBase(t *testing.T) {
	base, target := changedFull(t)
	d, err := format.NewDelta(base, target)
	if err != nil {
		t.Fatal(err)
	}
	_, err = format.Patch(target, d)
	var be *format.BaseError
	if !errors.Is(err, format.ErrWrongBase) || !errors.As(err, &be) || be.Want != d.Base || be.Got != d.Target {
		t.Fatalf("patching the target: %v", err)
	}
	if !strings.Contains(err.Error(), d.Base) || !strings.Contains(err.Error(), d.Target) {
		t.Errorf("the error does not name both hashes: %v", err)
	}
}

func TestDeltaEncrypted(t *testing.T) {
	base, target := changedFull(t)
	d, err := format.NewDelta(base, target)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := format.MarshalDelta(d, &format.EncodeOptions{Password: []byte("pw"), KDF: smgtest.CheapKDF, InsecureKDF: true, Rand: smgtest.Rand(1)})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("smg-diff")) {
		t.Error("the header is not encrypted")
	}
	if _, err := format.UnmarshalDelta(raw, nil); !errors.Is(err, format.ErrPasswordRequired) {
		t.Errorf("no password: %v", err)
	}
	if _, err := format.UnmarshalDelta(raw, &format.DecodeOptions{Password: []byte("no")}); !errors.Is(err, format.ErrWrongPassword) {
		t.Errorf("a wrong password: %v", err)
	}
	back, err := format.UnmarshalDelta(raw, &format.DecodeOptions{Password: []byte("pw")})
	if err != nil || back.Base != d.Base || back.Target != d.Target {
		t.Fatal(err)
	}
	if _, err := format.Patch(base, back); err != nil {
		t.Error(err)
	}
}

// TestDeltaDamaged cuts and changes the bytes of a differential file: it
// fails to read with a typed error, or reads and then fails to apply, or
// gives exactly the target; never anything else.
func TestDeltaDamaged(t *testing.T) {
	base, target := changedFull(t)
	d, err := format.NewDelta(base, target)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := format.MarshalDelta(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := marshalPlain(t, target)
	check := func(what string, b []byte) {
		t.Helper()
		back, err := format.UnmarshalDelta(b, nil)
		if err != nil {
			if !errors.Is(err, format.ErrNotDelta) && !errors.Is(err, format.ErrMalformed) && !errors.Is(err, format.ErrTruncated) && !errors.Is(err, format.ErrUnsupportedVersion) {
				t.Errorf("%s: untyped error %v", what, err)
			}
			return
		}
		got, err := format.Patch(base, back)
		if err != nil {
			if !errors.Is(err, format.ErrMalformed) && !errors.Is(err, format.ErrWrongBase) {
				t.Errorf("%s: untyped error %v", what, err)
			}
			return
		}
		if !bytes.Equal(marshalPlain(t, got), want) {
			t.Errorf("%s: a damaged delta gives another document", what)
		}
	}
	for n := 0; n < len(raw); n += 1 + n/8 {
		check(fmt.Sprintf("cut at %d", n), raw[:n])
	}
	r := rand.New(rand.NewPCG(7, 7))
	for range 300 {
		b := bytes.Clone(raw)
		i := r.IntN(len(b))
		b[i] ^= byte(1 + r.IntN(255))
		check(fmt.Sprintf("byte %d changed", i), b)
	}
	for what, b := range map[string][]byte{
		"a .smg file":         marshal(t, target, nil),
		"another version":     bytes.Replace(raw, []byte("smg-diff 1.0 "), []byte("smg-diff 2.0 "), 1),
		"a header without LF": []byte("smg-diff 1.0 " + d.Base + " " + d.Target),
	} {
		_, err := format.UnmarshalDelta(b, nil)
		want := map[string]error{"a .smg file": format.ErrNotDelta, "another version": format.ErrUnsupportedVersion, "a header without LF": format.ErrTruncated}[what]
		if !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", what, err, want)
		}
	}
}

// weakKDF makes sealing fast in tests.
var weakKDF = &format.EncodeOptions{KDF: format.KDF{Function: "pbkdf2-sha256", Iterations: 1000}, InsecureKDF: true}

// Lists keyed by a number (embeddings by turn, artifact versions, the
// recent turns) come back from a patch in the order of their numbers, not
// of their keys as text: turn 11 after turn 9, not before it.
func TestPatchKeepsNumericOrder(t *testing.T) {
	base, _ := readExample(t, "full.smg")
	turns := 0
	for _, b := range base.DeepArchive.Blocks {
		turns += b.TurnCount
	}
	if turns < 11 {
		t.Fatalf("the example has %d turns; the test needs 11", turns)
	}
	withVectors := func(n int) *spec.Document {
		doc, _ := readExample(t, "full.smg")
		doc.DeepArchive.VectorIndex = &spec.VectorIndex{Enabled: true, Model: "test", Dimensions: 2, Encoding: "float32"}
		for turn := 1; turn <= n; turn++ {
			doc.DeepArchive.VectorIndex.Embeddings = append(doc.DeepArchive.VectorIndex.Embeddings, spec.Embedding{Turn: turn, Vector: make(spec.Bytes, 8)})
		}
		return doc
	}
	a, b := withVectors(9), withVectors(turns)
	for _, got := range []*spec.Document{applyDelta(t, a, b, marshalPlain(t, b)), applyDelta(t, b, a, marshalPlain(t, a))} {
		if err := format.Validate(got, nil); err != nil {
			t.Error(err)
		}
	}
}
