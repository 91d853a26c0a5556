package restore

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"
)

// cacheVersion names what an index cache holds: the version of the
// index's mapping and of what it indexes of a node, a block and a turn.
// Changing any of them must change it, so that old caches are rebuilt.
const cacheVersion = "smg-index 2"

// The files of an index cache besides Bleve's own: the key it was made
// for, and Bleve's metadata, which an index built in memory does not
// have.
const (
	cacheKeyFile  = "smg-key"
	cacheMetaFile = "index_meta.json"
)

// openCache opens the index in dir if it was made for key, read-only so
// that other processes may read it too. Any failure is a miss: the
// cache only saves time. The key file lists the SHA-256 of every file of
// the index, checked before Bleve reads them: Bleve trusts its files, and
// a damaged segment could make it panic rather than fail.
func openCache(dir, key string) (bleve.Index, bool) {
	b, err := os.ReadFile(filepath.Join(dir, cacheKeyFile))
	head := cacheKey(key)
	if err != nil || !bytes.HasPrefix(b, head) {
		return nil, false
	}
	sums, err := fileSums(dir)
	if err != nil || !bytes.Equal(b[len(head):], sums) {
		return nil, false
	}
	ix, err := bleve.OpenUsing(dir, map[string]any{"read_only": true})
	if err != nil {
		return nil, false
	}
	return ix, true
}

func cacheKey(key string) []byte { return []byte(cacheVersion + "\n" + key + "\n") }

// fileSums lists the files under dir but the key file, in order, each
// with its SHA-256: "sum path" lines.
func fileSums(dir string) ([]byte, error) {
	var out bytes.Buffer
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || rel == cacheKeyFile {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(&out, "%x %s\n", sha256.Sum256(data), filepath.ToSlash(rel))
		return nil
	})
	return out.Bytes(), err
}

// writeCache writes a copy of ix to dir, for key. It writes a new
// directory beside dir and renames it into place, so that a reader sees
// the old cache or the new one, never half of one.
func writeCache(ix bleve.Index, dir, key string) (err error) {
	adv, err := ix.Advanced()
	if err != nil {
		return err
	}
	copier, ok := adv.(index.CopyIndex)
	if !ok {
		return errors.New("the index cannot be copied")
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".tmp-")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	r := copier.CopyReader()
	err = r.CopyTo(bleve.FileSystemDirectory(tmp))
	if cerr := r.CloseCopyReader(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, cacheMetaFile), []byte(`{"storage":"scorch","index_type":"scorch"}`), 0o644); err != nil {
		return err
	}
	// The key goes in last: a directory without it is no cache.
	sums, err := fileSums(tmp)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, cacheKeyFile), append(cacheKey(key), sums...), 0o644); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("putting the cache in place: %w", err)
	}
	return nil
}
