package restore

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

func TestPassages(t *testing.T) {
	if ps := Passages(strings.Repeat("word ", longTurnWords)); ps != nil {
		t.Errorf("a turn of %d words has passages: %v", longTurnWords, ps)
	}
	var words []string
	for i := range 2*passageWords + 7 {
		words = append(words, fmt.Sprintf("w%dé", i))
	}
	content := "  " + strings.Join(words, " \n ") + "\t"
	ps := Passages(content)
	if len(ps) < 2 {
		t.Fatalf("%d words: %d passages", len(words), len(ps))
	}
	next := 0 // the next word no passage has reached yet
	for i, p := range ps {
		got := strings.Fields(content[p.Start:p.End])
		if strings.TrimSpace(content[p.Start:p.End]) != content[p.Start:p.End] {
			t.Errorf("passage %d %v does not start and end on a word: %q", i, p, content[p.Start:p.End])
		}
		if len(got) > passageWords || got[0] != words[i*passageStride] {
			t.Errorf("passage %d: %d words from %q, want at most %d from %q", i, len(got), got[0], passageWords, words[i*passageStride])
		}
		next = i*passageStride + len(got)
	}
	if next != len(words) {
		t.Errorf("the passages end at word %d of %d", next, len(words))
	}
}

// longTurnDocs returns the documents of a memory after each of cuts
// turns: short turns about a kitchen, and, as turn 4, a long answer that
// mentions a "zeppelin" once, in its middle.
func longTurnDocs(t testing.TB, cuts ...int) ([]*spec.Document, spec.Turn) {
	t.Helper()
	var long strings.Builder
	for i := range 3 * passageWords {
		if i == 3*passageWords/2 {
			long.WriteString("the zeppelin hangar stays closed ")
		}
		fmt.Fprintf(&long, "filler%d ", i)
	}
	contents := []string{
		"I repainted the kitchen a pale green.",
		"Nice. Which brand of paint?",
		"A cheap one. Tell me about airships.",
		strings.TrimSpace(long.String()),
		"Thanks, that was long.",
		"Anything else about the kitchen?",
	}
	b := graph.New(graph.Config{BlockSize: 2}, graph.Options{})
	t0 := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	var docs []*spec.Document
	for _, cut := range cuts {
		for b.Turns() < cut {
			n := b.Turns() + 1
			role := "user"
			if n%2 == 0 {
				role = "assistant"
			}
			err := b.Add(spec.Turn{Turn: n, Role: role, Speaker: role, ExternalID: fmt.Sprintf("msg-%d", n), Content: contents[n-1], Timestamp: t0.Add(time.Duration(n) * time.Minute)})
			if err != nil {
				t.Fatal(err)
			}
		}
		docs = append(docs, b.Document())
	}
	tu, ok := newTurnStore(docs[len(docs)-1], nil).turn(4)
	if !ok {
		t.Fatal("no turn 4")
	}
	return docs, tu
}

// checkExcerpt checks that a context about the zeppelin holds the
// excerpt of long turn tu that names it, and says so, and not the whole
// turn.
func checkExcerpt(t *testing.T, e *Engine, tu spec.Turn) {
	t.Helper()
	r, err := e.Context(context.Background(), "zeppelin hangar", Options{Budget: 400})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, it := range r.Items {
		if it.Turn != tu.Turn {
			continue
		}
		if it.Excerpt == nil {
			t.Errorf("the long turn went in whole: %+v", it)
			continue
		}
		if found {
			t.Errorf("two items of the long turn: %+v", r.Items)
		}
		found = true
		p := *it.Excerpt
		if p.Start <= 0 || p.End >= len(tu.Content) || it.ExternalID != tu.ExternalID {
			t.Errorf("the excerpt %v of a turn of %d bytes, id %q: want one inside it, id %q", p, len(tu.Content), it.ExternalID, tu.ExternalID)
			continue
		}
		text := tu.Content[p.Start:p.End]
		if !strings.Contains(text, "zeppelin") {
			t.Errorf("the excerpt %q misses the word asked for", text)
		}
		if line := "assistant (excerpt): …" + text + "…\n"; !strings.Contains(r.Text, line) {
			t.Errorf("the context lacks the line %q:\n%s", line, r.Text)
		}
	}
	if !found {
		t.Errorf("no excerpt of the long turn in:\n%s", r.Text)
	}
	if strings.Contains(r.Text, tu.Content) {
		t.Errorf("the whole long turn is in the context:\n%s", r.Text)
	}
}

