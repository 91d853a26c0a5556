package linear

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

// A model learns a separable rule from examples, the same model from the
// same examples, and reads back what it wrote.
func TestTrain(t *testing.T) {
	var ex []Example
	for i := range 400 {
		pos := i%3 == 0
		f := []string{fmt.Sprintf("noise:%d", i%17), "bias"}
		if pos {
			f = append(f, "cue:yes")
		} else {
			f = append(f, "cue:no")
		}
		ex = append(ex, Example{Features: f, Positive: pos})
	}
	m := Train(ex, Options{Dim: 256, Seed: 1})
	if p := m.Probability([]string{"cue:yes", "bias", "noise:3"}); p < 0.9 {
		t.Errorf("a positive's probability %.3f", p)
	}
	if p := m.Probability([]string{"cue:no", "bias", "noise:3"}); p > 0.1 {
		t.Errorf("a negative's probability %.3f", p)
	}
	again := Train(ex, Options{Dim: 256, Seed: 1})
	a, _ := m.MarshalBinary()
	b, _ := again.MarshalBinary()
	if !bytes.Equal(a, b) {
		t.Error("the same examples gave another model")
	}
	var read Model
	if err := read.UnmarshalBinary(a); err != nil {
		t.Fatal(err)
	}
	if got, want := read.Logit([]string{"cue:yes"}), m.Logit([]string{"cue:yes"}); got != want {
		t.Errorf("read back: %v, want %v", got, want)
	}
}

// Bytes that are not a model are refused, saying why.
func TestUnmarshalRefuses(t *testing.T) {
	good, _ := New(4).MarshalBinary()
	for _, c := range []struct {
		what string
		data []byte
	}{
		{"empty", nil},
		{"another magic", []byte("smg-linear 2\n\x04\x00\x00\x00")},
		{"cut short", good[:len(good)-1]},
		{"too long", append(bytes.Clone(good), 0)},
		{"not a power of two", append([]byte(magic), 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)},
		{"no weights", append([]byte(magic), 0, 0, 0, 0, 0, 0, 0, 0)},
		{"a NaN", append(bytes.Clone(good[:len(good)-4]), 0, 0, 0xc0, 0x7f)},
	} {
		var m Model
		if err := m.UnmarshalBinary(c.data); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", c.what, err)
		}
	}
}

// FuzzUnmarshal: reading any bytes never panics, and what it reads writes
// back as the same bytes.
func FuzzUnmarshal(f *testing.F) {
	good, _ := New(4).MarshalBinary()
	f.Add(good)
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Model
		if err := m.UnmarshalBinary(data); err != nil {
			return
		}
		back, _ := m.MarshalBinary()
		if !bytes.Equal(back, data) {
			t.Errorf("read %d bytes, wrote back %d others", len(data), len(back))
		}
	})
}
