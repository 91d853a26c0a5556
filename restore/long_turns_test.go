package restore

import (
	"context"
	"strings"
	"testing"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

var longReport = strings.Repeat("The quarterly report covers budgets, hiring and the office move. ", 12)

// longTurnMemory is five turns: a short one about a zeppelin, a long one
// (shown in passages) about nothing in particular, and three short ones.
func longTurnMemory(t *testing.T) *spec.Document {
	t.Helper()
	b := graph.New(graph.Config{BlockSize: 10}, graph.Options{ID: "long-turns"})
	for _, c := range []string{
		"Did you see the zeppelin over the harbour this morning?",
		longReport,
		"It was silver and very slow.",
		"We should take the ferry next time.",
		"The ferry leaves at noon on Sundays.",
	} {
		if err := b.Add(spec.Turn{Speaker: "Dana", Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	return b.Document()
}

// TestLongTurnsNeitherLendNorBorrow checks that a long turn beside a turn
// the search found gets no neighbour part (it would go in as a passage no
// search found), while a short turn as far away does.
func TestLongTurnsNeitherLendNorBorrow(t *testing.T) {
	doc := longTurnMemory(t)
	if !isLong(longReport) || len(Passages(longReport)) < 2 {
		t.Fatal("turn 2 is not long")
	}
	e := newEngine(t, doc, nil)
	const query = "zeppelin"
	parts := map[int]map[string]float64{}
	for _, c := range e.candidates(query, mustSearch(t, e, query), nil, nil) {
		if c.item.Kind == "turn" {
			parts[c.item.Turn] = c.parts
		}
	}
	if parts[1]["search"] == 0 {
		t.Fatalf("turn 1 not found: %v", parts)
	}
	if parts[2]["neighbor"] != 0 {
		t.Errorf("the long turn 2 borrowed from turn 1: %v", parts[2])
	}
	if parts[3]["neighbor"] == 0 {
		t.Errorf("the short turn 3, two from turn 1, borrowed nothing: %v", parts[3])
	}

	// A long turn the search finds a passage of lends nothing either.
	const query2 = "quarterly budgets hiring"
	parts = map[int]map[string]float64{}
	for _, c := range e.candidates(query2, mustSearch(t, e, query2), nil, nil) {
		if c.item.Kind == "turn" {
			parts[c.item.Turn] = c.parts
		}
	}
	if parts[2]["passage"] == 0 {
		t.Fatalf("no passage of turn 2 found: %v", parts)
	}
	for _, n := range []int{1, 3, 4} {
		if parts[n]["neighbor"] != 0 {
			t.Errorf("turn %d borrowed from the long turn 2: %v", n, parts[n])
		}
	}
}

// TestLengthWeighs checks that of two turns found alike the shorter ranks
// first, and that a context says by how much length weighed.
func TestLengthWeighs(t *testing.T) {
	if f := lengthFactor(lengthRef); f != 1 {
		t.Errorf("a turn of the reference length: factor %v, want 1", f)
	}
	for n := 1; n < 2000; n += 37 {
		if lengthFactor(n) <= lengthFactor(n+37) {
			t.Fatalf("factor of %d tokens %v, of %d tokens %v: not falling", n, lengthFactor(n), n+37, lengthFactor(n+37))
		}
	}
	b := graph.New(graph.Config{BlockSize: 10}, graph.Options{ID: "lengths"})
	for _, c := range []string{
		"The lighthouse keeper retired in spring, after forty years on the rock, and moved inland to a village with a bakery, a church and no sea at all.",
		"The weather was grey all week.",
		"The lighthouse keeper retired.",
		"We painted the fence on Sunday.",
	} {
		if err := b.Add(spec.Turn{Speaker: "Ana", Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	e := newEngine(t, b.Document(), nil)
	r, err := e.Context(context.Background(), "lighthouse keeper retired", Options{Budget: 400})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]Item{}
	for _, it := range r.Items {
		if it.Kind == "turn" {
			got[it.Turn] = it
		}
	}
	long, short := got[1], got[3]
	if long.Turn == 0 || short.Turn == 0 {
		t.Fatalf("turns 1 and 3 are not both in:\n%s", r.Text)
	}
	if short.Parts["length"] <= long.Parts["length"] || short.Score <= long.Score {
		t.Errorf("the short turn: score %v, length %v; the long one: score %v, length %v", short.Score, short.Parts["length"], long.Score, long.Parts["length"])
	}
}

// TestIsLongIsPassages checks that a turn is long exactly when it is
// shown in passages, whatever its white space.
func TestIsLongIsPassages(t *testing.T) {
	for _, n := range []int{0, 1, longTurnWords - 1, longTurnWords, longTurnWords + 1, 3 * longTurnWords} {
		for _, sep := range []string{" ", "\n", " \t ", "\u00a0", "\u2003"} {
			c := strings.TrimSpace(strings.Repeat("wörd"+sep, n))
			if got, want := isLong(c), Passages(c) != nil; got != want {
				t.Errorf("%d words apart by %q: isLong %v, passages %v", n, sep, got, want)
			}
		}
	}
}

// TestEmbeddedPassages checks that a long turn is embedded as its first
// passages, a short one whole.
func TestEmbeddedPassages(t *testing.T) {
	if ps := EmbeddedPassages("a short turn"); len(ps) != 0 {
		t.Errorf("a short turn: passages %v", ps)
	}
	long := strings.Repeat(longReport, 3)
	all := Passages(long)
	got := EmbeddedPassages(long)
	if len(all) <= embeddedPassages || len(got) != embeddedPassages || got[0] != all[0] || got[1] != all[1] {
		t.Errorf("embedded %v of %v", got, all)
	}
}
