package format

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// CacheDir is the one folder of cache that smg keeps beside the named
// memory file, ".NAME.cache": the full-text index ([IndexCacheDir]), the
// builder's state ([StateName]) and the vectors ([VectorsName]). Everything
// in it is derived from the file, checked against the file's bytes before
// it is used, and made again when missing: removing it at any time loses
// nothing. A copy of the file alone carries everything the memory holds.
func CacheDir(name string) string {
	return filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+".cache")
}

// IndexCacheDir is the usual index cache of the named file, in its
// [CacheDir].
func IndexCacheDir(name string) string { return filepath.Join(CacheDir(name), "index") }

// legacyCaches are where smg before the cache folder kept the index cache
// and the builder's state of the named file, beside it: removed when found.
func legacyCaches(name string) []string {
	dir, base := filepath.Dir(name), "."+filepath.Base(name)
	return []string{filepath.Join(dir, base+".index"), filepath.Join(dir, base+".state")}
}

// makeCacheDir makes the cache folder of the file whose cache holds the
// named entry, readable by its owner alone: it holds the memory's text.
func makeCacheDir(entry string) error { return os.MkdirAll(filepath.Dir(entry), 0o700) }

// removeCache removes the cache folder of the named file, and what older
// versions kept beside it: all of it holds the memory's text.
func removeCache(name string) error {
	err := RemoveCacheDir(CacheDir(name))
	for _, old := range legacyCaches(name) {
		err = errors.Join(err, os.RemoveAll(old))
	}
	return err
}

// RemoveCacheDir removes a folder of a memory's caches (a file's cache
// folder, or a store's folder of a memory's index). A process that keeps
// the memory open may add a file to it meanwhile (restore's live copy of
// the index, an index being written): tried again then, a few times.
func RemoveCacheDir(dir string) error {
	var err error
	for range 5 {
		if err = os.RemoveAll(dir); !errors.Is(err, syscall.ENOTEMPTY) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return err
}

// removeStaleCache removes from the named file's cache folder the
// temporary files of writes that crashed (the file's lock is held: none
// is being written) and temporary index folders last changed before now
// less staleIndexAge (an index is put in place under a shared hold of the
// lock, and written before it), and what older versions kept beside the
// file. It reports nothing: what it cannot remove harms no one.
func removeStaleCache(name string, now time.Time) {
	for _, old := range legacyCaches(name) {
		_ = os.RemoveAll(old)
	}
	dir := CacheDir(name)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.Contains(e.Name(), ".tmp-") {
			continue
		}
		if e.IsDir() {
			fi, err := e.Info()
			if err != nil || now.Sub(fi.ModTime()) <= staleIndexAge {
				continue
			}
		} else if !e.Type().IsRegular() {
			continue
		}
		_ = os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// CacheSize is the size in bytes of what the named file's cache folder
// holds: what smg keeps beside it, all of it removable.
func CacheSize(name string) int64 { return DirSize(CacheDir(name)) }

// DirSize is the bytes of the regular files under dir, 0 when there is
// none.
func DirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
