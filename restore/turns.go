package restore

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/classify"
	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// turnStore gives the turns of a memory's archive, decoding a block the
// first time one of its turns is asked for and keeping it: "what error did
// we see two hours ago?" decompresses the block of the turn it finds, not
// the archive. An engine that indexes its turns itself reads every block
// once (read) and keeps them all, as the answers to a memory's questions
// read turns from all over it, unless it answers once (keep unset,
// Config.ReadOnce): then, as an engine that opens its index from a cache,
// it keeps those its answers ask for.
//
// Holding every block of the 38,912-turn memory took 175 MB more of a
// context without the cache; not holding them in a live engine took its
// warm contexts there from p50 15 to 20 ms, and at 10,000 LoCoMo turns a
// context right after a live turn from p99 97–112 ms to 175–210 ms, its
// blocks decoded again.
type turnStore struct {
	r *archive.Reader[[]spec.Turn]
	// ranges are the first and last turn of each block, so that a block
	// carried over to a later version of the memory is recognised.
	ranges [][2]int
	n      int // the last turn the archive holds

	mu     sync.Mutex
	blocks [][]spec.Turn // decoded blocks, by index; nil until read
	// failed are the errors of the blocks that could not be read, by
	// index: a block's data never changes, so it is not read again.
	failed []error
	// entries are the turns of the decoded blocks and how a context shows
	// them, by index.
	entries [][]turnEntry
	// tokens are the token counts of the turns' lines, by tokenizer name
	// and turn number: the count plus one, 0 until counted.
	tokens map[string][]atomic.Int32
	// byTurn are the turns of the decoded blocks and how they are shown,
	// by number, when the blocks' ranges are in order and apart (direct),
	// so that each turn is in one block: a context asks for a turn a
	// dozen times (its neighbours', its speaker…), and finding its block
	// and locking the store each time took a tenth of it.
	byTurn []atomic.Pointer[turnEntry]
	direct bool
	// keep keeps the blocks read to index (read).
	keep bool
}

// turnEntry is a turn of a decoded block, and how a context shows it,
// worked out when first asked for: a context reads blocks for a few of
// their turns, and classifying every turn of the 300 blocks a first
// context reads from the index cache of 38,912 turns took a third of it.
type turnEntry struct {
	turn  *spec.Turn
	once  sync.Once
	shown shownTurn
}

// show is how a context shows the entry's turn.
func (e *turnEntry) show() shownTurn {
	e.once.Do(func() { e.shown = showTurn(*e.turn) })
	return e.shown
}

// shownTurn is how a context shows a turn: who says it and what of its
// content is shown (line), the line of its date it goes under ("" when it
// has none), whether it is long, shown in passages, and whether it is
// small talk or a coding session's chatter (a command to the agent, the
// agent's account of its own work), never shown. Worked out once, when
// the turn is first asked for (turnEntry). The content shown is the
// turn's own string, trimmed, unless a part of it is not shown: a memory
// kept open holds no second copy of its turns' text (120 MB of 38,912
// project turns), and a context makes the lines of the turns it uses.
type shownTurn struct {
	who, text, group string
	long, small      bool
}

func showTurn(t spec.Turn) shownTurn {
	small := classify.SmallTalk(t.Content) || (t.Role == spec.RoleTool || t.Role == spec.RoleUser) && classify.AllChatter(t.Content)
	st := shownTurn{who: t.Speaker, text: strings.TrimSpace(shownContent(t)), long: isLong(t.Content), small: small}
	if st.who == "" {
		st.who = t.Role
	}
	if d := dateOf(t.Timestamp); d != "" {
		st.group = "[" + d + "]"
	}
	return st
}

// line is the turn as a context shows it, "Caroline: …", under the line
// of its date (group).
func (st shownTurn) line() string { return st.who + ": " + st.text }

func newTurnStore(doc *spec.Document, blocks *graph.TurnReaderOptions) *turnStore {
	s := &turnStore{r: graph.NewTurnReader(doc, blocks.Uncached())}
	s.ranges = make([][2]int, s.r.Len())
	s.blocks = make([][]spec.Turn, s.r.Len())
	s.failed = make([]error, s.r.Len())
	s.entries = make([][]turnEntry, s.r.Len())
	s.tokens = map[string][]atomic.Int32{}
	s.direct = true
	for i := range s.ranges {
		first, last := s.r.Range(i)
		s.ranges[i] = [2]int{first, last}
		s.n = max(s.n, last)
		if first < 0 || last < first || i > 0 && first <= s.ranges[i-1][1] {
			s.direct = false
		}
	}
	if s.direct {
		s.byTurn = make([]atomic.Pointer[turnEntry], s.n+1)
	}
	return s
}

// enter puts the entries of decoded block i in byTurn: those shownTurn
// finds in it, at the place its range gives them.
func (s *turnStore) enter(i int, ents []turnEntry) {
	if !s.direct {
		return
	}
	for j := range ents {
		if n := s.ranges[i][0] + j; ents[j].turn.Turn == n && n <= s.ranges[i][1] {
			s.byTurn[n].Store(&ents[j])
		}
	}
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
	for name := range old.tokens {
		s.tokens[name] = make([]atomic.Int32, s.n+1)
	}
	for i, rg := range s.ranges {
		if i < len(old.ranges) && old.ranges[i] == rg {
			s.blocks[i], s.entries[i], s.failed[i] = old.blocks[i], old.entries[i], old.failed[i]
			if s.blocks[i] != nil {
				s.enter(i, s.entries[i])
			}
			// And so are the token counts of its turns.
			for name, counts := range old.tokens {
				for n := rg[0]; n <= rg[1] && n < len(counts); n++ {
					s.tokens[name][n].Store(counts[n].Load())
				}
			}
		}
	}
}

