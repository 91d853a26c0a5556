package restore

import (
	"cmp"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/smg-memory/smg/spec"
)

// TestStrongest checks the one-pass pick of the strongest edges against
// the first k of a stable sort, ties and all; k edges or fewer are
// followed as they are.
func TestStrongest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 60 {
		for _, k := range []int{1, 3, 16} {
			edges := make([]spec.Edge, n)
			for i := range edges {
				// Few distinct strengths: many ties.
				edges[i] = spec.Edge{From: "a", To: strconv.Itoa(i), Strength: float64(rng.IntN(5)) / 4}
			}
			want := slices.Clone(edges)
			if n > k {
				slices.SortStableFunc(want, func(a, b spec.Edge) int { return cmp.Compare(b.Strength, a.Strength) })
				want = want[:k]
			}
			got := strongest(edges, k)
			if !slices.EqualFunc(got, want, func(a, b spec.Edge) bool { return a.To == b.To }) {
				t.Fatalf("n=%d k=%d: strongest = %v, want %v", n, k, got, want)
			}
		}
	}
}

// TestTurnCountsCarried checks that an update keeps the token counts of
// the turns of the blocks it keeps, and only those: the last block grows,
// and its turns are counted again.
func TestTurnCountsCarried(t *testing.T) {
	docs := checkoutAt(t, 4, 10, 0)
	old := newTurnStore(docs[0], nil)
	tk := countingTokenizer{n: new(int)}
	for n := 1; n <= old.n; n++ {
		old.count(tk, n, func() string { return "x" })
	}
	counted := *tk.n
	store := newTurnStore(docs[1], nil)
	store.carry(old)
	for n := 1; n <= store.n; n++ {
		store.count(tk, n, func() string { return "x" })
	}
	// Blocks of 4: turns 1–8 are kept, 9–10 were in a block that grew.
	if again := *tk.n - counted; again != store.n-8 {
		t.Errorf("after the update, %d turns were counted; want the %d after turn 8", again, store.n-8)
	}
}

// countingTokenizer counts one token a byte, and how often it counts.
type countingTokenizer struct{ n *int }

func (countingTokenizer) Name() string         { return "counting" }
func (c countingTokenizer) Count(s string) int { *c.n++; return len(s) }

// TestShownTurnByNumber checks the turns found by number (byTurn) against
// those found through their block, before and after an update that
// carries blocks over, and for numbers the archive does not have.
func TestShownTurnByNumber(t *testing.T) {
	docs := checkoutAt(t, 4, 10, 0)
	old := newTurnStore(docs[0], nil)
	for n := 1; n <= old.n; n += 3 {
		old.turn(n) // some blocks decoded, to carry
	}
	store := newTurnStore(docs[1], nil)
	store.carry(old)
	slow := newTurnStore(docs[1], nil)
	slow.direct, slow.byTurn = false, nil
	if !store.direct {
		t.Fatal("an archive of blocks in order is not found by number")
	}
	for range 2 {
		for n := -2; n <= store.n+2; n++ {
			tu, sh, ok := store.shownTurn(n)
			wtu, wsh, wok := slow.shownTurn(n)
			if ok != wok || sh != wsh || tu.Turn != wtu.Turn || tu.Content != wtu.Content || tu.ExternalID != wtu.ExternalID {
				t.Fatalf("turn %d: %v %+v %q, want %v %+v %q", n, ok, sh, tu.Content, wok, wsh, wtu.Content)
			}
			if ok && store.byTurn[n].Load() == nil {
				t.Fatalf("turn %d was found, but not put by its number", n)
			}
		}
	}
}

// TestByScore checks byScore against a stable sort by score and key, with
// ties of both: candidates of one score and key keep their order.
func TestByScore(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 80 {
		cands := make([]cand, n)
		for i := range cands {
			cands[i] = cand{key: strconv.Itoa(rng.IntN(4)), item: Item{Score: float64(rng.IntN(3)), Turn: i}}
		}
		want := slices.Clone(cands)
		slices.SortStableFunc(want, func(a, b cand) int {
			return cmp.Or(cmp.Compare(b.item.Score, a.item.Score), cmp.Compare(a.key, b.key))
		})
		got := byScore(cands)
		for i := range got {
			if got[i].item.Turn != want[i].item.Turn {
				t.Fatalf("%d candidates: %dth is %d, want %d", n, i, got[i].item.Turn, want[i].item.Turn)
			}
		}
	}
}

// TestReadOnceKeepsNoBlock: the blocks indexing reads are kept, unless
// the engine answers once (Config.ReadOnce), which keeps only those
// decoded for an answer; the turns are the same either way.
func TestReadOnceKeepsNoBlock(t *testing.T) {
	doc := checkoutAt(t, 4, 0)[0]
	kept := (&Engine{}).newStore(doc)
	once := (&Engine{cfg: Config{ReadOnce: true}}).newStore(doc)
	if _, err := once.block(0); err != nil {
		t.Fatal(err)
	}
	for i := range kept.ranges {
		a, err := kept.read(i)
		if err != nil {
			t.Fatal(err)
		}
		b, err := once.read(i)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) || len(a) == 0 {
			t.Fatalf("block %d: %d turns kept, %d read once", i, len(a), len(b))
		}
		if kept.blocks[i] == nil {
			t.Errorf("block %d is not kept", i)
		}
		if k := once.blocks[i] != nil; k != (i == 0) {
			t.Errorf("block %d, read once, kept: %v", i, k)
		}
	}
}

// TestKeptTurnsHoldNoCopy: a memory kept open shows its turns from their
// own strings: what a context shows of a turn that drops nothing is a
// part of the turn's content, not a copy, and its line is made from it.
func TestKeptTurnsHoldNoCopy(t *testing.T) {
	doc := checkoutAt(t, 4, 0)[0]
	s := (&Engine{}).newStore(doc)
	shared := 0
	for i := range s.ranges {
		if _, err := s.read(i); err != nil {
			t.Fatal(err)
		}
		for j := range s.entries[i] {
			e := &s.entries[i][j]
			st, c := e.show(), e.turn.Content
			who := cmp.Or(e.turn.Speaker, e.turn.Role)
			if want := who + ": " + strings.TrimSpace(shownContent(*e.turn)); st.line() != want {
				t.Errorf("turn %d's line %q, want %q", e.turn.Turn, st.line(), want)
			}
			if st.text == "" || strings.TrimSpace(c) != st.text {
				continue
			}
			at := uintptr(unsafe.Pointer(unsafe.StringData(st.text))) - uintptr(unsafe.Pointer(unsafe.StringData(c)))
			if at > uintptr(len(c)-len(st.text)) {
				t.Errorf("turn %d: what is shown of it is a copy of its content", e.turn.Turn)
			}
			shared++
		}
	}
	if shared == 0 {
		t.Error("no turn shown whole: the test checks nothing")
	}
}
