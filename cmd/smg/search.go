package main

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
)

func (a *app) searchCommand() *cobra.Command {
	var limit int
	var asJSON, noCache, noProvider, noVectors bool
	cmd := &cobra.Command{
		Use:   "search FILE TEXT",
		Short: "Full-text search over a memory's nodes, turns and archive blocks",
		Long: `Search finds the nodes, turns and archive blocks of a memory that match
TEXT best (BM25, English stemming), best first. Each hit comes with its
kind, its id (a node's or a block's; a turn's number and external id), its
score and a line of it: a node's label, the start of a turn, a block's
summary.

It waits until every turn is indexed. The index is cached beside the file
as context does (see 'smg context --help'); --no-index-cache neither reads
nor writes the cache.

The turns nearest TEXT in meaning are found too, when the file holds
vectors of the built-in sentence encoder or of the model provider of
embeddings (see 'smg embed --help'); the scores are then on a context's
scale. --no-vectors does without; a provider that fails costs the
vectors, silently.`,
		Args: fileAndText("TEXT", "the words to look for"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			vecs, err := a.vectors(noProvider, noVectors)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			m, damaged, err := a.openIndexed(ctx, args[0], noCache, vecs)
			if err != nil {
				return err
			}
			defer m.Close()
			found, err := m.Search(ctx, args[1], limit)
			if err != nil {
				return err
			}
			if asJSON {
				if found == nil {
					found = []smg.Found{}
				}
				err = a.writeJSON(found)
			} else {
				err = writeFound(a.stdout, found)
			}
			return errors.Join(damaged, err)
		}),
	}
	cmd.Flags().IntVarP(&limit, "limit", "n", 10, "the most hits to print")
	ranged(cmd, "limit", 1, unbounded)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the hits as JSON")
	cmd.Flags().BoolVar(&noCache, "no-index-cache", false, "neither read nor write the index cache beside FILE")
	vectorFlags(cmd, &noProvider, &noVectors)
	return cmd
}

// writeFound prints search hits as a table, each with a line of its text.
func writeFound(w io.Writer, found []smg.Found) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tID\tSCORE\tTEXT")
	for _, f := range found {
		id := f.NodeID // a node's or a block's
		if f.Kind == "turn" {
			id = turnName(f)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.4g\t%s\n", f.Kind, dash(id), f.Score, dash(oneLine(f.Text, 80)))
	}
	return tw.Flush()
}
