package spec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The encodings of a vectorIndex's vectors (§8.3). An index without an
// encoding is of [EncodingFloat32].
const (
	// EncodingFloat32: each value an IEEE 754 binary32, 4 bytes
	// little-endian.
	EncodingFloat32 = "float32"
	// EncodingInt8: a binary32 scale, 4 bytes little-endian, then one
	// signed byte q per value; the value is scale × q.
	EncodingInt8 = "int8"
)

// ErrVectorLength reports vector bytes whose length is not the one their
// encoding and the index's dimensions give: for float32, not a whole
// number of values (§8.3).
var ErrVectorLength = errors.New("vector bytes are not a whole number of float32 values")

// ErrVectorEncoding reports a vectorIndex encoding that §8.3 does not
// define.
var ErrVectorEncoding = errors.New("unknown vector encoding")

// VectorError reports vector bytes that are not a vector of an index's
// encoding and dimensions. It wraps [ErrVectorLength] or
// [ErrVectorEncoding].
type VectorError struct {
	Encoding   string // as the index gives it; "" is float32
	Dimensions int
	Len        int // the number of bytes given
	Err        error
}

func (e *VectorError) Error() string {
	if errors.Is(e.Err, ErrVectorEncoding) {
		return fmt.Sprintf("%v %q: §8.3 defines %q and %q", e.Err, e.Encoding, EncodingFloat32, EncodingInt8)
	}
	want, err := VectorSize(e.Encoding, e.Dimensions)
	if err != nil {
		return fmt.Sprintf("%v: %d dimensions", e.Err, e.Dimensions)
	}
	return fmt.Sprintf("%d bytes, but a vector of %d dimensions in %s takes %d", e.Len, e.Dimensions, encodingName(e.Encoding), want)
}

func (e *VectorError) Unwrap() error { return e.Err }

func encodingName(enc string) string {
	if enc == "" {
		return EncodingFloat32
	}
	return enc
}

// VectorEncoding is the encoding of vi's vectors: its Encoding, or
// [EncodingFloat32] when it has none.
func (vi *VectorIndex) VectorEncoding() string {
	return encodingName(vi.Encoding)
}

// VectorSize returns the number of bytes a vector of dims values takes in
// encoding enc ("" is float32), or a [*VectorError] that wraps
// [ErrVectorEncoding] for an encoding §8.3 does not define, or
// [ErrVectorLength] for dimensions below 0.
func VectorSize(enc string, dims int) (int, error) {
	if dims < 0 {
		return 0, &VectorError{Encoding: enc, Dimensions: dims, Err: ErrVectorLength}
	}
	switch enc {
	case "", EncodingFloat32:
		return 4 * dims, nil
	case EncodingInt8:
		return 4 + dims, nil
	}
	return 0, &VectorError{Encoding: enc, Dimensions: dims, Err: ErrVectorEncoding}
}

// EncodeVector returns the bytes of an embedding as §8.3 stores them in
// float32: each value as an IEEE 754 binary32, in 4 bytes little-endian,
// in order. The bits are kept as they are, NaNs and signed zeros included.
func EncodeVector(v []float32) Bytes {
	return AppendVector(make(Bytes, 0, 4*len(v)), v)
}

// AppendVector appends the bytes of v, as [EncodeVector] gives them, to b.
func AppendVector(b []byte, v []float32) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// EncodeVectorInt8 returns the bytes of an embedding as §8.3 stores them
// in int8: the scale max|v_i| / 127 as a binary32 in 4 bytes
// little-endian, then each value as the signed byte round(v_i / scale),
// ties away from zero. A vector of zeros has the scale 0. The values must
// be finite: the bytes of a NaN or an infinity are not specified.
func EncodeVectorInt8(v []float32) Bytes {
	return AppendVectorInt8(make(Bytes, 0, 4+len(v)), v)
}

// AppendVectorInt8 appends the bytes of v, as [EncodeVectorInt8] gives
// them, to b.
func AppendVectorInt8(b []byte, v []float32) []byte {
	var most float64
	for _, x := range v {
		most = max(most, math.Abs(float64(x)))
	}
	scale := float32(most / 127)
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(scale))
	for _, x := range v {
		q := 0.0
		if scale > 0 {
			q = math.Round(float64(x) / float64(scale))
			q = min(127, max(-127, q))
		}
		b = append(b, byte(int8(q)))
	}
	return b
}

// DecodeVector reads the values of a float32 embedding from its bytes
// (§8.3). A length that is not a multiple of four is an error that wraps
// [ErrVectorLength]; the number of values is not checked against a
// vectorIndex's dimensions here: [DecodeVectorAs] does.
func DecodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("%w: %d bytes", ErrVectorLength, len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// DecodeVectorAs reads the dims values of an embedding from its bytes b,
// of the encoding enc of its vectorIndex ("" is float32). Bytes of another
// length than the encoding gives, or an encoding §8.3 does not define, are
// a [*VectorError].
func DecodeVectorAs(enc string, dims int, b []byte) ([]float32, error) {
	if _, err := VectorSize(enc, dims); err != nil {
		return nil, err
	}
	v := make([]float32, dims)
	if err := DecodeVectorInto(v, enc, b); err != nil {
		return nil, err
	}
	return v, nil
}

// DecodeVectorInto reads the values of an embedding, of encoding enc ("" is
// float32), from its bytes b into v, whose length is the index's
// dimensions, as [DecodeVectorAs] does without allocating.
func DecodeVectorInto(v []float32, enc string, b []byte) error {
	n, err := VectorSize(enc, len(v))
	if err != nil {
		return err
	}
	if len(b) != n {
		return &VectorError{Encoding: enc, Dimensions: len(v), Len: len(b), Err: ErrVectorLength}
	}
	if enc == EncodingInt8 {
		scale := math.Float32frombits(binary.LittleEndian.Uint32(b))
		for i, q := range b[4:] {
			v[i] = scale * float32(int8(q))
		}
		return nil
	}
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return nil
}

// Header returns a copy of vi without its embeddings: the model,
// dimensions and encoding a reader needs to make them again (§8.3,
// "Vectors are derived data"). It is nil when vi is.
func (vi *VectorIndex) Header() *VectorIndex {
	if vi == nil {
		return nil
	}
	h := *vi
	h.Embeddings = nil
	return &h
}

// WithoutVectors returns doc as a file without vectors holds it: a
// shallow copy whose vector index is its [VectorIndex.Header]. doc is not
// changed; a document without vectors is returned as it is.
func (doc *Document) WithoutVectors() *Document {
	vi := doc.DeepArchive.VectorIndex
	if vi == nil || len(vi.Embeddings) == 0 {
		return doc
	}
	d := *doc
	d.DeepArchive.VectorIndex = vi.Header()
	return &d
}
