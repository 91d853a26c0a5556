package chunks

import (
	"bytes"
	"encoding/gob"
	"slices"
	"testing"
)

// TestRoundTrip: a list put in chunks is got back whole, an empty one as
// nil; a length the chunks do not add up to is an error.
func TestRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 3, 4, 9} {
		list := make([]int, n)
		for i := range list {
			list[i] = i * i
		}
		var buf bytes.Buffer
		enc := gob.NewEncoder(&buf)
		if err := Put(enc, list, 3); err != nil {
			t.Fatal(err)
		}
		got, err := Get[int](gob.NewDecoder(&buf))
		if err != nil || !slices.Equal(got, list) || (n == 0) != (got == nil) {
			t.Errorf("%d elements: got %v, %v", n, got, err)
		}
	}
	for name, write := range map[string]func(*gob.Encoder){
		"negative":  func(enc *gob.Encoder) { enc.Encode(-1) },
		"too many":  func(enc *gob.Encoder) { enc.Encode(2); enc.Encode([]int{1, 2, 3}) },
		"cut short": func(enc *gob.Encoder) { enc.Encode(5); enc.Encode([]int{1, 2}) },
	} {
		var buf bytes.Buffer
		write(gob.NewEncoder(&buf))
		if _, err := Get[int](gob.NewDecoder(&buf)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
