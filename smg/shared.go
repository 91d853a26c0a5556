package smg

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/internal/envelope"
)

// FileOptions tell how to keep a memory in a file shared with other
// processes.
type FileOptions struct {
	// Open reads the file; Encode writes it. An encrypted file is
	// written encrypted again, with Encode.Password or, when that is
	// nil, the password that opened it and, unless Encode.KDF is set,
	// the key derivation it had (with a new salt) when that is not
	// weaker than the minimums of spec §9.5.2.
	Open   OpenOptions
	Encode EncodeOptions
	// Create, when the file does not exist, makes a new memory of these
	// options, written at the first change; its folder must exist. nil:
	// the file must exist. A file removed after it was read or written
	// is not made again: the memory was deleted, and reads and changes
	// fail with an error that matches fs.ErrNotExist.
	Create *Options
	// Lock tells how long a change waits for another process's change
	// to the file to end (see [format.LockFile]).
	Lock LockOptions
	// Reencode writes the file with Encode's form (Brotli or plain JSON,
	// compact or indented). Without it, a file that exists keeps the form
	// it has, and only a new file takes Encode's.
	Reencode bool
	// MaintainEvery, when above 0, maintains the memory (see
	// [Memory.Maintain], with Maintain) at every MaintainEvery-th write
	// of the whole file, in the same write: [FileMemory.Update], and the
	// writes that end a journal (an append to the journal is none). The writes are counted in the file
	// (metadata.maintenance.writesSince), so that every process that
	// writes it counts; 0 counts nothing and never maintains.
	MaintainEvery int
	Maintain      MaintainOptions
	// OnMaintain, when set, is given the report of each maintenance run
	// because of MaintainEvery.
	OnMaintain func(MaintenanceReport)
	// JournalLimit is the size in bytes of the file's journal at which
	// [FileMemory.Record] writes the whole file and ends the journal;
	// zero is DefaultJournalLimit.
	JournalLimit int64
	// CompactIdle, when above 0, ends the journal ([FileMemory.Compact])
	// once no change came for this long, in the background: a memory kept
	// open by a long-running process (a server, an MCP session, a watch)
	// and left idle has its file alone hold everything acknowledged. Zero
	// leaves the journal until Compact, or until it outgrows JournalLimit.
	CompactIdle time.Duration
}

// DefaultCompactIdle is how long a memory kept open by a long-running
// process is left idle before its journal is ended (see
// [FileOptions.CompactIdle]) by the smg command and smg serve.
const DefaultCompactIdle = 30 * time.Second

// Kept is a memory kept where other processes may change it too, each
// change written there before it returns: a file ([FileMemory]); a
// database's rows, for a service. The model's tools (package tools) and
// smg serve work on any.
type Kept interface {
	// Memory returns the memory as it is kept, read again when another
	// process changed it. It must not be changed but through Update. It
	// waits for a change in progress, or for the store, no longer than
	// ctx allows.
	Memory(ctx context.Context) (*Memory, error)
	// Update changes the memory with fn and keeps the result before it
	// returns; when fn fails, nothing is kept. fn returning ErrNoChange
	// keeps nothing and is no failure.
	Update(ctx context.Context, fn func(*Memory) error) error
	// Record adds turns, as [Memory.Record], and keeps them.
	Record(ctx context.Context, turns []Turn, opts *RecordOptions) (Recorded, error)
	// Remember saves a fact, as [Memory.Remember], and keeps it.
	Remember(ctx context.Context, fact Fact) (Remembered, error)
}

var _ Kept = (*FileMemory)(nil)

// FileMemory is a memory kept in a file that other processes may change as
// well: an MCP server and the smg command on the same file, or two chat
// clients. Each change is written to the file before it returns, under a
// lock that other FileMemory values of the file respect, on top of the
// file as it is then: two processes never lose each other's changes. It is
// safe for concurrent use.
type FileMemory struct {
	name string
	opts FileOptions

	// mu is held to read or change the memory: a semaphore of one, so
	// that a caller waits for it no longer than its context allows.
	mu *semaphore.Weighted
	m  *Memory
	// existed is set once the file was read or written: a file removed
	// after is not made again (see [FileOptions.Create]).
	existed  bool
	stamp    fileStamp   // of the file m was read from or written to
	form     format.Form // of the file m was read from
	password []byte      // that opened it, when asked for
	// base is the hash of the file's bytes, as the journal names it;
	// journal is the end of the last journal entry m holds, journalStamp
	// the journal's size and time then (journal.go).
	base         string
	journal      int64
	journalStamp sizeTime
	// idle ends the journal once the memory is left idle (CompactIdle);
	// idleMu guards it and closed, set by Close.
	idleMu sync.Mutex
	idle   *time.Timer
	closed bool
}

