package format

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// ErrLocked reports a memory file that another process kept locked for
// longer than [LockOptions.Timeout].
var ErrLocked = errors.New("the memory file is locked by another process")

// DefaultLockTimeout is how long a write waits for another process's
// write of the same file when [LockOptions.Timeout] is zero. A write of a
// usual memory takes a fraction of a second; this is long enough for
// dozens of processes that each write many times to take their turns.
const DefaultLockTimeout = 5 * time.Minute

// staleIndexAge is how old a temporary index-cache folder must be before
// a writer removes it. Those folders are written by readers, which do not
// hold the lock: a young one may be being written now. Writing the cache
// of the largest memory takes seconds.
const staleIndexAge = 10 * time.Minute

// LockOptions tell how a write waits for the lock of a memory file
// (".NAME.lock" beside it), which every process that writes the file
// through smg takes.
type LockOptions struct {
	// Timeout is how long to wait for the lock; zero is
	// [DefaultLockTimeout]. A write that waits longer fails with an error
	// that matches [ErrLocked].
	Timeout time.Duration
	// OnWait, when set, is called once, with the file's name, when the
	// lock is held by another process and the write starts to wait for
	// it: a command says why it seems to hang.
	OnWait func(name string)
}

// LockFile takes the lock of the named memory file, waiting as opts say
// (opts may be nil), and returns the function that releases it. Every
// change smg makes to a file it makes under this lock, reading the file
// after taking it: a program that writes a memory file that other
// processes may write too holds it around its read and its write (as
// smg.FileMemory does for each change), so that no change is lost. The lock
// is advisory: it binds only programs that take it. It is not reentrant:
// taking it again before releasing it waits for itself.
//
// Once it holds the lock, LockFile removes the temporary files that a
// write of the file which crashed left beside it (".NAME.tmp-*") and in
// its cache folder, the temporary index-cache folders there older than
// ten minutes, and what an older smg kept beside it (".NAME.index",
// ".NAME.state").
func LockFile(ctx context.Context, name string, opts *LockOptions) (unlock func(), err error) {
	var o LockOptions
	if opts != nil {
		o = *opts
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultLockTimeout
	}
	l := flock.New(lockName(name))
	deadline := time.Now().Add(o.Timeout)
	waited := false
	for {
		ok, err := l.TryLock()
		if err != nil {
			return nil, fileError(name, err)
		}
		if ok && sameLock(l) {
			break
		}
		if ok {
			// The lock file was removed by its holder (RemoveFile
			// does) after this opened it: take the lock of the file
			// there now.
			_ = l.Unlock()
			continue
		}
		if !waited {
			waited = true
			if o.OnWait != nil {
				o.OnWait(name)
			}
		}
		if !time.Now().Before(deadline) {
			return nil, fmt.Errorf("%s: %w (waited %v)", name, ErrLocked, o.Timeout)
		}
		// Short, random pauses: a waiter that polls at a fixed rate can
		// miss the moments the lock is free again and again.
		pause := time.Duration(2+rand.IntN(18)) * time.Millisecond
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(pause):
		}
	}
	removeStaleTemps(name, time.Now())
	return func() { _ = l.Unlock() }, nil
}

// sameLock reports whether the lock l holds is that of the lock file at
// its path: a holder may remove the file, and another make it again.
func sameLock(l *flock.Flock) bool {
	held, err := l.Stat()
	if err != nil {
		return false
	}
	now, err := os.Stat(l.Path())
	return err == nil && os.SameFile(held, now)
}