func TestContextHoldsAnExcerpt(t *testing.T) {
	docs, tu := longTurnDocs(t, 6)
	e := newEngine(t, docs[0], nil)
	checkExcerpt(t, e, tu)
	if n, want := docCount(t, e); n != uint64(len(e.indexed)+want) || want <= 6 {
		t.Errorf("the index holds %d documents, want %d nodes and blocks and %d of turns (6 turns, one in passages)", n, len(e.indexed), want)
	}
	items, err := e.Search(context.Background(), "zeppelin", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) == 0 || items[0].Turn != 4 || items[0].Excerpt == nil || items[0].Text != tu.Content[items[0].Excerpt.Start:items[0].Excerpt.End] {
		t.Errorf("a search for the zeppelin found %+v, want the excerpt of turn 4", items)
	}
}

// Passages of turns that arrive with an update are indexed too.
func TestExcerptOfALiveTurn(t *testing.T) {
	docs, tu := longTurnDocs(t, 3, 5, 6)
	e := newEngine(t, docs[0], nil)
	for _, doc := range docs[1:] {
		if err := e.Update(doc); err != nil {
			t.Fatal(err)
		}
	}
	checkExcerpt(t, e, tu)
	sameContexts(t, e, newEngine(t, docs[2], nil))
}

// An index read back from the cache holds the passages.
func TestExcerptFromTheCache(t *testing.T) {
	docs, tu := longTurnDocs(t, 6)
	dir := t.TempDir() + "/cache"
	first := newEngine(t, docs[0], &Config{Cache: dir, Key: "k"})
	if err := first.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	second := newEngine(t, docs[0], &Config{Cache: dir, Key: "k"})
	if !second.fromCache {
		t.Fatal("the second engine did not open the cache")
	}
	checkExcerpt(t, second, tu)
	sameContexts(t, second, first)
}

// A whole turn and an excerpt of it never both go in, whichever ranks
// first; nor does a fact stated in a turn an excerpt of is in.
func TestPackWholeOrExcerpt(t *testing.T) {
	tk := estimator{}
	whole := cand{key: "t:4", text: "whole", item: Item{Section: secHistory, Kind: "turn", Turn: 4, Tokens: 10}}
	part := cand{key: "p:4:0:5", text: "part", item: Item{Section: secHistory, Kind: "turn", Turn: 4, Excerpt: &Span{0, 5}, Tokens: 5}}
	fact := cand{key: "n:f", text: "fact", fact: true, item: Item{Section: secUser, Kind: "node", Turn: 4, Tokens: 5}}
	other := cand{key: "t:5", text: "other", item: Item{Section: secHistory, Kind: "turn", Turn: 5, Tokens: 5}}
	for _, first := range []string{"whole", "excerpt"} {
		w, p, f, o := whole, part, fact, other
		w.item.Score, p.item.Score, f.item.Score, o.item.Score = 0.5, 0.5, 0.4, 0.1
		if first == "whole" {
			w.item.Score = 0.9
		} else {
			p.item.Score = 0.9
		}
		chosen, _ := pack([]cand{w, p, f, o}, tk, 1000, DefaultAllocation, 0)
		var keys []string
		for _, c := range chosen {
			keys = append(keys, c.key)
		}
		want := map[string]string{"whole": "t:4 t:5", "excerpt": "p:4:0:5 t:5"}[first]
		if got := strings.Join(keys, " "); got != want {
			t.Errorf("%s first: chose %s, want %s", first, got, want)
		}
	}
}

