package importance

import (
	"math"
	"testing"
	"time"
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.4f, want %.4f", what, got, want)
	}
}

func TestScore(t *testing.T) {
	w := DefaultWeights()
	near(t, "a fresh, central decision with an artifact", w.Score(Node{AgeTurns: 0, DecisionCues: 1, Words: 10, HasArtifact: true, Degree: 4, MaxDegree: 4}), 1, 1e-9)
	near(t, "an old, idle node", w.Score(Node{AgeTurns: 99, Words: 30, Degree: 0, MaxDegree: 10}), 0.3*0.01, 1e-9)
	near(t, "half density", w.Score(Node{AgeTurns: 1, DecisionCues: 1, Words: 20, MaxDegree: 0}), 0.3*0.5+0.4*0.5, 1e-9)
	near(t, "no words", w.Score(Node{AgeTurns: -3}), 0.3, 1e-9)
	sum := w.Recency + w.DecisionDensity + w.ArtifactPresence + w.Centrality
	near(t, "the seed weights' sum", sum, 1, 1e-9)
}

func TestFactScore(t *testing.T) {
	w := DefaultWeights()
	for _, tc := range []struct {
		f    Fact
		want float64
	}{
		{Fact{Category: "identity"}, 1},
		{Fact{Category: "preference"}, 0.9},
		{Fact{Category: "relationship", Specific: true}, 0.9},
		{Fact{Category: "project", Remember: true}, 0.9},
		{Fact{Category: "context", Vague: true}, 0.3},
		{Fact{Category: "context", Remember: true, Specific: true}, 0.8},
		{Fact{Category: "identity", Remember: true}, 1}, // clamped
		{Fact{Category: "unknown"}, 0.5},
	} {
		near(t, "FactScore("+tc.f.Category+")", w.FactScore(tc.f), tc.want, 1e-9)
	}
}

func TestDecay(t *testing.T) {
	d := DefaultDecay()
	t0 := time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC)
	once := []Use{{Turn: 10, Time: t0}}
	near(t, "right after", d.Of(once, Use{Turn: 10, Time: t0}), 0.8808, 1e-3)
	near(t, "50 turns later", d.Of(once, Use{Turn: 60, Time: t0}), 0.5110, 1e-3)
	near(t, "two days later", d.Of(once, Use{Turn: 11, Time: t0.Add(48 * time.Hour)}), 0.5, 0.02)
	near(t, "a month later", d.Of(once, Use{Turn: 10, Time: t0.Add(30 * 24 * time.Hour)}), 0.216, 1e-3)
	thrice := []Use{{Turn: 1}, {Turn: 6}, {Turn: 10}}
	if a := d.Of(thrice, Use{Turn: 11}); a < 0.9 {
		t.Errorf("three recent mentions: %.3f, want above 0.9", a)
	}
	// A new mention reactivates.
	old := d.Of(once, Use{Turn: 200})
	again := d.Of(append(once, Use{Turn: 199}), Use{Turn: 200})
	if again <= old+0.2 {
		t.Errorf("reactivation: %.3f → %.3f", old, again)
	}
	if a := d.Of(nil, Use{Turn: 5}); a != 0 {
		t.Errorf("no uses: %v", a)
	}
}

// TestApproximation checks Petrov's approximation of old uses against the
// exact sum.
func TestApproximation(t *testing.T) {
	var uses []Use
	for i := 1; i <= 200; i += 2 {
		uses = append(uses, Use{Turn: i})
	}
	now := Use{Turn: 300}
	exact := DefaultDecay()
	exact.Recent = 0
	approx := DefaultDecay()
	bExact, bApprox := exact.BaseLevel(uses, now), approx.BaseLevel(uses, now)
	if math.Abs(bExact-bApprox) > 0.02 {
		t.Errorf("B exact %.4f, approximated %.4f", bExact, bApprox)
	}
}

func BenchmarkDecay(b *testing.B) {
	d := DefaultDecay()
	uses := make([]Use, 50)
	for i := range uses {
		uses[i] = Use{Turn: i * 7}
	}
	for b.Loop() {
		d.Of(uses, Use{Turn: 400})
	}
}