// RemoveLock removes the lock file of the named memory file, whose lock
// the caller holds, when the memory file is gone: a process that waits
// for the lock takes that of a new lock file instead. RemoveFile does it
// for the file it removes.
func RemoveLock(name string) error {
	if _, err := os.Stat(name); !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: its lock is removed only once it is gone", name)
	}
	if err := os.Remove(lockName(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// lockName is the lock file of a memory file: ".NAME.lock" beside it.
func lockName(name string) string {
	return filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+".lock")
}

// tempPrefix starts the names of the temporary files that a write of the
// named file makes beside it.
func tempPrefix(name string) string { return "." + filepath.Base(name) + ".tmp-" }

// removeStaleTemps removes what writes of the named file left when they
// crashed: its temporary files and those of its journal beside it, and
// those in its cache folder (see removeStaleCache). The file's lock is
// held, so no temporary file of it is being written (the journal and the
// cache's files are written under it too). It removes what it can and
// reports nothing: a file it cannot remove harms no one.
func removeStaleTemps(name string, now time.Time) {
	_ = removeBeside(name, func(e fs.DirEntry) bool { return e.Type().IsRegular() && isTempBeside(name, e) })
	removeStaleCache(name, now)
}

// isTempBeside reports whether e, an entry of the named file's folder, is
// a temporary file of a write of it or of its journal.
func isTempBeside(name string, e fs.DirEntry) bool {
	return slices.ContainsFunc([]string{tempPrefix(name), tempPrefix(JournalName(name))}, func(p string) bool { return strings.HasPrefix(e.Name(), p) })
}

// removeBeside removes, with what they hold, the entries of the named
// file's folder that remove chooses.
func removeBeside(name string, remove func(fs.DirEntry) bool) error {
	dir := filepath.Dir(name)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if remove(e) {
			err = errors.Join(err, os.RemoveAll(filepath.Join(dir, e.Name())))
		}
	}
	return err
}

// fileError is err, met while writing the named file or a file beside it,
// said of the named file: the user knows it, not the files beside it. Its
// cause stays testable with errors.Is.
func fileError(name string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		if ferr := CheckFolder(name); ferr != nil {
			return ferr
		}
	}
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return &fs.PathError{Op: "write", Path: name, Err: pe.Err}
	}
	if le, ok := errors.AsType[*os.LinkError](err); ok {
		return &fs.PathError{Op: "write", Path: name, Err: le.Err}
	}
	return fmt.Errorf("writing %s: %w", name, err)
}

// CheckFolder fails unless the folder of the named file exists: smg makes
// no folders, and says which one is missing. The error matches
// fs.ErrNotExist when it is.
func CheckFolder(name string) error {
	dir := filepath.Dir(name)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("cannot make %s: the folder %s does not exist (smg makes no folders: create it first): %w", name, dir, fs.ErrNotExist)
	case err != nil:
		return fmt.Errorf("cannot make %s: %w", name, err)
	case !fi.IsDir():
		return fmt.Errorf("cannot make %s: %s is not a folder", name, dir)
	}
	return nil
}

// CacheGuard returns what puts the index cache of the named file in place
// (restore.Config.CacheGuard): only while the file holds the bytes the
// cache is made for, key, read under lim (see [IndexKey]), and under a shared hold of
// the file's lock, which no writer has meanwhile. A writer that encrypts
// the file removes its cache under the lock: the cache is put in place
// before, and removed, or not put in place at all, never left beside the
// encrypted file. A cache not put in place is no error: the next open
// makes it.
func CacheGuard(name, key string, lim Limits) func(put func() error) error {
	lim = lim.withDefaults()
	return func(put func() error) error {
		l := flock.New(lockName(name))
		if ok, err := l.TryRLock(); err != nil || !ok {
			return nil // a writer is changing the file
		}
		defer l.Unlock()
		raw, err := ReadBytes(name, lim)
		if err != nil || IndexKey(raw, lim) != key {
			return nil
		}
		return put()
	}
}

// RemoveFile removes the named memory file and everything smg keeps
// beside it (its journal, its cache folder, the temporary files of
// writes that crashed, and its lock), under the file's
// lock, waiting for it as opts say: a change another process is making
// ends first, and one made after finds the file gone. A file that does
// not exist is an error that matches fs.ErrNotExist, and removes nothing.
func RemoveFile(ctx context.Context, name string, opts *LockOptions) error {
	if _, err := os.Stat(name); err != nil {
		return err
	}
	unlock, err := LockFile(ctx, name, opts)
	if err != nil {
		return err
	}
	defer unlock()
	if err := os.Remove(name); err != nil {
		return err
	}
	err = removeBeside(name, func(e fs.DirEntry) bool { return isTempBeside(name, e) })
	err = errors.Join(err, removeCache(name))
	for _, side := range []string{JournalName(name), lockName(name)} {
		err = errors.Join(err, os.RemoveAll(side))
	}
	if err != nil {
		return fmt.Errorf("%s is removed, but not all that was kept beside it: %w", name, err)
	}
	return nil
}
