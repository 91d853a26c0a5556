package restore

import (
	"math"
	"testing"

	"github.com/smg-memory/smg/smg/importer"
)

func TestTokenizers(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		want int
	}{
		{CL100K, "hello world", 2},
		{O200K, "hello world", 2},
		{CL100K, "", 0},
	} {
		tk, err := NewTokenizer(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := tk.Count(tc.text); got != tc.want || tk.Name() != tc.name {
			t.Errorf("%s(%q) = %d (%s), want %d", tc.name, tc.text, got, tk.Name(), tc.want)
		}
	}
	if _, err := NewTokenizer("gpt2"); err == nil {
		t.Error("an unknown tokenizer was accepted")
	}
}

// TestEstimate checks that the estimator is closer to cl100k than the
// rule of thumb of four characters a token, turn by turn, on chat text
// nobody here wrote.
func TestEstimate(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the LoCoMo dev file")
	}
	res, err := importer.ReadFile("../../shared/bench/locomo-dev.json", importer.Options{})
	if err != nil {
		t.Skip(err)
	}
	exact, err := NewTokenizer(CL100K)
	if err != nil {
		t.Fatal(err)
	}
	est, _ := NewTokenizer(Estimate)
	var errEst, errQuarter, sumExact, sumEst float64
	n := 0
	for _, c := range res.Conversations {
		for _, tu := range c.Turns {
			s := tu.Speaker + ": " + tu.Content
			x := float64(exact.Count(s))
			errEst += math.Abs(float64(est.Count(s))-x) / x
			errQuarter += math.Abs(math.Ceil(float64(len(s))/4)-x) / x
			sumExact += x
			sumEst += float64(est.Count(s))
			n++
		}
	}
	errEst /= float64(n)
	errQuarter /= float64(n)
	t.Logf("%d turns: mean error per turn %.1f%% (chars/4: %.1f%%); total %.0f estimated for %.0f", n, 100*errEst, 100*errQuarter, sumEst, sumExact)
	if errEst >= errQuarter || errEst > 0.10 {
		t.Errorf("the estimate is off by %.1f%% a turn, chars/4 by %.1f%%", 100*errEst, 100*errQuarter)
	}
	if math.Abs(sumEst-sumExact)/sumExact > 0.05 {
		t.Errorf("the estimate's total is off by more than 5%%: %.0f for %.0f", sumEst, sumExact)
	}
}
