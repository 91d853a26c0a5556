package main

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg/tools"
)

func (a *app) toolsCommand() *cobra.Command {
	var format string
	var guidance bool
	cmd := &cobra.Command{
		Use:   "tools [--format openai|anthropic|mcp] [--guidance]",
		Short: "Print the memory tools' definitions for a model, or the system-prompt guidance that goes with them",
		Long: `Tools prints the definitions of the four tools that give a model the use of
a memory, with their input as JSON Schema: save_memory (content, category,
reasoning, and an optional scope), remove_memory (id, optional scope),
search_memory (query, optional category, memory and limit) and get_context
(query, optional budget). --format says whose shape: openai (the tools of a
Chat Completions request), anthropic (the tools of a Messages request) or
mcp (the result of an MCP tools/list request).

--guidance prints instead the text to put in the system prompt beside them:
when to save a memory (preferences, decisions, terminology, the current
focus), what not to save (trivia, temporary context, what the workspace
already holds), and how to use the others.

'smg mcp' serves the same tools to an MCP client.`,
		Args: cobra.NoArgs,
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			if guidance {
				_, err := fmt.Fprintln(a.stdout, tools.Guidance)
				return err
			}
			if !slices.Contains(tools.Formats, format) {
				return usageErrorf("--format: want openai, anthropic or mcp, not %q", format)
			}
			b, err := tools.Format(tools.Definitions(), format)
			if err != nil {
				return err
			}
			_, err = a.stdout.Write(append(b, '\n'))
			return err
		}),
	}
	cmd.Flags().StringVar(&format, "format", "openai", "the shape of the definitions: openai, anthropic or mcp")
	cmd.Flags().BoolVar(&guidance, "guidance", false, "print the system-prompt guidance instead of the definitions")
	return cmd
}
