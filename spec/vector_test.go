package spec_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/smg-memory/smg/spec"
)

// TestVectorExample checks the example of spec §8.3: (0.25, −1, 0.5, 0) is
// 00 00 80 3E, 00 00 80 BF, 00 00 00 3F, 00 00 00 00, and in base64
// "AACAPgAAgL8AAAA/AAAAAA==".
func TestVectorExample(t *testing.T) {
	v := []float32{0.25, -1, 0.5, 0}
	b := spec.EncodeVector(v)
	want := []byte{0x00, 0x00, 0x80, 0x3E, 0x00, 0x00, 0x80, 0xBF, 0x00, 0x00, 0x00, 0x3F, 0x00, 0x00, 0x00, 0x00}
	if !bytes.Equal(b, want) {
		t.Fatalf("EncodeVector = % x, want % x", []byte(b), want)
	}
	if got := base64.StdEncoding.EncodeToString(b); got != "AACAPgAAgL8AAAA/AAAAAA==" {
		t.Fatalf("base64 = %s", got)
	}
	txt, err := b.MarshalText()
	if err != nil || string(txt) != "AACAPgAAgL8AAAA/AAAAAA==" {
		t.Fatalf("MarshalText = %s, %v", txt, err)
	}
	back, err := spec.DecodeVector(b)
	if err != nil || !slices.Equal(back, v) {
		t.Fatalf("DecodeVector = %v, %v", back, err)
	}
	// The second vector of the example: (1, 0, −0.5, 0.125).
	raw, _ := base64.StdEncoding.DecodeString("AACAPwAAAAAAAAC/AAAAPg==")
	if got, err := spec.DecodeVector(raw); err != nil || !slices.Equal(got, []float32{1, 0, -0.5, 0.125}) {
		t.Fatalf("DecodeVector = %v, %v", got, err)
	}
}

// TestVectorBits checks that the bits survive: NaN payloads, infinities,
// negative zero, subnormals.
func TestVectorBits(t *testing.T) {
	v := []float32{
		math.Float32frombits(0x7fc00001), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat32, math.MaxFloat32,
	}
	back, err := spec.DecodeVector(spec.EncodeVector(v))
	if err != nil {
		t.Fatal(err)
	}
	for i := range v {
		if math.Float32bits(back[i]) != math.Float32bits(v[i]) {
			t.Errorf("value %d: bits %08x, want %08x", i, math.Float32bits(back[i]), math.Float32bits(v[i]))
		}
	}
	if b := spec.EncodeVector(nil); len(b) != 0 {
		t.Errorf("EncodeVector(nil) = % x", []byte(b))
	}
	if got, err := spec.DecodeVector(nil); err != nil || len(got) != 0 {
		t.Errorf("DecodeVector(nil) = %v, %v", got, err)
	}
	if got := spec.AppendVector([]byte{9}, []float32{1}); !bytes.Equal(got, []byte{9, 0, 0, 0x80, 0x3f}) {
		t.Errorf("AppendVector = % x", got)
	}
}

func TestDecodeVectorLength(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 7} {
		if _, err := spec.DecodeVector(make([]byte, n)); !errors.Is(err, spec.ErrVectorLength) {
			t.Errorf("%d bytes: err = %v, want ErrVectorLength", n, err)
		}
	}
}

// FuzzDecodeVector: bytes decode to a vector that encodes back to them,
// or to ErrVectorLength.
func FuzzDecodeVector(f *testing.F) {
	f.Add([]byte{0, 0, 128, 63, 0, 0, 0, 64})
	f.Add([]byte{1, 2, 3})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := spec.DecodeVector(b)
		if err != nil {
			if len(b)%4 == 0 && len(b) > 0 {
				t.Fatalf("%d bytes: %v", len(b), err)
			}
			return
		}
		if got := spec.EncodeVector(v); !bytes.Equal(got, b) {
			t.Fatalf("%x decodes and encodes to %x", b, got)
		}
	})
}

