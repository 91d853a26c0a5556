package format

import (
	"errors"
	"math"

	"github.com/smg-memory/smg/smg/internal/envelope"
)

// Limits bound what a reader accepts, so that a hostile or broken file
// fails with a [*LimitError] (or, for key derivation, an error wrapping
// ErrLimit) instead of exhausting memory or time. A zero field takes its
// default; the defaults are the values of [DefaultLimits], grown with the
// file for four of them, and spec §9.4 lists them. A field that is set
// does not grow.
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

// DefaultLimits are the limits a reader applies unless told otherwise.
// Four of them grow with the file (see [Limits] and grownLimits):
// MaxDocumentSize, MaxListLength, MaxNodes and MaxEdges are the values
// here for a file of up to a few megabytes, and more for a larger one, in
// proportion to its bytes. A memory of a lifetime is read: 38,912 long
// turns of a project chat take a file of 16 MB, 98 MB of JSON text, 2,812
// nodes and 26,540 edges (BENCHMARKS.md), and ten times as much is within
// the limits. A hostile file cannot make a reader hold much more than a
// real memory of its size would: the text is bounded by MaxDocumentSize,
// a node decodes to about 500 bytes whatever its text, an edge to 80, a
// list element to up to 250, and a file of a few megabytes is held to the
// values here, as every file was before they grew.
var DefaultLimits = Limits{
	MaxFileSize:      512 << 20,
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

// How the defaults of the four limits that grow with the file grow: for a
// file of n bytes (decrypted, still compressed), the default is the larger
// of its value in [DefaultLimits] and the value for n below, at most
// its value in grownLimits. Measured on the memory of 38,912 turns, whose
// nodes alone compress to 128 bytes each and edges to 6 (in the file, with
// the turns, there are 5,600 bytes of it a node and 600 an edge), and
// whose text is 6.5 times its file.
const (
	textPerByte        = 32 // MaxDocumentSize: bytes of JSON text per byte
	bytesPerNode       = 64 // MaxNodes: a node per so many bytes
	bytesPerEdge       = 8  // MaxEdges
	bytesPerListMember = 8  // MaxListLength
)

// grownLimits are the most the defaults grow to, whatever the file's size
// (at most MaxFileSize).
var grownLimits = Limits{
	MaxDocumentSize: 4 << 30,
	MaxListLength:   10_000_000,
	MaxNodes:        2_000_000,
	MaxEdges:        10_000_000,
}

// forFile returns l for a file of n bytes, decrypted: its zero fields take
// their defaults, those that grow with the file grown for n.
func (l Limits) forFile(n int64) Limits {
	grow := func(v *int64, def, grown, ceiling int64) {
		if *v == 0 {
			*v = min(max(def, grown), ceiling)
		}
	}
	d, c := DefaultLimits, grownLimits
	text := min(n, c.MaxDocumentSize/textPerByte) * textPerByte // without overflow
	grow(&l.MaxDocumentSize, d.MaxDocumentSize, text, c.MaxDocumentSize)
	list, nodes, edges := int64(l.MaxListLength), int64(l.MaxNodes), int64(l.MaxEdges)
	grow(&list, int64(d.MaxListLength), n/bytesPerListMember, int64(c.MaxListLength))
	grow(&nodes, int64(d.MaxNodes), n/bytesPerNode, int64(c.MaxNodes))
	grow(&edges, int64(d.MaxEdges), n/bytesPerEdge, int64(c.MaxEdges))
	l.MaxListLength, l.MaxNodes, l.MaxEdges = int(list), int(nodes), int(edges)
	return l.withDefaults()
}

// markGrown marks err, an error reading a file of n bytes within limits
// asked for as l, as that of a limit grown with the file when it is
// ([LimitError.GrownFor]): one l left to its default, past that default.
func (l Limits) markGrown(err error, n int64) {
	le, ok := errors.AsType[*LimitError](err)
	if !ok {
		return
	}
	d := DefaultLimits
	var set, def int64
	switch le.Limit {
	case "MaxDocumentSize":
		set, def = l.MaxDocumentSize, d.MaxDocumentSize
	case "MaxListLength":
		set, def = int64(l.MaxListLength), int64(d.MaxListLength)
	case "MaxNodes":
		set, def = int64(l.MaxNodes), int64(d.MaxNodes)
	case "MaxEdges":
		set, def = int64(l.MaxEdges), int64(d.MaxEdges)
	default:
		return // does not grow
	}
	if set == 0 && le.Max > def {
		le.GrownFor = n
	}
}

// mostLimits are the limits of the largest file: what no file's defaults
// exceed.
var mostLimits = Limits{}.forFile(math.MaxInt64)

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
