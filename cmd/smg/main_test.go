package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/cmd/internal/memlimit"
	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/provider"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// testdataDir is the repository's testdata folder.
const testdataDir = "../../testdata"

// result is what one run of the command gives.
type result struct {
	status         int
	stdout, stderr string
}

// run runs the command line args in-process, with env as its whole
// environment and no terminal.
func run(t testing.TB, env map[string]string, args ...string) result {
	t.Helper()
	return runWith(t, env, nil, smg.Limits{}, args...)
}

// runPrompt is run with a terminal that answers each password prompt with
// the next of answers, and has no more answers after them.
func runPrompt(t testing.TB, env map[string]string, answers []string, args ...string) result {
	t.Helper()
	return runWith(t, env, answers, smg.Limits{}, args...)
}

// runVectors is run with the built-in encoder on, as it is outside tests.
func runVectors(t testing.TB, env map[string]string, args ...string) result {
	t.Helper()
	return runApp(t, env, nil, smg.Limits{}, true, args...)
}

// runWith is runPrompt with the given reading limits.
func runWith(t testing.TB, env map[string]string, answers []string, lim smg.Limits, args ...string) result {
	t.Helper()
	return runApp(t, env, answers, lim, false, args...)
}

// runApp is runWith, with the built-in encoder on when builtinOn.
func runApp(t testing.TB, env map[string]string, answers []string, lim smg.Limits, builtinOn bool, args ...string) result {
	t.Helper()
	return runAppIn(t, env, answers, lim, builtinOn, nil, args...)
}

// runStdin is run with stdin as the standard input.
func runStdin(t testing.TB, stdin string, args ...string) result {
	t.Helper()
	return runAppIn(t, nil, nil, smg.Limits{}, false, strings.NewReader(stdin), args...)
}

// runAppIn is runApp with stdin as the standard input (nil: none).
func runAppIn(t testing.TB, env map[string]string, answers []string, lim smg.Limits, builtinOn bool, stdin io.Reader, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	a := &app{
		stdout: &stdout,
		stderr: &stderr,
		stdin:  stdin,
		lookupEnv: func(key string) (string, bool) {
			v, ok := env[key]
			return v, ok
		},
		prompt: func(prompt string) ([]byte, error) {
			if len(answers) == 0 {
				return nil, errNoTerminal
			}
			p := answers[0]
			answers = answers[1:]
			return []byte(p), nil
		},
		limits: lim,
		// A provider that fails fails at once: the tests never wait.
		tuneProvider: func(c *provider.Config) { c.MaxRetries = -1 },
		// The tests about vectors turn the built-in encoder on
		// (runVectors); the others spare its time.
		noBuiltin: !builtinOn,
	}
	status := a.run(args)
	return result{status: status, stdout: stdout.String(), stderr: stderr.String()}
}

// succeed runs the command line args as run does, fails the test unless
// it succeeds silently, and returns its output.
func succeed(t testing.TB, env map[string]string, args ...string) string {
	t.Helper()
	r := run(t, env, args...)
	if r.status != exitOK || r.stderr != "" {
		t.Fatalf("%q: status %d: %s", args, r.status, r.stderr)
	}
	return r.stdout
}

// withPassword is the environment with SMG_PASSWORD set to p.
func withPassword(p string) map[string]string {
	return map[string]string{passwordEnv: p}
}

// readOnly returns a check that the named file still holds the bytes it
// holds now.
func readOnly(t testing.TB, name string) func(after string) {
	t.Helper()
	before, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return func(after string) {
		t.Helper()
		now, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("after %s: %v", after, err)
		}
		if !bytes.Equal(before, now) {
			t.Errorf("%s changed %s", after, name)
		}
	}
}

// writeTemp writes data into a new file of a temporary folder.
func writeTemp(t testing.TB, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// example returns the path of a copy of an example memory of testdata in
// a temporary folder, and its bytes.
func example(t testing.TB, name string) (string, []byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdataDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return writeTemp(t, name, b), b
}

// golden compares got with the golden file testdata/golden/name, or
// rewrites it with -update.
func golden(t testing.TB, name string, got string) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/smg -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run go test ./cmd/smg -update to accept it):\n--- got\n%s\n--- want\n%s", p, got, want)
	}
}

// TestBoundedMemoryCommands: the commands that build a memory from many
// turns, or serve one for long, bound their heap; those that read a memory
// once do not, and tests leave the runtime's limit alone.
func TestBoundedMemoryCommands(t *testing.T) {
	var got []string
	walk((&app{}).rootCommand(), func(cmd *cobra.Command) {
		if cmd.Annotations["memory"] == boundedMemory["memory"] {
			got = append(got, cmd.CommandPath())
		}
	})
	slices.Sort(got)
	if want := []string{"smg add", "smg ingest", "smg mcp", "smg serve", "smg view", "smg watch"}; !slices.Equal(got, want) {
		t.Errorf("bounded: %q, want %q", got, want)
	}
	if !newApp().boundMemory || (&app{}).boundMemory {
		t.Error("only the command's own app bounds its memory")
	}
}

// TestReadCommandsBoundOnceOpen: a command that reads a memory bounds its
// heap once the memory is open (openIndexed), and the limit is as it was
// when the command ends; the heap grows slowly while the memory is opened
// (memlimit.Grow) and as before once it is.
func TestReadCommandsBoundOnceOpen(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") != "" {
		t.Skip("GOMEMLIMIT or GOGC is set: the memory policy steps aside")
	}
	name, _ := example(t, "small.smg")
	before := debug.SetMemoryLimit(-1)
	var out bytes.Buffer
	a := &app{stdout: &out, stderr: &out, lookupEnv: func(string) (string, bool) { return "", false }, noBuiltin: true, boundMemory: true}
	gc := debug.SetGCPercent(100)
	defer debug.SetGCPercent(gc)
	m, _, err := a.openIndexed(context.Background(), name, true, vectors{off: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("the memory open, the GC percent is %d, not 100 as before", p)
	}
	if limit := debug.SetMemoryLimit(-1); limit == before || limit < memlimit.Floor {
		t.Errorf("the memory open, the limit is %d (before it %d), want the policy's", limit, before)
	}
	if a.unbound == nil {
		t.Fatal("the memory open, nothing bounds the heap")
	}
	a.unbound()
	a.unbound = nil
	if limit := debug.SetMemoryLimit(-1); limit != before {
		t.Errorf("bound and unbound, the limit is %d, want %d", limit, before)
	}
	if status := a.run([]string{"context", "--no-vectors", "--no-index-cache", name, "what did we decide?"}); status != exitOK {
		t.Fatalf("smg context: %d: %s", status, out.String())
	}
	if limit := debug.SetMemoryLimit(-1); limit != before || a.unbound != nil {
		t.Errorf("after smg context, the limit is %d, want %d", limit, before)
	}
}