// An item that does not fit is passed over, and the ones after it fill
// the budget, which they never exceed.
func TestPackSkipsAndFills(t *testing.T) {
	tk := estimator{}
	var cands []cand
	for i, tokens := range []int{400, 90, 600, 80, 70, 500, 60, 30} {
		cands = append(cands, cand{key: fmt.Sprintf("t:%d", i+1), text: "x", item: Item{
			Section: secHistory, Kind: "turn", Turn: i + 1, Tokens: tokens, Score: 1 - float64(i)/10,
		}})
	}
	heading := tk.Count("## "+secHistory) + 2
	for _, usable := range []int{100, 300, 550, 1000} {
		chosen, _ := pack(cands, tk, usable, DefaultAllocation, 0)
		spent := heading
		took := map[int]bool{}
		for _, c := range chosen {
			spent += c.item.Tokens
			took[c.item.Turn] = true
		}
		if len(chosen) > 0 && spent > usable {
			t.Errorf("budget %d: the items cost %d", usable, spent)
		}
		// Every item left out would not have fitted beside those in.
		for _, c := range cands {
			if !took[c.item.Turn] && spent+c.item.Tokens <= usable {
				t.Errorf("budget %d: %s (%d tokens) left out with %d tokens spent", usable, c.key, c.item.Tokens, spent)
			}
		}
		if usable >= 300 && len(chosen) < 3 {
			t.Errorf("budget %d: %d items chosen, want the small ones after the large", usable, len(chosen))
		}
	}
}

// The working memory's summary and goals take at most the working
// memory's share of the budget, however high they rank; a fact about the
// user, of the same pool, still takes what the pools left when it ranks
// high enough, and the turns fill the rest.
func TestPackWorkingMemoryShare(t *testing.T) {
	tk := estimator{}
	cands := []cand{{key: "summary", text: "s", item: Item{Section: secWorking, Kind: "summary", Score: 2, Tokens: 60}}}
	for i := range 5 {
		cands = append(cands, cand{key: fmt.Sprintf("goal:%d", i), text: "g", item: Item{Section: secWorking, Kind: "goal", Score: 1.5 - float64(i)/100, Tokens: 30}})
	}
	cands = append(cands, cand{key: "n:f", text: "f", fact: true, item: Item{Section: secUser, Kind: "node", Turn: 99, Score: 0.9, Tokens: 30}})
	for i := range 30 {
		cands = append(cands, cand{key: fmt.Sprintf("t:%02d", i+1), text: "t", item: Item{Section: secHistory, Kind: "turn", Turn: i + 1, Score: 0.5 - float64(i)/100, Tokens: 40}})
	}
	const usable = 1000
	a := DefaultAllocation
	share := int(usable * a.Working / (a.Working + a.Knowledge + a.Artifacts + a.History))
	chosen, _ := pack(cands, tk, usable, a, 0)
	standing, fact, turns, spent := 0, false, 0, 0
	sections := map[string]bool{}
	for _, c := range chosen {
		spent += c.item.Tokens
		if !sections[c.item.Section] {
			sections[c.item.Section] = true
			spent += tk.Count("## "+c.item.Section) + 2
		}
		switch {
		case c.item.Kind == "summary" || c.item.Kind == "goal":
			standing += c.item.Tokens
		case c.fact:
			fact = true
		case c.item.Kind == "turn":
			turns++
		}
	}
	heading := tk.Count("## "+secWorking) + 2
	if standing == 0 || standing+heading > share {
		t.Errorf("summary and goals took %d tokens and a heading of %d, the working memory's share is %d", standing, heading, share)
	}
	if !fact {
		t.Error("the fact about the user was left out")
	}
	if turns < 30 && spent+40 <= usable {
		t.Errorf("%d turns went in and %d of %d tokens are spent: the rest of the budget did not go to the turns", turns, spent, usable)
	}
}
