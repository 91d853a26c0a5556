package main

import (
	"cmp"
	"fmt"
	"os"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

func (a *app) diffCommand() *cobra.Command {
	var asJSON, content, all bool
	var out string
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Show what changed from one memory to another, or write a differential file",
		Long: `Diff compares two memories entry by entry, by identity rather than by place,
and shows what changed in what the memory says: the number of turns, nodes
and facts added, removed and changed in what they say (field by field: a
label, a kind, a fact superseded), edges added and removed, artifacts and
the versions added (with --content, the unified diff of their content),
goals, and the metadata's other members; then how many changes of upkeep
it leaves out (activation and importance, which fade at every turn,
mentions, edge strengths, the working memory's summary and recent turns,
archive blocks, vectors). --all shows those too. The output reads like git
diff, in colour on a terminal (not when NO_COLOR is set); --json prints
every change, for tools. Two files with the same content print nothing
(with --json, "base" equals "target"). Diff exits 0 whether or not the
files differ.

With -o it writes instead the differential file from A to B (spec §9.6),
compact and Brotli-compressed, that 'smg patch A OUT' turns back into B.
When A or B is encrypted, the differential file is encrypted with its
password too: it holds B's new content.`,
		Args: exactFiles(2),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			var pwA, pwB []byte
			docA, err := smg.ReadDocument(args[0], a.keepingPassword(args[0], &pwA))
			if err != nil {
				return err
			}
			docB, err := smg.ReadDocument(args[1], a.keepingPassword(args[1], &pwB))
			if err != nil {
				return err
			}
			if out != "" {
				d, err := format.NewDelta(docA, docB)
				if err != nil {
					return err
				}
				if err := format.WriteDeltaFile(out, d, a.outputOptions(pwB, pwA)); err != nil {
					return err
				}
				fi, err := os.Stat(out)
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "%s: %d bytes, from %s to %s\n", out, fi.Size(), d.Base, d.Target)
				return nil
			}
			c, err := format.Diff(docA, docB, &format.DiffOptions{Content: content})
			if err != nil {
				return err
			}
			if asJSON {
				return a.writeJSON(c)
			}
			upkeep := 0
			if !all {
				c, upkeep = c.Meaning()
			}
			opts := &format.TextOptions{Color: a.colorOutput(), Upkeep: upkeep}
			return c.WriteText(a.stdout, opts)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the changes as JSON")
	cmd.Flags().BoolVar(&content, "content", false, "show the unified diff of each artifact version added")
	cmd.Flags().BoolVar(&all, "all", false, "show every change, upkeep too (activation, importance, mentions, strengths, summary, blocks, vectors)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the differential file from A to B here instead of showing the changes")
	return cmd
}

func (a *app) patchCommand() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "patch BASE DIFF",
		Short: "Apply a differential file to the memory it was made from",
		Long: `Patch applies the differential file DIFF (made by 'smg diff A B -o DIFF') to
BASE, which must be A exactly: any other file is refused, and nothing is
written. The result, written atomically into the file -o names (BASE itself
by default), has B's content, and its bytes are those smg writes for B:
Brotli-compressed canonical JSON. When BASE or DIFF is encrypted, the
result is encrypted with its password; its content is B's, its bytes are
not (encryption is fresh each time).`,
		Args: exactFiles(2),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			dst := cmp.Or(out, args[0])
			return a.locked(cmd, dst, func() error {
				var pwBase, pwDelta []byte
				base, err := smg.ReadDocument(args[0], a.keepingPassword(args[0], &pwBase))
				if err != nil {
					return err
				}
				d, err := format.ReadDeltaFile(args[1], a.keepingPassword(args[1], &pwDelta))
				if err != nil {
					return err
				}
				doc, err := format.Patch(base, d)
				if err != nil {
					return fmt.Errorf("applying %s to %s: %w", args[1], args[0], err)
				}
				// The base's vectors, from its cache: a differential file
				// is made between files as they are, without theirs.
				format.CarryVectors(args[0], doc, a.limits)
				return format.WriteFile(dst, doc, a.outputOptions(pwDelta, pwBase))
			})
		}),
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the result here instead of replacing BASE")
	return cmd
}

// colorOutput reports whether to colour what goes to stdout: only on a
// terminal, and not when NO_COLOR is set.
func (a *app) colorOutput() bool {
	if v, ok := a.lookupEnv("NO_COLOR"); ok && v != "" {
		return false
	}
	f, ok := a.stdout.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
