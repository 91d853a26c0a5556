package restore

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/graph/chunks"
	"github.com/smg-memory/smg/spec"
)

// cacheVersion names what an index cache holds: the version of the
// index's mapping, of what it indexes of a node, a block and a turn, and
// of the copy of the document beside it.
// Changing any of them must change it, so that old caches are rebuilt.
const cacheVersion = "smg-index 10"

// The files of an index cache besides Bleve's own: the key it was made
// for, Bleve's metadata, which an index built in memory does not have,
// the document the index was made from, in gob, its archive blocks
// compressed (cacheBlockQuality): read back many times faster than its
// file's JSON is decompressed, bounded and unmarshalled, and held in a
// fifth of the memory of its turns; and the statistics of the index
// (cacheStats).
const (
	cacheKeyFile   = "smg-key"
	cacheMetaFile  = "index_meta.json"
	cacheDocFile   = "document.gob"
	cacheStatsFile = "stats.json"
)

// cacheStats are what an engine that opens a cache needs besides the
// index to score as an index built at once of its document would
// (stats.go), and to go on counting when it updates it (freshStats).
type cacheStats struct {
	// Cardinality is the sum of the sizes of the dictionaries of an
	// index built at once of the document. Updated says that the index
	// is not one (an updated engine's index was copied): its searches
	// take Cardinality rather than the index's own.
	Cardinality int  `json:"cardinality"`
	Updated     bool `json:"updated"`
	// Turns is how many documents of turns the index holds, and Last the
	// distinct terms of the last batch of them (turnBatch), sorted.
	Turns int      `json:"turns"`
	Last  []string `json:"last"`
}

// readStats reads the statistics of the checked cache in dir.
func readStats(dir string) (cacheStats, bool) {
	var st cacheStats
	b, err := os.ReadFile(filepath.Join(dir, cacheStatsFile))
	if err != nil || json.Unmarshal(b, &st) != nil || st.Cardinality < 0 || st.Turns < 0 {
		return cacheStats{}, false
	}
	return st, true
}

func init() {
	// The values of a node's free-form metadata besides JSON's scalars.
	gob.Register(map[string]any{})
	gob.Register([]any{})
}

// Cached is an index cache opened for a key: its index and the document
// it was made from.
type Cached struct {
	ix    bleve.Index
	doc   *spec.Document
	stats cacheStats
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
	f, err := os.Open(filepath.Join(dir, cacheDocFile))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	// The document is decoded as it is read, while the files are checked,
	// and dropped if they fail: damage costs the decoding at most, as gob
	// checks the lengths it reads against its input.
	checked := make(chan bool, 1)
	go func() { checked <- filesMatch(dir, want) }()
	doc, err := readCacheDoc(bufio.NewReaderSize(f, 1<<20))
	if !<-checked || err != nil {
		return nil, false
	}
	stats, ok := readStats(dir)
	if !ok {
		return nil, false
	}
	ix, ok := openIndex(dir)
	if !ok {
		return nil, false
	}
	return &Cached{ix: ix, doc: doc, stats: stats}, true
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
func openCache(dir, key string) (bleve.Index, cacheStats, bool) {
	want, ok := cacheSums(dir, key)
	if !ok || !filesMatch(dir, want) {
		return nil, cacheStats{}, false
	}
	stats, ok := readStats(dir)
	if !ok {
		return nil, cacheStats{}, false
	}
	ix, ok := openIndex(dir)
	return ix, stats, ok
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
	buf := make([]byte, 1<<20)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || rel == cacheKeyFile {
			return err
		}
		sum, err := fileSum(path, buf)
		if err != nil {
			return err
		}
		fmt.Fprintf(&out, "%x %s\n", sum, filepath.ToSlash(rel))
		return nil
	})
	return out.Bytes(), err
}

// fileSum is the SHA-256 of the named file, read through buf: the files of
// a large cache are a hundred megabytes, which are not held.
func fileSum(name string, buf []byte) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyBuffer(h, f, buf); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// writeCacheDoc writes doc in gob: the document without its long lists,
// then its nodes, edges and blocks in chunks, so that the reader reads a
// message of a chunk at a time, not one of the whole document.
func writeCacheDoc(w io.Writer, doc *spec.Document) error {
	d := *doc
	d.SemanticGraph.Nodes, d.SemanticGraph.Edges, d.DeepArchive.Blocks = nil, nil, nil
	enc := gob.NewEncoder(w)
	return errors.Join(enc.Encode(&d), chunks.Put(enc, doc.SemanticGraph.Nodes, 1024),
		chunks.Put(enc, doc.SemanticGraph.Edges, 4096), chunks.Put(enc, doc.DeepArchive.Blocks, 16))
}

