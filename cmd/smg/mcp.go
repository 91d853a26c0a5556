package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/mcpserver"
	"github.com/smg-memory/smg/smg/tools"
	"github.com/smg-memory/smg/spec"
)

const mcpLong = `Mcp serves the memory tools (see 'smg tools') to an MCP client, such as
Claude Desktop or Claude Code, over stdin and stdout: save_memory,
remove_memory, search_memory and get_context, on the user's memory in
--memory FILE and, with --workspace FILE, a workspace's memory beside it.
A fact saved with a scope of a workspace kind (workspace, drive, app, team,
file) goes to the workspace's memory; search_memory searches both, and
get_context joins the contexts of both within its budget. The server's
instructions are the guidance of 'smg tools --guidance'.

A file that does not exist is created at the first change; its folder must
exist. Every change is written before the tool replies, under a lock
(.FILE.lock beside it) that other smg processes respect: two clients on the
same file keep each other's changes, and one that waits for the lock longer
than --lock-timeout gets an error instead. A change is appended to the
file's journal (FILE.journal, which every reader reads) while the session
lasts; when it ends (the client closes the connection, or an interrupt),
the whole file is written, the journal ended: a copy of FILE alone then
holds everything the session saved. An encrypted file stays
encrypted; its password comes from SMG_PASSWORD (or the terminal, when
there is one; an MCP client usually gives none). A memory that cannot be
opened (damaged, or encrypted without its password) is reported on stderr,
and the tools are served all the same: each call answers the reason, for
the client's user to read; the exit status is then that of the error.

A line of the client that is not a JSON-RPC message is answered with a
JSON-RPC error (parse error, invalid request), and the next is read.

The turns saved get vectors, with the built-in sentence encoder or a model
provider of embeddings (see 'smg embed --help'), and searches and contexts
use them; --no-vectors does without. With a provider, a fact whose vector
is nearly that of a saved one is taken for it.

Stdout carries the protocol and nothing else; messages go to stderr.`

func (a *app) mcpCommand() *cobra.Command {
	var memory, workspace string
	var noProvider, noVectors bool
	cmd := &cobra.Command{
		Use:         "mcp --memory FILE [--workspace FILE]",
		Annotations: boundedMemory,
		Short:       "Serve the memory tools to an MCP client over stdio",
		Long:        mcpLong,
		Args:        cobra.NoArgs,
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			if memory == "" {
				return usageErrorf("--memory FILE is required: the user's memory, created when it does not exist (in a folder that does)")
			}
			if workspace != "" && sameFile(memory, workspace) {
				return usageErrorf("--memory and --workspace name the same file, %s", memory)
			}
			vecs, err := a.vectors(noProvider, noVectors)
			if err != nil {
				return err
			}
			user, ws, openErr := a.mcpMemories(memory, workspace, vecs)
			if user != nil {
				defer user.Close()
			}
			if ws != nil {
				defer ws.Close()
			}
			opts := &mcpserver.Options{Version: version, Log: a.stderr}
			if openErr != nil {
				// Served all the same, so that the client's user reads why
				// in the conversation rather than "connection closed".
				opts.Unavailable = a.withHint(openErr)
				fmt.Fprintf(a.stderr, "smg: %v\nsmg: serving the tools all the same: each call answers this error\n", opts.Unavailable)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			err = mcpserver.New(tools.NewHandler(user, ws, nil), opts).Run(ctx,
				&mcpserver.LineTransport{Reader: os.Stdin, Writer: os.Stdout, Logger: a.warnings()})
			// The session is over: what it saved goes into the files
			// themselves, so that a copy of one alone loses nothing (the
			// journal kept each call cheap while it lasted).
			var compactErr error
			for _, f := range []*smg.FileMemory{user, ws} {
				if f == nil {
					continue
				}
				if cerr := f.Compact(context.WithoutCancel(cmd.Context())); cerr != nil {
					fmt.Fprintf(a.stderr, "smg: writing %s at the end of the session: %v\n", f.Name(), cerr)
					compactErr = cmp.Or(compactErr, cerr)
				}
			}
			switch {
			case openErr != nil:
				return &reportedError{openErr} // its exit status, printed above
			case compactErr != nil:
				return &reportedError{compactErr}
			case ctx.Err() != nil:
				return nil // interrupted: a normal end
			}
			return err
		}),
	}
	cmd.Flags().StringVar(&memory, "memory", "", "the user's memory `FILE` (created, in a folder that exists, when it does not)")
	cmd.Flags().StringVar(&workspace, "workspace", "", "a workspace's memory `FILE`, for facts of a workspace scope (created, in a folder that exists, when it does not)")
	vectorFlags(cmd, &noProvider, &noVectors)
	return cmd
}

// sameFile reports whether two names are of one file.
func sameFile(a, b string) bool {
	if fa, err := os.Stat(a); err == nil {
		if fb, err := os.Stat(b); err == nil {
			return os.SameFile(fa, fb)
		}
	}
	pa, ea := filepath.Abs(a)
	pb, eb := filepath.Abs(b)
	return ea == nil && eb == nil && pa == pb
}

// mcpMemories opens the user's memory and, when named, the workspace's.
// When one cannot be opened, none is returned, with the error.
func (a *app) mcpMemories(memory, workspace string, vecs vectors) (user, ws *smg.FileMemory, err error) {
	// Kept open for the session: each with its index cache, opened in
	// place and written again with the file.
	user, err = a.fileMemory(memory, &smg.Options{Scope: &spec.Scope{Kind: spec.ScopeUser}}, vecs.open(smg.OpenOptions{IndexCache: format.IndexCacheDir(memory)}))
	if err != nil || workspace == "" {
		return user, nil, err
	}
	if ws, err = a.fileMemory(workspace, &smg.Options{Scope: &spec.Scope{Kind: spec.ScopeWorkspace}}, vecs.open(smg.OpenOptions{IndexCache: format.IndexCacheDir(workspace)})); err != nil {
		user.Close()
		return nil, nil, err
	}
	return user, ws, nil
}

// withHint is err followed by the hint exitStatus gives for it, if any.
func (a *app) withHint(err error) error {
	if _, hint := exitStatus(err); hint != "" {
		return fmt.Errorf("%w (hint: %s)", err, hint)
	}
	return err
}

// warnings is a logger of warnings and worse to stderr.
func (a *app) warnings() *slog.Logger {
	return slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
