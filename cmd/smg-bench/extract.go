package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/go-json-experiment/json"
	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg/extraction"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/spec"
)

func extractCommand(stdout io.Writer) *cobra.Command {
	var asJSON bool
	var labelsFile, recallFile, todo string
	var sample, sampleTurns int
	cmd := &cobra.Command{
		Use:   "extract INPUT...",
		Short: "Measure what the graph extracts: items per 1,000 turns, the precision of a fixed sample of items and the recall of a fixed sample of turns, by labels",
		Long: `Extract builds the graph of every conversation of the inputs (files in
any format smg ingests; a directory is one source, its files read in
order) and counts, by kind (decision, fact, problem, solution, goal,
concept; request and change, of coding sessions; artifact), the items extracted and their number per 1,000 turns. It draws a
fixed sample of --sample items of each kind, as many from each input as
it has (of artifacts, --sample of each input), by key (see package smg/extraction), and scores it by the labels of --labels (JSON
lines, written by the rubric of testdata/labels/README.md): precision by
kind, and for facts the share of grammatical, faithful rephrasings.

It also draws a fixed sample of --turns turns, as many from each input,
and scores it by the recall labels of --recall-labels, which list what
each turn should give: by kind, the items expected, those found among
what the engine extracted from their turns, and the recall.

--todo FILE writes the items of the sample without a label, the facts
whose label changed since their rephrasing was judged, and the sampled
turns without a recall label, as JSON lines, each with the text of its
turn, for a person to label; it is a worksheet, not for the repository
(it quotes the data). 'smg-bench recall-labels' turns the answers on
its turns into recall labels.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			labels, err := readLabelsFile(labelsFile, extraction.ReadLabels)
			if err != nil {
				return err
			}
			recallLabels, err := readLabelsFile(recallFile, extraction.ReadRecallLabels)
			if err != nil {
				return err
			}
			var items []extraction.Item
			var all []extraction.Conversation
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
				all = append(all, convs...)
			}
			rep := extraction.Measure(items, turns, sample, labels)
			rep.MeasureRecall(extraction.SampleTurns(all, sampleTurns), items, recallLabels)
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
	cmd.Flags().IntVar(&sample, "sample", 60, "the items of each kind the sample takes (of artifacts, of each input)")
	cmd.Flags().StringVar(&recallFile, "recall-labels", "", "the recall labels of the sample of turns (JSON lines)")
	cmd.Flags().IntVar(&sampleTurns, "turns", 60, "the turns the sample of turns takes")
	cmd.Flags().StringVar(&todo, "todo", "", "write the sample's unlabelled items and turns, with their turns' text, to this file")
	return cmd
}

// readLabelsFile reads the named file by read, or nothing when name is
// empty; an error of read names the file.
func readLabelsFile[T any](name string, read func(io.Reader) (T, error)) (T, error) {
	if name == "" {
		return read(strings.NewReader(""))
	}
	f, err := os.Open(name)
	if err != nil {
		var none T
		return none, err
	}
	defer f.Close()
	v, err := read(f)
	if err != nil {
		return v, fmt.Errorf("%s: %w", name, err)
	}
	return v, nil
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

// todoTurn is a line of the labeller's worksheet for a turn of the
// sample of turns without a recall label (Todo "recall"): the answer,
// what the turn should give in plain words, is a line
// {"turn", "expect": [{"kind", "words"}], "note"} that 'smg-bench
// recall-labels' reads.
type todoTurn struct {
	Todo         string `json:"todo"`
	Turn         string `json:"turn"`
	Source       string `json:"source"`
	Conversation string `json:"conversation"`
	TurnNumber   int    `json:"turnNumber"`
	Role         string `json:"role,omitempty"`
	Speaker      string `json:"speaker,omitempty"`
	TurnText     string `json:"turnText"`
}

func writeTodo(name string, rep extraction.Report, convs map[convRef][]spec.Turn) error {
	turn := func(source, conv string, n int) spec.Turn {
		if ts := convs[convRef{source, conv}]; n >= 1 && n <= len(ts) {
			return ts[n-1]
		}
		return spec.Turn{}
	}
	var lines []any
	item := func(todo string, it extraction.Item) todoItem {
		t := turn(it.Source, it.Conversation, it.Turn)
		l := todoItem{Todo: todo, Item: it, Speaker: t.Speaker, Role: t.Role, TurnText: t.Content}
		if it.Kind == extraction.Fact {
			l.Of = extraction.Phrasing(it.Label)
		}
		return l
	}
	for _, it := range rep.Unlabelled {
		lines = append(lines, item("label", it))
	}
	for _, it := range rep.Rephrase {
		lines = append(lines, item("rephrasing", it))
	}
	for _, r := range rep.UnlabelledTurns {
		t := turn(r.Source, r.Conversation, r.Turn)
		lines = append(lines, todoTurn{Todo: "recall", Turn: r.Key, Source: r.Source, Conversation: r.Conversation,
			TurnNumber: r.Turn, Role: t.Role, Speaker: t.Speaker, TurnText: t.Content})
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	for _, l := range lines {
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
	fmt.Fprintln(tw, "kind\titems\tper 1,000 turns\tsampled\tlabelled\tprecision\ttarget\texpected\tfound\trecall\trephrasings ok\t")
	for _, r := range rep.Rows {
		prec, target, recall, reph := "-", "-", "-", "-"
		if r.Precision >= 0 {
			prec = fmt.Sprintf("%.3f", r.Precision)
		}
		if r.Recall >= 0 {
			recall = fmt.Sprintf("%.3f", r.Recall)
		}
		if r.Target > 0 {
			target = fmt.Sprintf("%.2f", r.Target)
		}
		if r.Rephrasings > 0 {
			reph = fmt.Sprintf("%.3f (%d of %d; target %.2f)", float64(r.RephrasingsOK)/float64(r.Rephrasings), r.RephrasingsOK, r.Rephrasings, extraction.RephrasingTarget)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%d\t%d\t%s\t%s\t%d\t%d\t%s\t%s\t\n", r.Kind, r.Items, r.PerThousand, r.Sampled, r.Labelled, prec, target, r.Expected, r.Found, recall, reph)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// The kinds sampled by source are scored by source too, with the
	// items judged an assistant's prose answer.
	for _, r := range rep.Rows {
		if !extraction.PerSource[r.Kind] {
			continue
		}
		for _, s := range r.Sources {
			prec := "-"
			if s.Labelled > 0 {
				prec = fmt.Sprintf("%.3f", float64(s.Valid)/float64(s.Labelled))
			}
			fmt.Fprintf(w, "%s of %s: %d sampled of %d, %d labelled, %d valid (precision %s), %d from prose\n", r.Kind, s.Source, s.Sampled, s.Items, s.Labelled, s.Valid, prec, s.Prose)
		}
	}
	_, err := fmt.Fprintf(w, "%d turns; %d items of the sample without a label, %d facts whose rephrasing is to judge; %d of %d sampled turns without a recall label\n",
		rep.Turns, len(rep.Unlabelled), len(rep.Rephrase), len(rep.UnlabelledTurns), rep.SampledTurns)
	return err
}
