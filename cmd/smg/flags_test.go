package main

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// walk calls fn for every command of the tree of root, root included.
func walk(root *cobra.Command, fn func(*cobra.Command)) {
	fn(root)
	for _, c := range root.Commands() {
		walk(c, fn)
	}
}

// TestNumericFlagsHaveRanges walks every command's numeric flags: each
// has a range, and a value below it, above it or not a number (NaN) is a
// usage error that names the flag and says its range. A new numeric flag
// without a range fails this test.
func TestNumericFlagsHaveRanges(t *testing.T) {
	a := &app{}
	n := 0
	walk(a.rootCommand(), func(cmd *cobra.Command) {
		path := cmd.CommandPath()
		cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if numeric, _ := numericFlag(f); !numeric {
				return
			}
			n++
			lo, hi, ok := flagRange(f)
			if !ok {
				t.Errorf("%s --%s has no range: give it one with ranged()", path, f.Name)
				return
			}
			bad := []float64{lo - 1}
			if hi < unbounded {
				bad = append(bad, hi+1)
			}
			for _, v := range bad {
				s := strconv.FormatFloat(v, 'g', -1, 64)
				if f.Value.Type() == "duration" {
					s = time.Duration(v * float64(time.Second)).String()
				}
				checkRejects(t, a, cmd, f.Name, s)
			}
			if _, whole := numericFlag(f); !whole {
				checkRejects(t, a, cmd, f.Name, "NaN")
			}
		})
	})
	if n < 10 {
		t.Errorf("only %d numeric flags found: the walk is broken", n)
	}
}

// checkRejects checks that --name value is a usage error of the command
// of cmd's path, naming the flag and its range.
func checkRejects(t *testing.T, a *app, cmd *cobra.Command, name, value string) {
	t.Helper()
	// A new tree: a parsed flag keeps its value.
	fresh, _, err := a.rootCommand().Find(strings.Fields(cmd.CommandPath())[1:])
	if err != nil {
		t.Fatal(err)
	}
	arg := "--" + name + "=" + value
	if err := fresh.ParseFlags([]string{arg}); err != nil {
		return // not even a value of the flag's type: a usage error of pflag's
	}
	err = checkRanges(fresh)
	var ue *usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--"+name+" "+value+": want ") {
		t.Errorf("%s %s: %v, want a usage error naming --%s and its range", cmd.CommandPath(), arg, err, name)
	}
}

// TestFlagRanges: the flags the issue found unchecked, or checked each
// its own way, are usage errors (exit status 2) naming the flag and its
// range, before anything is read or written.
func TestFlagRanges(t *testing.T) {
	file, _ := example(t, "small.smg")
	unchanged := readOnly(t, file)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"maintain", file, "--min-strength", "7"}, "--min-strength 7: want a number from 0 to 1"},
		{[]string{"maintain", file, "--min-strength", "NaN"}, "--min-strength NaN: want a number from 0 to 1"},
		{[]string{"maintain", file, "--max-chain", "-2"}, "--max-chain -2: want a whole number from -1 up"},
		{[]string{"nodes", file, "--limit", "-3"}, "--limit -3: want a whole number from 0 up"},
		{[]string{"export", file, "--format", "markdown", "--min-importance", "5"}, "--min-importance 5: want a number from 0 to 1"},
		{[]string{"search", file, "stripe", "--limit", "-1"}, "--limit -1: want a whole number from 1 up"},
		{[]string{"context", file, "stripe", "--budget", "0"}, "--budget 0: want a whole number from 1 up"},
		{[]string{"archive", file, "--turn", "0"}, "--turn 0: want a whole number from 1 up"},
		{[]string{"artifact", file, "x", "--version", "-1"}, "--version -1: want a whole number from 1 up"},
	} {
		r := run(t, nil, c.args...)
		if r.status != exitUsage || !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, "smg "+c.args[0]+" --help") {
			t.Errorf("%v: status %d, stderr %q; want %d and %q", c.args, r.status, r.stderr, exitUsage, c.want)
		}
	}
	unchanged("the rejected commands")
}
