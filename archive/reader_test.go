package archive

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// testBlocks are n blocks of size turns each, numbered from turn 1; the
// data of block i is the text "block i: turns a-b" compressed.
func testBlocks(n, size int) []Block {
	blocks := make([]Block, n)
	for i := range blocks {
		first, last := i*size+1, (i+1)*size
		blocks[i] = Block{First: first, Last: last, Data: Compress([]byte(blockText(i, first, last)), DefaultQuality)}
	}
	return blocks
}

func blockText(i, first, last int) string {
	return fmt.Sprintf("block %d: turns %d-%d", i, first, last)
}

// countingDecoder decodes a block's bytes to a string and counts the calls.
type countingDecoder struct{ calls atomic.Int64 }

func (d *countingDecoder) decode(i int, raw []byte) (string, error) {
	d.calls.Add(1)
	if strings.Contains(string(raw), "reject") {
		return "", errors.New("rejected")
	}
	return string(raw), nil
}

func TestReaderFind(t *testing.T) {
	blocks := testBlocks(5, 10)
	blocks[4].Last = 43 // the open block is short
	r := NewReader(blocks, 1<<20, (&countingDecoder{}).decode, nil)
	if r.Len() != 5 {
		t.Fatalf("Len %d", r.Len())
	}
	for _, tt := range []struct{ turn, index int }{{1, 0}, {10, 0}, {11, 1}, {25, 2}, {40, 3}, {41, 4}, {43, 4}, {0, -1}, {-3, -1}, {44, -1}, {1000, -1}} {
		i, ok := r.Find(tt.turn)
		if i != tt.index || ok != (tt.index >= 0) {
			t.Errorf("Find(%d) = %d, %v; want %d", tt.turn, i, ok, tt.index)
		}
	}
	if first, last := r.Range(4); first != 41 || last != 43 {
		t.Errorf("Range(4) = %d, %d", first, last)
	}

	// Blocks out of order are still found, one by one.
	blocks[0], blocks[2] = blocks[2], blocks[0]
	r = NewReader(blocks, 1<<20, (&countingDecoder{}).decode, nil)
	for turn, index := range map[int]int{5: 2, 21: 0, 30: 0, 35: 3, 42: 4, 50: -1} {
		if i, ok := r.Find(turn); i != index || ok != (index >= 0) {
			t.Errorf("unsorted: Find(%d) = %d, %v; want %d", turn, i, ok, index)
		}
	}

	if r := NewReader[string](nil, 1<<20, (&countingDecoder{}).decode, nil); r.Len() != 0 {
		t.Error("an empty archive has blocks")
	} else if _, ok := r.Find(1); ok {
		t.Error("an empty archive has turn 1")
	}
}

// TestReaderCache reads blocks in an order that shows the cache's policy:
// a hit decodes nothing, the least recently used block is the one dropped.
func TestReaderCache(t *testing.T) {
	var d countingDecoder
	r := NewReader(testBlocks(6, 3), 1<<20, d.decode, &ReaderOptions{CacheSize: 3})
	read := func(i int) {
		t.Helper()
		v, err := r.Block(i)
		if err != nil {
			t.Fatal(err)
		}
		if want := blockText(i, i*3+1, i*3+3); v != want {
			t.Fatalf("block %d is %q, want %q", i, v, want)
		}
	}
	steps := []struct {
		block   int
		decodes int64 // in all, after reading block
	}{
		{0, 1}, {1, 2}, {2, 3}, // cache: 2 1 0
		{0, 3},         // a hit: 0 2 1
		{3, 4},         // drops 1, the least recently used: 3 0 2
		{2, 4}, {0, 4}, // hits: 0 2 3
		{1, 5}, // 1 was dropped: 1 0 2, drops 3
		{3, 6}, // 3 1 0, drops 2
		{2, 7},
	}
	for n, s := range steps {
		read(s.block)
		if got := d.calls.Load(); got != s.decodes {
			t.Fatalf("step %d (block %d): %d decodes, want %d", n, s.block, got, s.decodes)
		}
	}

	// The default cache holds DefaultCacheSize blocks; a negative size none.
	d.calls.Store(0)
	r = NewReader(testBlocks(DefaultCacheSize+1, 3), 1<<20, d.decode, nil)
	for range 2 {
		for i := range DefaultCacheSize {
			read(i)
		}
	}
	if got := d.calls.Load(); got != DefaultCacheSize {
		t.Errorf("the default cache: %d decodes for %d blocks read twice", got, DefaultCacheSize)
	}
	d.calls.Store(0)
	r = NewReader(testBlocks(2, 3), 1<<20, d.decode, &ReaderOptions{CacheSize: -1})
	read(0)
	read(0)
	if got := d.calls.Load(); got != 2 {
		t.Errorf("no cache: %d decodes for two reads", got)
	}
}

