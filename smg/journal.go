package smg

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// A memory file's journal (spec §9.7) holds the changes made since the
// file was last written whole, one entry a line: a live turn costs an
// append and a sync, not a write of the whole memory. Its entries are
// replayed on the file's memory whenever it is opened, and a write of the
// whole file (a compaction) ends it.

// The operations of journal entries.
const (
	// opRecord: turns given to [Memory.Record].
	opRecord = "record"
	// opRemember: a fact given to [Memory.Remember], and when.
	opRemember = "remember"
)

// journalEntry is one change of a journal.
type journalEntry struct {
	Op    string      `json:"op"`
	Turns []spec.Turn `json:"turns,omitempty"`
	Fact  *Fact       `json:"fact,omitempty"`
	At    time.Time   `json:"at,omitzero"`
}

// DefaultJournalLimit is the size of a journal at which [FileMemory]
// writes the whole file and ends it, unless told.
const DefaultJournalLimit = 4 << 20

// ErrJournal reports a journal that cannot be replayed: malformed, or
// holding a change this version does not know. The file is not written
// over it, so that nothing it holds is lost.
var ErrJournal = format.ErrJournal

// replay applies the entries of a journal to the memory, in order; where
// names the journal in errors.
func (m *Memory) replay(ctx context.Context, where string, entries []jsontext.Value) error {
	for i, raw := range entries {
		var e journalEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			return fmt.Errorf("%s: entry %d: %w: %v", where, i+1, ErrJournal, err)
		}
		switch e.Op {
		case opRecord:
			if _, err := m.Record(ctx, e.Turns, &RecordOptions{SkipInvalid: true}); err != nil {
				return fmt.Errorf("%s: entry %d: %w", where, i+1, err)
			}
		case opRemember:
			if e.Fact == nil || e.At.IsZero() {
				return fmt.Errorf("%s: entry %d: %w: a fact to remember without the fact or its time", where, i+1, ErrJournal)
			}
			if _, err := m.rememberAt(ctx, *e.Fact, e.At); err != nil {
				return fmt.Errorf("%s: entry %d: %w", where, i+1, err)
			}
		default:
			return fmt.Errorf("%s: entry %d: %w: the change %q is not one this version of smg knows", where, i+1, ErrJournal, e.Op)
		}
	}
	return nil
}

// readState reads the builder's state kept beside the file the memory
// was opened from, when it was made for the file's bytes; nil otherwise.
func (m *Memory) readState() []byte {
	if m.stateBase == "" {
		return nil
	}
	data, err := format.ReadState(m.stateName, m.stateBase)
	if err != nil {
		return nil
	}
	return data
}