// TestVectorInt8Example checks the int8 example of spec §8.3: (0.25, −1,
// 0.5, 0) has the scale 1/127 (04 02 01 3C) and the values 32, −127, 64
// and 0 (20 81 40 00), and decodes to (32/127, −1, 64/127, 0).
func TestVectorInt8Example(t *testing.T) {
	b := spec.EncodeVectorInt8([]float32{0.25, -1, 0.5, 0})
	want := []byte{0x04, 0x02, 0x01, 0x3C, 0x20, 0x81, 0x40, 0x00}
	if !bytes.Equal(b, want) {
		t.Fatalf("EncodeVectorInt8 = % x, want % x", []byte(b), want)
	}
	if got := base64.StdEncoding.EncodeToString(b); got != "BAIBPCCBQAA=" {
		t.Fatalf("base64 = %s", got)
	}
	scale := float32(1.0 / 127)
	back, err := spec.DecodeVectorAs(spec.EncodingInt8, 4, b)
	if err != nil || !slices.Equal(back, []float32{32 * scale, -127 * scale, 64 * scale, 0}) {
		t.Fatalf("DecodeVectorAs = %v, %v", back, err)
	}
	// The second vector of the example: (1, 0, −0.5, 0.125).
	b = spec.EncodeVectorInt8([]float32{1, 0, -0.5, 0.125})
	if got := base64.StdEncoding.EncodeToString(b); got != "BAIBPH8AwBA=" {
		t.Fatalf("base64 = %s (% x)", got, []byte(b))
	}
	// The third, of an excerpt: (0, 0, 1, −1).
	b = spec.EncodeVectorInt8([]float32{0, 0, 1, -1})
	if got := base64.StdEncoding.EncodeToString(b); got != "BAIBPAAAf4E=" {
		t.Fatalf("base64 = %s (% x)", got, []byte(b))
	}
}

// TestVectorRoundTrips: both encodings give back what they keep: float32
// every bit, int8 each value within half a step (scale / 2) and the
// largest exactly in magnitude.
func TestVectorRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		v := make([]float32, 1+r.IntN(600))
		for i := range v {
			v[i] = float32(r.NormFloat64() * math.Exp(r.NormFloat64()))
		}
		back, err := spec.DecodeVectorAs(spec.EncodingFloat32, len(v), spec.EncodeVector(v))
		if err != nil || !slices.Equal(back, v) {
			t.Fatalf("float32: %v", err)
		}
		if back, err := spec.DecodeVectorAs("", len(v), spec.EncodeVector(v)); err != nil || !slices.Equal(back, v) {
			t.Fatalf("no encoding: %v", err)
		}
		b := spec.EncodeVectorInt8(v)
		if len(b) != 4+len(v) {
			t.Fatalf("int8: %d bytes for %d values", len(b), len(v))
		}
		back, err = spec.DecodeVectorAs(spec.EncodingInt8, len(v), b)
		if err != nil {
			t.Fatal(err)
		}
		var most float64
		for _, x := range v {
			most = max(most, math.Abs(float64(x)))
		}
		step := most / 127
		for i := range v {
			if d := math.Abs(float64(back[i] - v[i])); d > step/2*(1+1e-5) {
				t.Fatalf("int8: value %d: %g back as %g, off by %g, more than half a step %g", i, v[i], back[i], d, step)
			}
		}
	}
	// Zeros keep the scale 0.
	b := spec.EncodeVectorInt8(make([]float32, 3))
	if !bytes.Equal(b, make([]byte, 7)) {
		t.Errorf("zeros: % x", []byte(b))
	}
	if got := spec.AppendVectorInt8([]byte{9}, []float32{-2}); !bytes.Equal(got, []byte{9, 0x04, 0x02, 0x81, 0x3C, 0x81}) {
		t.Errorf("AppendVectorInt8 = % x", got)
	}
}

// TestInt8Cosine: on random 512-dimensional vectors (normal values, and
// the skewed ones of a few large values) the cosine of a vector and its
// int8 form is at least 0.999.
func TestInt8Cosine(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	worst := 1.0
	for k := range 1000 {
		v := make([]float32, 512)
		for i := range v {
			v[i] = float32(r.NormFloat64())
			if k%2 == 1 && r.IntN(64) == 0 {
				v[i] *= 4
			}
		}
		back, err := spec.DecodeVectorAs(spec.EncodingInt8, 512, spec.EncodeVectorInt8(v))
		if err != nil {
			t.Fatal(err)
		}
		var dot, na, nb float64
		for i := range v {
			dot += float64(v[i]) * float64(back[i])
			na += float64(v[i]) * float64(v[i])
			nb += float64(back[i]) * float64(back[i])
		}
		worst = min(worst, dot/math.Sqrt(na*nb))
	}
	if worst < 0.999 {
		t.Errorf("the worst cosine of a vector and its int8 form is %.5f, want ≥ 0.999", worst)
	}
}

