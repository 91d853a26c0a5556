package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/smg/watch"
	"github.com/smg-memory/smg/spec"
)

func (a *app) addCommand() *cobra.Command {
	var role, speaker, id, conv, at string
	var noProvider, noVectors, journal bool
	cmd := &cobra.Command{
		Use:         "add FILE [TEXT]",
		Annotations: boundedMemory,
		Short:       "Add turns of a conversation to a memory, as a chat client or a hook would",
		Long: `Add records turns in the memory of FILE (made when it does not exist) and
writes it before it returns: one turn, TEXT, with --role (user by default),
or, without TEXT, the turns on standard input, JSON Lines (or a JSON list)
of {role|speaker, content|text, timestamp, id} objects, as 'smg ingest
--format transcript' reads them.

A turn without a time takes the time it is added. A turn FILE holds already
is not added again (spec §5.2): with its id (--id, or the id of a line), a
client may send a turn again after a timeout and it is kept once; without
an id, a turn is held when one has its author, time and text. A turn with
the id of a held one but other text (an edited message) is added, marked,
and reported. --conversation names the conversation the turns are of.

The turns go to the file's journal, FILE.journal, appended and synced, and
then the whole file is written, the journal ended: FILE alone holds them,
and a copy of it loses nothing. With --journal they stay in the journal: a
turn costs what it adds, not a write of the whole memory, for a hook that
adds a turn at a time; every reader of FILE reads the journal too, and the
whole file is written once the journal passes 4 MiB, or with 'smg compact'.
An encrypted memory is written whole each time (a journal would hold the
turns in the clear). Their vectors are made by the next memory that opens
FILE, in the background, and kept in its cache, or by 'smg embed FILE' at
once; add says so on standard error when it adds turns without them.

Examples:
  smg add notes.smg --role user "Let's use Postgres for the orders."
  smg add notes.smg --role assistant --id msg-2 "Postgres it is."
  printf '%s\n' '{"role":"user","content":"hi","id":"m1"}' | smg add notes.smg`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch len(args) {
			case 0:
				return usageErrorf("missing FILE")
			case 1, 2:
				return nil
			}
			return usageErrorf("want FILE and at most one TEXT, got %d arguments (quote the text)", len(args))
		},
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			now := time.Now()
			if at != "" {
				var err error
				if now, err = time.Parse(time.RFC3339Nano, at); err != nil {
					return usageErrorf("--time %q is not an RFC 3339 time like 2025-03-14T09:00:00Z", at)
				}
			}
			var turns []spec.Turn
			if len(args) == 2 {
				if strings.TrimSpace(args[1]) == "" {
					return usageErrorf("TEXT is empty")
				}
				if !slices.Contains([]string{spec.RoleUser, spec.RoleAssistant, spec.RoleSystem, spec.RoleTool}, role) {
					return usageErrorf("--role %q: want user, assistant, system or tool", role)
				}
				turns = []spec.Turn{{Role: role, Speaker: speaker, ExternalID: id, Content: args[1], Timestamp: now}}
			} else {
				if cmd.Flags().Changed("role") || speaker != "" || id != "" {
					return usageErrorf("--role, --speaker and --id describe TEXT; the turns on standard input say their own")
				}
				in := a.stdin
				if in == nil {
					in = os.Stdin
				}
				res, err := importer.Read(in, importer.Options{Format: importer.Transcript, Name: "stdin", Strict: true, RequireTurns: true})
				if err != nil {
					return &stdinError{err}
				}
				for _, c := range res.Conversations {
					turns = append(turns, c.Turns...)
				}
				for i := range turns {
					if turns[i].Timestamp.IsZero() {
						turns[i].Timestamp = now
					}
				}
			}
			for i := range turns {
				turns[i].ConversationID = conv
			}
			f, err := a.writable(args[0], noProvider, noVectors)
			if err != nil {
				return err
			}
			defer f.Close()
			ctx := cmdContext(cmd)
			rec, err := f.Record(ctx, turns, nil)
			if err != nil {
				return err
			}
			m, err := f.Memory(ctx)
			if err != nil {
				return err
			}
			for _, r := range rec.Reused {
				fmt.Fprintf(a.stderr, "smg: warning: %v\n", r)
			}
			fmt.Fprintf(a.stdout, "%s: %d turns (%d new", args[0], m.Turns(), rec.Added)
			if rec.Held > 0 {
				fmt.Fprintf(a.stdout, ", %d held already", rec.Held)
			}
			fmt.Fprintln(a.stdout, ")")
			if vecs, err := a.vectors(noProvider, noVectors); err == nil && !vecs.off && rec.Added > 0 {
				what := fmt.Sprintf("the %d new turns have", rec.Added)
				if rec.Added == 1 {
					what = "the new turn has"
				}
				fmt.Fprintf(a.stderr, "smg: note: %s no vector yet: 'smg embed %s' makes it now (a command that writes the memory makes it in the background)\n", what, args[0])
			}
			if journal {
				return nil
			}
			return f.Compact(ctx)
		}),
	}
	cmd.Flags().StringVar(&role, "role", spec.RoleUser, "the role of TEXT: user, assistant, system or tool")
	cmd.Flags().StringVar(&speaker, "speaker", "", "the name of TEXT's author")
	cmd.Flags().StringVar(&id, "id", "", "TEXT's message id in the chat")
	cmd.Flags().StringVar(&conv, "conversation", "", "the id of the conversation the turns are of")
	cmd.Flags().StringVar(&at, "time", "", "when the turns without a time were written, RFC 3339 (default now)")
	cmd.Flags().BoolVar(&journal, "journal", false, "leave the turns in the file's journal, without writing the whole file (cheap, for a hook; a copy of FILE alone lacks them until 'smg compact')")
	vectorFlags(cmd, &noProvider, &noVectors)
	return cmd
}

