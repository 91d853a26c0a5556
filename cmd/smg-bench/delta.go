package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/importer"
)

// deltaTarget is the largest differential file, over the full file of its
// target, that issue 38 asks for after 65 turns (issue 7 asked 0.10 after
// 75).
const deltaTarget = 0.13

// deltaRow is the measure of one conversation: a memory of its first Base
// turns, then Added more, and the differential file between the two.
type deltaRow struct {
	Input        string `json:"input"`
	Conversation string `json:"conversation,omitzero"`
	Base         int    `json:"baseTurns"`
	Added        int    `json:"addedTurns"`
	// BaseBytes and TargetBytes are the .smg files of the two versions,
	// as smg writes them; DeltaBytes the .smg.diff from one to the other.
	BaseBytes   int64 `json:"baseBytes"`
	TargetBytes int64 `json:"targetBytes"`
	DeltaBytes  int64 `json:"deltaBytes"`
	// Ratio is DeltaBytes over TargetBytes; Met whether it is at most the
	// target.
	Ratio float64 `json:"ratio"`
	Met   bool    `json:"met"`
	// Full tells a delta that carries the whole target (it should not).
	Full bool `json:"full"`
	// Sections are the compressed sizes of the delta's parts when each is
	// written as a delta of its own: where the bytes go.
	Sections []deltaSection `json:"sections"`
}

// deltaSection is the size of the part of a delta that changes one
// top-level section.
type deltaSection struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
}

func deltaCommand(stdout io.Writer) *cobra.Command {
	var asJSON bool
	var base, added int
	cmd := &cobra.Command{
		Use:   "delta INPUT...",
		Short: "Measure the .smg.diff after adding turns to a memory, against the full .smg",
		Long: `Delta builds, for each conversation of each input that has enough turns, the
memory of its first --base turns and the memory after --add more, and
measures the differential file from the first to the second (smg diff -o)
against the second's .smg file. It also writes, per top-level section, the
size of a delta that changes that section alone, to show where the bytes go.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var rows []deltaRow
			for _, name := range args {
				res, err := importer.ReadFile(name, importer.Options{})
				if err != nil {
					return err
				}
				for _, c := range res.Conversations {
					if len(c.Turns) < base+added {
						continue
					}
					r, err := measureDelta(c, base, added)
					if err != nil {
						return fmt.Errorf("%s: %s: %w", name, c.ID, err)
					}
					r.Input = filepath.Base(name)
					rows = append(rows, r)
				}
			}
			if asJSON {
				return writeJSON(stdout, rows)
			}
			return writeDelta(stdout, rows)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().IntVar(&base, "base", 600, "turns of the first version")
	cmd.Flags().IntVar(&added, "add", 50, "turns added to make the second")
	return cmd
}

// measureDelta measures the delta of one conversation.
func measureDelta(c importer.Conversation, base, added int) (deltaRow, error) {
	r := deltaRow{Conversation: c.ID, Base: base, Added: added}
	ctx := context.Background()
	m := smg.New(noVectors)
	defer m.Close()
	if _, err := m.IngestAll(ctx, c.Turns[:base]); err != nil {
		return r, err
	}
	a := m.Document()
	fa, err := m.Marshal(nil)
	if err != nil {
		return r, err
	}
	if _, err := m.IngestAll(ctx, c.Turns[base:base+added]); err != nil {
		return r, err
	}
	b := m.Document()
	fb, err := m.Marshal(nil)
	if err != nil {
		return r, err
	}
	// The documents as the files hold them (Marshal fills in the
	// compression ratio).
	if a, err = format.Unmarshal(fa, nil); err != nil {
		return r, err
	}
	if b, err = format.Unmarshal(fb, nil); err != nil {
		return r, err
	}
	d, err := format.NewDelta(a, b)
	if err != nil {
		return r, err
	}
	raw, err := format.MarshalDelta(d, nil)
	if err != nil {
		return r, err
	}
	r.BaseBytes, r.TargetBytes, r.DeltaBytes = int64(len(fa)), int64(len(fb)), int64(len(raw))
	r.Ratio = float64(r.DeltaBytes) / float64(r.TargetBytes)
	r.Met, r.Full = r.Ratio <= deltaTarget, d.Full()

	// Each section's share: a delta from a to a with that one section of b.
	for _, name := range format.SectionNames {
		mixed := *a
		switch name {
		case "metadata":
			mixed.Metadata = b.Metadata
		case "workingMemory":
			mixed.WorkingMemory = b.WorkingMemory
		case "semanticGraph":
			mixed.SemanticGraph = b.SemanticGraph
		case "artifactVault":
			mixed.ArtifactVault = b.ArtifactVault
		case "deepArchive":
			mixed.DeepArchive = b.DeepArchive
		default:
			continue
		}
		d, err := format.NewDelta(a, &mixed)
		if err != nil {
			return r, err
		}
		raw, err := format.MarshalDelta(d, nil)
		if err != nil {
			return r, err
		}
		r.Sections = append(r.Sections, deltaSection{Name: name, Bytes: int64(len(raw))})
	}
	return r, nil
}

// writeDelta prints the report as a table.
func writeDelta(w io.Writer, rows []deltaRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "conversation\tturns\tbase .smg\ttarget .smg\t.smg.diff\tdiff/target\tmet\twhere (each section alone)\t")
	var sumT, sumD int64
	for _, r := range rows {
		where := ""
		for i, s := range r.Sections {
			if i > 0 {
				where += ", "
			}
			where += fmt.Sprintf("%s %d", s.Name, s.Bytes)
		}
		fmt.Fprintf(tw, "%s\t%d+%d\t%d\t%d\t%d\t%.1f%%\t%v\t%s\t\n", cmp.Or(r.Conversation, r.Input), r.Base, r.Added, r.BaseBytes, r.TargetBytes, r.DeltaBytes, 100*r.Ratio, r.Met, where)
		sumT += r.TargetBytes
		sumD += r.DeltaBytes
	}
	if len(rows) > 0 {
		fmt.Fprintf(tw, "total\t\t\t%d\t%d\t%.1f%%\t%v\t\t\n", sumT, sumD, 100*float64(sumD)/float64(sumT), float64(sumD) <= deltaTarget*float64(sumT))
	}
	return tw.Flush()
}
