package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
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

A file that does not exist is created at the first change. Every change is
written to its file, atomically, before the tool replies, under a lock
(.FILE.lock beside it) that other smg processes respect: two clients on the
same file keep each other's changes, and one that waits more than ten
seconds for the lock gets an error instead. An encrypted file stays
encrypted; its password comes from SMG_PASSWORD (or the terminal, when
there is one; an MCP client usually gives none).

With a model provider of embeddings (see 'smg embed --help'), the turns
and facts saved get vectors, and searches and contexts use them.

Stdout carries the protocol and nothing else; messages go to stderr.`

func (a *app) mcpCommand() *cobra.Command {
	var memory, workspace string
	var noProvider bool
	cmd := &cobra.Command{
		Use:   "mcp --memory FILE [--workspace FILE]",
		Short: "Serve the memory tools to an MCP client over stdio",
		Long:  mcpLong,
		Args:  cobra.NoArgs,
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			if memory == "" {
				return usageErrorf("--memory FILE is required: the user's memory, created when it does not exist")
			}
			if workspace != "" && sameFile(memory, workspace) {
				return usageErrorf("--memory and --workspace name the same file, %s", memory)
			}
			emb, err := a.embedder(noProvider)
			if err != nil {
				return err
			}
			user, err := a.fileMemory(memory, &smg.Options{Scope: &spec.Scope{Kind: spec.ScopeUser}}, smg.OpenOptions{Embedder: emb})
			if err != nil {
				return err
			}
			defer user.Close()
			var ws *smg.FileMemory
			if workspace != "" {
				if ws, err = a.fileMemory(workspace, &smg.Options{Scope: &spec.Scope{Kind: spec.ScopeWorkspace}}, smg.OpenOptions{Embedder: emb}); err != nil {
					return err
				}
				defer ws.Close()
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			err = a.serveMCP(ctx, tools.NewHandler(user, ws, nil), &mcp.StdioTransport{})
			if ctx.Err() != nil {
				return nil // interrupted: a normal end
			}
			return err
		}),
	}
	cmd.Flags().StringVar(&memory, "memory", "", "the user's memory `FILE` (created when it does not exist)")
	cmd.Flags().StringVar(&workspace, "workspace", "", "a workspace's memory `FILE`, for facts of a workspace scope (created when it does not exist)")
	noProviderFlag(cmd, &noProvider)
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

// serveMCP serves the tools of h over t until the client goes or ctx ends.
// A tool's reply is its JSON, as text and as structured content; an error
// reply is marked isError. What the model cannot fix (a file that cannot be
// written, a lock held too long) is an error result too, and is logged.
func (a *app) serveMCP(ctx context.Context, h *tools.Handler, t mcp.Transport) error {
	logger := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	server := mcp.NewServer(&mcp.Implementation{Name: "smg", Title: "smg memory", Version: version},
		&mcp.ServerOptions{Instructions: tools.Guidance, Logger: logger})
	for _, d := range tools.Definitions() {
		server.AddTool(&mcp.Tool{Name: d.Name, Description: d.Description, InputSchema: d.InputSchema},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				r, err := h.Call(ctx, req.Params.Name, req.Params.Arguments)
				if err != nil {
					fmt.Fprintf(a.stderr, "smg: %s: %v\n", req.Params.Name, err)
					return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "smg: " + err.Error()}}}, nil
				}
				b, err := json.Marshal(r)
				if err != nil {
					return nil, err
				}
				return &mcp.CallToolResult{
					Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
					StructuredContent: jsontext.Value(b),
					IsError:           r.IsError(),
				}, nil
			})
	}
	return server.Run(ctx, t)
}
