package smg_test

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smg-memory/smg/smg"
)

// turnsWithVectors is the set of turns a memory's document holds vectors
// of, and their model.
func turnsWithVectors(t testing.TB, m *smg.Memory) (map[int]bool, string) {
	t.Helper()
	vi := m.Document().DeepArchive.VectorIndex
	if vi == nil {
		return nil, ""
	}
	turns := map[int]bool{}
	for _, e := range vi.Embeddings {
		turns[e.Turn] = true
	}
	return turns, vi.Model
}

// pendingWarned reports whether r warns of n turns not embedded yet.
func pendingWarned(r *smg.ContextResult, n string) bool {
	for _, w := range r.Warnings {
		if strings.HasPrefix(w, n+" turn") && strings.Contains(w, "not embedded yet") {
			return true
		}
	}
	return false
}

// TestBuiltinEncoderByDefault: a memory given no embedder embeds its
// turns with the built-in encoder, and finds by meaning a turn that
// shares no word with the question; NoVectors embeds nothing and answers
// by full text.
func TestBuiltinEncoderByDefault(t *testing.T) {
	smg.BuiltinOn(t)
	ctx := context.Background()
	m := smg.New(nil)
	defer m.Close()
	if m.VectorModel() != smg.BuiltinModel {
		t.Fatalf("VectorModel = %q, want %q", m.VectorModel(), smg.BuiltinModel)
	}
	for _, tu := range carTurns {
		if err := m.Ingest(ctx, tu); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	turns, model := turnsWithVectors(t, m)
	if len(turns) != len(carTurns) || model != smg.BuiltinModel {
		t.Fatalf("vectors of turns %v by %q, want the %d turns by %q", turns, model, len(carTurns), smg.BuiltinModel)
	}
	r, err := m.Context(ctx, carQuestion, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !hasTurn(r, 2) || len(r.Warnings) != 0 {
		t.Errorf("the context lacks turn 2 (warnings %q):\n%s", r.Warnings, r.Text)
	}

	off := smg.New(&smg.Options{NoVectors: true})
	if _, err := off.IngestAll(ctx, carTurns); err != nil {
		t.Fatal(err)
	}
	if err := off.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	if vi := off.Document().DeepArchive.VectorIndex; vi != nil || off.VectorModel() != "" {
		t.Fatalf("NoVectors: vectors %+v, model %q", vi, off.VectorModel())
	}
	r, err = off.Context(ctx, "Where does the sister play the violin?", nil)
	if err != nil || !hasTurn(r, 3) || len(r.Warnings) != 0 {
		t.Errorf("NoVectors: context %v, warnings %q:\n%s", err, r.Warnings, r.Text)
	}
	// Opened with NoVectors, a file of vectors is not embedded again.
	name := filepath.Join(t.TempDir(), "cars.smg")
	if err := m.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	o, err := smg.Open(name, &smg.OpenOptions{NoVectors: true})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if o.VectorModel() != "" || smg.Embedding(o) {
		t.Errorf("opened with NoVectors: model %q, embedding %v", o.VectorModel(), smg.Embedding(o))
	}
}

// TestVectorsInTheBackground: Ingest returns before the turn is embedded;
// a context asked meanwhile says how many turns wait, and none once
// WaitVectors returns.
func TestVectorsInTheBackground(t *testing.T) {
	smg.BuiltinOn(t)
	ctx := context.Background()
	m := smg.New(nil)
	defer m.Close()
	gate := make(chan struct{})
	smg.SetGate(m, gate)
	for _, tu := range carTurns {
		if err := m.Ingest(ctx, tu); err != nil {
			t.Fatal(err)
		}
	}
	if n := m.PendingVectors(); n != len(carTurns) {
		t.Errorf("PendingVectors = %d, want %d", n, len(carTurns))
	}
	r, err := m.Context(ctx, carQuestion, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !pendingWarned(r, "3") {
		t.Errorf("a context before the vectors: warnings %q", r.Warnings)
	}
	close(gate)
	if err := m.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	if n := m.PendingVectors(); n != 0 {
		t.Errorf("PendingVectors after WaitVectors = %d", n)
	}
	r, err = m.Context(ctx, carQuestion, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 0 || !hasTurn(r, 2) {
		t.Errorf("a context after WaitVectors: warnings %q:\n%s", r.Warnings, r.Text)
	}
	if smg.Embedding(m) {
		t.Errorf("the worker runs with nothing to embed")
	}
}

// TestSaveBeforeTheVectors: a memory saved while turns wait for their
// vectors writes those it has; opened again, it embeds the others in the
// background, with or without vectors saved before.
func TestSaveBeforeTheVectors(t *testing.T) {
	smg.BuiltinOn(t)
	ctx := context.Background()
	for _, embedFirst := range []int{0, 2} {
		m := smg.New(nil)
		if _, err := m.IngestAll(ctx, carTurns[:embedFirst]); err != nil {
			t.Fatal(err)
		}
		gate := make(chan struct{})
		smg.SetGate(m, gate)
		for _, tu := range carTurns[embedFirst:] {
			if err := m.Ingest(ctx, tu); err != nil {
				t.Fatal(err)
			}
		}
		name := filepath.Join(t.TempDir(), "cars.smg")
		if err := m.Save(name, nil); err != nil {
			t.Fatal(err)
		}
		// Close stops the worker, held at the gate, and it stays stopped.
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
		if smg.Embedding(m) {
			t.Errorf("the worker runs after Close")
		}
		if turns, _ := turnsWithVectors(t, m); len(turns) != embedFirst || m.PendingVectors() != len(carTurns)-embedFirst {
			t.Errorf("after Close: vectors of %v, %d pending", turns, m.PendingVectors())
		}

		o, err := smg.Open(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if turns, _ := turnsWithVectors(t, o); len(turns) != embedFirst {
			t.Errorf("the file holds vectors of turns %v, want %d", turns, embedFirst)
		}
		if err := o.WaitVectors(ctx); err != nil {
			t.Fatal(err)
		}
		if turns, model := turnsWithVectors(t, o); len(turns) != len(carTurns) || model != smg.BuiltinModel {
			t.Errorf("opened again: vectors of %v by %q, want all %d", turns, model, len(carTurns))
		}
		o.Close()

		// The first memory embeds what it held back once asked.
		close(gate)
		if err := m.WaitVectors(ctx); err != nil {
			t.Fatal(err)
		}
		if turns, _ := turnsWithVectors(t, m); len(turns) != len(carTurns) {
			t.Errorf("WaitVectors after Close: vectors of %v", turns)
		}
	}
}

// TestIngestAllProgress: IngestAll tells EmbedProgress how far it has
// come, up to all the turns with content.
func TestIngestAllProgress(t *testing.T) {
	smg.BuiltinOn(t)
	ctx := context.Background()
	var calls [][2]int
	m := smg.New(&smg.Options{EmbedProgress: func(done, total int) { calls = append(calls, [2]int{done, total}) }})
	defer m.Close()
	turns := append(carTurns, smg.Turn{Role: "user", Content: "  "}) // nothing to embed
	for i := range 40 {
		turns = append(turns, smg.Turn{Role: "user", Content: "Note " + strings.Repeat("x", i%7) + " about the garden."})
	}
	if _, err := m.IngestAll(ctx, turns); err != nil {
		t.Fatal(err)
	}
	want := len(turns) - 1
	if len(calls) < 2 || calls[0] != [2]int{0, want} || calls[len(calls)-1] != [2]int{want, want} {
		t.Fatalf("progress %v, want from 0 to %d of %d", calls, want, want)
	}
	for i := 1; i < len(calls); i++ {
		if calls[i][0] < calls[i-1][0] {
			t.Errorf("progress goes back: %v", calls)
		}
	}
	if got, _ := turnsWithVectors(t, m); len(got) != want {
		t.Errorf("%d turns with vectors, want %d", len(got), want)
	}
}

// TestBuiltinEncoderJudgesNoFacts: facts that differ by a number are two
// facts with the built-in encoder by default, whose vectors of them are
// nearer than DuplicateCosine; an embedder given judges them one.
func TestBuiltinEncoderJudgesNoFacts(t *testing.T) {
	smg.BuiltinOn(t)
	ctx := context.Background()
	emb, err := smg.BuiltinEmbedder()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		opts *smg.Options
		dup  bool
	}{{nil, false}, {&smg.Options{Embedder: emb}, true}} {
		m := smg.New(c.opts)
		if _, err := m.Remember(ctx, smg.Fact{Content: "Saved note number 1 about the garden"}); err != nil {
			t.Fatal(err)
		}
		r, err := m.Remember(ctx, smg.Fact{Content: "Saved note number 2 about the garden"})
		if err != nil || r.Duplicate != c.dup {
			t.Errorf("given %v: the second fact: %+v, %v; want duplicate %v", c.opts != nil, r, err, c.dup)
		}
		m.Close()
	}
}

// countingEmbedder embeds slowly and counts the embeddings under way at
// once, at most.
type countingEmbedder struct {
	mu        sync.Mutex
	now, most int
}

func (e *countingEmbedder) Model() string { return "counting" }

func (e *countingEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	e.now++
	e.most = max(e.most, e.now)
	e.mu.Unlock()
	time.Sleep(20 * time.Millisecond)
	e.mu.Lock()
	e.now--
	e.mu.Unlock()
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, float32(i), 0}
	}
	return out, nil
}

// TestBackgroundEmbeddingIsBounded: many memories embedding their turns in
// the background (a server's) embed one core short of them all at once,
// so that requests are not queued behind them; every turn is embedded.
func TestBackgroundEmbeddingIsBounded(t *testing.T) {
	ctx := context.Background()
	emb := &countingEmbedder{}
	var ms []*smg.Memory
	for i := range 8 {
		m := smg.New(&smg.Options{Embedder: emb})
		defer m.Close()
		if _, err := m.Record(ctx, chat(i*3+1, 3), nil); err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	for _, m := range ms {
		if err := m.WaitVectors(ctx); err != nil {
			t.Fatal(err)
		}
		if n := m.PendingVectors(); n != 0 {
			t.Errorf("%d turns wait for their vectors", n)
		}
	}
	if bound := max(1, runtime.GOMAXPROCS(0)-1); emb.most > bound || emb.most == 0 {
		t.Errorf("%d memories embedded at once, want at most %d", emb.most, bound)
	}
}

// serialEmbedder tells the texts it embeds serially (as background work)
// from the others.
type serialEmbedder struct {
	mu           sync.Mutex
	serial, wide int
}

func (e *serialEmbedder) Model() string { return "serial" }

func (e *serialEmbedder) vectors(texts []string, n *int) [][]float32 {
	e.mu.Lock()
	*n += len(texts)
	e.mu.Unlock()
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, float32(i), 0}
	}
	return out
}

func (e *serialEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	return e.vectors(texts, &e.wide), nil
}

func (e *serialEmbedder) EmbedSerially(_ context.Context, texts []string) ([][]float32, error) {
	return e.vectors(texts, &e.serial), nil
}

// TestBackgroundEmbeddingIsSerial: a memory embeds the turns it embeds in
// the background with its embedder's EmbedSerially, when it has one; the
// turns of IngestAll, which waits for them, and questions, on every core.
func TestBackgroundEmbeddingIsSerial(t *testing.T) {
	ctx := context.Background()
	emb := &serialEmbedder{}
	m := smg.New(&smg.Options{Embedder: emb})
	defer m.Close()
	if _, err := m.Record(ctx, chat(1, 3), nil); err != nil {
		t.Fatal(err)
	}
	if err := m.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	if emb.serial != 3 || emb.wide != 0 {
		t.Errorf("turns recorded: %d embedded serially, %d not; want 3, 0", emb.serial, emb.wide)
	}
	if _, err := m.IngestAll(ctx, chat(4, 2)); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Context(ctx, "Where are the parcels kept?", &smg.ContextOptions{Budget: 200}); err != nil {
		t.Fatal(err)
	}
	if emb.serial != 3 || emb.wide != 3 {
		t.Errorf("after IngestAll and a question: %d embedded serially, %d not; want 3, 3", emb.serial, emb.wide)
	}
}