// writeState keeps the builder's state beside the named file, whose
// bytes have the hash base, so that the next to open it for a change
// resumes it instead of replaying every turn. It does nothing for a
// memory not built yet (nothing to keep that the file does not hold) or
// an encrypted file (the state holds the memory's text). Failing costs a
// replay later, so it is not an error.
func (m *Memory) writeState(name, base string, encrypted bool) {
	if encrypted {
		_ = os.Remove(format.StateName(name))
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.b == nil {
		return
	}
	_ = format.WriteStateFrom(format.StateName(name), base, m.b.WriteState)
}

// keepVectors keeps vi, the vector index of the memory just written to the
// named file with opts, whose bytes have the hash base, in the file's
// cache (see [format.KeepVectors]); taken is how many vectors made since
// the last write vi holds. Failing costs embedding the turns again, so it
// is not an error.
func (m *Memory) keepVectors(name, base string, vi *spec.VectorIndex, opts *EncodeOptions, taken int) {
	if format.KeepVectors(name, base, vi, opts) != nil {
		return
	}
	m.mu.Lock()
	m.unkept = max(0, m.unkept-taken)
	m.mu.Unlock()
}

// resume returns the builder of the opened document from the state kept
// beside its file, or nil. m.mu is held.
func (m *Memory) resume() *graph.Builder {
	data := m.readState()
	if data == nil {
		return nil
	}
	b, err := graph.Resume(data, m.doc.DeepArchive.Blocks, m.cfg)
	if err != nil || b.Turns() != lastTurn(m.doc) {
		return nil
	}
	if vi := m.doc.DeepArchive.VectorIndex; vi != nil {
		// The state holds no vectors: the opened document's, from the
		// file or its cache.
		b.SetVectorIndex(vi)
	}
	return b
}

// Record adds turns to the memory as [Memory.Record] does and keeps
// them: in the file's journal (spec §9.7), appended and synced before it
// returns, so that a turn costs what it changed and not a write of the
// whole memory. The whole file is written instead when it is encrypted
// (a journal would hold the turns in the clear) or new, and when the
// journal outgrows [FileOptions.JournalLimit], which ends it. Nothing is
// written when every turn is held already. (A turn without a time dates
// the memory by the clock of whoever replays the journal: give turns
// their times.)
func (f *FileMemory) Record(ctx context.Context, turns []Turn, opts *RecordOptions) (Recorded, error) {
	var o RecordOptions
	if opts != nil {
		o = *opts
	}
	o.Deferred = false // the journal keeps no vectors: they are made in the background
	var rec Recorded
	err := f.locked(ctx, func(m *Memory) error {
		if f.stamp.hash == "" || f.form.Encrypted {
			return f.update(ctx, m, func(m *Memory) error {
				var err error
				if rec, err = m.Record(ctx, turns, &o); err == nil && rec.Added == 0 {
					return ErrNoChange
				}
				return err
			})
		}
		var err error
		if rec, err = m.Record(ctx, turns, &o); err != nil {
			f.stamp, f.m = fileStamp{}, nil // the memory holds what the file does not
			return err
		}
		if rec.Added == 0 {
			return nil
		}
		// The turns as given: the journal replays them with SkipInvalid.
		return f.appendEntry(ctx, m, journalEntry{Op: opRecord, Turns: turns})
	})
	return rec, err
}

// Remember saves a fact as [Memory.Remember] does and keeps it in the
// file's journal, as [FileMemory.Record] keeps turns: a fact costs an
// append, not a write of the whole memory. A duplicate writes nothing.
func (f *FileMemory) Remember(ctx context.Context, fact Fact) (Remembered, error) {
	var r Remembered
	err := f.locked(ctx, func(m *Memory) error {
		if f.stamp.hash == "" || f.form.Encrypted {
			return f.update(ctx, m, func(m *Memory) error {
				var err error
				if r, err = m.Remember(ctx, fact); err == nil && r.Duplicate {
					return ErrNoChange
				}
				return err
			})
		}
		var ok bool
		if r, ok = m.embeddedDuplicate(ctx, fact); ok {
			return nil
		}
		at := m.clock()
		var err error
		if r, err = m.rememberAt(ctx, fact, at); err != nil || r.Duplicate {
			if err != nil && !errors.Is(err, ErrInvalidFact) && !errors.Is(err, ErrDisabled) {
				f.stamp, f.m = fileStamp{}, nil
			}
			return err
		}
		return f.appendEntry(ctx, m, journalEntry{Op: opRemember, Fact: &fact, At: at})
	})
	return r, err
}

// appendEntry appends a change m holds to the journal, and writes the
// whole file instead once the journal outgrows its limit. A change whose
// ctx is done is not kept, and the memory is read again. f.mu and the
// file's lock are held.
func (f *FileMemory) appendEntry(ctx context.Context, m *Memory, e journalEntry) error {
	if err := ctx.Err(); err != nil {
		f.stamp, f.m = fileStamp{}, nil // the memory holds what the file will not
		return fmt.Errorf("the change was not kept: %w", err)
	}
	entry, err := json.Marshal(e)
	if err == nil {
		f.journal, err = format.AppendJournal(f.name, f.base, f.journal, entry)
	}
	if err != nil {
		f.stamp, f.m = fileStamp{}, nil // the memory holds what the file does not
		return err
	}
	f.journalStamp = statStamp(format.JournalName(f.name))
	if f.journal > f.journalLimit() {
		if err := f.write(m); err != nil {
			return fmt.Errorf("the change is in the journal of %s, but writing it whole failed: %w", f.name, err)
		}
		return nil
	}
	f.armIdle()
	return nil
}

// armIdle has the journal ended once no change came for
// [FileOptions.CompactIdle], when it is set: the timer starts again at
// each change.
func (f *FileMemory) armIdle() {
	d := f.opts.CompactIdle
	if d <= 0 {
		return
	}
	f.idleMu.Lock()
	defer f.idleMu.Unlock()
	if f.closed {
		return
	}
	if f.idle == nil {
		f.idle = time.AfterFunc(d, func() {
			// A failure leaves the journal, which every reader reads:
			// nothing is lost, and the next change arms it again.
			_ = f.locked(context.Background(), func(m *Memory) error {
				f.idleMu.Lock()
				closed := f.closed // Close sets it before it waits for f.mu
				f.idleMu.Unlock()
				if closed {
					return nil
				}
				return f.compact(m)
			})
		})
		return
	}
	f.idle.Reset(d)
}

// Compact writes the whole file, with what its journal holds, and ends
// the journal (spec §9.7). A file without a journal is left as it is, but
// for the vectors made since it was read: they are kept in its cache, or,
// when the file holds its vectors, written in it.
func (f *FileMemory) Compact(ctx context.Context) error {
	return f.locked(ctx, f.compact)
}

// compact is Compact's work, f.mu and the file's lock held.
func (f *FileMemory) compact(m *Memory) error {
	m.mu.Lock()
	unkept := m.unkept
	m.mu.Unlock()
	switch {
	case f.journal != 0:
		return f.write(m)
	case unkept == 0 || f.stamp.hash == "":
		return nil
	case f.form.Encrypted || f.opts.Encode.WithVectors:
		return f.write(m)
	}
	var err error
	m.ReadDocument(func(doc *spec.Document) {
		// m.mu is held: no vector comes meanwhile.
		if err = format.KeepVectors(f.name, f.base, doc.DeepArchive.VectorIndex, &f.opts.Encode); err == nil {
			m.unkept = 0
		}
	})
	return err
}

func (f *FileMemory) journalLimit() int64 {
	if f.opts.JournalLimit > 0 {
		return f.opts.JournalLimit
	}
	return DefaultJournalLimit
}

// syncJournal applies to f.m the entries of the journal that came after
// those it has. f.mu and the file's lock, or f.mu alone for a read, are
// held.
func (f *FileMemory) syncJournal() error {
	if f.stamp.hash == "" || f.form.Encrypted {
		return nil
	}
	st := statStamp(format.JournalName(f.name))
	if st == f.journalStamp {
		return nil
	}
	entries, end, err := format.ReadJournal(f.name, f.base, f.journal)
	if err == nil && end < f.journal {
		// Another base, or cut shorter: the journal is not the one this
		// memory has applied. Read the file again.
		f.stamp, f.m = fileStamp{}, nil
		return errJournalChanged
	}
	if err == nil {
		err = f.m.replay(context.Background(), format.JournalName(f.name), entries)
	}
	if err != nil {
		f.stamp, f.m = fileStamp{}, nil
		return err
	}
	f.journal, f.journalStamp = end, st
	return nil
}

// errJournalChanged: the journal was replaced under a memory that applied
// part of it; the file is read again.
var errJournalChanged = errors.New("the journal changed")

// sizeTime tells whether a file changed, by its size and time.
type sizeTime struct {
	size int64
	mod  time.Time
}

// statStamp is the size and time of the named file, zero when there is
// none.
func statStamp(name string) sizeTime {
	fi, err := os.Stat(name)
	if err != nil {
		return sizeTime{}
	}
	return sizeTime{fi.Size(), fi.ModTime()}
}

// ReadDocument reads the document of the named file with the changes its
// journal holds (spec §9.7), as a reader that knows only the format
// would read the file after [FileMemory.Compact]. A file without a
// journal is read as [format.ReadFile] reads it; an encrypted file has
// none.
func ReadDocument(name string, opts *DecodeOptions) (*spec.Document, error) {
	var o DecodeOptions
	if opts != nil {
		o = *opts
	}
	raw, err := format.ReadBytes(name, o.Limits)
	if err != nil {
		return nil, err
	}
	doc, form, err := format.DecodeForm(raw, &o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if o.CachedVectors && !form.Encrypted {
		format.AdoptVectors(name, raw, doc, o.Limits)
	}
	if form.Encrypted || !format.HasJournal(name) {
		return doc, nil
	}
	base := format.FileHash(raw)
	entries, _, err := format.ReadJournal(name, base, 0)
	if err != nil || len(entries) == 0 {
		return doc, err
	}
	m, err := Load(doc, nil)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	m.emb, m.blocks = nil, format.ReadBlocks(o.Limits)
	m.stateName, m.stateBase = format.StateName(name), base
	if err := m.replay(context.Background(), format.JournalName(name), entries); err != nil {
		return nil, err
	}
	out := m.Document()
	graph.PlainBlocks(out) // as the file will hold them
	return out, nil
}