// TestDecodeVectorAsErrors: a wrong length or an unknown encoding is a
// *VectorError that says what is wrong and wraps its sentinel.
func TestDecodeVectorAsErrors(t *testing.T) {
	for _, c := range []struct {
		enc  string
		dims int
		n    int
		want error
		msg  string
	}{
		{"float32", 4, 15, spec.ErrVectorLength, "15 bytes, but a vector of 4 dimensions in float32 takes 16"},
		{"", 4, 17, spec.ErrVectorLength, "17 bytes, but a vector of 4 dimensions in float32 takes 16"},
		{"int8", 4, 16, spec.ErrVectorLength, "16 bytes, but a vector of 4 dimensions in int8 takes 8"},
		{"int8", 4, 4, spec.ErrVectorLength, "4 bytes, but a vector of 4 dimensions in int8 takes 8"},
		{"int8", 0, 0, spec.ErrVectorLength, "0 bytes, but a vector of 0 dimensions in int8 takes 4"},
		{"float16", 4, 8, spec.ErrVectorEncoding, `unknown vector encoding "float16"`},
		{"INT8", 4, 8, spec.ErrVectorEncoding, `unknown vector encoding "INT8"`},
		{"int8", -1, 3, spec.ErrVectorLength, "-1 dimensions"},
	} {
		_, err := spec.DecodeVectorAs(c.enc, c.dims, make([]byte, c.n))
		var ve *spec.VectorError
		if !errors.Is(err, c.want) || !errors.As(err, &ve) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s, %d dims, %d bytes: %v, want %v saying %q", c.enc, c.dims, c.n, err, c.want, c.msg)
		}
	}
	if n, err := spec.VectorSize("int8", 512); n != 516 || err != nil {
		t.Errorf("VectorSize(int8, 512) = %d, %v", n, err)
	}
	if n, err := spec.VectorSize("float32", 512); n != 2048 || err != nil {
		t.Errorf("VectorSize(float32, 512) = %d, %v", n, err)
	}
}

// FuzzDecodeVectorAs: bytes decode in an encoding to a vector of the
// dimensions asked, or to a *VectorError; float32 bytes encode back to
// themselves, and int8 values are the scale times the bytes.
func FuzzDecodeVectorAs(f *testing.F) {
	f.Add("int8", 4, []byte{0x04, 0x02, 0x01, 0x3C, 0x20, 0x81, 0x40, 0x00})
	f.Add("float32", 2, []byte{0, 0, 128, 63, 0, 0, 0, 64})
	f.Add("", 1, []byte{1, 2, 3})
	f.Add("int8", 0, []byte{0, 0, 0, 0})
	f.Add("bfloat16", 2, []byte{1, 2, 3, 4})
	f.Add("", -63, []byte{})
	f.Fuzz(func(t *testing.T, enc string, dims int, b []byte) {
		dims %= 4096
		v, err := spec.DecodeVectorAs(enc, dims, b)
		if err != nil {
			var ve *spec.VectorError
			if !errors.As(err, &ve) || err.Error() == "" {
				t.Fatalf("%v is not a *VectorError", err)
			}
			if n, serr := spec.VectorSize(enc, dims); serr == nil && n == len(b) {
				t.Fatalf("%s, %d dims, %d bytes: %v", enc, dims, len(b), err)
			}
			return
		}
		if len(v) != dims {
			t.Fatalf("%d values, want %d", len(v), dims)
		}
		switch enc {
		case "", "float32":
			if got := spec.EncodeVector(v); !bytes.Equal(got, b) {
				t.Fatalf("%x decodes and encodes to %x", b, got)
			}
		case "int8":
			scale := math.Float32frombits(binary.LittleEndian.Uint32(b))
			for i, q := range b[4:] {
				if w := scale * float32(int8(q)); math.Float32bits(w) != math.Float32bits(v[i]) && !(w != w && v[i] != v[i]) {
					t.Fatalf("value %d: %g, want %g × %d", i, v[i], scale, int8(q))
				}
			}
		default:
			t.Fatalf("encoding %q decoded", enc)
		}
	})
}

// TestWithoutVectors: a document without its vectors keeps the index's
// header and leaves the document it was made from as it was.
func TestWithoutVectors(t *testing.T) {
	vi := &spec.VectorIndex{Enabled: true, Model: "m", Dimensions: 2, Embeddings: []spec.Embedding{{Turn: 1, Vector: spec.EncodeVector([]float32{1, 0})}}}
	doc := &spec.Document{}
	doc.DeepArchive.VectorIndex = vi
	out := doc.WithoutVectors()
	if got := out.DeepArchive.VectorIndex; got == nil || got.Model != "m" || got.Dimensions != 2 || len(got.Embeddings) != 0 {
		t.Errorf("without vectors: %+v", got)
	}
	if len(doc.DeepArchive.VectorIndex.Embeddings) != 1 || doc.DeepArchive.VectorIndex != vi {
		t.Error("the document it was made from changed")
	}
	if (*spec.VectorIndex)(nil).Header() != nil || (&spec.Document{}).WithoutVectors().DeepArchive.VectorIndex != nil {
		t.Error("no index: a header of one")
	}
}
