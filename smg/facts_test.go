package smg_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

func TestRememberIntoContext(t *testing.T) {
	ctx := context.Background()
	m := smg.New(nil)
	defer m.Close()
	if _, err := m.IngestAll(ctx, smgtest.CheckoutTurns(t)); err != nil {
		t.Fatal(err)
	}
	pref, err := m.Remember(ctx, smg.Fact{Content: "I prefer answers with code first", Category: "preference", Source: spec.SourceUser})
	if err != nil {
		t.Fatal(err)
	}
	proj, err := m.Remember(ctx, smg.Fact{Content: "The shop's staging server is called mercury", Category: "project"})
	if err != nil {
		t.Fatal(err)
	}
	// A preference is always loaded; a project fact is found by search.
	r, err := m.Context(ctx, "how did we fix the webhook?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Text, "User prefers answers with code first") || strings.Contains(r.Text, "mercury") {
		t.Errorf("context:\n%s", r.Text)
	}
	r, err = m.Context(ctx, "what is the staging server called?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(r.Items, func(it smg.Found) bool { return it.NodeID == proj.Fact.ID }) {
		t.Errorf("the project fact is not found:\n%s", r.Text)
	}
	if _, err := m.Forget(ctx, pref.Fact.ID); err != nil {
		t.Fatal(err)
	}
	r, err = m.Context(ctx, "how did we fix the webhook?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Text, "code first") {
		t.Error("a forgotten fact is still in context")
	}
	if _, err := m.Forget(ctx, pref.Fact.ID); !errors.Is(err, smg.ErrNoNode) {
		t.Errorf("forgetting twice: %v", err)
	}
	_, err = m.Remember(ctx, smg.Fact{Content: "too short"})
	var fe *smg.FactError
	if !errors.As(err, &fe) || fe.Field != "content" {
		t.Errorf("a short fact: %v", err)
	}
}

func TestMemoryOff(t *testing.T) {
	ctx := context.Background()
	m := smg.New(nil)
	defer m.Close()
	turns := smgtest.CheckoutTurns(t)
	m.IngestAll(ctx, turns[:5])
	if _, err := m.Remember(ctx, smg.Fact{Content: "User is a vegetarian", Source: spec.SourceUser}); err != nil {
		t.Fatal(err)
	}
	m.SetEnabled(false)
	if m.Enabled() {
		t.Fatal("still on")
	}
	if err := m.Ingest(ctx, turns[5]); err != nil || m.Turns() != 5 {
		t.Errorf("a memory that is off stored a turn: %v, %d turns", err, m.Turns())
	}
	if n, err := m.IngestAll(ctx, turns[5:]); err != nil || n != len(turns)-5 || m.Turns() != 5 {
		t.Errorf("a memory that is off stored turns: %d %v, %d turns", n, err, m.Turns())
	}
	if _, err := m.Remember(ctx, smg.Fact{Content: "User is a night owl"}); !errors.Is(err, smg.ErrDisabled) {
		t.Errorf("remembering while off: %v", err)
	}
	r, err := m.Context(ctx, "what does the user eat?", &smg.ContextOptions{Budget: 200})
	if err != nil || r.Text != "" || len(r.Items) != 0 || r.Budget != 200 {
		t.Errorf("the context of a memory that is off: %+v %v", r, err)
	}
	if got := m.Facts(smg.FactFilter{}); len(got) != 1 {
		t.Errorf("reading a memory that is off: %d facts", len(got))
	}
	m.SetEnabled(true)
	r, err = m.Context(ctx, "what does the user eat?", nil)
	if err != nil || !strings.Contains(r.Text, "vegetarian") {
		t.Errorf("back on, the context lacks the fact: %v\n%s", err, r.Text)
	}
}

