package restore

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"
)

// cacheVersion names what an index cache holds: the version of the
// index's mapping and of what it indexes of a node, a block and a turn.
// Changing any of them must change it, so that old caches are rebuilt.
const cacheVersion = "smg-index 1"

// The files of an index cache besides Bleve's own: the key it was made
// for, and Bleve's metadata, which an index built in memory does not
// have.
const (
	cacheKeyFile  = "smg-key"
	cacheMetaFile = "index_meta.json"
)

// openCache opens the index in dir if it was made for key, read-only so
// that other processes may read it too. Any failure is a miss: the
// cache only saves time.
func openCache(dir, key string) (bleve.Index, bool) {
	b, err := os.ReadFile(filepath.Join(dir, cacheKeyFile))
	if err != nil || !bytes.Equal(b, cacheKey(key)) {
		return nil, false
	}
	ix, err := bleve.OpenUsing(dir, map[string]any{"read_only": true})
	if err != nil {
		return nil, false
	}
	return ix, true
}

func cacheKey(key string) []byte { return []byte(cacheVersion + "\n" + key + "\n") }

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
	if err := os.WriteFile(filepath.Join(tmp, cacheKeyFile), cacheKey(key), 0o644); err != nil {
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
