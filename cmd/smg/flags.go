package main

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// rangeAnnotation is the annotation of a numeric flag that holds its
// range: its least and its greatest value, as numbers (seconds for a
// duration).
const rangeAnnotation = "smg:range"

// unbounded is the greatest value of a flag that has none.
const unbounded = math.MaxInt

// ranged gives the numeric flag name of cmd the range [lo, hi]: a value
// outside it is a usage error that names the flag and its range
// ([checkRanges], run before every command). Every numeric flag of every
// command has a range (TestNumericFlagsHaveRanges).
func ranged(cmd *cobra.Command, name string, lo, hi float64) {
	if err := cmd.Flags().SetAnnotation(name, rangeAnnotation, []string{
		strconv.FormatFloat(lo, 'g', -1, 64), strconv.FormatFloat(hi, 'g', -1, 64),
	}); err != nil {
		panic(err) // a flag that does not exist: a mistake of this program
	}
}

// flagRange is the range of a flag given by [ranged].
func flagRange(f *pflag.Flag) (lo, hi float64, ok bool) {
	r := f.Annotations[rangeAnnotation]
	if len(r) != 2 {
		return 0, 0, false
	}
	lo, err1 := strconv.ParseFloat(r[0], 64)
	hi, err2 := strconv.ParseFloat(r[1], 64)
	return lo, hi, err1 == nil && err2 == nil
}

// numericFlag tells whether a flag takes a number, and whether a whole one.
func numericFlag(f *pflag.Flag) (numeric, whole bool) {
	switch f.Value.Type() {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "count", "duration":
		return true, true
	case "float32", "float64":
		return true, false
	}
	return false, false
}

// checkRanges checks the numeric flags given on cmd's command line against
// their ranges.
func checkRanges(cmd *cobra.Command) error {
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		lo, hi, ok := flagRange(f)
		if !ok || err != nil {
			return
		}
		s := f.Value.String()
		v, perr := strconv.ParseFloat(s, 64)
		if f.Value.Type() == "duration" {
			d, derr := time.ParseDuration(s)
			v, perr = d.Seconds(), derr
		}
		if perr != nil || math.IsNaN(v) || v < lo || v > hi {
			err = usageErrorf("--%s %s: %s", f.Name, s, describeRange(f, lo, hi))
		}
	})
	return err
}

// describeRange says what values a flag takes: "want a whole number from
// 1", "want a number from 0 to 1".
func describeRange(f *pflag.Flag, lo, hi float64) string {
	what := "a number"
	if _, whole := numericFlag(f); whole {
		what = "a whole number"
	}
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	if f.Value.Type() == "duration" {
		what = "a duration"
		num = func(x float64) string { return time.Duration(x * float64(time.Second)).String() }
	}
	if hi >= unbounded {
		return fmt.Sprintf("want %s from %s up", what, num(lo))
	}
	return fmt.Sprintf("want %s from %s to %s", what, num(lo), num(hi))
}