// fileStamp tells whether a file changed: its size, time and the hash
// of its bytes ([format.FileHash]; empty: no file was read or written).
// Not the bytes themselves: a memory kept open would hold its file twice.
type fileStamp struct {
	size int64
	mod  time.Time
	hash string
}

// OpenFileMemory opens the memory of the named file. opts may be nil.
func OpenFileMemory(name string, opts *FileOptions) (*FileMemory, error) {
	f := &FileMemory{name: name, mu: semaphore.NewWeighted(1)}
	if opts != nil {
		f.opts = *opts
	}
	dec := &f.opts.Open.Decode
	if dec.Password != nil {
		f.password = dec.Password
	} else if ask := dec.PasswordFunc; ask != nil {
		// Asked once, and kept to write the file encrypted again.
		dec.PasswordFunc = func() ([]byte, error) {
			if f.password != nil {
				return f.password, nil
			}
			p, err := ask()
			if err == nil {
				f.password = p
			}
			return p, err
		}
	}
	if _, err := f.Memory(context.Background()); err != nil {
		return nil, err
	}
	return f, nil
}

// Name is the file's name.
func (f *FileMemory) Name() string { return f.name }

// Memory returns the memory as the file holds it: read again when another
// process changed the file since. The memory must not be changed but
// through [FileMemory.Update]. It waits for another goroutine's change
// no longer than ctx allows.
func (f *FileMemory) Memory(ctx context.Context) (*Memory, error) {
	if err := f.mu.Acquire(ctx, 1); err != nil {
		return nil, err
	}
	defer f.mu.Release(1)
	return f.current()
}

// ErrNoChange, returned by the function given to [FileMemory.Update], says
// that it changed nothing: the file is not written, and Update returns nil.
var ErrNoChange = errors.New("nothing changed")

// Update changes the memory with fn and writes the file, atomically, before
// it returns. It holds the file's lock meanwhile, and reads the file again
// first when another process changed it. When fn fails, nothing is
// written, and the file is read again at the next call unless the error
// says nothing changed ([ErrNoChange], [ErrInvalidFact], [ErrNoNode],
// [ErrDisabled]).
func (f *FileMemory) Update(ctx context.Context, fn func(*Memory) error) error {
	return f.locked(ctx, func(m *Memory) error { return f.update(ctx, m, fn) })
}

// locked calls fn with the memory of the file as it is, holding f.mu and
// the file's lock.
func (f *FileMemory) locked(ctx context.Context, fn func(*Memory) error) error {
	if err := f.mu.Acquire(ctx, 1); err != nil {
		return err
	}
	defer f.mu.Release(1)
	if _, err := os.Stat(f.name); errors.Is(err, fs.ErrNotExist) && f.existed {
		// Deleted: the lock would make a file beside it again.
		return f.removed()
	}
	unlock, err := format.LockFile(ctx, f.name, &f.opts.Lock)
	if err != nil {
		return err
	}
	defer unlock()
	m, err := f.current()
	if errors.Is(err, fs.ErrNotExist) && f.existed {
		// Deleted while this waited for the lock, which it made again.
		_ = format.RemoveLock(f.name)
	}
	if err != nil {
		return err
	}
	return fn(m)
}

// update is Update's work once the lock is held and m is current. A
// change whose ctx is done before it is written is not written.
func (f *FileMemory) update(ctx context.Context, m *Memory, fn func(*Memory) error) error {
	err := fn(m)
	if err == nil && ctx.Err() != nil {
		err = fmt.Errorf("the change was not kept: %w", ctx.Err())
	}
	if err != nil {
		if errors.Is(err, ErrNoChange) {
			return nil
		}
		if !errors.Is(err, ErrInvalidFact) && !errors.Is(err, ErrNoNode) && !errors.Is(err, ErrDisabled) {
			f.stamp = fileStamp{}
			f.m = nil
		}
		return err
	}
	return f.write(m)
}

