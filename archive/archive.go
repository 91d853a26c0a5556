// Package archive keeps every turn of a conversation in blocks of
// consecutive turns, each Brotli-compressed on its own so that one block can
// be read without the others (spec/smg-v1.md §8).
//
// It imports nothing else of this module: a block's content is the bytes the
// caller gives it.
package archive

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/andybalholm/brotli"
)

// DefaultQuality is the Brotli quality blocks are written with. Blocks are
// compressed as turns arrive, so their cost is paid on the write path of a
// live chat. Measured on 50-turn blocks (BENCHMARKS.md): on LoCoMo, q5
// compresses 3.71:1 at 20 MB/s, q9 3.72:1 at 6 MB/s, q11 4.34:1 at
// 0.3 MB/s; on an aider history q5 gives 10.75:1 at 36 MB/s, q9 11.22:1 at
// 20 MB/s. Quality 5 is the knee: above it, a third of the speed buys less
// than 1% on prose and 4% on code. Qualities 10 and 11 make blocks 8–13%
// smaller at a tenth to a thirtieth of the speed: three to eight times
// what ingesting the turns costs, for a block that is written once but
// written while the chat goes on.
const DefaultQuality = 5

var (
	// ErrTooLarge: a block decompresses to more bytes than allowed.
	ErrTooLarge = errors.New("archive block exceeds the size limit")
	// ErrCorrupt: a block's compressed data is not a whole Brotli stream.
	ErrCorrupt = errors.New("archive block is corrupt")
)

// Window is the base-2 logarithm of the Brotli window Compress uses: 22,
// the reference encoder's default. With it a stream's first byte is never
// JSON white space or '{', which is how a reader tells a compressed .smg
// file from a plain one (spec/smg-v1.md §9.1).
const Window = 22

// writers keeps Brotli writers for reuse, one pool per quality: a new
// writer allocates and clears its hash tables (megabytes at the higher
// qualities), which costs more than compressing a block of turns.
var writers [12]sync.Pool

// outs keeps the buffers Compress writes into: what it returns is a copy
// of exactly the stream's length, as a memory keeps its compressed blocks
// for as long as it lives.
var outs sync.Pool

// Compress returns raw as a Brotli stream at the given quality (0 to 11),
// with a window of 2^Window bytes. It is safe for concurrent use.
func Compress(raw []byte, quality int) []byte {
	quality = min(max(quality, 0), 11)
	buf, _ := outs.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	buf.Reset()
	w, _ := writers[quality].Get().(*brotli.Writer)
	if w == nil {
		w = brotli.NewWriterOptions(buf, brotli.WriterOptions{Quality: quality, LGWin: Window})
	} else {
		w.Reset(buf)
	}
	// Writes to a bytes.Buffer cannot fail.
	_, _ = w.Write(raw)
	_ = w.Close()
	w.Reset(nil) // a writer in the pool holds no buffer
	writers[quality].Put(w)
	out := make([]byte, buf.Len())
	copy(out, buf.Bytes())
	if buf.Cap() <= maxPooled {
		outs.Put(buf)
	}
	return out
}

// maxPooled bounds the buffers kept for reuse: a rare large block does not
// keep its buffer.
const maxPooled = 1 << 20

// maxRatio bounds the size a block claims by its compressed size: text
// compresses 3–5 times here, and a buffer too small only grows.
const maxRatio = 32

// readers keeps Brotli readers for reuse: a reader keeps its ring buffer
// and Huffman tables across streams, which a new one allocates again.
var readers sync.Pool

// Decompress returns the bytes of a Brotli stream, at most maxSize of them.
// It is safe for concurrent use.
func Decompress(compressed []byte, maxSize int64) ([]byte, error) {
	return decompress(compressed, 0, maxSize)
}

// decompress is Decompress into a buffer made for size bytes at once,
// when size is known (as an archive block records it): a wrong size
// costs only growing the buffer, as an unknown one does. The size is
// taken up to maxSize and to maxRatio times the compressed data, so
// that a file that claims more makes no larger buffer than its data can
// fill.
func decompress(compressed []byte, size, maxSize int64) ([]byte, error) {
	r, _ := readers.Get().(*brotli.Reader)
	if r == nil {
		r = brotli.NewReader(bytes.NewReader(compressed))
	} else {
		r.Reset(bytes.NewReader(compressed))
	}
	defer func() {
		r.Reset(nil) // keep no reference to the data in the pool
		readers.Put(r)
	}()
	// Room for one byte more than the size, so that the read that meets
	// the end of the stream needs no more, as io.ReadAll reads.
	out := make([]byte, 0, max(min(size, maxSize, maxRatio*int64(len(compressed))), 511)+1)
	lr := io.LimitReader(r, maxSize+1)
	// Beyond that room, the data goes into pieces, joined at the end: a
	// buffer grown by append to maxSize leaves four times maxSize behind
	// it, in arrays too small to be used again for the next.
	var pieces [][]byte
	total := int64(0)
	for {
		if len(out) == cap(out) {
			pieces = append(pieces, out)
			out = make([]byte, 0, min(max(2*cap(out), 64<<10), 1<<20))
		}
		n, err := lr.Read(out[len(out):cap(out)])
		out = out[:len(out)+n]
		total += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
	}
	if total > maxSize {
		return nil, fmt.Errorf("%w (%d bytes)", ErrTooLarge, maxSize)
	}
	if pieces != nil {
		out = bytes.Join(append(pieces, out), nil)
	}
	return out, nil
}

// NewStreamWriter returns a writer that compresses what is written to it into a
// Brotli stream on w, at the given quality (0 to 11), with a window of
// 2^Window bytes, for data too large to hold twice: Close ends the stream
// (and does not close w).
func NewStreamWriter(w io.Writer, quality int) io.WriteCloser {
	return brotli.NewWriterOptions(w, brotli.WriterOptions{Quality: min(max(quality, 0), 11), LGWin: Window})
}

// NewStreamReader returns a reader of the bytes of the Brotli stream r holds. A
// stream that is damaged or cut short is an error that matches
// [ErrCorrupt].
func NewStreamReader(r io.Reader) io.Reader { return corruptReader{brotli.NewReader(r)} }

type corruptReader struct{ r io.Reader }

func (c corruptReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return n, err
}