// count returns the tokens of turn n's line as tk counts them, counting
// them once: line makes the line, when they are counted.
func (s *turnStore) count(tk Tokenizer, n int, line func() string) int {
	s.mu.Lock()
	counts := s.tokens[tk.Name()]
	if counts == nil {
		counts = make([]atomic.Int32, s.n+1)
		s.tokens[tk.Name()] = counts
	}
	s.mu.Unlock()
	if n < 0 || n >= len(counts) {
		return tk.Count(line())
	}
	if c := counts[n].Load(); c > 0 {
		return int(c - 1)
	}
	c := tk.Count(line())
	counts[n].Store(int32(c + 1))
	return c
}

// decoded returns the turns of block i: those kept (kept), or decoded
// now. A block that cannot be read is not read again.
func (s *turnStore) decoded(i int) (b []spec.Turn, kept bool, err error) {
	s.mu.Lock()
	b, failed := s.blocks[i], s.failed[i]
	s.mu.Unlock()
	if b != nil || failed != nil {
		return b, true, failed
	}
	if b, err = s.r.Block(i); err != nil {
		s.mu.Lock()
		s.failed[i] = err
		s.mu.Unlock()
		return nil, false, err
	}
	return b, false, nil
}

// block returns the turns of block i, decoding and keeping them if need
// be.
func (s *turnStore) block(i int) ([]spec.Turn, error) {
	b, kept, err := s.decoded(i)
	if kept || err != nil {
		return b, err
	}
	ents := make([]turnEntry, len(b))
	for j := range b {
		ents[j].turn = &b[j]
	}
	s.mu.Lock()
	if s.blocks[i] == nil {
		s.blocks[i], s.entries[i] = b, ents
		s.enter(i, ents)
	}
	b = s.blocks[i]
	s.mu.Unlock()
	return b, nil
}

// read returns the turns of block i for indexing, which reads every block
// once: kept when s keeps them, and how each is shown worked out then,
// else decoded for the caller alone unless they are kept already. A live
// memory indexes its last block at each turn: leaving its turns to the
// next context to classify took that context from p90 14.4–15.2 to
// 16.5–17.9 ms (2,760 LoCoMo turns, a turn recorded before each).
func (s *turnStore) read(i int) ([]spec.Turn, error) {
	if s.keep {
		b, err := s.block(i)
		if err == nil {
			s.mu.Lock()
			ents := s.entries[i]
			s.mu.Unlock()
			for j := range ents {
				ents[j].show()
			}
		}
		return b, err
	}
	b, _, err := s.decoded(i)
	return b, err
}

// prefetch decodes the blocks of turns ns that are not decoded yet, on as
// many goroutines as can run: the first answer from an index opened from
// the cache reads dozens of blocks. A block that cannot be read is left
// to the turns asked of it.
func (s *turnStore) prefetch(ns []int) {
	var todo []int
	seen := map[int]bool{}
	s.mu.Lock()
	for _, n := range ns {
		if i, ok := s.r.Find(n); ok && s.blocks[i] == nil && s.failed[i] == nil && !seen[i] {
			seen[i] = true
			todo = append(todo, i)
		}
	}
	s.mu.Unlock()
	workers := min(runtime.GOMAXPROCS(0), len(todo))
	if workers < 2 {
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for k := next.Add(1) - 1; k < int64(len(todo)); k = next.Add(1) - 1 {
				s.block(todo[k])
			}
		})
	}
	wg.Wait()
}

// turn returns turn n. A turn whose block cannot be read is missing, like
// a turn the archive does not have: a damaged block costs its own turns,
// not the context.
func (s *turnStore) turn(n int) (spec.Turn, bool) {
	t, _, ok := s.shownTurn(n)
	return t, ok
}

// line is turn n's line in a context (shownTurn.line).
func (s *turnStore) line(n int) string {
	_, st, _ := s.shownTurn(n)
	return st.line()
}

// shownTurn is turn n and how a context shows it.
func (s *turnStore) shownTurn(n int) (spec.Turn, shownTurn, bool) {
	if n >= 0 && n < len(s.byTurn) {
		if e := s.byTurn[n].Load(); e != nil {
			return *e.turn, e.show(), true
		}
	}
	i, ok := s.r.Find(n)
	if !ok {
		return spec.Turn{}, shownTurn{}, false
	}
	b, err := s.block(i)
	if err != nil {
		return spec.Turn{}, shownTurn{}, false
	}
	if j := n - s.ranges[i][0]; j >= 0 && j < len(b) && b[j].Turn == n {
		s.mu.Lock()
		e := &s.entries[i][j]
		s.mu.Unlock()
		return b[j], e.show(), true
	}
	return spec.Turn{}, shownTurn{}, false
}
