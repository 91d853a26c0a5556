package archive

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestCompressDecompress(t *testing.T) {
	raw := bytes.Repeat([]byte(`{"turn":1,"content":"hello"},`), 100)
	c := Compress(raw, DefaultQuality)
	if len(c) >= len(raw) {
		t.Errorf("%d bytes compress to %d", len(raw), len(c))
	}
	// A memory keeps its blocks' streams: no room beyond them.
	if cap(c) != len(c) {
		t.Errorf("a stream of %d bytes in %d", len(c), cap(c))
	}
	// The buffers are reused, not what Compress returned.
	again := Compress(bytes.Repeat([]byte("other"), 1000), DefaultQuality)
	if got, err := Decompress(c, int64(len(raw))); err != nil || !bytes.Equal(got, raw) || &again[0] == &c[0] {
		t.Fatalf("after another: %v", err)
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
		// Whatever size a block claims, it decompresses to the same.
		for _, size := range []int64{1, int64(len(out)), 1 << 40} {
			got, gotErr := decompress(b, size, 1<<16)
			if !bytes.Equal(got, out) || (gotErr == nil) != (err == nil) {
				t.Fatalf("claiming %d bytes: %d bytes, %v; want %d, %v", size, len(got), gotErr, len(out), err)
			}
		}
	})
}

// TestDecompressReusesReaders checks that a pooled reader decompresses as
// a fresh one, after streams of other sizes, after a corrupt stream, and
// on several goroutines at once.
func TestDecompressReusesReaders(t *testing.T) {
	var raws, streams [][]byte
	for i := range 4 {
		raw := bytes.Repeat([]byte(fmt.Sprintf(`{"turn":%d,"content":"text %d"},`, i, i*i)), 10+i*500)
		raws, streams = append(raws, raw), append(streams, Compress(raw, DefaultQuality))
	}
	check := func(t *testing.T) {
		for i, c := range streams {
			if _, err := Decompress(c[:len(c)/2], 1<<20); !errors.Is(err, ErrCorrupt) {
				t.Errorf("cut in half: %v", err)
			}
			got, err := decompress(c, int64(len(raws[i])), 1<<24)
			if err != nil || !bytes.Equal(got, raws[i]) {
				t.Errorf("stream %d: %d bytes, %v; want %d", i, len(got), err, len(raws[i]))
			}
		}
	}
	for range 3 {
		check(t)
	}
	done := make(chan bool)
	for range 4 {
		go func() {
			check(t)
			done <- true
		}()
	}
	for range 4 {
		<-done
	}
}

// TestDecompressSize checks that the size a block claims sizes the buffer
// once, and that a wrong claim changes nothing but the buffer.
func TestDecompressSize(t *testing.T) {
	// Text that compresses as turns do, a few times, not a thousand.
	var raw []byte
	words := strings.Fields("the webhook returns 401 in production and the Stripe dashboard says no signatures found matching the expected payload so we switched from SQLite to PostgreSQL because workers kept hitting locks")
	for i := range 3000 {
		raw = fmt.Appendf(raw, `{"turn":%d,"content":"%s %s %d"},`, i, words[i*7%len(words)], words[i*i%len(words)], i*i%977)
	}
	c := Compress(raw, DefaultQuality)
	if len(raw) > maxRatio*len(c) {
		t.Fatalf("the text compresses %d times", len(raw)/len(c))
	}
	for _, size := range []int64{0, 1, int64(len(raw)) - 1, int64(len(raw)), int64(len(raw)) + 1, 1 << 40} {
		got, err := decompress(c, size, 1<<24)
		if err != nil || !bytes.Equal(got, raw) {
			t.Errorf("claiming %d bytes: %d bytes, %v", size, len(got), err)
		}
		if _, err := decompress(c, size, int64(len(raw)-1)); !errors.Is(err, ErrTooLarge) {
			t.Errorf("claiming %d bytes, one byte over the limit: %v", size, err)
		}
	}
	got, _ := decompress(c, int64(len(raw)), 1<<24)
	if cap(got) != len(raw)+1 {
		t.Errorf("the true size made a buffer of %d bytes for %d", cap(got), len(raw))
	}
	small := Compress([]byte("hello"), DefaultQuality)
	got, err := decompress(small, 1<<40, 1<<30)
	if bound := maxRatio*len(small) + 512; err != nil || cap(got) > bound {
		t.Errorf("a claim of 2^40 bytes made a buffer of %d bytes, over %d (%v)", cap(got), bound, err)
	}
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

// TestDecompressBombCostsItsLimit: data that decompresses beyond the limit
// is refused having allocated little more than the limit, not the four
// times it that a buffer grown by append leaves behind.
func TestDecompressBombCostsItsLimit(t *testing.T) {
	const limit = 16 << 20
	bomb := Compress(bytes.Repeat([]byte(" "), limit+1), 5)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Decompress(bomb, limit)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want %v", err, ErrTooLarge)
	}
	// The decoder's own buffers: its window of 4 MiB, and tables.
	if n := after.TotalAlloc - before.TotalAlloc; n > limit+8<<20 {
		t.Errorf("%d MiB allocated to refuse %d MiB", n>>20, limit>>20)
	}
}
