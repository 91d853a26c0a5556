// Package linear is a linear model over hashed features: a logistic
// regression whose features are strings (words, pairs of words, cues),
// each hashed to one of Dim weights, so that a model is a fixed, small
// array whatever its vocabulary. It trains by stochastic gradient descent
// in a fixed order, so that the same examples give the same model, and
// reads and writes its weights in a small binary form. It imports nothing
// of the project.
package linear

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// Model is a logistic regression over hashed features.
type Model struct {
	// W are the weights, one a hash bucket; their number is a power of
	// two.
	W []float32
	// Bias is added to every score.
	Bias float32
}

// New returns a model of dim weights, all zero; dim is rounded up to a
// power of two.
func New(dim int) *Model {
	n := 1
	for n < dim {
		n <<= 1
	}
	return &Model{W: make([]float32, n)}
}

// bucket is the weight of feature f.
func (m *Model) bucket(f string) int {
	h := fnv.New32a()
	h.Write([]byte(f))
	return int(h.Sum32() & uint32(len(m.W)-1))
}

// Logit is the model's score of features before the logistic function:
// above 0, more likely than not.
func (m *Model) Logit(features []string) float64 {
	z := float64(m.Bias)
	for _, f := range features {
		z += float64(m.W[m.bucket(f)])
	}
	return z
}

// Probability is the model's probability that features are of the
// positive class.
func (m *Model) Probability(features []string) float64 {
	return 1 / (1 + math.Exp(-m.Logit(features)))
}

// Example is a training example: its features and its class.
type Example struct {
	Features []string
	Positive bool
}

// Options tune training; the zero value takes the defaults.
type Options struct {
	// Dim is the number of weights (16,384 when 0).
	Dim int
	// Epochs over the examples (8 when 0), at a learning rate of Rate
	// (0.1 when 0) and an L2 penalty of L2 (1e-5 when 0).
	Epochs   int
	Rate, L2 float64
	// Seed orders the examples of each epoch.
	Seed uint64
}

// Train fits a model to examples by stochastic gradient descent on the
// logistic loss, the examples taken in an order Seed fixes: the same
// examples and options give the same model.
func Train(examples []Example, o Options) *Model {
	if o.Dim == 0 {
		o.Dim = 1 << 14
	}
	if o.Epochs == 0 {
		o.Epochs = 8
	}
	if o.Rate == 0 {
		o.Rate = 0.1
	}
	if o.L2 == 0 {
		o.L2 = 1e-5
	}
	m := New(o.Dim)
	w := make([]float64, len(m.W))
	bias := 0.0
	buckets := make([][]int, len(examples))
	for i, e := range examples {
		for _, f := range e.Features {
			buckets[i] = append(buckets[i], m.bucket(f))
		}
	}
	order := make([]int, len(examples))
	for i := range order {
		order[i] = i
	}
	r := rand.New(rand.NewPCG(o.Seed, 0x736d67))
	for range o.Epochs {
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, i := range order {
			z := bias
			for _, k := range buckets[i] {
				z += w[k]
			}
			y := 0.0
			if examples[i].Positive {
				y = 1
			}
			g := 1/(1+math.Exp(-z)) - y
			for _, k := range buckets[i] {
				w[k] -= o.Rate * (g + o.L2*w[k])
			}
			bias -= o.Rate * g
		}
	}
	for i, x := range w {
		m.W[i] = float32(x)
	}
	m.Bias = float32(bias)
	return m
}

// magic starts the binary form of a model.
const magic = "smg-linear 1\n"

// MaxDim is the most weights a model read may have.
const MaxDim = 1 << 22

// ErrFormat is the error of bytes that are not a model.
var ErrFormat = errors.New("not a linear model")

// MarshalBinary writes the model: the magic line, the number of weights
// and the bias, then the weights, little-endian float32.
func (m *Model) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(magic)
	binary.Write(&b, binary.LittleEndian, uint32(len(m.W)))
	binary.Write(&b, binary.LittleEndian, m.Bias)
	binary.Write(&b, binary.LittleEndian, m.W)
	return b.Bytes(), nil
}

// UnmarshalBinary reads a model MarshalBinary wrote; anything else is an
// error that matches ErrFormat and says what is wrong.
func (m *Model) UnmarshalBinary(data []byte) error {
	rest, ok := bytes.CutPrefix(data, []byte(magic))
	if !ok {
		return fmt.Errorf("%w: no %q at the start", ErrFormat, magic[:len(magic)-1])
	}
	if len(rest) < 8 {
		return fmt.Errorf("%w: %d bytes after the magic, want at least 8", ErrFormat, len(rest))
	}
	n := binary.LittleEndian.Uint32(rest)
	if n == 0 || n > MaxDim || n&(n-1) != 0 {
		return fmt.Errorf("%w: %d weights, want a power of two up to %d", ErrFormat, n, MaxDim)
	}
	if want := 8 + 4*int(n); len(rest) != want {
		return fmt.Errorf("%w: %d bytes of weights for %d weights, want %d", ErrFormat, len(rest)-8, n, want-8)
	}
	w := make([]float32, n)
	for i := range w {
		w[i] = math.Float32frombits(binary.LittleEndian.Uint32(rest[8+4*i:]))
		if math.IsNaN(float64(w[i])) || math.IsInf(float64(w[i]), 0) {
			return fmt.Errorf("%w: weight %d is %v", ErrFormat, i, w[i])
		}
	}
	bias := math.Float32frombits(binary.LittleEndian.Uint32(rest[4:]))
	if math.IsNaN(float64(bias)) || math.IsInf(float64(bias), 0) {
		return fmt.Errorf("%w: the bias is %v", ErrFormat, bias)
	}
	m.W, m.Bias = w, bias
	return nil
}
