package smg_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/smg-memory/smg/smg"
)

// heldLog is a [smg.Log] held in this process: a base and its changes,
// changed whole or not at all, under one lock. fail, when set, fails the
// next change as it would commit, as a database that went away would.
type heldLog struct {
	mu      sync.Mutex // held by a change
	base    []byte
	baseV   int64
	changes []heldChange
	version int64
	fail    error
	reads   int
	bases   int // reads that gave the base
}

type heldChange struct {
	v     int64
	entry []byte
}

func newHeldLog(t *testing.T, m *smg.Memory) *heldLog {
	t.Helper()
	raw, err := m.Marshal(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &heldLog{base: raw, baseV: 1, version: 1}
}

// state is what the log holds after have. l.mu is held.
func (l *heldLog) state(have int64) smg.LogState {
	l.reads++
	st := smg.LogState{Version: l.version}
	after := have
	if l.baseV > have {
		st.Base, st.BaseVersion, after = l.base, l.baseV, l.baseV
		l.bases++
	}
	for _, c := range l.changes {
		if c.v > after {
			st.Changes = append(st.Changes, c.entry)
		}
	}
	return st
}

func (l *heldLog) Read(_ context.Context, have int64) (smg.LogState, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.state(have), nil
}

// heldTx stages a change's appends and rebases.
type heldTx struct {
	l       *heldLog
	version int64
	base    []byte
	baseV   int64
	changes []heldChange
}

func (tx *heldTx) Read(have int64) (smg.LogState, error) { return tx.l.state(have), nil }

func (tx *heldTx) Append(entry []byte) (int64, error) {
	tx.version++
	tx.changes = append(tx.changes, heldChange{tx.version, slices.Clone(entry)})
	return tx.version, nil
}

func (tx *heldTx) Rebase(file []byte) (int64, error) {
	tx.version++
	tx.base, tx.baseV, tx.changes = slices.Clone(file), tx.version, nil
	return tx.version, nil
}

func (l *heldLog) Change(_ context.Context, fn func(smg.LogTx) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	tx := &heldTx{l: l, version: l.version}
	if err := fn(tx); err != nil {
		return err
	}
	if err := l.fail; err != nil {
		l.fail = nil
		return err
	}
	if tx.base != nil {
		l.base, l.baseV = tx.base, tx.baseV
		l.changes = slices.DeleteFunc(l.changes, func(c heldChange) bool { return c.v <= tx.baseV })
	}
	l.changes = append(l.changes, tx.changes...)
	l.version = tx.version
	return nil
}

func storedMemory(t *testing.T, l smg.Log, limit int64) *smg.StoredMemory {
	t.Helper()
	s, err := smg.OpenStoredMemory(context.Background(), l, &smg.StoredOptions{Open: smg.OpenOptions{NoVectors: true}, Name: "held", JournalLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestStoredMemory: two stored memories of one log (two servers) see each
// other's turns and facts at their next read; turns are kept as changes
// until they outgrow the limit, then as a new base; the memory is the one
// built in one go.
func TestStoredMemory(t *testing.T) {
	ctx := context.Background()
	l := newHeldLog(t, smg.New(&smg.Options{NoVectors: true}))
	a, b := storedMemory(t, l, 1<<30), storedMemory(t, l, 1<<30)
	for i := 1; i <= 20; i += 4 {
		if r, err := a.Record(ctx, chat(i, 4), nil); err != nil || r.Added != 4 {
			t.Fatalf("record %d: %+v, %v", i, r, err)
		}
	}
	if len(l.changes) != 5 || l.baseV != 1 {
		t.Fatalf("the log holds %d changes on base %d, want 5 on the first", len(l.changes), l.baseV)
	}
	m, err := b.Memory()
	if err != nil || m.Turns() != 20 {
		t.Fatalf("the other memory: %v turns, %v; want 20", turns(m), err)
	}
	// Sent again: held, nothing kept.
	if r, err := b.Record(ctx, chat(5, 4), nil); err != nil || r.Added != 0 || l.version != 6 {
		t.Errorf("again: %+v, %v, version %d (want 6)", r, err, l.version)
	}
	if _, err := b.Remember(ctx, smg.Fact{Content: "The user ships with DHL.", Category: "preference"}); err != nil {
		t.Fatal(err)
	}
	if m, _ := a.Memory(); len(m.Facts(smg.FactFilter{})) != 1 {
		t.Errorf("a fact remembered by one is not seen by the other: %d facts", len(m.Facts(smg.FactFilter{})))
	}
	// Past the limit: the next change is a base.
	small := storedMemory(t, l, 1)
	if _, err := small.Record(ctx, chat(21, 4), nil); err != nil {
		t.Fatal(err)
	}
	if len(l.changes) != 0 || l.baseV != l.version {
		t.Errorf("past the limit: %d changes after base %d of version %d, want a base alone", len(l.changes), l.baseV, l.version)
	}
	// All three hold the same memory, as the log keeps it.
	var first []byte
	for _, s := range []*smg.StoredMemory{a, b, storedMemory(t, l, 0)} {
		m, err := s.Memory()
		if err != nil {
			t.Fatal(err)
		}
		if m.Turns() != 24 || len(m.Facts(smg.FactFilter{})) != 1 {
			t.Errorf("%d turns, %d facts; want 24 and 1", m.Turns(), len(m.Facts(smg.FactFilter{})))
		}
		got := canonical(t, m.Document())
		if first == nil {
			first = got
		} else if !bytes.Equal(got, first) {
			t.Errorf("two memories of one log differ: %d and %d bytes", len(got), len(first))
		}
	}
	// A read of a memory that is current reads no base.
	before := l.reads
	if _, err := a.Memory(); err != nil || l.reads != before+1 {
		t.Errorf("a current read: %d reads, %v", l.reads-before, err)
	}
}

// TestStoredMemoryFailure: a change the log does not keep (it failed as
// it would commit) is not in the memory either; one that fn refuses keeps
// nothing; the memory goes on.
func TestStoredMemoryFailure(t *testing.T) {
	ctx := context.Background()
	l := newHeldLog(t, smg.New(&smg.Options{NoVectors: true}))
	s := storedMemory(t, l, 1<<30)
	if _, err := s.Record(ctx, chat(1, 4), nil); err != nil {
		t.Fatal(err)
	}
	gone := errors.New("the database went away")
	for name, change := range map[string]func() error{
		"record": func() error { _, err := s.Record(ctx, chat(5, 4), nil); return err },
		"remember": func() error {
			_, err := s.Remember(ctx, smg.Fact{Content: "The user lives in Lisbon.", Category: "identity"})
			return err
		},
		"update": func() error {
			return s.Update(ctx, func(m *smg.Memory) error { _, err := m.Record(ctx, chat(9, 2), nil); return err })
		},
	} {
		l.fail = gone
		version := l.version
		if err := change(); !errors.Is(err, gone) {
			t.Fatalf("%s: %v, want the log's error", name, err)
		}
		m, err := s.Memory()
		if err != nil {
			t.Fatal(err)
		}
		if m.Turns() != 4 || len(m.Facts(smg.FactFilter{})) != 0 || l.version != version {
			t.Errorf("%s failed: the memory has %d turns and %d facts (want 4, 0), the log version %d (want %d)", name, m.Turns(), len(m.Facts(smg.FactFilter{})), l.version, version)
		}
	}
	refused := errors.New("no")
	if err := s.Update(ctx, func(m *smg.Memory) error { m.Record(ctx, chat(5, 1), nil); return refused }); !errors.Is(err, refused) {
		t.Fatal(err)
	}
	// A change that changed nothing keeps the memory: the base is not read again.
	if _, err := s.Memory(); err != nil {
		t.Fatal(err)
	}
	bases := l.bases
	if err := s.Update(ctx, func(*smg.Memory) error { return smg.ErrNoChange }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Remember(ctx, smg.Fact{Content: "x"}); !errors.Is(err, smg.ErrInvalidFact) {
		t.Fatalf("a fact of one letter: %v", err)
	}
	if _, err := s.Memory(); err != nil || l.bases != bases {
		t.Errorf("a change that changed nothing: the base read %d times again (%v)", l.bases-bases, err)
	}
	if m, _ := s.Memory(); m.Turns() != 4 {
		t.Errorf("after a refused update: %d turns, want 4", m.Turns())
	}
	if _, err := s.Record(ctx, chat(5, 4), nil); err != nil {
		t.Fatal(err)
	}
	if m, _ := storedMemory(t, l, 0).Memory(); m.Turns() != 8 {
		t.Errorf("after the failures, %d turns, want 8", m.Turns())
	}
}

func turns(m *smg.Memory) int {
	if m == nil {
		return -1
	}
	return m.Turns()
}