// Two processes on one file, each with its own FileMemory, never lose each
// other's facts.
func TestFileMemoryConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	name := filepath.Join(t.TempDir(), "shared.smg")
	open := func() *smg.FileMemory {
		f, err := smg.OpenFileMemory(name, &smg.FileOptions{Create: &smg.Options{}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b := open(), open()
	const each = 8
	var wg sync.WaitGroup
	for w, f := range []*smg.FileMemory{a, b} {
		wg.Go(func() {
			for i := range each {
				err := f.Update(ctx, func(m *smg.Memory) error {
					_, err := m.Remember(ctx, smg.Fact{Content: fmt.Sprintf("Writer %c saved fact number %d", "AB"[w], i)})
					return err
				})
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for _, f := range []*smg.FileMemory{a, b, open()} {
		m, err := f.Memory(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if got := len(m.Facts(smg.FactFilter{})); got != 2*each {
			t.Errorf("%d facts, want %d", got, 2*each)
		}
	}
	doc, err := format.ReadFile(name, nil)
	if err != nil || len(doc.SemanticGraph.Nodes) < 2*each {
		t.Fatalf("the file: %v", err)
	}
}

func TestFileMemoryLockedAndFailed(t *testing.T) {
	ctx := context.Background()
	name := filepath.Join(t.TempDir(), "m.smg")
	if _, err := smg.OpenFileMemory(name, nil); err == nil {
		t.Fatal("opened a file that does not exist, without Create")
	}
	f, err := smg.OpenFileMemory(name, &smg.FileOptions{Create: &smg.Options{}, Lock: smg.LockOptions{Timeout: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	save := func(content string) error {
		return f.Update(ctx, func(m *smg.Memory) error {
			_, err := m.Remember(ctx, smg.Fact{Content: content})
			return err
		})
	}
	if err := save("User likes long walks"); err != nil {
		t.Fatal(err)
	}
	other := flock.New(filepath.Join(filepath.Dir(name), ".m.smg.lock"))
	if err := other.Lock(); err != nil {
		t.Fatal(err)
	}
	if err := save("User likes short stories"); !errors.Is(err, smg.ErrLocked) || !strings.Contains(err.Error(), name) {
		t.Errorf("a locked file: %v", err)
	}
	other.Unlock()
	if err := save("tiny"); !errors.Is(err, smg.ErrInvalidFact) {
		t.Errorf("an invalid fact: %v", err)
	}
	if labels := smgtest.CurrentFacts(t, name, nil); !slices.Equal(labels, []string{"User likes long walks"}) {
		t.Errorf("the file holds %q", labels)
	}
}

// An encrypted file stays encrypted, with the password that opened it.
func TestFileMemoryEncrypted(t *testing.T) {
	ctx := context.Background()
	name := filepath.Join(t.TempDir(), "secret.smg")
	pw := []byte("correct horse")
	if err := smg.New(nil).Save(name, &smg.EncodeOptions{Password: pw}); err != nil {
		t.Fatal(err)
	}
	asked := 0
	f, err := smg.OpenFileMemory(name, &smg.FileOptions{Open: smg.OpenOptions{Decode: smg.DecodeOptions{
		PasswordFunc: func() ([]byte, error) { asked++; return pw, nil },
	}}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, c := range []string{"User keeps bees in the garden", "User sings in a choir on Tuesdays"} {
		if err := f.Update(ctx, func(m *smg.Memory) error {
			_, err := m.Remember(ctx, smg.Fact{Content: c})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	if asked != 1 {
		t.Errorf("the password was asked for %d times", asked)
	}
	if _, err := format.ReadFile(name, nil); !errors.Is(err, smg.ErrPasswordRequired) {
		t.Errorf("the file is no longer encrypted: %v", err)
	}
	if got := smgtest.CurrentFacts(t, name, &smg.DecodeOptions{Password: pw}); len(got) != 2 {
		t.Errorf("the encrypted file holds %q", got)
	}
}

// meaningEmbedder is an embedder that knows the facts of the test: texts
// of one meaning get one vector.
type meaningEmbedder struct{ calls int }

func (e *meaningEmbedder) Model() string { return "meaning" }

func (e *meaningEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.calls++
	out := make([][]float32, len(texts))
	for i, t := range texts {
		switch t := strings.ToLower(t); {
		case strings.Contains(t, "automobile") || strings.Contains(t, "car"):
			out[i] = []float32{1, 0, 0}
		case strings.Contains(t, "dog"):
			out[i] = []float32{0, 1, 0}
		default:
			out[i] = []float32{0, 0, 1}
		}
	}
	return out, nil
}

// With an embedder, facts of one meaning in other words are duplicates.
func TestRememberWithAnEmbedder(t *testing.T) {
	ctx := context.Background()
	emb := &meaningEmbedder{}
	m := smg.New(&smg.Options{Embedder: emb})
	defer m.Close()
	car := saveNode(t, m, "User drives a red car to work")
	saveNode(t, m, "User has a dog named Pico")
	r, err := m.Remember(ctx, smg.Fact{Content: "User commutes by automobile"})
	if err != nil || !r.Duplicate || r.Fact.ID != car.ID || r.Similarity != 1 {
		t.Fatalf("a fact of the same meaning: %+v %v", r, err)
	}
	// Text alone does not see it.
	plain := smg.New(nil)
	defer plain.Close()
	saveNode(t, plain, "User drives a red car to work")
	if r := saveFact(t, plain, "User commutes by automobile"); r.Duplicate {
		t.Error("without an embedder, a duplicate in other words")
	}
	// Another scope is another fact; the vectors of known facts are kept.
	calls := emb.calls
	if r, err := m.Remember(ctx, smg.Fact{Content: "User commutes by automobile", Scope: "team:core"}); err != nil || r.Duplicate {
		t.Errorf("another scope: %+v %v", r, err)
	}
	if r, err := m.Remember(ctx, smg.Fact{Content: "User's car is an old automobile"}); err != nil || !r.Duplicate {
		t.Errorf("again: %+v %v", r, err)
	} else if emb.calls != calls+1 {
		t.Errorf("%d embedder calls for one fact", emb.calls-calls)
	}
}

func saveNode(t *testing.T, m *smg.Memory, content string) spec.Node {
	t.Helper()
	return saveFact(t, m, content).Fact
}

func saveFact(t *testing.T, m *smg.Memory, content string) smg.Remembered {
	t.Helper()
	r, err := m.Remember(context.Background(), smg.Fact{Content: content})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestForgetRestores: Memory.Forget says which facts are current again.
func TestForgetRestores(t *testing.T) {
	ctx := context.Background()
	m := smg.New(nil)
	paris, err := m.Remember(ctx, smg.Fact{Content: "User lives in Paris"})
	if err != nil {
		t.Fatal(err)
	}
	berlin, err := m.Remember(ctx, smg.Fact{Content: "I live in Berlin"})
	if err != nil || !slices.Equal(berlin.Supersedes, []string{paris.Fact.ID}) {
		t.Fatalf("%+v, %v", berlin, err)
	}
	f, err := m.Forget(ctx, berlin.Fact.ID)
	if err != nil || f.ID != berlin.Fact.ID || !slices.Equal(f.Restored, []string{paris.Fact.ID}) {
		t.Errorf("Forget: %+v, %v", f, err)
	}
	if cur := m.Facts(smg.FactFilter{}); len(cur) != 1 || cur[0].ID != paris.Fact.ID {
		t.Errorf("current facts: %+v", cur)
	}
}