// readCacheDoc reads what writeCacheDoc wrote.
func readCacheDoc(r io.Reader) (*spec.Document, error) {
	dec := gob.NewDecoder(r)
	doc := new(spec.Document)
	if err := dec.Decode(doc); err != nil {
		return nil, err
	}
	var err error
	if doc.SemanticGraph.Nodes, err = chunks.Get[spec.Node](dec); err != nil {
		return nil, err
	}
	if doc.SemanticGraph.Edges, err = chunks.Get[spec.Edge](dec); err != nil {
		return nil, err
	}
	if doc.DeepArchive.Blocks, err = chunks.Get[spec.ArchiveBlock](dec); err != nil {
		return nil, err
	}
	return doc, nil
}

// cacheBlockQuality is the Brotli quality of the blocks of the document
// of a cache, when it holds them in the clear (as a document read from its
// file does): the fastest, which takes the turns to about a quarter
// (beam-dev x16: 96 MB to 23 MB in 0.9 s of one core), read back at
// 130 MB/s as the turns of a block are asked for.
const cacheBlockQuality = 1

// compressedBlocks is doc, its blocks in the clear compressed at
// cacheBlockQuality on every core; doc itself when they are all
// compressed, a copy otherwise.
func compressedBlocks(doc *spec.Document) *spec.Document {
	blocks := doc.DeepArchive.Blocks
	if !slices.ContainsFunc(blocks, func(b spec.ArchiveBlock) bool { return b.Turns != nil }) {
		return doc
	}
	out := slices.Clone(blocks)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(out)) {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(out)); i = next.Add(1) - 1 {
				if b := &out[i]; b.Turns != nil {
					b.CompressedData, b.Turns = archive.Compress(b.Turns, cacheBlockQuality), nil
				}
			}
		})
	}
	wg.Wait()
	d := *doc
	d.DeepArchive.Blocks = out
	return &d
}

// copyReader returns what copies ix as it is now, whatever changes it
// after; the caller closes it with CloseCopyReader.
func copyReader(ix bleve.Index) (index.CopyReader, error) {
	adv, err := ix.Advanced()
	if err != nil {
		return nil, err
	}
	copier, ok := adv.(index.CopyIndex)
	if !ok {
		return nil, errors.New("the index cannot be copied")
	}
	return copier.CopyReader(), nil
}

// writeCache writes the index r reads, with its statistics and doc, the
// document it was made from, to dir, for key, and closes r. It writes a
// new directory beside dir and renames it into place, so that a reader
// sees the old cache or the new one, never half of one; through guard,
// when it is set (see [Config.CacheGuard]).
func writeCache(r index.CopyReader, doc *spec.Document, stats cacheStats, dir, key string, guard func(put func() error) error) (err error) {
	err = writeCacheFiles(r, doc, stats, dir, key, guard)
	if cerr := r.CloseCopyReader(); err == nil {
		err = cerr
	}
	return err
}

func writeCacheFiles(r index.CopyReader, doc *spec.Document, stats cacheStats, dir, key string, guard func(put func() error) error) (err error) {
	// The folder that holds the cache (a memory file's cache folder) is
	// made when missing, readable by its owner alone, and removed again
	// when guard refuses the cache and the folder holds nothing else: a
	// stored memory deleted meanwhile leaves no folder behind.
	parent := filepath.Dir(dir)
	_, serr := os.Stat(parent)
	made := errors.Is(serr, fs.ErrNotExist)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, filepath.Base(dir)+".tmp-")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := r.CopyTo(bleve.FileSystemDirectory(tmp)); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, cacheMetaFile), []byte(`{"storage":"scorch","index_type":"scorch"}`), 0o644); err != nil {
		return err
	}
	js, err := json.Marshal(stats)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, cacheStatsFile), js, 0o644); err != nil {
		return err
	}
	var gobDoc bytes.Buffer
	if err := writeCacheDoc(&gobDoc, compressedBlocks(doc)); err != nil {
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
	if err != nil && made {
		os.Remove(parent) // fails, and keeps it, unless it is empty
	}
	return err
}
