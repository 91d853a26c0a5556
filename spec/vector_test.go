package spec_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"math"
	"slices"
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
