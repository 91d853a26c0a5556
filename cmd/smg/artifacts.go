package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/smg-memory/smg/smg/format"
	"github.com/spf13/cobra"
)

func (a *app) artifactsCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "artifacts FILE",
		Short: "List the artifacts of a memory's vault",
		Long: `Artifacts lists the code and documents of a memory's artifact vault, by id:
each one's type, language and file name, how many versions it has, the size
of its latest version, and what the vault stores for all of them (full
copies and patches), with the turns of its first and last version. Read an
artifact's content with 'smg artifact'.`,
		Args: exactFiles(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			doc, err := a.decodeFile(args[0])
			if err != nil {
				return err
			}
			arts := format.Artifacts(doc)
			if asJSON {
				return a.writeJSON(arts)
			}
			return writeArtifacts(a.stdout, arts)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the artifacts as JSON")
	return cmd
}

func (a *app) artifactCommand() *cobra.Command {
	var version int
	var diff string
	cmd := &cobra.Command{
		Use:   "artifact FILE ID [--version N | --diff A..B]",
		Short: "Print a version of an artifact, or the diff between two",
		Long: `Artifact prints the content of a version of an artifact of the vault, exactly
as it was (nothing added, not even a final newline), reconstructed from the
vault's full copies and patches and checked against its hash. Versions are
numbered from 1; without --version it prints the latest. ID is the
artifact's id in the vault (art-…, as 'smg artifacts' prints it) or that of
its node in the graph (artifact-…, as 'smg nodes' prints it).

With --diff A..B it prints the unified diff from version A to version B
instead, with 3 lines of context.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErrorf("want FILE and ID, got %d arguments", len(args))
			}
			return nil
		},
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("version") && cmd.Flags().Changed("diff") {
				return usageErrorf("--version and --diff exclude each other")
			}
			var from, to int
			if cmd.Flags().Changed("diff") {
				var ok bool
				if from, to, ok = parseRange(diff); !ok {
					return usageErrorf("--diff wants two version numbers A..B, like 1..2, not %q", diff)
				}
			}
			doc, err := a.decodeFile(args[0])
			if err != nil {
				return err
			}
			var out string
			if cmd.Flags().Changed("diff") {
				out, err = format.ArtifactDiff(doc, args[1], from, to)
			} else {
				out, err = format.ArtifactContent(doc, args[1], version)
			}
			if err != nil {
				return err
			}
			_, err = io.WriteString(a.stdout, out)
			return err
		}),
	}
	cmd.Flags().IntVar(&version, "version", 0, "the version to print, from 1 (default the latest)")
	ranged(cmd, "version", 1, unbounded)
	cmd.Flags().StringVar(&diff, "diff", "", "print the unified diff from version A to version B")
	return cmd
}

// parseRange parses "A..B", two numbers from 1.
func parseRange(s string) (a, b int, ok bool) {
	as, bs, found := strings.Cut(s, "..")
	if !found {
		return 0, 0, false
	}
	a, err1 := strconv.Atoi(as)
	b, err2 := strconv.Atoi(bs)
	if err1 != nil || err2 != nil || a < 1 || b < 1 {
		return 0, 0, false
	}
	return a, b, true
}

// writeArtifacts prints artifacts as a table.
func writeArtifacts(w io.Writer, arts []format.ArtifactInfo) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTYPE\tLANGUAGE\tFILE\tVERSIONS\tSIZE\tSTORED\tTURNS")
	for _, x := range arts {
		turns := "-"
		switch {
		case x.FirstTurn > 0 && x.FirstTurn == x.LastTurn:
			turns = fmt.Sprint(x.FirstTurn)
		case x.FirstTurn > 0:
			turns = fmt.Sprintf("%d-%d", x.FirstTurn, x.LastTurn)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\n", x.ID, x.Type, dash(x.Language), dash(x.Filename), x.Versions, x.Size, x.StoredBytes, turns)
	}
	return tw.Flush()
}

// dash is s, or "-" for nothing.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
