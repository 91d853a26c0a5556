package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// readKeepingPassword reads the named file as decodeFile does, and returns
// the password that opened it: nil for a file that is not encrypted.
func (a *app) readKeepingPassword(name string) (*spec.Document, []byte, error) {
	var password []byte
	doc, err := smg.ReadDocument(name, carryingVectors(a.keepingPassword(name, &password)))
	return doc, password, err
}

// carryingVectors are opts that also read the vectors a file's cache keeps
// for it: a command that writes a memory made from it (a fork, a merge, a
// patched file) carries them into the cache of what it writes.
func carryingVectors(opts *smg.DecodeOptions) *smg.DecodeOptions {
	opts.CachedVectors = true
	return opts
}

// outputOptions encrypt the output of a command with the first of the
// passwords its inputs were opened with (what was encrypted stays so),
// with its vectors in it when --with-vectors asks.
func (a *app) outputOptions(passwords ...[]byte) *smg.EncodeOptions {
	opts := &smg.EncodeOptions{WithVectors: a.withVectors}
	for _, p := range passwords {
		if p != nil {
			opts.Password = p
			break
		}
	}
	return opts
}

func (a *app) forkCommand() *cobra.Command {
	var out, name, id string
	cmd := &cobra.Command{
		Use:   "fork FILE -o OUT [--name NAME]",
		Short: "Copy a memory into a new memory that records where it came from",
		Long: `Fork writes into OUT a copy of the memory of FILE as a new memory: a new id
(random, or --id), and a lineage that names FILE's memory by its id and its
content hash. --name sets the fork's description. The two can grow apart
and be merged again with 'smg merge FILE OURS THEIRS'.

An encrypted FILE gives an OUT encrypted with the same password.`,
		Args: exactFiles(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageErrorf("missing -o OUT: the file to write the fork to")
			}
			doc, password, err := a.readKeepingPassword(args[0])
			if err != nil {
				return err
			}
			fork, err := format.Fork(doc, format.ForkOptions{ID: id, Name: name})
			if err != nil {
				return inFile(args[0], err)
			}
			if err := a.locked(cmd, out, func() error { return format.WriteFile(out, fork, a.outputOptions(password)) }); err != nil {
				return err
			}
			p := fork.Metadata.Lineage.Parents[0]
			fmt.Fprintf(a.stdout, "forked %s into %s: memory %s, from %s at %s\n", args[0], out, fork.Metadata.ID, p.ID, p.ContentHash)
			return nil
		}),
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the file to write the fork to")
	cmd.Flags().StringVar(&name, "name", "", "the fork's description: what this branch of the memory is for")
	cmd.Flags().StringVar(&id, "id", "", "the fork's id (default: a random UUID)")
	return cmd
}

func (a *app) mergeCommand() *cobra.Command {
	var out, prefer string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "merge [BASE] OURS THEIRS -o OUT [--prefer ours|theirs]",
		Short: "Merge two memories, with their common base or without",
		Long: `Merge writes into OUT the merge of the memories OURS and THEIRS: OURS
updated, with OURS's id and a lineage naming both. With BASE, the memory
both come from (the file they were forked from, or continued from), it
is a three-way merge; with two files, a merge of unrelated memories.

The merged archive holds OURS's turns, then THEIRS's turns after BASE's,
renumbered. A change one side made (a node or an edge added, removed or
changed) is taken in. A node both sides changed in the same field takes
the values of the one activated later (then of the higher version, then
OURS's); the other's text is kept in its previous summaries. Without a
base, a node of THEIRS that names an entity OURS has (same type and name,
or a duplicate fact) becomes OURS's node.

A node or an edge that one side removed and the other changed is a
conflict: merge then writes nothing and lists the conflicts, unless
--prefer ours or --prefer theirs says whose state to take.

The merge is deterministic: the same files give the same OUT. It is
printed as a report, or as JSON with --json.`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) < 2:
				return usageErrorf("missing FILE: merge takes OURS THEIRS, or BASE OURS THEIRS")
			case len(args) > 3:
				return usageErrorf("too many arguments: %q", args[3:])
			}
			return nil
		},
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageErrorf("missing -o OUT: the file to write the merge to")
			}
			side := format.Side(prefer)
			if side != "" && side != format.Ours && side != format.Theirs {
				return usageErrorf("--prefer must be ours or theirs, not %q", prefer)
			}
			docs := make([]*spec.Document, len(args))
			passwords := make([][]byte, len(args))
			for i, name := range args {
				var err error
				if docs[i], passwords[i], err = a.readKeepingPassword(name); err != nil {
					return err
				}
			}
			var base *spec.Document
			if len(docs) == 3 {
				base, docs, passwords = docs[0], docs[1:], append(passwords[1:], passwords[0])
			}
			merged, rep, err := format.Merge(base, docs[0], docs[1], format.MergeOptions{Prefer: side})
			if ce, ok := errors.AsType[*format.ConflictError](err); ok {
				// Every conflict, not only those the error's message names.
				if asJSON {
					_ = a.writeJSON(rep)
				} else {
					for _, c := range ce.Conflicts {
						fmt.Fprintf(a.stdout, "conflict  %s\n", c)
					}
				}
			}
			if err != nil {
				return err
			}
			if err := a.locked(cmd, out, func() error { return format.WriteFile(out, merged, a.outputOptions(passwords...)) }); err != nil {
				return err
			}
			if asJSON {
				return a.writeJSON(rep)
			}
			writeMergeReport(a.stdout, out, rep)
			return nil
		}),
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the file to write the merge to")
	cmd.Flags().StringVar(&prefer, "prefer", "", "resolve conflicts with this side's state: ours or theirs")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// writeMergeReport prints a merge's report for people: the turns, counts
