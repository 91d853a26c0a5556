package main

import (
	"errors"
	"fmt"
	"github.com/smg-memory/smg/cmd/internal/memlimit"
	"io"
	"os"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/provider"
)

// version is the version of the smg command.
const version = "0.1.0-dev"

// passwordEnv names the environment variable that holds the password of
// encrypted files.
const passwordEnv = "SMG_PASSWORD"

// app holds what the commands need from the outside world, so that tests
// can drive them without a terminal or a process environment.
type app struct {
	stdout, stderr io.Writer
	// stdin is what commands read for "-": nil is os.Stdin.
	stdin io.Reader
	// lookupEnv is os.LookupEnv.
	lookupEnv func(key string) (string, bool)
	// prompt shows prompt and reads a line without echo from the
	// terminal. Without a terminal it returns errNoTerminal.
	prompt func(prompt string) ([]byte, error)
	// limits bound what the commands read; zero fields take the library's
	// defaults. Tests lower them to read hostile files quickly.
	limits smg.Limits
	// tuneProvider, when set, adjusts the configuration of the model
	// provider read from the environment: tests make one that fails fail
	// at once, without waiting to try again.
	tuneProvider func(*provider.Config)
	// noBuiltin turns the built-in encoder off, as --no-vectors does,
	// for the commands not given a provider: tests that are not about
	// vectors spare its time.
	noBuiltin bool

	// boundMemory keeps the heap of the commands that build a memory
	// (annotated boundedMemory) near what it holds live (package
	// memlimit); tests, which run commands in their own process, leave
	// the runtime as it is.
	boundMemory bool
	// unbound ends what bound started.
	unbound func()

	// lockTimeout is --lock-timeout: how long a write waits for another
	// process's write of the same file.
	lockTimeout time.Duration
	// withVectors is --with-vectors: the memories written or printed
	// hold their vectors, rather than their files' caches.
	withVectors bool

	// started is set when a command's own code starts to run: an error
	// that comes before is a usage error.
	started bool
}

// newApp returns the app of the real process.
func newApp() *app {
	return &app{
		stdout:      os.Stdout,
		stderr:      os.Stderr,
		lookupEnv:   os.LookupEnv,
		prompt:      terminalPrompt,
		boundMemory: true,
	}
}

// boundedMemory annotates the commands that build a memory from many
// turns, or serve one for long (ingest, add, watch, mcp): their heap is
// kept within a quarter over what it holds live, not the double that Go
// allows by default. A command that reads a memory once keeps Go's
// default while it opens the memory, faster for a large file, and is
// bounded once it is open (openIndexed): what a context adds then is
// mostly garbage, the archive's blocks it decodes. From the index cache
// of a memory of 38,912 turns that took a context's peak from 290–324 MB
// to 269–275 MB, in the same time (0.45–0.53 s against 0.47–0.50 s);
// bounded from the start, it also took 10.7 s instead of 7.4 without the
// cache.
var boundedMemory = map[string]string{"memory": "bounded"}

const rootLong = `smg builds, inspects, queries, validates, converts and encrypts .smg memory
files (the Semantic Memory Graph format, spec/smg-v1.md), and assembles
from a memory the context a model needs to answer a question. Start with
"smg demo".

The password of an encrypted file is read from the environment variable
SMG_PASSWORD or, when it is unset or empty, asked for on the terminal
without echo. It is never taken from a flag.

A model provider of embeddings is optional: with SMG_PROVIDER_URL (an
OpenAI-compatible API's root, like http://localhost:11434/v1 for Ollama)
and/or SMG_EMBED_MODEL set, and SMG_API_KEY when the server wants a key,
ingest, remember, context, search and mcp use it ('smg embed --help');
--no-provider does without it for one run.

Exit codes:
  0  success
  1  any other failure (I/O, a model provider that fails, and the
     unexpected)
  2  usage error: unknown command or flag, missing argument, bad flag value
  3  invalid input: not an smg file, unsupported version, malformed,
     truncated, over a limit, invalid, tampered, not encrypted (decrypt),
     already encrypted (encrypt), a differential file applied to another
     base (patch), conflicts without --prefer (merge)
  4  password problem: none available, wrong password, or the two
     entries of a new password differ`