// write writes the whole file from m, atomically, then keeps the
// builder's state beside it and ends the journal, which the file now
// holds. f.mu and the file's lock are held.
func (f *FileMemory) write(m *Memory) error {
	if f.opts.MaintainEvery > 0 {
		r, err := m.countWrite(f.opts.MaintainEvery, f.opts.Maintain)
		if err != nil {
			f.stamp, f.m = fileStamp{}, nil
			return err
		}
		if r != nil && f.opts.OnMaintain != nil {
			f.opts.OnMaintain(*r)
		}
	}
	enc := f.opts.Encode
	if enc.Password == nil && f.form.Encrypted {
		enc.Password = f.password
		if k := f.form.KDF; enc.KDF == (KDF{}) && k != nil && envelope.CheckSeal(enc.Password, envelope.SealOptions{KDF: *k}) == nil {
			// The key derivation the file's owner chose, with a new salt.
			enc.KDF = *k
		}
	}
	if f.stamp.hash != "" && !f.opts.Reencode {
		enc.Plain, enc.Indent = f.form.Plain, f.form.Indented
	}
	raw, doc, taken, err := m.marshalValid(&enc)
	if err == nil {
		err = format.WriteBytes(f.name, raw, enc.Password != nil)
	}
	if err != nil {
		// The memory holds fn's change, which the file does not.
		f.stamp, f.m = fileStamp{}, nil
		return err
	}
	f.existed = true
	f.base = format.FileHash(raw)
	if fi, err := os.Stat(f.name); err == nil {
		f.stamp = fileStamp{size: fi.Size(), mod: fi.ModTime(), hash: f.base}
	}
	f.form.Encrypted = enc.Password != nil
	m.writeState(f.name, f.base, f.form.Encrypted)
	m.keepVectors(f.name, f.base, doc.DeepArchive.VectorIndex, &enc, taken)
	if !f.form.Encrypted {
		lim := f.opts.Open.Decode.Limits
		key := format.IndexKey(raw, lim)
		m.indexWritten(format.WithoutVectors(doc, &enc), key, format.CacheGuard(f.name, key, lim))
	}
	// The journal named the file's old bytes: the file holds what it held.
	if err := format.RemoveJournal(f.name); err != nil {
		return fmt.Errorf("%s is written, but its old journal could not be removed: %w", f.name, err)
	}
	f.journal, f.journalStamp = 0, sizeTime{}
	return nil
}

// current is the memory of the file as it is, with the changes its
// journal holds. f.mu is held.
func (f *FileMemory) current() (*Memory, error) {
	m, err := f.snapshot()
	if err != nil {
		return nil, err
	}
	err = f.syncJournal()
	if errors.Is(err, errJournalChanged) {
		// Replaced meanwhile, with the file: read both again.
		if m, err = f.snapshot(); err == nil {
			err = f.syncJournal()
		}
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// snapshot is the memory of the file as it is, read again when it
// changed, with the changes of its journal it had. f.mu is held.
func (f *FileMemory) snapshot() (*Memory, error) {
	fi, err := os.Stat(f.name)
	switch {
	case errors.Is(err, fs.ErrNotExist) && f.existed:
		// Removed since: a memory deleted stays deleted.
		return nil, f.removed()
	case errors.Is(err, fs.ErrNotExist) && f.opts.Create != nil:
		if err := format.CheckFolder(f.name); err != nil {
			return nil, err
		}
		if f.m == nil || f.stamp.hash != "" {
			f.m, f.stamp = New(f.opts.Create), fileStamp{}
			// Its index goes to the cache once its file is written.
			f.m.cache = f.opts.Open.IndexCache
		}
		return f.m, nil
	case err != nil:
		return nil, err
	}
	f.existed = true
	switch {
	case f.m != nil && fi.Size() == f.stamp.size && fi.ModTime().Equal(f.stamp.mod):
		return f.m, nil
	}
	raw, err := format.ReadBytes(f.name, f.opts.Open.Decode.Limits)
	if err != nil {
		return nil, err
	}
	hash := format.FileHash(raw)
	if f.m != nil && hash == f.stamp.hash {
		f.stamp.size, f.stamp.mod = fi.Size(), fi.ModTime()
		return f.m, nil
	}
	m, form, err := openBytes(f.name, raw, &f.opts.Open, true)
	if err != nil {
		return nil, err
	}
	f.form = form
	if f.m != nil {
		f.m.Close()
	}
	f.m, f.stamp = m, fileStamp{size: fi.Size(), mod: fi.ModTime(), hash: hash}
	f.base, f.journal, f.journalStamp = hash, 0, sizeTime{}
	return m, nil
}

// removed is the error of a file removed after it was read or written.
func (f *FileMemory) removed() error {
	return fmt.Errorf("%s: the file was removed while it was open: %w", f.name, fs.ErrNotExist)
}

// Close releases the memory's index, and stops ending its journal when
// it is idle (a compaction under way ends first).
func (f *FileMemory) Close() error {
	f.idleMu.Lock()
	f.closed = true
	if f.idle != nil {
		f.idle.Stop()
	}
	f.idleMu.Unlock()
	_ = f.mu.Acquire(context.Background(), 1)
	defer f.mu.Release(1)
	if f.m == nil {
		return nil
	}
	return f.m.Close()
}
