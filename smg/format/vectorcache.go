package format

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/smg-memory/smg/spec"
)

// vectorsMagic starts a file of vectors kept in a memory's cache.
const vectorsMagic = "smg-vectors 1\n"

// maxCachedDimensions bounds the dimensions a file of cached vectors may
// claim: far above any sentence encoder's (the built-in one has 512,
// OpenAI's largest 3,072).
const maxCachedDimensions = 1 << 14

// ErrVectorCache reports a file of cached vectors that is not one smg
// wrote: the vectors are made again.
var ErrVectorCache = errors.New("not a file of cached vectors")

// VectorsName is where the vectors of the named memory file are kept
// when the file holds none (see [EncodeOptions.WithVectors]): in its
// [CacheDir]. They are checked against the file's bytes before they are
// used, and made again by the sentence encoder when missing.
func VectorsName(name string) string { return filepath.Join(CacheDir(name), "vectors") }

// vectorsInFile reports whether a file written with opts holds its
// vectors: when asked for, and when encrypted (nothing beside an
// encrypted file may hold what its turns say, and vectors do).
func vectorsInFile(opts *EncodeOptions) bool {
	return opts != nil && (opts.WithVectors || opts.Password != nil)
}

// WithoutVectors is doc as a memory file written with opts holds it
// ([WriteFile], [MarshalMemory]; [Marshal] encodes a document as it is):
// without the vectors of its vector index unless the file holds them
// ([EncodeOptions.WithVectors]). The index stays, naming the model, so
// that a reader knows which vectors to make again. doc is not changed; a
// document without vectors is returned as it is.
func WithoutVectors(doc *spec.Document, opts *EncodeOptions) *spec.Document {
	if vectorsInFile(opts) {
		return doc
	}
	return doc.WithoutVectors()
}

