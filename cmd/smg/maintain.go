package main

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
)

func (a *app) maintainCommand() *cobra.Command {
	var dryRun, asJSON bool
	var staleAfter, now string
	var opts smg.MaintainOptions
	cmd := &cobra.Command{
		Use:   "maintain FILE",
		Short: "Prune stale nodes, merge duplicates, drop weak edges, decay and rebase a memory",
		Long: `Maintain keeps the memory of FILE in shape, and prints each change:

  merge      nodes of one type that share a name, and facts that say the
             same thing, become one: the older, which takes the others'
             mentions, names and edges
  drop-edge  edges weaker than --min-strength are dropped
  prune      stale nodes are removed: not pinned, never revised, and not
             mentioned for --stale-after. Artifacts, decisions, problems
             with their solutions, the people who speak, facts the user
             gave or of the categories identity, preference and
             relationship, superseded facts and important nodes are kept
             whatever their age
  decay      activation fades up to the memory's clock
  rebase     an artifact's latest version, when many patches lead to it,
             is stored in full (same content, same hash)

Time is the memory's own clock (its last dated turn, or the last
maintenance run), not today's date, so an old conversation imported today
is not stale, and an edit (a fact remembered, a pin) does not make the
rest of the memory old; --now sets another (a
date, a timestamp, or "now" for the wall clock). --dry-run prints the
same changes and writes nothing.`,
		Args: exactFiles(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.StaleAfter, err = parseDays(staleAfter); err != nil {
				return usageErrorf("--stale-after %q: %v", staleAfter, err)
			}
			if opts.Now, err = parseNow(now); err != nil {
				return usageErrorf("--now %q: %v", now, err)
			}
			if cmd.Flags().Changed("min-strength") && opts.MinEdgeStrength == 0 {
				opts.MinEdgeStrength = -1 // 0 drops none
			}
			ctx := cmdContext(cmd)
			var r smg.MaintenanceReport
			if dryRun {
				opts.DryRun = true
				m, err := smg.Open(args[0], &smg.OpenOptions{Decode: *a.decodeOptions(args[0])})
				if err != nil {
					return err
				}
				defer m.Close()
				if r, err = m.Maintain(ctx, opts); err != nil {
					return err
				}
			} else {
				f, err := a.fileMemory(args[0], nil, smg.OpenOptions{})
				if err != nil {
					return err
				}
				defer f.Close()
				err = f.Update(ctx, func(m *smg.Memory) error {
					var err error
					r, err = m.Maintain(ctx, opts)
					return err
				})
				if err != nil {
					return err
				}
			}
			if asJSON {
				return a.writeJSON(r)
			}
			return a.printMaintenance(r)
		}),
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the changes and write nothing")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().StringVar(&staleAfter, "stale-after", "90d", "a node not mentioned for this long is stale: days (90d) or a duration (36h); 0 prunes nothing")
	cmd.Flags().StringVar(&now, "now", "", `the time to maintain at: a date, an RFC 3339 timestamp or "now"; default: the memory's clock`)
	cmd.Flags().Float64Var(&opts.MinEdgeStrength, "min-strength", smg.DefaultMaintainEdgeStrength, "drop edges weaker than this; 0 drops none")
	cmd.Flags().IntVar(&opts.MaxChain, "max-chain", 0, "store in full an artifact's latest version more than this many patches from a full copy (default: half the snapshot interval; -1: never)")
	ranged(cmd, "min-strength", 0, 1)
	ranged(cmd, "max-chain", -1, unbounded)
	return cmd
}

// printMaintenance prints one line per change and the totals.
func (a *app) printMaintenance(r smg.MaintenanceReport) error {
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	for _, c := range r.Changes {
		ids := strings.Join(c.IDs, " ")
		switch c.Kind {
		case smg.ChangeMerge:
			ids = c.IDs[0] + " ← " + strings.Join(c.IDs[1:], ", ")
		case smg.ChangeDropEdge:
			ids = strings.Join(c.IDs, " → ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Kind, ids, c.Detail)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var totals []string
	for _, k := range smg.ChangeKinds {
		totals = append(totals, fmt.Sprintf("%d %s", r.Count(k), k))
	}
	fmt.Fprintf(a.stdout, "%s (as of %s)\n", strings.Join(totals, ", "), r.Now.UTC().Format(time.RFC3339))
	if r.DryRun {
		fmt.Fprintln(a.stdout, "dry run: nothing was written")
	}
	return nil
}

// parseDays reads a duration in days ("90d") or as Go writes one ("36h").
// 0 is "never": a negative duration for the library.
func parseDays(s string) (time.Duration, error) {
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || n < 0 || n > 1e6 {
			return 0, fmt.Errorf("not a number of days")
		}
		d = time.Duration(n * float64(24*time.Hour))
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil || d < 0 {
			return 0, fmt.Errorf("use days, like 90d, or a duration, like 36h")
		}
	}
	if d == 0 {
		return -1, nil
	}
	return d, nil
}

// parseNow reads the --now flag: empty (the memory's clock), "now", a
// date or an RFC 3339 timestamp.
func parseNow(s string) (time.Time, error) {
	switch s {
	case "":
		return time.Time{}, nil
	case "now":
		return time.Now().UTC().Truncate(time.Second), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("use a date (2025-06-01), a timestamp (2025-06-01T12:00:00Z) or now")
	}
	return t, nil
}