// TestReaderDamaged: a block that does not decompress, one too large and
// one its decoder rejects each fail alone, are not cached, and the blocks
// around them read.
func TestReaderDamaged(t *testing.T) {
	blocks := testBlocks(5, 4)
	blocks[1].Data = append([]byte(nil), blocks[1].Data[:len(blocks[1].Data)/2]...) // cut short
	blocks[2].Data = Compress([]byte(strings.Repeat("x", 2000)), DefaultQuality)
	blocks[3].Data = Compress([]byte("reject me"), DefaultQuality)
	var d countingDecoder
	r := NewReader(blocks, 1000, d.decode, nil)
	for round := range 2 {
		for i, want := range []error{nil, ErrCorrupt, ErrTooLarge, nil, nil} {
			v, err := r.Block(i)
			var be *BlockError
			switch {
			case i == 3:
				if !errors.As(err, &be) || be.Index != 3 || err.Error() != "archive block at index 3: rejected" {
					t.Errorf("round %d, block 3: %v", round, err)
				}
			case want != nil:
				if !errors.Is(err, want) || !errors.As(err, &be) || be.Index != i {
					t.Errorf("round %d, block %d: %v, want a *BlockError wrapping %v", round, i, err, want)
				}
			case err != nil:
				t.Errorf("round %d, block %d: %v", round, i, err)
			case v != blockText(i, i*4+1, i*4+4):
				t.Errorf("round %d, block %d: %q", round, i, v)
			}
		}
	}
	// Blocks 0 and 4 were decoded once; block 3, rejected, twice; blocks 1
	// and 2 never reached the decoder.
	if got := d.calls.Load(); got != 4 {
		t.Errorf("%d decodes, want 4", got)
	}
	for _, i := range []int{-1, 5} {
		if _, err := r.Block(i); !errors.Is(err, ErrNoBlock) {
			t.Errorf("Block(%d): %v", i, err)
		}
	}
}

// TestReaderConcurrent reads every block from many goroutines at once,
// with a cache smaller than the archive; run it with -race.
func TestReaderConcurrent(t *testing.T) {
	blocks := testBlocks(12, 5)
	blocks[7].Data = blocks[7].Data[:3]
	var d countingDecoder
	r := NewReader(blocks, 1<<20, d.decode, &ReaderOptions{CacheSize: 3})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Go(func() {
			for k := range 200 {
				turn := (g*37+k*11)%60 + 1
				i, ok := r.Find(turn)
				if !ok {
					errs <- fmt.Errorf("turn %d not found", turn)
					return
				}
				v, err := r.Block(i)
				if i == 7 {
					if !errors.Is(err, ErrCorrupt) {
						errs <- fmt.Errorf("block 7: %v", err)
						return
					}
					continue
				}
				if err != nil || v != blockText(i, i*5+1, i*5+5) {
					errs <- fmt.Errorf("block %d: %q, %v", i, v, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func ExampleReader() {
	blocks := []Block{
		{First: 1, Last: 2, Data: Compress([]byte(`["one","two"]`), DefaultQuality)},
		{First: 3, Last: 3, Data: Compress([]byte(`["three"]`), DefaultQuality)},
	}
	r := NewReader(blocks, 1<<20, func(i int, raw []byte) (string, error) {
		return strings.ToUpper(string(raw)), nil
	}, nil)
	i, _ := r.Find(3)
	v, err := r.Block(i)
	fmt.Println(i, v, err)
	// Output: 1 ["THREE"] <nil>
}
