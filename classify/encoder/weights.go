package encoder

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The kinds of tensor in the weights file (see internal/convert).
const (
	kindF32      = 0
	kindInt8Cols = 1 // int8, one float32 scale per column
	kindInt8Rows = 2 // int8, one float32 scale per row
	// kindInt8Groups is int8 with one float32 scale per column in each
	// run of groupRows rows: all the scales of a group, then the next.
	kindInt8Groups = 3
	groupRows      = 64
)

// ErrWeights is returned when the weights file cannot be read.
var ErrWeights = errors.New("encoder: bad weights file")

// matrix is a dense float32 matrix, row-major.
type matrix struct {
	rows, cols int
	data       []float32
}

// readWeights decodes the weights file into float32 tensors by name,
// dequantizing int8 ones.
func readWeights(b []byte) (map[string]matrix, error) {
	r := reader{b: b}
	if string(r.next(8)) != "USELITE1" {
		return nil, fmt.Errorf("%w: no USELITE1 magic", ErrWeights)
	}
	n := r.u32()
	out := make(map[string]matrix, n)
	for i := uint32(0); i < n && r.err == nil; i++ {
		name := string(r.next(int(r.u16())))
		h := r.next(2)
		if r.err != nil {
			break
		}
		kind, ndim := h[0], int(h[1])
		m := matrix{rows: 1, cols: 1}
		size := 1
		for d := 0; d < ndim; d++ {
			v := int(r.u32())
			if v <= 0 || v > 1<<24 {
				return nil, fmt.Errorf("%w: tensor %q has dimension %d", ErrWeights, name, v)
			}
			size *= v
			if d == ndim-1 {
				m.cols = v
			} else {
				m.rows *= v
			}
		}
		if size > 1<<26 {
			return nil, fmt.Errorf("%w: tensor %q has %d values", ErrWeights, name, size)
		}
		m.data = make([]float32, size)
		switch kind {
		case kindF32:
			raw := r.next(4 * size)
			for j := range m.data {
				if r.err != nil {
					break
				}
				m.data[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:]))
			}
		case kindInt8Cols, kindInt8Rows, kindInt8Groups:
			ns := m.cols
			switch kind {
			case kindInt8Rows:
				ns = m.rows
			case kindInt8Groups:
				ns = m.cols * ((m.rows + groupRows - 1) / groupRows)
			}
			scales := make([]float32, ns)
			raw := r.next(4 * ns)
			for j := range scales {
				if r.err != nil {
					break
				}
				scales[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:]))
			}
			q := r.next(size)
			if r.err != nil {
				break
			}
			for row := 0; row < m.rows; row++ {
				dst := m.data[row*m.cols : (row+1)*m.cols]
				src := q[row*m.cols : (row+1)*m.cols]
				if kind == kindInt8Rows {
					s := scales[row]
					for c := range dst {
						dst[c] = float32(int8(src[c])) * s
					}
					continue
				}
				sc := scales[:len(dst)]
				if kind == kindInt8Groups {
					g := row / groupRows * m.cols
					sc = scales[g : g+len(dst)]
				}
				for c := range dst {
					dst[c] = float32(int8(src[c])) * sc[c]
				}
			}
		default:
			return nil, fmt.Errorf("%w: tensor %q has unknown kind %d", ErrWeights, name, kind)
		}
		out[name] = m
	}
	if r.err != nil {
		return nil, r.err
	}
	return out, nil
}

type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) next(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || r.off+n > len(r.b) {
		r.err = fmt.Errorf("%w: truncated at byte %d", ErrWeights, r.off)
		return nil
	}
	b := r.b[r.off : r.off+n]
	r.off += n
	return b
}

func (r *reader) u16() uint16 {
	b := r.next(2)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint16(b)
}

func (r *reader) u32() uint32 {
	b := r.next(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

func errVocab(pieces, rows int) error {
	return fmt.Errorf("%w: %d pieces but %d embeddings", ErrWeights, pieces, rows)
}