// KeepVectors keeps vi, the vector index of a memory just written to the
// named file with opts, whose bytes have the hash base ([FileHash]): in
// the file's cache when the file holds no vectors, for [ReadVectors];
// nowhere else when it holds them, and the cache's are removed. It is a
// cache: failing costs embedding the turns again, and the callers ignore
// it, but tests do not.
func KeepVectors(name, base string, vi *spec.VectorIndex, opts *EncodeOptions) error {
	if vi == nil || len(vi.Embeddings) == 0 || vectorsInFile(opts) {
		err := os.Remove(VectorsName(name))
		if errors.Is(err, os.ErrNotExist) {
			err = nil
		}
		return err
	}
	size, err := spec.VectorSize(vi.Encoding, vi.Dimensions)
	if err != nil {
		return err
	}
	return writeStamped(VectorsName(name), vectorsMagic, base, func(w io.Writer) error {
		if _, err := fmt.Fprintf(w, "%s\n%s\n%d\n%d\n", vi.Model, vi.VectorEncoding(), vi.Dimensions, len(vi.Embeddings)); err != nil {
			return err
		}
		var buf [3 * binary.MaxVarintLen64]byte
		for _, e := range vi.Embeddings {
			if len(e.Vector) != size {
				return &spec.VectorError{Encoding: vi.Encoding, Dimensions: vi.Dimensions, Len: len(e.Vector), Err: spec.ErrVectorLength}
			}
			n := binary.PutUvarint(buf[:], uint64(e.Turn))
			n += binary.PutUvarint(buf[n:], uint64(e.Start))
			n += binary.PutUvarint(buf[n:], uint64(e.End))
			if _, err := w.Write(buf[:n]); err != nil {
				return err
			}
			if _, err := w.Write(e.Vector); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReadVectors reads the vectors kept in the cache of the named file for
// the bytes of hash base, of a memory of turns turns, and returns them as
// a vector index with its model, encoding and dimensions. It fails when
// there are none, or none for these bytes ([ErrStateMismatch]), or when
// the file is not one [KeepVectors] writes ([ErrVectorCache]): a
// vector of the wrong length, of a turn the memory does not hold, out of
// order, or more than lim allows in a document.
func ReadVectors(name, base string, turns int, lim Limits) (*spec.VectorIndex, error) {
	lim = lim.withDefaults()
	data, err := readStamped(VectorsName(name), vectorsMagic, base, lim.MaxDocumentSize)
	if err != nil {
		return nil, err
	}
	return parseVectors(data, turns, lim)
}

// parseVectors parses the data of a file of cached vectors (see
// [ReadVectors]).
func parseVectors(data []byte, turns int, lim Limits) (*spec.VectorIndex, error) {
	r := bufio.NewReader(bytes.NewReader(data))
	line := func(what string) (string, error) {
		s, err := r.ReadString('\n')
		if err != nil || len(s) > 256 {
			return "", fmt.Errorf("%w: no %s", ErrVectorCache, what)
		}
		return strings.TrimSuffix(s, "\n"), nil
	}
	number := func(what string, max int) (int, error) {
		s, err := line(what)
		if err != nil {
			return 0, err
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > max {
			return 0, fmt.Errorf("%w: %s %q", ErrVectorCache, what, s)
		}
		return n, nil
	}
	vi := &spec.VectorIndex{Enabled: true}
	var err error
	if vi.Model, err = line("model"); err != nil {
		return nil, err
	}
	if vi.Encoding, err = line("encoding"); err != nil {
		return nil, err
	}
	if vi.Dimensions, err = number("dimensions", maxCachedDimensions); err != nil {
		return nil, err
	}
	count, err := number("count", lim.MaxListLength)
	if err != nil {
		return nil, err
	}
	size, err := spec.VectorSize(vi.Encoding, vi.Dimensions)
	if err != nil || size == 0 || vi.Model == "" {
		return nil, fmt.Errorf("%w: model %q, %d dimensions of %q", ErrVectorCache, vi.Model, vi.Dimensions, vi.Encoding)
	}
	if count > len(data)/size {
		return nil, fmt.Errorf("%w: %d vectors in %d bytes", ErrVectorCache, count, len(data))
	}
	vi.Embeddings = make([]spec.Embedding, 0, count)
	for i := range count {
		var v [3]uint64
		for j := range v {
			if v[j], err = binary.ReadUvarint(r); err != nil || v[j] > uint64(lim.MaxDocumentSize) {
				return nil, fmt.Errorf("%w: vector %d cut short", ErrVectorCache, i+1)
			}
		}
		e := spec.Embedding{Turn: int(v[0]), Start: int(v[1]), End: int(v[2]), Vector: make(spec.Bytes, size)}
		if _, err := io.ReadFull(r, e.Vector); err != nil {
			return nil, fmt.Errorf("%w: vector %d cut short", ErrVectorCache, i+1)
		}
		switch {
		case e.Turn < 1 || e.Turn > turns:
			return nil, fmt.Errorf("%w: vector %d is of turn %d, not one of the memory's %d", ErrVectorCache, i+1, e.Turn, turns)
		case e.Start > e.End || e.Start == e.End && e.Start != 0:
			return nil, fmt.Errorf("%w: vector %d is of bytes %d to %d of turn %d", ErrVectorCache, i+1, e.Start, e.End, e.Turn)
		case i > 0 && spec.CompareEmbeddings(vi.Embeddings[i-1], e) >= 0:
			return nil, fmt.Errorf("%w: vector %d is out of order", ErrVectorCache, i+1)
		}
		vi.Embeddings = append(vi.Embeddings, e)
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return nil, fmt.Errorf("%w: bytes after the last vector", ErrVectorCache)
	}
	return vi, nil
}

// CarryVectors gives doc, a memory made from the named file (a patched
// file, say), the vectors the file's cache keeps for its bytes, when doc
// holds none, as [AdoptVectors] does: the cache of the file doc is written
// to then keeps them ([WriteFile]).
func CarryVectors(name string, doc *spec.Document, lim Limits) bool {
	if _, err := os.Stat(VectorsName(name)); err != nil {
		return false
	}
	raw, err := ReadBytes(name, lim)
	return err == nil && AdoptVectors(name, raw, doc, lim)
}

// AdoptVectors gives doc, read from the named file's bytes raw, the
// vectors kept in the file's cache, when it holds none and the cache was
// made for these bytes and for the model its vector index names (a file
// that names none takes the cache's). It reports whether it did. An
// encrypted file has no cache.
func AdoptVectors(name string, raw []byte, doc *spec.Document, lim Limits) bool {
	vi := doc.DeepArchive.VectorIndex
	if vi != nil && len(vi.Embeddings) > 0 {
		return false
	}
	if _, err := os.Stat(VectorsName(name)); err != nil {
		return false
	}
	cached, err := ReadVectors(name, FileHash(raw), doc.Metadata.TotalExchanges, lim)
	if err != nil {
		return false
	}
	if vi != nil && (vi.Model != "" && vi.Model != cached.Model || vi.Dimensions != 0 && vi.Dimensions != cached.Dimensions ||
		vi.Encoding != "" && vi.VectorEncoding() != cached.VectorEncoding()) {
		return false
	}
	if vi != nil {
		cached.Extra = slices.Clone(vi.Extra)
		cached.Enabled = vi.Enabled
	}
	doc.DeepArchive.VectorIndex = cached
	return true
}