func (a *app) watchCommand() *cobra.Command {
	var format string
	var interval time.Duration
	var once, noProvider, noVectors bool
	cmd := &cobra.Command{
		Annotations: boundedMemory,
		Use:         "watch FILE PATH...",
		Short:       "Follow Claude Code sessions and aider histories into a memory as they grow",
		Long: `Watch records in the memory of FILE (made when it does not exist) the turns
of the transcripts at PATH, and the turns written to them later, until it is
interrupted. A PATH is a Claude Code session (~/.claude/projects/PROJECT/
SESSION.jsonl), an aider chat history (.aider.chat.history.md), a
conversation in another format 'smg ingest' reads, or a directory: its
*.jsonl files and its .aider.chat.history.md, those made later too.

A file is read again once it has changed and then not changed for one
--interval, so that a turn still being written waits. Watch adds only the
turns FILE does not hold (spec §5.2): stopped and started again, it goes on
where it stopped; a transcript rotated or rewritten adds nothing twice. A
last line without its newline is read once it is whole. A file that cannot
be read is reported and read again when it changes. Each read that adds
turns prints a line. The turns go to the file's journal, as 'smg add'
records them, and the whole file is written when watch is stopped.

With --once, watch records what the files hold now, writes the whole file
and exits. Left idle for 30 seconds, a watched memory is written whole too.`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch len(args) {
			case 0:
				return usageErrorf("missing FILE and PATH")
			case 1:
				return usageErrorf("missing PATH, a transcript to follow")
			}
			return nil
		},
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			f, err := importer.ParseFormat(format)
			if err != nil {
				return usageErrorf("%v", err)
			}
			fm, err := a.writable(args[0], noProvider, noVectors)
			if err != nil {
				return err
			}
			defer fm.Close()
			opts := &watch.Options{Interval: interval, Format: f, Report: func(ev watch.Event) {
				a.reportWatch(args[0], ev)
			}}
			ctx := cmdContext(cmd)
			if once {
				if err := watch.Once(ctx, fm, args[1:], opts); err != nil {
					return err
				}
				return fm.Compact(ctx)
			}
			sctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := watch.Follow(sctx, fm, args[1:], opts); !errors.Is(err, context.Canceled) {
				return err
			}
			// Stopped: the whole file, with the vectors made meanwhile.
			return fm.Compact(ctx)
		}),
	}
	cmd.Flags().StringVar(&format, "format", "auto", "the transcripts' format: auto, "+importer.FormatNames())
	cmd.Flags().DurationVar(&interval, "interval", watch.DefaultInterval, "how often to look at the files")
	ranged(cmd, "interval", 0.01, 3600)
	cmd.Flags().BoolVar(&once, "once", false, "record what the files hold now, and exit")
	vectorFlags(cmd, &noProvider, &noVectors)
	return cmd
}

// reportWatch prints what a read of a followed file did.
func (a *app) reportWatch(name string, ev watch.Event) {
	for _, s := range ev.Skipped {
		fmt.Fprintf(a.stderr, "smg: warning: %v (skipped)\n", s)
	}
	for _, bad := range ev.Recorded.Invalid {
		fmt.Fprintf(a.stderr, "smg: warning: %s: turn %d: %v (skipped)\n", ev.Path, bad.Index+1, bad.Err)
	}
	for _, r := range ev.Recorded.Reused {
		fmt.Fprintf(a.stderr, "smg: warning: %s: %v\n", ev.Path, r)
	}
	if ev.Err != nil {
		fmt.Fprintf(a.stderr, "smg: warning: %v (read again when it changes)\n", ev.Err)
	}
	if ev.Recorded.Added > 0 {
		fmt.Fprintf(a.stdout, "%s: %d %s from %s (%d in all)\n", name, ev.Recorded.Added, plural(ev.Recorded.Added, "new turn", "new turns"), ev.Path, ev.Turns)
	}
}

// stdinError is turns on standard input that cannot be read: none is
// added.
type stdinError struct{ err error }

func (e *stdinError) Error() string { return e.err.Error() + " (no turn added)" }

func (a *app) compactCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "compact FILE",
		Short: "Write a memory whole, with what its journal holds, and end the journal",
		Long: `Compact writes the memory of FILE whole, with the turns its journal
(FILE.journal, written by 'smg add', 'smg watch' and the record_turns tool)
holds, atomically, and removes the journal. A memory without a journal is
left as it is. Readers never need it: every reader reads the journal too.
It is for a file handed to a tool that reads the format alone.`,
		Args: exactFiles(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			return a.compact(cmd, args[0])
		}),
	}
}

// compact writes the named memory whole with what its journal holds, and
// ends the journal; a file without one is left as it is.
func (a *app) compact(cmd *cobra.Command, name string) error {
	if !format.HasJournal(name) {
		return nil
	}
	f, err := a.writable(name, true, false)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Compact(cmdContext(cmd))
}

// writable opens the named memory for changes, made when it does not
// exist, embedding as --no-provider and --no-vectors say.
func (a *app) writable(name string, noProvider, noVectors bool) (*smg.FileMemory, error) {
	vecs, err := a.vectors(noProvider, noVectors)
	if err != nil {
		return nil, err
	}
	return a.fileMemory(name, &smg.Options{}, vecs.open(smg.OpenOptions{}))
}
