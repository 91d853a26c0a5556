package smg

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"golang.org/x/sync/semaphore"

	"github.com/smg-memory/smg/smg/format"
)

// A memory kept in a database rather than a file is a log: a base, the
// bytes of a .smg file, and the changes made since, each a journal entry
// (spec §9.7) numbered by a version that only grows. A [StoredMemory]
// reads the log's new changes before every read, so that no server builds
// a context from a memory another server changed, and changes it under
// the log's lock, as [FileMemory] changes a file under the file's lock.
// smg serve's PostgreSQL store keeps its memories so.

// Log keeps a memory for a [StoredMemory]. It is safe for concurrent use.
type Log interface {
	// Read returns what the log kept after the version have: see
	// [LogState].
	Read(ctx context.Context, have int64) (LogState, error)
	// Append adds entry after the log's last change, when that is still
	// the version have, in one step that holds no lock while the caller
	// works, and returns the entry's version. When the log changed after
	// have it keeps nothing and returns [ErrLogChanged]. (An error of
	// another kind may leave the entry kept or not: a reader finds out.)
	Append(ctx context.Context, have int64, entry []byte) (int64, error)
	// Change calls fn with the log locked against every other change,
	// wherever it is made: what fn appends or rebases is kept, all of it,
	// when fn returns nil and Change returns nil; nothing, otherwise.
	Change(ctx context.Context, fn func(LogTx) error) error
}

// LogTx is a [Log] that a change holds.
type LogTx interface {
	// Read is [Log.Read] under the change's lock.
	Read(have int64) (LogState, error)
	// Append adds a change after the log's last, and returns its version.
	Append(entry []byte) (int64, error)
	// Rebase makes file, the whole memory with every change, the log's
	// base, and returns its version.
	Rebase(file []byte) (int64, error)
}

// ErrLogChanged is a [Log]'s answer to an append after a version that is
// no longer its last: another process changed it first.
var ErrLogChanged = errors.New("the log changed since it was read")

// LogState is what a log kept after a version: its base, when the base is
// newer, then the changes after the base or the version, in order.
type LogState struct {
	// Version is that of the log's last change or base.
	Version int64
	// Base, when not nil, is the log's base, of BaseVersion, which is
	// newer than the version read after.
	Base        []byte
	BaseVersion int64
	// Changes are the entries after the base, or after the version read
	// after, in order.
	Changes [][]byte
}

// StoredOptions are a [StoredMemory]'s.
type StoredOptions struct {
	// Open reads the log's base. A stored memory is kept in the clear:
	// Decode's password is not asked for.
	Open OpenOptions
	// Name names the memory in errors.
	Name string
	// JournalLimit is the size in bytes of the changes after the base at
	// which a change rebases the log on the whole memory;
	// [DefaultJournalLimit] when 0.
	JournalLimit int64
	// CacheGuard, when set, puts the memory's index cache in place
	// (Open.IndexCache): it calls put, or does not, and returns put's
	// error or its own. A store whose memories may be deleted while a
	// process writes one's cache refuses it once the memory is gone, so
	// that a deleted memory's text does not come back to its disk.
	CacheGuard func(put func() error) error
}

var _ Kept = (*StoredMemory)(nil)

// StoredMemory is a memory kept in a [Log] that other processes change
// too. It is safe for concurrent use.
type StoredMemory struct {
	log  Log
	opts StoredOptions

	// mu is held to read or change the memory: a semaphore of one, so
	// that a caller waits for it (and for the log another holds it for)
	// no longer than its context allows.
	mu      *semaphore.Weighted
	m       *Memory
	version int64 // of the log's last change m holds
	size    int64 // of the changes m holds after the base
}

// OpenStoredMemory opens the memory a log keeps. opts may be nil.
func OpenStoredMemory(ctx context.Context, log Log, opts *StoredOptions) (*StoredMemory, error) {
	s := &StoredMemory{log: log, mu: semaphore.NewWeighted(1)}
	if opts != nil {
		s.opts = *opts
	}
	if _, err := s.sync(ctx, func(have int64) (LogState, error) { return log.Read(ctx, have) }); err != nil {
		return nil, err
	}
	return s, nil
}

// Memory returns the memory as the log keeps it, with the changes other
// processes made since it was last read. It must not be changed but
// through the StoredMemory's methods. It waits for another goroutine's
// change, and for the log, no longer than ctx allows.
func (s *StoredMemory) Memory(ctx context.Context) (*Memory, error) {
	if err := s.mu.Acquire(ctx, 1); err != nil {
		return nil, err
	}
	defer s.mu.Release(1)
	return s.sync(ctx, func(have int64) (LogState, error) { return s.log.Read(ctx, have) })
}

