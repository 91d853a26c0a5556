package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/spec"
)

// fileMemory opens the memory of the named file to change it, under the
// file's lock, so that a change never overwrites another process's. With
// create, a missing file is a new memory of those options, written at the
// first change; its folder must exist. An encrypted file asks for
// its password and is written encrypted again. open gives the providers:
// its Embedder, when not nil, embeds the memory's new turns, facts and
// questions, and its Summarizer summarizes blocks.
func (a *app) fileMemory(name string, create *smg.Options, open smg.OpenOptions) (*smg.FileMemory, error) {
	open.Decode = *a.decodeOptions(name)
	// A memory a command keeps open and leaves idle (mcp, watch) has its
	// journal ended, so that its file alone holds everything acknowledged.
	opts := &smg.FileOptions{Open: open, Lock: *a.lockOptions(), Encode: smg.EncodeOptions{WithVectors: a.withVectors}, CompactIdle: smg.DefaultCompactIdle}
	if create != nil {
		c := *create
		c.Embedder, c.NoVectors, c.EmbedProgress, c.Summarizer = open.Embedder, open.NoVectors, open.EmbedProgress, open.Summarizer
		opts.Create = &c
	}
	return smg.OpenFileMemory(name, opts)
}

func (a *app) rememberCommand() *cobra.Command {
	var category, scope, reasoning, private string
	var pin, asJSON, seal, noProvider, noVectors bool
	cmd := &cobra.Command{
		Use:   "remember FILE FACT",
		Short: "Save a fact about the user or the workspace in a memory",
		Long: `Remember saves FACT in the memory of FILE (made when it does not exist), as
a person's request: "I prefer dark mode" is kept as "User prefers dark
mode". --category is identity, preference, relationship, project or
context (guessed from the fact when not given); --scope is whose fact it
is: user (the default, or the memory's own scope), user:NAME,
workspace:NAME, drive:, app:, team: or file:NAME.

A fact the memory already holds is not saved again: remember prints the
one it holds. With a model provider of embeddings (see 'smg embed --help'),
a fact whose vector is nearly that of a saved one (cosine above 0.95) is
one it holds too. A fact that contradicts a current one ("User lives in
Berlin" after "User lives in Paris") supersedes it; the old one stays,
no longer valid. Facts about the user ("User prefers…") of the categories
identity, preference and relationship are in every context; the others,
facts about other people too ("Ana lives in Lisbon"), go in when the
question finds them.`,
		Args: fileAndText("FACT", "the fact to save"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			if seal && private == "" {
				return usageErrorf("--seal seals a private part: name it with --private (without it the fact would be shared, in the clear)")
			}
			f, err := a.writable(args[0], noProvider, noVectors)
			if err != nil {
				return err
			}
			defer f.Close()
			ctx := cmdContext(cmd)
			var r smg.Remembered
			err = f.Update(ctx, func(m *smg.Memory) error {
				if private != "" {
					if m, err = a.private(m, private, seal); err != nil {
						return err
					}
				}
				r, err = m.Remember(ctx, smg.Fact{Content: args[1], Category: category, Scope: scope,
					Reasoning: reasoning, Source: spec.SourceUser, CreatedBy: "smg remember", Pinned: pin})
				return err
			})
			if err != nil {
				return err
			}
			if asJSON {
				return a.writeJSON(r)
			}
			if r.Duplicate {
				fmt.Fprintf(a.stdout, "already saved as %s: %s\n", r.Fact.ID, smg.FactText(r.Fact))
				return nil
			}
			fmt.Fprintf(a.stdout, "saved %s (%s, %s, importance %.2g): %s\n", r.Fact.ID, r.Fact.Category, r.Fact.Scope, r.Fact.Importance, smg.FactText(r.Fact))
			for _, id := range r.Supersedes {
				fmt.Fprintf(a.stdout, "  supersedes %s\n", id)
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&category, "category", "", "identity, preference, relationship, project or context")
	cmd.Flags().StringVar(&scope, "scope", "", "whose fact it is: user, user:NAME, workspace:NAME…")
	cmd.Flags().StringVar(&reasoning, "reasoning", "", "why it is worth keeping")
	cmd.Flags().BoolVar(&pin, "pin", false, "always load it into context")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was saved as JSON")
	cmd.Flags().StringVar(&private, "private", "", "save it in this collaborator's private part (see 'smg collaborators')")
	cmd.Flags().BoolVar(&seal, "seal", false, "with --private: seal the part with its owner's password ("+privateEnv+")")
	vectorFlags(cmd, &noProvider, &noVectors)
	return cmd
}

// nodesChange makes a command that changes the nodes given by id. change
// returns, besides its error, lines to print under the id's.
func (a *app) nodesChange(use, short, long, done string, change func(ctx context.Context, m *smg.Memory, id string) ([]string, error)) *cobra.Command {
	var private string
	cmd := &cobra.Command{
		Use:   use + " FILE ID...",
		Short: short,
		Long:  long,
		Args: func(cmd *cobra.Command, args []string) error {
			switch len(args) {
			case 0:
				return usageErrorf("missing FILE")
			case 1:
				return usageErrorf("missing ID: the id of a node, as 'smg facts' prints it")
			}
			return nil
		},
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			f, err := a.fileMemory(args[0], nil, smg.OpenOptions{})
			if err != nil {
				return err
			}
			defer f.Close()
			ctx := cmdContext(cmd)
			// All or none: the file is written once, when every id was
			// found.
			var notes [][]string
			err = f.Update(ctx, func(m *smg.Memory) error {
				notes = nil
				if private != "" {
					if m, err = a.private(m, private, false); err != nil {
						return err
					}
				}
				for _, id := range args[1:] {
					note, err := change(ctx, m, id)
					if err != nil {
						return err
					}
					notes = append(notes, note)
				}
				return nil
			})
			if err != nil {
				return err
			}
			for i, id := range args[1:] {
				fmt.Fprintf(a.stdout, "%s %s\n", done, id)
				for _, line := range notes[i] {
					fmt.Fprintf(a.stdout, "  %s\n", line)
				}
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&private, "private", "", "the nodes are in this collaborator's private part")
	return cmd
}

func (a *app) forgetCommand() *cobra.Command {
	return a.nodesChange("forget", "Remove facts (or other nodes) from a memory",
		`Forget removes the nodes of the ids, facts usually, and their edges from the
memory of FILE. It changes nothing unless every id is found. What a
forgotten node had superseded is current again, and forget says so:
forgetting "User lives in Berlin" brings back "User lives in Paris".`, "forgot",
		func(ctx context.Context, m *smg.Memory, id string) ([]string, error) {
			f, err := m.Forget(ctx, id)
			var notes []string
			for _, r := range f.Restored {
				notes = append(notes, "restored "+r+": current again, as before "+id+" superseded it")
			}
			return notes, err
		})
}

func (a *app) pinCommand() *cobra.Command {
	return a.nodesChange("pin", "Load facts (or other nodes) into every context",
		`Pin makes the nodes of the ids always loaded into context, at full
activation.`, "pinned",
		func(ctx context.Context, m *smg.Memory, id string) ([]string, error) { return nil, m.Pin(ctx, id) })
}

func (a *app) unpinCommand() *cobra.Command {
	return a.nodesChange("unpin", "Undo pin", `Unpin undoes 'smg pin'.`, "unpinned",
		func(ctx context.Context, m *smg.Memory, id string) ([]string, error) { return nil, m.Unpin(ctx, id) })
}

func (a *app) factsCommand() *cobra.Command {
	var scopes []string
	var category, private string
	var all, asJSON bool
	cmd := &cobra.Command{
		Use:   "facts FILE",
		Short: "List the facts a memory holds about the user and the workspace",
		Long: `Facts lists the current facts of the memory of FILE, saved with 'smg
remember' or by a model, or found in the conversation: by category from
identity to context, then by importance. --scope keeps the facts of a
scope and those within it ("user" holds "user:dana"); --all adds the
facts superseded by newer ones.`,
		Args: exactFiles(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			if category != "" && !slices.Contains(spec.FactCategories, category) {
				return usageErrorf("--category %q: use one of %s", category, strings.Join(spec.FactCategories, ", "))
			}
			m, err := smg.Open(args[0], &smg.OpenOptions{Decode: *a.decodeOptions(args[0])})
			if err != nil {
				return err
			}
			defer m.Close()
			if private != "" {
				if m, err = a.private(m, private, false); err != nil {
					return err
				}
			}
			facts := m.Facts(smg.FactFilter{Scopes: scopes, Category: category, Superseded: all})
			if asJSON {
				if facts == nil {
					facts = []spec.Node{}
				}
				return a.writeJSON(facts)
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tCATEGORY\tSCOPE\tIMPORTANCE\tFACT")
			for _, n := range facts {
				text := smg.FactText(n)
				if n.Pinned {
					text = "[pinned] " + text
				}
				if !n.ValidTo.IsZero() {
					text += " [superseded " + n.ValidTo.Format("2006-01-02") + "]"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%.2g\t%s\n", n.ID, n.Category, dash(n.Scope), n.Importance, oneLine(text, 100))
			}
			return tw.Flush()
		}),
	}
	cmd.Flags().StringSliceVar(&scopes, "scope", nil, "only the facts of this scope, or within it (repeatable)")
	cmd.Flags().StringVar(&category, "category", "", "only the facts of this category")
	cmd.Flags().BoolVar(&all, "all", false, "list superseded facts too")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the facts as JSON nodes")
	cmd.Flags().StringVar(&private, "private", "", "list this collaborator's private part instead")
	return cmd
}

// cmdContext is the command's context, or the background.
func cmdContext(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
