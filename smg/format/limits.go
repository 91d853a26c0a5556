package format

import "github.com/smg-memory/smg/smg/internal/envelope"

// Limits bound what a reader accepts, so that a hostile or broken file
// fails with a [*LimitError] (or, for key derivation, an error wrapping
// ErrLimit) instead of exhausting memory or time. A zero field takes its
// default; the defaults are the values of [DefaultLimits], and spec §9.4
// lists them.
type Limits struct {
	// MaxFileSize bounds the bytes read from the file or reader.
	MaxFileSize int64
	// MaxDocumentSize bounds the JSON text after decryption and
	// decompression; it is what stops a decompression bomb.
	MaxDocumentSize int64
	// MaxDepth bounds the nesting of JSON objects and arrays.
	MaxDepth int
	// MaxStringLength bounds any one string (or member name), in bytes as
	// written in the JSON text, escapes included.
	MaxStringLength int
	// MaxListLength bounds the elements of any one array (other than the
	// node and edge lists) and the members of any one object.
	MaxListLength int
	// MaxNodes and MaxEdges bound the semantic graph.
	MaxNodes int
	MaxEdges int
	// MaxBlockSize bounds one archive block once decompressed.
	MaxBlockSize int64
	// MaxKDFMemoryKiB, MaxKDFTimeCost and MaxKDFIterations bound the key
	// derivation an encrypted file may ask for. Their defaults are also
	// the most [Encode] lets a writer choose.
	MaxKDFMemoryKiB  uint32
	MaxKDFTimeCost   uint32
	MaxKDFIterations int
}

// DefaultLimits are the limits a reader applies unless told otherwise. They
// are far above what a real memory needs (10,000 turns of conversation
// take 2.3 MB of JSON, 9,000 nodes and 43,000 edges, BENCHMARKS.md; since
// version 1.1 the JSON holds the turns' text, and 38,912 long turns of a
// project chat take 115 MB) and low enough that reading or validating a
// hostile file stays bounded: the text is bounded by MaxDocumentSize, and
// a node decodes to about 500 bytes whatever its text, an edge to 80, a
// list element to up to 250.
var DefaultLimits = Limits{
	MaxFileSize:      64 << 20,
	MaxDocumentSize:  256 << 20,
	MaxDepth:         64,
	MaxStringLength:  16 << 20,
	MaxListLength:    250_000,
	MaxNodes:         100_000,
	MaxEdges:         500_000,
	MaxBlockSize:     64 << 20,
	MaxKDFMemoryKiB:  envelope.DefaultMaxMemoryKiB,
	MaxKDFTimeCost:   envelope.DefaultMaxTimeCost,
	MaxKDFIterations: envelope.DefaultMaxIterations,
}

// withDefaults fills in the zero fields.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	pick := func(v, def int64) int64 {
		if v == 0 {
			return def
		}
		return v
	}
	l.MaxFileSize = pick(l.MaxFileSize, d.MaxFileSize)
	l.MaxDocumentSize = pick(l.MaxDocumentSize, d.MaxDocumentSize)
	l.MaxDepth = int(pick(int64(l.MaxDepth), int64(d.MaxDepth)))
	l.MaxStringLength = int(pick(int64(l.MaxStringLength), int64(d.MaxStringLength)))
	l.MaxListLength = int(pick(int64(l.MaxListLength), int64(d.MaxListLength)))
	l.MaxNodes = int(pick(int64(l.MaxNodes), int64(d.MaxNodes)))
	l.MaxEdges = int(pick(int64(l.MaxEdges), int64(d.MaxEdges)))
	l.MaxBlockSize = pick(l.MaxBlockSize, d.MaxBlockSize)
	l.MaxKDFMemoryKiB = uint32(pick(int64(l.MaxKDFMemoryKiB), int64(d.MaxKDFMemoryKiB)))
	l.MaxKDFTimeCost = uint32(pick(int64(l.MaxKDFTimeCost), int64(d.MaxKDFTimeCost)))
	l.MaxKDFIterations = int(pick(int64(l.MaxKDFIterations), int64(d.MaxKDFIterations)))
	return l
}

func (l Limits) kdf() envelope.Limits {
	return envelope.Limits{MaxMemoryKiB: l.MaxKDFMemoryKiB, MaxTimeCost: l.MaxKDFTimeCost, MaxIterations: l.MaxKDFIterations}
}
