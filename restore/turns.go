package restore

import (
	"sync"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// turnStore gives the turns of a memory's archive, decoding a block the
// first time one of its turns is asked for and keeping it: "what error did
// we see two hours ago?" decompresses the block of the turn it finds, not
// the archive. An engine that indexes its turns itself reads every block
// once, and holds them all, as the answer to every question reads turns
// from all over the archive; one that opens its index from a cache reads
// only the blocks its answers need.
type turnStore struct {
	r *archive.Reader[[]spec.Turn]
	// ranges are the first and last turn of each block, so that a block
	// carried over to a later version of the memory is recognised.
	ranges [][2]int
	n      int // the last turn the archive holds

	mu     sync.Mutex
	blocks [][]spec.Turn // decoded blocks, by index; nil until read
}

func newTurnStore(doc *spec.Document) *turnStore {
	s := &turnStore{r: graph.NewTurnReader(doc, -1)}
	s.ranges = make([][2]int, s.r.Len())
	s.blocks = make([][]spec.Turn, s.r.Len())
	for i := range s.ranges {
		first, last := s.r.Range(i)
		s.ranges[i] = [2]int{first, last}
		s.n = max(s.n, last)
	}
	return s
}

// carry keeps the blocks old has decoded that hold the same turns here:
// turns never change once archived, so a block with the same range is the
// same block, and only the growing last block and the new ones are read
// again.
func (s *turnStore) carry(old *turnStore) {
	old.mu.Lock()
	defer old.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, rg := range s.ranges {
		if i < len(old.ranges) && old.ranges[i] == rg {
			s.blocks[i] = old.blocks[i]
		}
	}
}

// block returns the turns of block i, decoding them if need be.
func (s *turnStore) block(i int) ([]spec.Turn, error) {
	s.mu.Lock()
	b := s.blocks[i]
	s.mu.Unlock()
	if b != nil {
		return b, nil
	}
	b, err := s.r.Block(i)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.blocks[i] = b
	s.mu.Unlock()
	return b, nil
}

// turn returns turn n. A turn whose block cannot be read is missing, like
// a turn the archive does not have: a damaged block costs its own turns,
// not the context.
func (s *turnStore) turn(n int) (spec.Turn, bool) {
	i, ok := s.r.Find(n)
	if !ok {
		return spec.Turn{}, false
	}
	b, err := s.block(i)
	if err != nil {
		return spec.Turn{}, false
	}
	if j := n - s.ranges[i][0]; j >= 0 && j < len(b) && b[j].Turn == n {
		return b[j], true
	}
	return spec.Turn{}, false
}
