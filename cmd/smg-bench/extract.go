package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"

	"github.com/go-json-experiment/json"
	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg/extraction"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/spec"
)

func extractCommand(stdout io.Writer) *cobra.Command {
	var asJSON bool
	var labelsFile, todo string
	var sample int
	cmd := &cobra.Command{
		Use:   "extract INPUT...",
		Short: "Measure what the graph extracts: items per 1,000 turns, and the precision of a fixed sample by labels",
		Long: `Extract builds the graph of every conversation of the inputs (files in
any format smg ingests; a directory is one source, its files read in
order) and counts, by kind (decision, fact, problem, solution, goal,
concept), the items extracted and their number per 1,000 turns. It draws a
fixed sample of --sample items of each kind, as many from each input as
it has, by key (see package smg/extraction), and scores it by the labels of --labels (JSON
lines, written by the rubric of testdata/labels/README.md): precision by
kind, and for facts the share of grammatical, faithful rephrasings.

--todo FILE writes the items of the sample without a label, and the facts
whose label changed since their rephrasing was judged, as JSON lines,
each with the text of its turn, for a person to label; it is a worksheet,
not for the repository (it quotes the data).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			labels := extraction.Labels{}
			if labelsFile != "" {
				f, err := os.Open(labelsFile)
				if err != nil {
					return err
				}
				labels, err = extraction.ReadLabels(f)
				f.Close()
				if err != nil {
					return fmt.Errorf("%s: %w", labelsFile, err)
				}
			}
			var items []extraction.Item
			turns := 0
			convTurns := map[convRef][]spec.Turn{} // for the worksheet
			for _, name := range args {
				convs, err := sourceConversations(name)
				if err != nil {
					return err
				}
				for _, c := range convs {
					its, err := extraction.Extract(c)
					if err != nil {
						return err
					}
					items = append(items, its...)
					turns += len(c.Turns)
					convTurns[convRef{c.Source, c.ID}] = c.Turns
				}
			}
			rep := extraction.Measure(items, turns, sample, labels)
			if todo != "" {
				if err := writeTodo(todo, rep, convTurns); err != nil {
					return err
				}
			}
			if asJSON {
				return writeJSON(stdout, rep)
			}
			return writeExtract(stdout, rep)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().StringVar(&labelsFile, "labels", "", "the labels of the sample (JSON lines)")
	cmd.Flags().IntVar(&sample, "sample", 60, "the items of each kind the sample takes")
	cmd.Flags().StringVar(&todo, "todo", "", "write the sample's unlabelled items, with their turns' text, to this file")
	return cmd
}

// convRef names a conversation of a source.
type convRef struct{ source, conv string }

// sourceConversations reads the conversations of an input: a file, or
// every file of a directory, in the order of their names, all of one
// source named by the input's base name.
func sourceConversations(name string) ([]extraction.Conversation, error) {
	files := []string{name}
	if st, err := os.Stat(name); err != nil {
		return nil, err
	} else if st.IsDir() {
		entries, err := os.ReadDir(name)
		if err != nil {
			return nil, err
		}
		files = nil
		for _, e := range entries {
			if !e.IsDir() && e.Name() != "README.md" {
				files = append(files, filepath.Join(name, e.Name()))
			}
		}
	}
	source := filepath.Base(filepath.Clean(name))
	var out []extraction.Conversation
	for _, f := range files {
		res, err := importer.ReadFile(f, importer.Options{})
		if err != nil {
			return nil, err
		}
		for i, c := range res.Conversations {
			id := c.ID
			if id == "" {
				id = strconv.Itoa(i + 1)
			}
			if len(files) > 1 {
				id = filepath.Base(f) + "/" + id
			}
			out = append(out, extraction.Conversation{Source: source, ID: id, Turns: c.Turns})
		}
	}
	return out, nil
}

// todoItem is a line of the labeller's worksheet: an item to label
// (Todo "label"), or a fact whose rephrasing is to judge (Todo
// "rephrasing"), with Of, the phrasing of its label, for the verdict.
type todoItem struct {
	Todo string `json:"todo"`
	extraction.Item
	Of       string `json:"of,omitempty"`
	Speaker  string `json:"speaker,omitempty"`
	Role     string `json:"role,omitempty"`
	TurnText string `json:"turnText"`
}

func writeTodo(name string, rep extraction.Report, convs map[convRef][]spec.Turn) error {
	var lines []todoItem
	for _, it := range rep.Unlabelled {
		lines = append(lines, todoItem{Todo: "label", Item: it})
	}
	for _, it := range rep.Rephrase {
		lines = append(lines, todoItem{Todo: "rephrasing", Item: it})
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	for _, l := range lines {
		var t spec.Turn
		if ts := convs[convRef{l.Source, l.Conversation}]; l.Turn >= 1 && l.Turn <= len(ts) {
			t = ts[l.Turn-1]
		}
		l.Speaker, l.Role, l.TurnText = t.Speaker, t.Role, t.Content
		if l.Kind == extraction.Fact {
			l.Of = extraction.Phrasing(l.Label)
		}
		b, err := json.Marshal(l)
		if err != nil {
			f.Close()
			return err
		}
		if _, err := f.Write(append(b, '\n')); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

func writeExtract(w io.Writer, rep extraction.Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\titems\tper 1,000 turns\tsampled\tlabelled\tprecision\ttarget\trephrasings ok\t")
	for _, r := range rep.Rows {
		prec, target, reph := "-", "-", "-"
		if r.Precision >= 0 {
			prec = fmt.Sprintf("%.3f", r.Precision)
		}
		if r.Target > 0 {
			target = fmt.Sprintf("%.2f", r.Target)
		}
		if r.Rephrasings > 0 {
			reph = fmt.Sprintf("%.3f (%d of %d; target %.2f)", float64(r.RephrasingsOK)/float64(r.Rephrasings), r.RephrasingsOK, r.Rephrasings, extraction.RephrasingTarget)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%d\t%d\t%s\t%s\t%s\t\n", r.Kind, r.Items, r.PerThousand, r.Sampled, r.Labelled, prec, target, reph)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d turns; %d items of the sample without a label, %d facts whose rephrasing is to judge\n", rep.Turns, len(rep.Unlabelled), len(rep.Rephrase))
	return err
}
