package restore

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/gofrs/flock"
)

// An engine that opened its index from a cache updates a copy of it: the
// cache is shared with other engines, of other processes too, and stays
// the index of the document its key names. The copy is a folder beside
// the cache, named after it, whose segments are hard links to the
// cache's (a segment is never changed once written: Bleve writes new
// ones and removes old ones), so that making it costs a millisecond and
// no room, whatever the size of the index; Bleve then keeps it on disk,
// adding the segments of the updates and merging them in the background,
// and the engine holds no more of it than an opened cache. The copy is
// the engine's alone, locked while it is in use and removed when the
// engine closes; one that a crash left behind is removed by the next
// engine to make a copy of the same cache.

// liveSuffix names the copies of the cache it is appended to.
const liveSuffix = ".live-"

// liveLock is the file in a copy that its engine holds locked.
const liveLock = "smg-live.lock"

// liveIndex is an engine's copy of the cache it opened, opened for
// writing.
type liveIndex struct {
	dir  string
	lock *flock.Flock
}

// openLive copies the index of the cache in dir and opens the copy for
// writing.
func openLive(cache string) (bleve.Index, *liveIndex, error) {
	sweepLive(cache)
	dir, err := os.MkdirTemp(filepath.Dir(cache), filepath.Base(cache)+liveSuffix)
	if err != nil {
		return nil, nil, err
	}
	l := flock.New(filepath.Join(dir, liveLock))
	if ok, err := l.TryLock(); err != nil || !ok {
		os.RemoveAll(dir)
		return nil, nil, errors.Join(errors.New("restore: the copy of the index cache is locked"), err)
	}
	live := &liveIndex{dir: dir, lock: l}
	if err := linkIndex(cache, dir); err != nil {
		live.remove()
		return nil, nil, err
	}
	// A batch returns once its segment is searchable, without waiting
	// for it to be written: the copy is the engine's alone, and a copy a
	// crash left is removed, never read.
	ix, err := bleve.OpenUsing(dir, map[string]any{"unsafe_batch": true})
	if err != nil {
		live.remove()
		return nil, nil, err
	}
	return ix, live, nil
}

// linkIndex puts in dst the files of Bleve's index in src: the segments
// as hard links, or copies where links cannot be made; the root, which
// Bleve changes in place, as a copy.
func linkIndex(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o700)
		case rel == cacheKeyFile || rel == cacheDocFile || rel == cacheStatsFile:
			return nil // the cache's own, not Bleve's
		case strings.HasSuffix(rel, ".zap") && os.Link(path, to) == nil:
			return nil
		}
		return copyFile(path, to)
	})
}

// copyFile copies the file src to dst, which it makes.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}

// remove removes the copy; its index is closed.
func (l *liveIndex) remove() error {
	err := os.RemoveAll(l.dir)
	return errors.Join(err, l.lock.Unlock())
}

// sweepLive removes the copies of the cache in dir that no engine holds:
// those a process left behind when it ended without closing its engine.
func sweepLive(cache string) {
	ents, _ := os.ReadDir(filepath.Dir(cache))
	for _, ent := range ents {
		if !ent.IsDir() || !strings.HasPrefix(ent.Name(), filepath.Base(cache)+liveSuffix) {
			continue
		}
		dir := filepath.Join(filepath.Dir(cache), ent.Name())
		l := flock.New(filepath.Join(dir, liveLock))
		if ok, err := l.TryLock(); err == nil && ok {
			os.RemoveAll(dir)
			l.Unlock()
		}
	}
}