// sync brings s.m to what read tells of the log. s.mu is held.
func (s *StoredMemory) sync(ctx context.Context, read func(have int64) (LogState, error)) (*Memory, error) {
	st, err := read(s.version)
	if err != nil {
		return nil, err
	}
	switch {
	case st.Base != nil:
		m, _, err := openBytes(s.opts.Name, st.Base, &s.opts.Open, false)
		if err != nil {
			return nil, err
		}
		m.cacheGuard = s.opts.CacheGuard // before its engine is made
		s.reset()
		s.m, s.version = m, st.BaseVersion
	case s.m == nil:
		return nil, fmt.Errorf("%s: %w: the log gave no base", s.opts.Name, ErrJournal)
	}
	if len(st.Changes) > 0 {
		entries := make([]jsontext.Value, len(st.Changes))
		var size int64
		for i, c := range st.Changes {
			entries[i], size = c, size+int64(len(c))
		}
		if err := s.m.replay(ctx, s.opts.Name+" changes", entries); err != nil {
			s.reset()
			return nil, err
		}
		s.size += size
	}
	s.version = st.Version
	return s.m, nil
}

// reset lets go of the memory: the next read reads the log's base again.
// s.mu is held.
func (s *StoredMemory) reset() {
	if s.m != nil {
		s.m.Close()
	}
	s.m, s.version, s.size = nil, 0, 0
}

// change calls fn with the memory as the log keeps it, under the log's
// lock. When the change fails after fn changed the memory, the memory is
// let go of, to be read again. s.mu is held.
func (s *StoredMemory) change(ctx context.Context, fn func(tx LogTx, m *Memory) error) error {
	changed := false
	err := s.log.Change(ctx, func(tx LogTx) error {
		m, err := s.sync(ctx, tx.Read)
		if err != nil {
			return err
		}
		changed = true
		err = fn(tx, m)
		if errors.Is(err, ErrNoChange) || errors.Is(err, ErrInvalidFact) || errors.Is(err, ErrNoNode) || errors.Is(err, ErrDisabled) {
			changed = false // fn changed nothing
		}
		return err
	})
	if err != nil && changed {
		s.reset()
	}
	if errors.Is(err, ErrNoChange) {
		return nil
	}
	return err
}

// rebase makes the whole memory the log's base. s.mu is held.
func (s *StoredMemory) rebase(tx LogTx, m *Memory) error {
	// The store holds the vectors: a server that opens the memory after
	// a failover has no cache of them.
	raw, doc, _, err := m.marshalValid(&EncodeOptions{WithVectors: true})
	if err != nil {
		return err
	}
	v, err := tx.Rebase(raw)
	if err != nil {
		return err
	}
	s.version, s.size = v, 0
	m.indexWritten(doc, format.IndexKey(raw, s.opts.Open.Decode.Limits), s.opts.CacheGuard)
	return nil
}

// journalLimit is the size of the changes after the base past which the
// log is rebased.
func (s *StoredMemory) journalLimit() int64 {
	if s.opts.JournalLimit > 0 {
		return s.opts.JournalLimit
	}
	return DefaultJournalLimit
}

// appendEntry adds a change m holds to the log, or rebases the log once
// the changes after its base outgrow the limit. s.mu is held.
func (s *StoredMemory) appendEntry(tx LogTx, m *Memory, e journalEntry) error {
	entry, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if s.size+int64(len(entry)) > s.journalLimit() {
		return s.rebase(tx, m)
	}
	v, err := tx.Append(entry)
	if err != nil {
		return err
	}
	s.version, s.size = v, s.size+int64(len(entry))
	return nil
}

// Update changes the memory with fn and keeps the whole memory as the
// log's base before it returns, under the log's lock, on top of the
// changes other processes made. When fn fails nothing is kept; fn
// returning [ErrNoChange] keeps nothing and is no failure.
func (s *StoredMemory) Update(ctx context.Context, fn func(*Memory) error) error {
	if err := s.mu.Acquire(ctx, 1); err != nil {
		return err
	}
	defer s.mu.Release(1)
	return s.change(ctx, func(tx LogTx, m *Memory) error {
		if err := fn(m); err != nil {
			return err
		}
		return s.rebase(tx, m)
	})
}

