package archive

import (
	"errors"
	"fmt"
	"sort"
	"sync"
)

// DefaultCacheSize is how many decoded blocks a [Reader] keeps unless told
// otherwise.
//
// The cache is small on purpose. A reader holds in memory only the few
// blocks it needs decoded (a block is compressed on its own in files of
// version 1.0, and in the clear in those of 1.1): a decoded block takes
// several times its compressed size (its data alone is 4 to 11 times as
// large, by the compression ratios of BENCHMARKS.md), so a cache as large
// as the archive would undo that. Reads are local: the mentions of a node, the turns
// around a turn, the episodes of a context are a few blocks, and a block
// read again soon is read again from the cache. A miss costs one Brotli
// decompression of one block (measured on 50-turn blocks: 0.2 ms for
// LoCoMo chat, 0.5 ms for an aider session's) and the caller's decoding.
const DefaultCacheSize = 4

// ErrNoBlock: a block index out of range.
var ErrNoBlock = errors.New("no such archive block")

// Block is one archive block as a [Reader] sees it: the first and the last
// turn it holds (inclusive) and its compressed data.
type Block struct {
	First, Last int
	Data        []byte
	// Size is the size of the decompressed data, when known (0 when
	// not): the block is decompressed into a buffer of that size at once.
	Size int64
	// Plain: Data is the block's data itself, not compressed (a block of
	// a file compressed whole); it is given to the decoder as it is,
	// within the size limit.
	Plain bool
}

// BlockError reports a block that could not be read: its data does not
// decompress within the size limit, or the caller's decoder rejected it.
// Index counts from 0 in the Reader's list. Other blocks stay readable.
type BlockError struct {
	Index int
	Err   error
}

func (e *BlockError) Error() string {
	return fmt.Sprintf("archive block at index %d: %v", e.Index, e.Err)
}

func (e *BlockError) Unwrap() error { return e.Err }

// ReaderOptions configure a [Reader]. The zero value is the default.
type ReaderOptions struct {
	// CacheSize is how many decoded blocks to keep: 0 means
	// DefaultCacheSize; a negative number keeps none.
	CacheSize int
}

// Reader gives access to the blocks of an archive one at a time, each
// decompressed and decoded only when it is asked for. It keeps the last
// few decoded blocks in a least-recently-used cache. A block that fails to
// decompress or decode fails alone, with a [*BlockError], and is not
// cached: asking again tries again.
//
// A Reader is safe for concurrent use. Blocks are decompressed and decoded
// outside its lock, so different blocks are read in parallel; goroutines
// that ask for the same block at the same time share one decoding.
type Reader[T any] struct {
	blocks  []Block
	maxSize int64
	decode  func(i int, raw []byte) (T, error)
	sorted  bool // blocks are in turn order without overlaps: Find can bisect

	mu       sync.Mutex
	capacity int
	cache    []entry[T] // most recently used first
	inflight map[int]*call[T]
}

type entry[T any] struct {
	i int
	v T
}

// call is a decoding under way, which other goroutines wait for.
type call[T any] struct {
	done chan struct{}
	v    T
	err  error
}

// NewReader returns a reader of blocks. A block's data is decompressed to
// at most maxSize bytes (beyond that it fails with ErrTooLarge), then
// handed to decode with the block's index. The blocks and their data must
// not change while the reader is in use; decode must be safe for
// concurrent use. opts may be nil.
//
// Blocks are expected in turn order without overlaps, as spec/smg-v1.md
// §8 requires; [Reader.Find] bisects them then, and searches them one by
// one otherwise.
func NewReader[T any](blocks []Block, maxSize int64, decode func(i int, raw []byte) (T, error), opts *ReaderOptions) *Reader[T] {
	var o ReaderOptions
	if opts != nil {
		o = *opts
	}
	capacity := o.CacheSize
	if capacity == 0 {
		capacity = DefaultCacheSize
	}
	sorted := true
	for i, b := range blocks {
		if b.First > b.Last || (i > 0 && b.First <= blocks[i-1].Last) {
			sorted = false
			break
		}
	}
	return &Reader[T]{
		blocks:   blocks,
		maxSize:  maxSize,
		decode:   decode,
		sorted:   sorted,
		capacity: max(capacity, 0),
		inflight: map[int]*call[T]{},
	}
}

// Len is the number of blocks.
func (r *Reader[T]) Len() int { return len(r.blocks) }

// Range returns the first and the last turn of block i, which must be in
// range.
func (r *Reader[T]) Range(i int) (first, last int) {
	return r.blocks[i].First, r.blocks[i].Last
}

// Find returns the index of the block that holds turn, if one does.
func (r *Reader[T]) Find(turn int) (index int, ok bool) {
	if !r.sorted {
		for i, b := range r.blocks {
			if b.First <= turn && turn <= b.Last {
				return i, true
			}
		}
		return -1, false
	}
	i := sort.Search(len(r.blocks), func(i int) bool { return r.blocks[i].Last >= turn })
	if i < len(r.blocks) && r.blocks[i].First <= turn {
		return i, true
	}
	return -1, false
}

// Block returns block i decoded: from the cache, or decompressed and
// decoded now. The value may be shared with other callers: treat it as
// read-only.
func (r *Reader[T]) Block(i int) (T, error) {
	var zero T
	if i < 0 || i >= len(r.blocks) {
		return zero, fmt.Errorf("%w: index %d of %d blocks", ErrNoBlock, i, len(r.blocks))
	}
	r.mu.Lock()
	if v, ok := r.cached(i); ok {
		r.mu.Unlock()
		return v, nil
	}
	if c := r.inflight[i]; c != nil {
		r.mu.Unlock()
		<-c.done
		return c.v, c.err
	}
	// If decode panics, the goroutines waiting for it get this error.
	c := &call[T]{done: make(chan struct{}), err: &BlockError{Index: i, Err: errors.New("decoding panicked")}}
	r.inflight[i] = c
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.inflight, i)
		if c.err == nil {
			r.add(i, c.v)
		}
		r.mu.Unlock()
		close(c.done)
	}()
	c.v, c.err = r.load(i)
	return c.v, c.err
}

// load decompresses and decodes block i.
func (r *Reader[T]) load(i int) (T, error) {
	var zero T
	b := r.blocks[i]
	raw, err := b.Data, error(nil)
	if !b.Plain {
		raw, err = decompress(b.Data, b.Size, r.maxSize)
	} else if int64(len(raw)) > r.maxSize {
		err = fmt.Errorf("%w: %d bytes, more than %d", ErrTooLarge, len(raw), r.maxSize)
	}
	if err != nil {
		return zero, &BlockError{Index: i, Err: err}
	}
	v, err := r.decode(i, raw)
	if err != nil {
		return zero, &BlockError{Index: i, Err: err}
	}
	return v, nil
}

// cached returns block i from the cache and makes it the most recently
// used. r.mu is held.
func (r *Reader[T]) cached(i int) (T, bool) {
	for k, e := range r.cache {
		if e.i == i {
			copy(r.cache[1:k+1], r.cache[:k])
			r.cache[0] = e
			return e.v, true
		}
	}
	var zero T
	return zero, false
}

// add puts block i first in the cache, dropping the least recently used
// block when the cache is full. r.mu is held.
func (r *Reader[T]) add(i int, v T) {
	if r.capacity == 0 {
		return
	}
	if _, ok := r.cached(i); ok {
		return
	}
	if len(r.cache) < r.capacity {
		r.cache = append(r.cache, entry[T]{})
	}
	copy(r.cache[1:], r.cache[:len(r.cache)-1])
	r.cache[0] = entry[T]{i, v}
}
