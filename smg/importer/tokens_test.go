package importer_test

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pkoukk/tiktoken-go"

	"github.com/smg-memory/smg/restore"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/spec"
)

// The tests of this file check restore's token counts on the turns of the
// LoCoMo dev file, as the importer reads them: chat text nobody here
// wrote. They are restore's tests, but live here, where importing both
// restore and the importer points down.

// locomoDev is the LoCoMo dev file of ../shared/bench.
var locomoDev = filepath.Join("..", "..", "..", "shared", "bench", "locomo-dev.json")

// locomoTurns returns the turns of every conversation of locomoDev, or
// skips when it is absent or the tests are short.
func locomoTurns(t *testing.T) []spec.Turn {
	t.Helper()
	if testing.Short() {
		t.Skip("reads the LoCoMo dev file")
	}
	res, err := importer.ReadFile(locomoDev, importer.Options{})
	if err != nil {
		t.Skip(err)
	}
	var turns []spec.Turn
	for _, c := range res.Conversations {
		turns = append(turns, c.Turns...)
	}
	return turns
}

// TestCL100KOnLoCoMo checks restore's cl100k count, which splits text
// without tiktoken-go's regular expression, against tiktoken-go's on every
// turn of the LoCoMo dev file and on all of them at once (restore's
// TestCL100KPieces checks it on samples).
func TestCL100KOnLoCoMo(t *testing.T) {
	turns := locomoTurns(t)
	tk, err := restore.NewTokenizer(restore.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	// restore loaded the encoding from its embedded tables, and
	// tiktoken-go keeps it: this is the same encoding, downloaded from
	// nowhere.
	enc, err := tiktoken.GetEncoding("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	check := func(s string) {
		t.Helper()
		if got, want := tk.Count(s), len(enc.EncodeOrdinary(s)); got != want {
			t.Errorf("Count(%q) = %d, tiktoken-go %d", s, got, want)
		}
	}
	var all strings.Builder
	for _, tu := range turns {
		check(tu.Speaker + ": " + tu.Content)
		all.WriteString(tu.Content + "\n")
	}
	check(all.String())
}

// TestEstimate checks that the estimator is closer to cl100k than the
// rule of thumb of four characters a token, turn by turn, on chat text
// nobody here wrote.
func TestEstimate(t *testing.T) {
	turns := locomoTurns(t)
	exact, err := restore.NewTokenizer(restore.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	est, _ := restore.NewTokenizer(restore.Estimate)
	var errEst, errQuarter, sumExact, sumEst float64
	n := 0
	for _, tu := range turns {
		s := tu.Speaker + ": " + tu.Content
		x := float64(exact.Count(s))
		errEst += math.Abs(float64(est.Count(s))-x) / x
		errQuarter += math.Abs(math.Ceil(float64(len(s))/4)-x) / x
		sumExact += x
		sumEst += float64(est.Count(s))
		n++
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