// rootCommand builds the command tree.
func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "smg",
		Short:         "Build, inspect, query, validate and encrypt .smg memory files, and assemble contexts from them",
		Long:          rootLong,
		Version:       version,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.PersistentFlags().DurationVar(&a.lockTimeout, "lock-timeout", smg.DefaultLockTimeout,
		"how long a command that writes a memory waits for another process's write of it")
	if err := root.PersistentFlags().SetAnnotation("lock-timeout", rangeAnnotation, []string{"0.001", "86400"}); err != nil {
		panic(err)
	}
	root.PersistentFlags().BoolVar(&a.withVectors, "with-vectors", false,
		"write the vectors of a memory in the .smg a command writes or prints (without it a file holds none: they are kept in the cache beside it, .FILE.cache/, and made again when missing)")
	// Every command's numeric flags are checked against their ranges
	// (flags.go) before it runs.
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error { return checkRanges(cmd) }
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.AddCommand(
		a.validateCommand(),
		a.infoCommand(),
		a.catCommand(),
		a.encryptCommand(),
		a.decryptCommand(),
		a.exportCommand(),
		a.ingestCommand(),
		a.nodesCommand(),
		a.showCommand(),
		a.queryCommand(),
		a.artifactsCommand(),
		a.artifactCommand(),
		a.archiveCommand(),
		a.contextCommand(),
		a.searchCommand(),
		a.embedCommand(),
		a.toolsCommand(),
		a.mcpCommand(),
		a.demoCommand(),
		a.rememberCommand(),
		a.forgetCommand(),
		a.factsCommand(),
		a.pinCommand(),
		a.unpinCommand(),
		a.collaboratorsCommand(),
		a.maintainCommand(),
		a.summarizeCommand(),
		a.forkCommand(),
		a.mergeCommand(),
		a.diffCommand(),
		a.patchCommand(),
		a.addCommand(),
		a.watchCommand(),
		a.serveCommand(),
		a.viewCommand(),
		a.compactCommand(),
	)
	return root
}

// runE marks the start of a command's own code (see app.started).
func (a *app) runE(f func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		a.started = true
		if cmd.Annotations["memory"] == boundedMemory["memory"] {
			a.bound()
		}
		defer func() {
			if a.unbound != nil {
				a.unbound()
				a.unbound = nil
			}
		}()
		return f(cmd, args)
	}
}

// bound keeps the heap near what it holds live from now until the
// command ends (package memlimit), when the process is the real one.
func (a *app) bound() {
	if a.boundMemory && a.unbound == nil {
		a.unbound = memlimit.Start(memlimit.Floor, memlimit.Ratio)
	}
}

// growSlowly makes the heap grow by three quarters of what it holds live
// between collections (memlimit.Grow) until the returned func is called:
// while a command opens and indexes a memory, before bound applies.
func (a *app) growSlowly() (stop func()) {
	if !a.boundMemory {
		return func() {}
	}
	return memlimit.GrowBy(memlimit.Grow)
}

// run runs the command line args (without the program name), reports an
// error on stderr and returns the exit status.
func (a *app) run(args []string) int {
	if args == nil {
		args = []string{} // nil would make cobra read os.Args
	}
	a.started = false
	root := a.rootCommand()
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitOK
	}
	if !a.started {
		// Cobra's own errors: flags, arguments, unknown commands.
		err = &usageError{err: err}
	}
	if ue, ok := errors.AsType[*usageError](err); ok && cmd != nil {
		ue.command = cmd.CommandPath()
	}
	status, hint := exitStatus(err)
	if errors.As(err, new(*reportedError)) {
		return status
	}
	fmt.Fprintf(a.stderr, "smg: %v\n", err)
	if hint != "" {
		fmt.Fprintf(a.stderr, "smg: hint: %s\n", hint)
	}
	return status
}

// exactFiles is cobra.ExactArgs with a message that names what is missing.
func exactFiles(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < n:
			return usageErrorf("missing FILE")
		case len(args) > n:
			return usageErrorf("too many arguments: %q", args[n:])
		}
		return nil
	}
}

// writeJSON prints v as indented JSON, its map keys sorted.
func (a *app) writeJSON(v any) error {
	b, err := json.Marshal(v, json.Deterministic(true), jsontext.WithIndent("  "))
	if err != nil {
		return err
	}
	_, err = a.stdout.Write(append(b, '\n'))
	return err
}
