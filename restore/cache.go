package restore

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/smg-memory/smg/spec"
)

// cacheVersion names what an index cache holds: the version of the
// index's mapping, of what it indexes of a node, a block and a turn, and
// of the copy of the document beside it.
// Changing any of them must change it, so that old caches are rebuilt.
const cacheVersion = "smg-index 6"

// The files of an index cache besides Bleve's own: the key it was made
// for, Bleve's metadata, which an index built in memory does not have,
// and the document the index was made from, in gob: read back about
// three times faster than its file's JSON is decompressed, bounded and
// unmarshalled.
const (
	cacheKeyFile  = "smg-key"
	cacheMetaFile = "index_meta.json"
	cacheDocFile  = "document.gob"
)

func init() {
	// The values of a node's free-form metadata besides JSON's scalars.
	gob.Register(map[string]any{})
	gob.Register([]any{})
}

// Cached is an index cache opened for a key: its index and the document
// it was made from.
type Cached struct {
	ix  bleve.Index
	doc *spec.Document
}

// OpenCached opens the index cache in dir when it was made for key (see
// [Config]): opening a file, a caller reads the document from it instead
// of decoding the file again, and hands it to [New] in [Config].Cached.
// Any failure is a miss. The files are checked against the sums of the
// key file, which guard against damage, not against someone who may
// write to the cache: the cache is trusted as the file itself is.
func OpenCached(dir, key string) (*Cached, bool) {
	want, ok := cacheSums(dir, key)
	if !ok {
		return nil, false
	}
	b, err := os.ReadFile(filepath.Join(dir, cacheDocFile))
	if err != nil {
		return nil, false
	}
	// The document is decoded while the files are checked, and dropped
	// if they fail: damage costs the decoding at most, as gob checks the
	// lengths it reads against its input.
	checked := make(chan bool, 1)
	go func() { checked <- filesMatch(dir, want) }()
	doc := new(spec.Document)
	err = gob.NewDecoder(bytes.NewReader(b)).Decode(doc)
	if !<-checked || err != nil {
		return nil, false
	}
	ix, ok := openIndex(dir)
	if !ok {
		return nil, false
	}
	return &Cached{ix: ix, doc: doc}, true
}

// Document is the document the cache was made from.
func (c *Cached) Document() *spec.Document { return c.doc }

// Close releases the cache's index, unless [New] has taken it.
func (c *Cached) Close() error {
	if c.ix == nil {
		return nil
	}
	err := c.ix.Close()
	c.ix = nil
	return err
}

// openCache opens the index in dir if it was made for key, read-only so
// that other processes may read it too. Any failure is a miss: the
// cache only saves time. The key file lists the SHA-256 of every file of
// the index, checked before Bleve reads them: Bleve trusts its files, and
// a damaged segment could make it panic rather than fail.
func openCache(dir, key string) (bleve.Index, bool) {
	want, ok := cacheSums(dir, key)
	if !ok || !filesMatch(dir, want) {
		return nil, false
	}
	return openIndex(dir)
}

// openIndex opens the checked index in dir, read-only.
func openIndex(dir string) (bleve.Index, bool) {
	ix, err := bleve.OpenUsing(dir, map[string]any{"read_only": true})
	return ix, err == nil
}

// filesMatch reports whether the files of the cache in dir have the sums
// want, which its key file lists.
func filesMatch(dir string, want []byte) bool {
	sums, err := fileSums(dir)
	return err == nil && bytes.Equal(sums, want)
}

// cacheSums returns the sums the key file of the cache in dir lists, if
// it was made for key.
func cacheSums(dir, key string) ([]byte, bool) {
	b, err := os.ReadFile(filepath.Join(dir, cacheKeyFile))
	head := cacheKey(key)
	if err != nil || !bytes.HasPrefix(b, head) {
		return nil, false
	}
	return b[len(head):], true
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

// writeCache writes a copy of ix, and doc, the document it was made from,
// to dir, for key. It writes a new directory beside dir and renames it
// into place, so that a reader sees the old cache or the new one, never
// half of one; through guard, when it is set (see [Config.CacheGuard]).
func writeCache(ix bleve.Index, doc *spec.Document, dir, key string, guard func(put func() error) error) (err error) {
	adv, err := ix.Advanced()
	if err != nil {
		return err
	}
	copier, ok := adv.(index.CopyIndex)
	if !ok {
		return errors.New("the index cannot be copied")
	}
	// The folder that holds the cache (a memory file's cache folder) is
	// made when missing, readable by its owner alone.
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return err
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
	var gobDoc bytes.Buffer
	if err := gob.NewEncoder(&gobDoc).Encode(doc); err != nil {
		return fmt.Errorf("copying the document: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, cacheDocFile), gobDoc.Bytes(), 0o644); err != nil {
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
	put := func() error {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		if err := os.Rename(tmp, dir); err != nil {
			return fmt.Errorf("putting the cache in place: %w", err)
		}
		return nil
	}
	if guard == nil {
		return put()
	}
	err = guard(put)
	os.RemoveAll(tmp) // when guard did not put it in place
	return err
}
