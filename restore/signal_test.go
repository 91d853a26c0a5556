package restore

import (
	"math"
	"slices"
	"testing"
)

// TestWeightedSignal checks how a new signal joins the list: one with a
// weight adds its part of a turn, times the weight, to the turn's score;
// placed before the neighbours, the turn lends it to the turns around it,
// placed after them, it does not.
func TestWeightedSignal(t *testing.T) {
	e := newEngine(t, checkoutAt(t, 8, 0)[0], nil)
	const query = "Why did we choose Stripe Elements?" // names no date and no speaker
	const target, weight = 14, 2.0                     // a short turn between short turns: long ones neither lend nor borrow
	hits := mustSearch(t, e, query)
	turns := func() map[int]cand {
		out := map[int]cand{}
		for _, c := range e.candidates(query, hits, nil, nil) {
			if c.item.Kind == "turn" {
				out[c.item.Turn] = c
			}
		}
		return out
	}
	before := turns()
	meaning := signal{"meaning", func(g *gathering) { g.turn(target)["meaning"] = 1 }, weight}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-4 }

	for _, tc := range []struct {
		after string // the signal the new one follows
		lends bool
	}{
		{"facts", true},
		{"speaker", false},
	} {
		saved := signals
		i := slices.IndexFunc(signals, func(s signal) bool { return s.name == tc.after })
		signals = slices.Insert(slices.Clone(signals), i+1, meaning)
		after := turns()
		signals = saved

		got := after[target]
		if got.parts["meaning"] != 1 {
			t.Errorf("after %s: turn %d's parts %v lack the new signal's", tc.after, target, got.parts)
		}
		if want := before[target].item.Score + weight; !near(got.item.Score, want) {
			t.Errorf("after %s: turn %d scores %v, want %v (%v, plus the new part times %v)", tc.after, target, got.item.Score, want, before[target].item.Score, weight)
		}
		lent := after[target-1].parts["neighbor"] - before[target-1].parts["neighbor"]
		if want := 0.0; tc.lends {
			want = weight * neighborShare
			if !near(lent, want) {
				t.Errorf("after %s: turn %d lends %v more to the turn before it, want %v", tc.after, target, lent, want)
			}
		} else if lent != want {
			t.Errorf("after %s: the new part, added after the neighbours, is lent: %v more", tc.after, lent)
		}
	}
}
