package archive

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

func TestCompressDecompress(t *testing.T) {
	raw := bytes.Repeat([]byte(`{"turn":1,"content":"hello"},`), 100)
	c := Compress(raw, DefaultQuality)
	if len(c) >= len(raw) {
		t.Errorf("%d bytes compress to %d", len(raw), len(c))
	}
	got, err := Decompress(c, int64(len(raw)))
	if err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("round trip: %v", err)
	}
	if _, err := Decompress(c, int64(len(raw)-1)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("one byte over the limit: %v", err)
	}
	if _, err := Decompress(c[:len(c)/2], 1<<20); !errors.Is(err, ErrCorrupt) {
		t.Errorf("cut in half: %v", err)
	}
	if _, err := Decompress([]byte{0xff, 0xfe, 0xfd}, 1<<20); !errors.Is(err, ErrCorrupt) {
		t.Errorf("not Brotli: %v", err)
	}
}

// FuzzDecompress: any bytes decompress within the limit or fail; never a
// panic, never more than the limit.
func FuzzDecompress(f *testing.F) {
	f.Add(Compress([]byte(`[{"turn":1}]`), DefaultQuality))
	f.Add([]byte{0x1b, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := Decompress(b, 1<<16)
		if err == nil && len(out) > 1<<16 {
			t.Fatalf("%d bytes past the limit", len(out))
		}
	})
}

// TestCompressReusesWriters checks that a pooled writer gives the same
// bytes as a fresh one, whatever it compressed before.
func TestCompressReusesWriters(t *testing.T) {
	a := bytes.Repeat([]byte(`{"turn":1,"content":"first"},`), 300)
	b := bytes.Repeat([]byte(`{"turn":2,"content":"second, longer"},`), 50)
	fresh := Compress(b, DefaultQuality)
	for range 3 {
		Compress(a, DefaultQuality)
		if got := Compress(b, DefaultQuality); !bytes.Equal(got, fresh) {
			t.Fatal("a reused writer gives other bytes")
		}
	}
}

func BenchmarkCompressBlock(b *testing.B) {
	raw := bytes.Repeat([]byte(`{"content":"I went to a support group yesterday and it was so powerful.","speaker":"Caroline","turn":1},`), 120)
	for _, q := range []int{4, 6, 9, 11} {
		b.Run(fmt.Sprintf("q%d", q), func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				Compress(raw, q)
			}
		})
	}
}
