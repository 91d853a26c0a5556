package spec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrVectorLength reports vector bytes whose length is not a multiple of
// four: they are not a whole number of float32 values (§8.3).
var ErrVectorLength = errors.New("vector bytes are not a whole number of float32 values")

// EncodeVector returns the bytes of an embedding as §8.3 stores them: each
// value as an IEEE 754 binary32, in 4 bytes little-endian, in order. The
// bits are kept as they are, NaNs and signed zeros included.
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

// DecodeVector reads the values of an embedding from its bytes (§8.3). A
// length that is not a multiple of four is an error that wraps
// [ErrVectorLength]; the number of values is not checked against a
// vectorIndex's dimensions here.
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