// Record adds turns to the memory as [Memory.Record] does and keeps them,
// as one change of the log, before it returns. Nothing is kept when every
// turn is held already, and nothing when a turn is invalid (unless
// opts.SkipInvalid).
//
// The change is optimistic: the memory is read up to the log's last
// change, the turns are checked against it, and the log appends them
// only if it has not changed since; the memory then adds them. So a
// database is asked twice, and holds no lock while the memory works.
// When another process changed the log first, the memory reads its
// change and tries again; after optimisticTries, it changes the log
// under the log's lock.
func (s *StoredMemory) Record(ctx context.Context, turns []Turn, opts *RecordOptions) (Recorded, error) {
	var o RecordOptions
	if opts != nil {
		o = *opts
	}
	o.Deferred = false // the log keeps no vectors
	// The turns as given: the log replays them with SkipInvalid.
	entry, err := json.Marshal(journalEntry{Op: opRecord, Turns: turns})
	if err != nil {
		return Recorded{}, err
	}
	if err := s.mu.Acquire(ctx, 1); err != nil {
		return Recorded{}, err
	}
	defer s.mu.Release(1)
	for range optimisticTries {
		m, err := s.sync(ctx, func(have int64) (LogState, error) { return s.log.Read(ctx, have) })
		if err != nil {
			return Recorded{}, err
		}
		adds, err := m.adds(turns, &o)
		switch {
		case err != nil:
			return Recorded{}, err
		case !adds:
			return m.Record(ctx, turns, &o) // held, all of them: nothing to keep
		case s.size+int64(len(entry)) > s.journalLimit():
			return s.recordLocked(ctx, turns, &o) // a new base
		}
		v, err := s.log.Append(ctx, s.version, entry)
		if errors.Is(err, ErrLogChanged) {
			continue
		}
		if err != nil {
			return Recorded{}, err
		}
		// The log holds the turns: the memory adds them whatever the
		// caller's context says, or is read again.
		rec, err := m.Record(context.WithoutCancel(ctx), turns, &o)
		if err != nil {
			s.reset()
			return rec, err
		}
		s.version, s.size = v, s.size+int64(len(entry))
		return rec, nil
	}
	return s.recordLocked(ctx, turns, &o)
}

// optimisticTries is how many times [StoredMemory.Record] appends to a
// log that others change before it takes the log's lock.
const optimisticTries = 4

// recordLocked is Record under the log's lock. s.mu is held.
func (s *StoredMemory) recordLocked(ctx context.Context, turns []Turn, o *RecordOptions) (Recorded, error) {
	var rec Recorded
	err := s.change(ctx, func(tx LogTx, m *Memory) error {
		var err error
		if rec, err = m.Record(ctx, turns, o); err != nil {
			return err
		}
		if rec.Added == 0 {
			return ErrNoChange
		}
		return s.appendEntry(tx, m, journalEntry{Op: opRecord, Turns: turns})
	})
	return rec, err
}

// Remember saves a fact as [Memory.Remember] does and keeps it, as one
// change of the log. A duplicate keeps nothing.
func (s *StoredMemory) Remember(ctx context.Context, fact Fact) (Remembered, error) {
	if err := s.mu.Acquire(ctx, 1); err != nil {
		return Remembered{}, err
	}
	defer s.mu.Release(1)
	var r Remembered
	err := s.change(ctx, func(tx LogTx, m *Memory) error {
		var ok bool
		if r, ok = m.embeddedDuplicate(ctx, fact); ok {
			return ErrNoChange
		}
		at := m.clock()
		var err error
		if r, err = m.rememberAt(ctx, fact, at); err != nil {
			return err
		}
		if r.Duplicate {
			return ErrNoChange
		}
		return s.appendEntry(tx, m, journalEntry{Op: opRemember, Fact: &fact, At: at})
	})
	return r, err
}

// Compact makes the whole memory the log's base when changes came after
// it: a process that opens the memory then reads the base alone, and the
// index cache of the memory, when it keeps one ([OpenOptions.IndexCache]),
// is of the whole memory. It waits for the log no longer than ctx allows.
func (s *StoredMemory) Compact(ctx context.Context) error {
	if err := s.mu.Acquire(ctx, 1); err != nil {
		return err
	}
	defer s.mu.Release(1)
	return s.change(ctx, func(tx LogTx, m *Memory) error {
		if s.size == 0 {
			return ErrNoChange
		}
		return s.rebase(tx, m)
	})
}

// Close releases the memory's index.
func (s *StoredMemory) Close() error {
	_ = s.mu.Acquire(context.Background(), 1)
	defer s.mu.Release(1)
	s.reset()
	return nil
}