// of each side's changes, then every resolution, conflict, unification
// and renaming.
func writeMergeReport(w io.Writer, out string, rep *format.MergeReport) {
	fmt.Fprintf(w, "merged into %s: %d turns of ours", out, rep.OursTurns)
	switch {
	case rep.Unrelated:
		fmt.Fprintf(w, ", then %d of theirs (unrelated)", rep.TheirsTurns)
	default:
		fmt.Fprintf(w, " (%d of them the base's), then %d new of theirs", rep.BaseTurns, rep.TheirsTurns)
	}
	if rep.TheirsTurns > 0 && rep.Shift != 0 {
		first := rep.BaseTurns + 1
		fmt.Fprintf(w, ", their turns %d–%d now %d–%d", first, rep.BaseTurns+rep.TheirsTurns, first+rep.Shift, rep.BaseTurns+rep.TheirsTurns+rep.Shift)
	}
	fmt.Fprintln(w)
	for _, side := range []format.Side{format.Ours, format.Theirs} {
		count := map[string]int{}
		for _, c := range rep.Changes {
			if c.Side == side {
				what := "node"
				if c.Edge != nil {
					what = "edge"
				}
				count[what+" "+c.Op]++
			}
		}
		var parts []string
		for _, what := range []string{"node", "edge"} {
			for _, op := range []string{format.MergeAdded, format.MergeRemoved, format.MergeChanged} {
				if n := count[what+" "+op]; n > 0 {
					parts = append(parts, fmt.Sprintf("%d %s %s", n, plural(n, what, what+"s"), op))
				}
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "  %-7s %s\n", side+":", strings.Join(parts, ", "))
		}
	}
	for _, r := range rep.Resolved {
		fmt.Fprintf(w, "  resolved  %s\n", r)
	}
	for _, c := range rep.Conflicts {
		fmt.Fprintf(w, "  conflict  %s (--prefer %s)\n", c, c.Chosen)
	}
	for _, u := range rep.Unified {
		fmt.Fprintf(w, "  unified   theirs' %s is ours' %s (%s)\n", u.Theirs, u.Ours, u.By)
	}
	for _, r := range rep.Renamed {
		fmt.Fprintf(w, "  renamed   theirs' %s to %s: ours' %s is another\n", r.From, r.To, r.From)
	}
	if rep.DroppedEdges > 0 {
		fmt.Fprintf(w, "  dropped   %d edge%s of nodes not in the merge\n", rep.DroppedEdges, plural(rep.DroppedEdges, "", "s"))
	}
	if rep.DroppedEmbeddings > 0 {
		fmt.Fprintf(w, "  dropped   %d vector%s of theirs, of another model, size or encoding than ours ('smg embed' embeds their turns anew)\n", rep.DroppedEmbeddings, plural(rep.DroppedEmbeddings, "", "s"))
	}
	if rep.DroppedSummaries > 0 {
		fmt.Fprintf(w, "  dropped   %d model summar%s of theirs' blocks, whose turns were renumbered ('smg summarize' writes them again)\n", rep.DroppedSummaries, plural(rep.DroppedSummaries, "y", "ies"))
	}
}
