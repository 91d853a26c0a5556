package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/extraction"
	"github.com/smg-memory/smg/smg/importer"
)

// historyReport is what history measures, by session and for all.
type historyReport struct {
	Sessions []historySession `json:"sessions"`
	Total    historySession   `json:"total"`
}

type historySession struct {
	Session string `json:"session,omitempty"`
	Turns   int    `json:"turns"`
	extraction.History
}

func historyCommand(stdout io.Writer) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "history LOG...",
		Short: "Measure what a coding session's memory holds of its history: commits as changes linked to files and requests, artifacts named by file",
		Long: `history builds the memory of each coding-agent log (an aider history; a
directory stands for its files), without vectors, and counts the commits
the log records ("> Commit 1a2b3c4 …"), the change nodes of those commits,
and those linked both to a file they changed (an artifact, by about) and to
the request they answer (by resulted_in); the request nodes; and the
artifacts of the vault, those named by a file, and those that are an edit
block kept apart from its file (fragments).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := measureHistory(cmd.Context(), args)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(stdout, rep)
			}
			return writeHistory(stdout, rep)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// measureHistory measures each log of args (files, or directories of
// them).
func measureHistory(ctx context.Context, args []string) (*historyReport, error) {
	var files []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			files = append(files, a)
			continue
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !e.IsDir() && filepath.Ext(e.Name()) == ".md" && e.Name() != "README.md" {
				files = append(files, filepath.Join(a, e.Name()))
			}
		}
	}
	if len(files) == 0 {
		return nil, errors.New("history: no log")
	}
	rep := &historyReport{}
	for _, f := range files {
		log, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		res, err := importer.ReadFile(f, importer.Options{})
		if err != nil {
			return nil, err
		}
		m := smg.New(&smg.Options{NoVectors: true})
		s := historySession{Session: filepath.Base(f)}
		for _, c := range res.Conversations {
			if _, err := m.IngestAll(ctx, c.Turns); err != nil {
				m.Close()
				return nil, fmt.Errorf("history: %s: %w", f, err)
			}
			s.Turns += len(c.Turns)
		}
		s.History = extraction.MeasureHistory(log, m.Document())
		m.Close()
		rep.Sessions = append(rep.Sessions, s)
		t := &rep.Total
		t.Turns += s.Turns
		t.Commits += s.Commits
		t.Changes += s.Changes
		t.Linked += s.Linked
		t.Requests += s.Requests
		t.Artifacts += s.Artifacts
		t.Named += s.Named
		t.Fragments += s.Fragments
	}
	return rep, nil
}

func writeHistory(w io.Writer, rep *historyReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "session\tturns\tcommits\tchanges\tlinked\tshare\trequests\tartifacts\tnamed\tshare\tfragments\t")
	row := func(s historySession, name string) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%s\t%d\t\n", name, s.Turns, s.Commits, s.Changes, s.Linked, share(s.Linked, s.Commits),
			s.Requests, s.Artifacts, s.Named, share(s.Named, s.Artifacts), s.Fragments)
	}
	for _, s := range rep.Sessions {
		row(s, s.Session)
	}
	row(rep.Total, "all")
	return tw.Flush()
}

// share is a/b with three decimals, or "-" when b is 0.
func share(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", float64(a)/float64(b))
}
