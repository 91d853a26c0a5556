package serve

import (
	"container/list"
	"sync"

	"github.com/smg-memory/smg/smg"
)

// DefaultOpen is how many memories a store keeps open unless told.
const DefaultOpen = 64

// openSet is the memories a store keeps open, with their indexes: the
// most recently used, up to max. A memory that leaves it while requests
// use it is closed when the last of them is done. It is safe for
// concurrent use.
type openSet struct {
	max int

	mu           sync.Mutex
	open         map[string]*list.Element // of *openMemory, by key
	lru          *list.List               // most recent first
	hits, misses int64                    // opens of a memory open, of one read from the store

	// close closes a memory let go of; tests count the calls.
	close func(smg.Kept) error
}

// openMemory is a memory the store keeps open: closed when it leaves the
// LRU, or, when requests use it then, when the last of them is done.
type openMemory struct {
	key     string
	f       smg.Kept
	refs    int  // requests using it
	evicted bool // out of the LRU: closed when refs drops to 0
}

// closer is a kept memory that holds an index: *smg.FileMemory and
// *smg.StoredMemory.
type closer interface{ Close() error }

func newOpenSet(maxOpen int) *openSet {
	if maxOpen <= 0 {
		maxOpen = DefaultOpen
	}
	return &openSet{max: maxOpen, open: map[string]*list.Element{}, lru: list.New(), close: closeKept}
}

// closeKept closes a kept memory that holds an index.
func closeKept(k smg.Kept) error {
	if c, ok := k.(closer); ok {
		return c.Close()
	}
	return nil
}

// get returns the open memory of key, used by one more request, and its
// done; a miss is counted.
func (s *openSet) get(key string) (smg.Kept, func(), bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.open[key]
	if !ok {
		s.misses++
		return nil, nil, false
	}
	s.hits++
	s.lru.MoveToFront(e)
	om := e.Value.(*openMemory)
	om.refs++
	return om.f, s.release(om), true
}

// keep adds a memory just opened, used by one request, and lets go of the
// least recently used past the bound. When another request opened key
// meanwhile, that memory is kept and given instead, and f closed.
func (s *openSet) keep(key string, f smg.Kept) (smg.Kept, func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.open[key]; ok {
		_ = s.close(f)
		s.lru.MoveToFront(e)
		om := e.Value.(*openMemory)
		om.refs++
		return om.f, s.release(om)
	}
	om := &openMemory{key: key, f: f, refs: 1}
	s.open[key] = s.lru.PushFront(om)
	for s.lru.Len() > s.max {
		s.forgetLocked(s.lru.Back().Value.(*openMemory).key)
	}
	return f, s.release(om)
}

// release is the done of a request that uses om.
func (s *openSet) release(om *openMemory) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if om.refs--; om.refs == 0 && om.evicted {
				_ = s.close(om.f)
			}
		})
	}
}

// forget takes the memory of key out of the set, and closes it unless a
// request uses it (the last to be done closes it). It returns the memory,
// or nil when the set did not hold it.
func (s *openSet) forget(key string) smg.Kept {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.forgetLocked(key)
}

func (s *openSet) forgetLocked(key string) smg.Kept {
	e, ok := s.open[key]
	if !ok {
		return nil
	}
	s.lru.Remove(e)
	delete(s.open, key)
	om := e.Value.(*openMemory)
	om.evicted = true
	if om.refs == 0 {
		_ = s.close(om.f)
	}
	return om.f
}

// stats counts the memories open and the opens served from them or not.
func (s *openSet) stats() StoreStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return StoreStats{Open: int64(s.lru.Len()), Hits: s.hits, Misses: s.misses}
}

// closeAll lets go of every memory.
func (s *openSet) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key := range s.open {
		s.forgetLocked(key)
	}
}
