package smg_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/smg-memory/smg/smg"
)

// heldLog is a [smg.Log] held in this process: a base and its changes,
// changed whole or not at all, under one lock. fail, when set, fails the
// next change or append as it would commit, as a database that went away
// would; lost fails the next append after it kept the entry, as a
// database whose answer was lost would. before, when set, is called
// before each append (another process's change in the meantime).
type heldLog struct {
	mu      sync.Mutex // held by a change
	base    []byte
	baseV   int64
	changes []heldChange
	version int64
	fail    error
	lost    error
	before  func()
	reads   int
	bases   int // reads that gave the base
	appends int // appends tried
	locked  int // changes made under the lock
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

func (l *heldLog) Append(_ context.Context, have int64, entry []byte) (int64, error) {
	if l.before != nil {
		l.before()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.appends++
	if have != l.version {
		return 0, smg.ErrLogChanged
	}
	if err := l.fail; err != nil {
		l.fail = nil
		return 0, err
	}
	l.version++
	l.changes = append(l.changes, heldChange{l.version, slices.Clone(entry)})
	if err := l.lost; err != nil {
		l.lost = nil
		return 0, err
	}
	return l.version, nil
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
	l.locked++
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
	m, err := b.Memory(t.Context())
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
	if m, _ := a.Memory(t.Context()); len(m.Facts(smg.FactFilter{})) != 1 {
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
		m, err := s.Memory(t.Context())
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
	if _, err := a.Memory(t.Context()); err != nil || l.reads != before+1 {
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
		m, err := s.Memory(t.Context())
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
	if _, err := s.Memory(t.Context()); err != nil {
		t.Fatal(err)
	}
	bases := l.bases
	if err := s.Update(ctx, func(*smg.Memory) error { return smg.ErrNoChange }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Remember(ctx, smg.Fact{Content: "x"}); !errors.Is(err, smg.ErrInvalidFact) {
		t.Fatalf("a fact of one letter: %v", err)
	}
	if _, err := s.Memory(t.Context()); err != nil || l.bases != bases {
		t.Errorf("a change that changed nothing: the base read %d times again (%v)", l.bases-bases, err)
	}
	if m, _ := s.Memory(t.Context()); m.Turns() != 4 {
		t.Errorf("after a refused update: %d turns, want 4", m.Turns())
	}
	if _, err := s.Record(ctx, chat(5, 4), nil); err != nil {
		t.Fatal(err)
	}
	if m, _ := storedMemory(t, l, 0).Memory(t.Context()); m.Turns() != 8 {
		t.Errorf("after the failures, %d turns, want 8", m.Turns())
	}
}

func turns(m *smg.Memory) int {
	if m == nil {
		return -1
	}
	return m.Turns()
}

// externalIDs are the ids of m's turns, in order.
func externalIDs(t *testing.T, m *smg.Memory) []string {
	t.Helper()
	got, _, err := m.ReadTurns(1, m.Turns())
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(got))
	for i, tu := range got {
		ids[i] = tu.ExternalID
	}
	return ids
}

// TestStoredMemoryOptimistic: Record asks the log twice (a read, an
// append after the version read) and takes no lock; when another process
// changed the log in between, it reads that change (not the base) and
// appends after it; when others always do, it takes the lock; a turn the
// format refuses asks nothing of the log; an append whose answer was lost
// is found at the next read.
func TestStoredMemoryOptimistic(t *testing.T) {
	ctx := context.Background()
	l := newHeldLog(t, smg.New(&smg.Options{NoVectors: true}))
	a, b := storedMemory(t, l, 1<<30), storedMemory(t, l, 1<<30)
	if _, err := a.Record(ctx, chat(1, 2), nil); err != nil {
		t.Fatal(err)
	}
	if l.reads != 3 || l.appends != 1 || l.locked != 0 {
		t.Errorf("a record: %d reads (2 opens, then 1), %d appends, %d locked changes; want 3, 1, 0", l.reads, l.appends, l.locked)
	}

	// Another process records between a's read and its append.
	bases := l.bases
	l.before = func() {
		l.before = nil
		if _, err := b.Record(ctx, chat(10, 1), nil); err != nil {
			t.Error(err)
		}
	}
	if r, err := a.Record(ctx, chat(3, 2), nil); err != nil || r.Added != 2 || r.First != 4 {
		t.Fatalf("a record that met another: %+v, %v; want 2 added from turn 4", r, err)
	}
	for _, s := range []*smg.StoredMemory{a, b} {
		m, err := s.Memory(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if got, want := externalIDs(t, m), []string{"m1", "m2", "m10", "m3", "m4"}; !slices.Equal(got, want) {
			t.Errorf("after a conflict: turns %v, want %v", got, want)
		}
	}
	if l.bases != bases || l.locked != 0 {
		t.Errorf("after a conflict: the base read %d times again, %d locked changes; want 0, 0", l.bases-bases, l.locked)
	}

	// Others always change it first: the lock.
	c := storedMemory(t, l, 1<<30)
	other := 20
	l.before = func() {
		hook := l.before
		l.before = nil
		defer func() { l.before = hook }()
		if _, err := c.Record(ctx, chat(other, 1), nil); err != nil {
			t.Error(err)
		}
		other++
	}
	appends := l.appends
	if r, err := a.Record(ctx, chat(5, 1), nil); err != nil || r.Added != 1 {
		t.Fatalf("a record others always beat: %+v, %v", r, err)
	}
	l.before = nil
	if l.locked != 1 || l.appends-appends != 8 {
		t.Errorf("a record others always beat: %d appends (4 of a's, 4 of the others'), %d locked changes; want 8 and 1", l.appends-appends, l.locked)
	}
	m, _ := b.Memory(t.Context())
	if got, want := externalIDs(t, m)[5:], []string{"m20", "m21", "m22", "m23", "m5"}; !slices.Equal(got, want) {
		t.Errorf("after others: turns %v, want %v", got, want)
	}

	// A turn the format refuses: nothing asked of the log, the memory kept.
	reads, appends, bases := l.reads, l.appends, l.bases
	bad := append(chat(6, 1), smg.Turn{Role: "narrator", Content: "Once upon a time."})
	if _, err := a.Record(ctx, bad, nil); !errors.Is(err, smg.ErrInvalidTurn) {
		t.Fatalf("an invalid turn: %v", err)
	}
	if l.appends != appends || l.reads != reads+1 || l.bases != bases {
		t.Errorf("an invalid turn: %d appends, %d reads, %d bases; want 0, 1, 0", l.appends-appends, l.reads-reads, l.bases-bases)
	}
	if m, _ := a.Memory(t.Context()); m.Turns() != 10 {
		t.Errorf("after an invalid turn: %d turns, want 10", m.Turns())
	}

	// The caller gave up as the log kept the turns: the memory holds them.
	cancelled, cancel := context.WithCancel(ctx)
	l.before = func() { l.before = nil; cancel() }
	bases = l.bases
	if r, err := a.Record(cancelled, chat(6, 1), nil); err != nil || r.Added != 1 {
		t.Errorf("a record the caller gave up on: %+v, %v", r, err)
	}
	if m, _ := a.Memory(t.Context()); m.Turns() != 11 || l.bases != bases {
		t.Errorf("a record the caller gave up on: %d turns (want 11), the base read %d times again", m.Turns(), l.bases-bases)
	}

	// The log kept the turns, its answer was lost: the next read has them,
	// and the client's second try adds nothing.
	lost := errors.New("connection reset")
	l.lost = lost
	if _, err := a.Record(ctx, chat(7, 2), nil); !errors.Is(err, lost) {
		t.Fatalf("a lost answer: %v", err)
	}
	if r, err := a.Record(ctx, chat(7, 2), nil); err != nil || r.Added != 0 || r.Held != 2 {
		t.Errorf("sent again after a lost answer: %+v, %v; want 2 held", r, err)
	}
	if m, _ := b.Memory(t.Context()); m.Turns() != 13 {
		t.Errorf("after a lost answer: %d turns, want 13", m.Turns())
	}
}

// stuckLog is a log that, once stuck, answers nothing until its caller's
// context is done, as a database that hangs.
type stuckLog struct {
	smg.Log
	stuck chan struct{} // closed: stuck
	freed chan struct{} // closed: answers again
}

func (l *stuckLog) wait(ctx context.Context) error {
	select {
	case <-l.stuck:
	default:
		return nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-l.freed:
		return nil
	}
}

func (l *stuckLog) Read(ctx context.Context, have int64) (smg.LogState, error) {
	if err := l.wait(ctx); err != nil {
		return smg.LogState{}, err
	}
	return l.Log.Read(ctx, have)
}

func (l *stuckLog) Append(ctx context.Context, have int64, entry []byte) (int64, error) {
	if err := l.wait(ctx); err != nil {
		return 0, err
	}
	return l.Log.Append(ctx, have, entry)
}

// TestStoredMemoryStuck: while a change waits for a log that hangs, a
// read of the memory waits no longer than its own context allows.
func TestStoredMemoryStuck(t *testing.T) {
	log := &stuckLog{Log: newHeldLog(t, smg.New(&smg.Options{NoVectors: true})), stuck: make(chan struct{}), freed: make(chan struct{})}
	s, err := smg.OpenStoredMemory(context.Background(), log, &smg.StoredOptions{Open: smg.OpenOptions{NoVectors: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	close(log.stuck)
	recorded := make(chan error, 1)
	go func() {
		// No deadline: it holds the memory until the log answers.
		_, err := s.Record(context.Background(), []smg.Turn{{Role: "user", Content: "The ledger runs on PostgreSQL."}}, nil)
		recorded <- err
	}()
	time.Sleep(20 * time.Millisecond)
	for what, call := range map[string]func(context.Context) error{
		"read": func(ctx context.Context) error { _, err := s.Memory(ctx); return err },
		"remember": func(ctx context.Context) error {
			_, err := s.Remember(ctx, smg.Fact{Content: "User likes tea"})
			return err
		},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		got := make(chan error, 1)
		go func() { got <- call(ctx) }()
		select {
		case err := <-got:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("a %s while a change waits for the log: %v, want its deadline's error", what, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("a %s while a change waits for the log: still waiting 10 s after its deadline", what)
		}
		cancel()
	}
	close(log.freed)
	if err := <-recorded; err != nil {
		t.Errorf("the change, once the log answers: %v", err)
	}
	if m, err := s.Memory(t.Context()); err != nil || m.Turns() != 1 {
		t.Errorf("after: %v", err)
	}
}

// TestStoredMemoryKeepsVectors: a stored memory's base holds its vectors
// (a server that opens it after a failover has no cache of them): a
// second memory of the log has the vectors of the turns the first had
// embedded when it wrote the base, none embedded again.
func TestStoredMemoryKeepsVectors(t *testing.T) {
	ctx := context.Background()
	emb := &tallyEmbedder{}
	l := newHeldLog(t, smg.New(&smg.Options{Embedder: emb}))
	open := func() *smg.StoredMemory {
		s, err := smg.OpenStoredMemory(ctx, l, &smg.StoredOptions{Open: smg.OpenOptions{Embedder: emb}, Name: "held", JournalLimit: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	a := open()
	if _, err := a.Record(ctx, chat(1, 4), nil); err != nil {
		t.Fatal(err)
	}
	m, err := a.Memory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Record(ctx, chat(5, 1), nil); err != nil {
		t.Fatal(err) // past the limit: a new base, with turns 1 to 4's vectors
	}
	before := emb.count()
	b, err := open().Memory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := embeddedTurns(b); len(got) < 4 || got[3] != 4 || emb.count() != before {
		t.Errorf("after a failover: vectors of turns %v, %d texts embedded; want turns 1 to 4 and none", got, emb.count()-before)
	}
}
