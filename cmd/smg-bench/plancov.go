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

	"github.com/smg-memory/smg/smg/extraction"
	"github.com/smg-memory/smg/spec"
)

// plancovReport is what plancov measures.
type plancovReport struct {
	Data      string  `json:"data"`
	Plans     string  `json:"plans"`
	Threshold float64 `json:"threshold"`
	// ImporterSkipped are the malformed turns and samples the importer
	// left out.
	ImporterSkipped int           `json:"importerSkipped"`
	Chats           []plancovChat `json:"chats"`
	// Total is the sum of the chats, their categories summed too.
	Total plancovChat `json:"total"`
}

// plancovChat is the plan coverage of one chat's memory, or of all.
type plancovChat struct {
	// Chat numbers the plan (01 for chat-01.txt), Sample is the id of the
	// sample whose memory is scored; both are empty in the total.
	Chat   string `json:"chat,omitempty"`
	Sample string `json:"sample,omitempty"`
	Turns  int    `json:"turns"`
	extraction.PlanCoverage
	// TypedPer1k is the typed nodes per 1,000 turns.
	TypedPer1k float64 `json:"typedNodesPer1000Turns"`
}

func plancovCommand(stdout io.Writer) *cobra.Command {
	var data, plans string
	var threshold float64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "plancov --data FILE --plans DIR",
		Short: "Measure plan coverage: the share of each BEAM chat's plan bullets that its memory's typed nodes say",
		Long: `plancov builds the memory of each chat of a BEAM file in the LoCoMo layout
(beam-dev.json), without vectors, and scores its graph against the chat's
plan, DIR/chat-NN.txt for the NN-th sample of the file: the bullets of the
plan ("• **Category: Sub:** text", time anchors left out) that a typed node
(any but a concept or an artifact) says. A node says a bullet when its label
and description hold at least --threshold of the bullet's content words
(lower case, 3 characters or more, a short list of stop words left out).
It is ../shared/bench/plancov.py's measure, to the bullet (see package
smg/extraction).

It reports, per chat and for all, the bullets, those covered and their
share, the typed nodes and their number per 1,000 turns, and by category
of bullet the covered and the total, by total, descending.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if data == "" || plans == "" {
				return errors.New("plancov: --data FILE and --plans DIR are required")
			}
			if !(threshold >= 0 && threshold <= 1) {
				return fmt.Errorf("plancov: --threshold %v: want the share of a bullet's words a node must hold, 0 to 1", threshold)
			}
			rep, err := measurePlanCoverage(cmd.Context(), data, plans, threshold)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(stdout, rep)
			}
			return writePlanCoverage(stdout, rep)
		},
	}
	f := cmd.Flags()
	f.StringVar(&data, "data", "", "a BEAM file in the LoCoMo layout (beam-dev.json)")
	f.StringVar(&plans, "plans", "", "the directory of the chats' plans, chat-01.txt and on")
	f.Float64Var(&threshold, "threshold", extraction.DefaultPlanThreshold, "the share of a bullet's content words a node must hold to cover it")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// measurePlanCoverage builds the memory of each sample of the file data
// and scores its nodes against its plan in the directory plans.
func measurePlanCoverage(ctx context.Context, data, plans string, threshold float64) (*plancovReport, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	samples, convs, skipped, err := readLoCoMo(data)
	if err != nil {
		return nil, fmt.Errorf("plancov: %w", err)
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("plancov: %s: no LoCoMo sample", data)
	}
	rep := &plancovReport{Data: data, Plans: plans, Threshold: threshold, ImporterSkipped: skipped}
	var all []extraction.PlanCoverage
	for i, s := range samples {
		chat := fmt.Sprintf("%02d", i+1)
		plan, err := readPlanFile(filepath.Join(plans, "chat-"+chat+".txt"))
		if err != nil {
			return nil, fmt.Errorf("plancov: sample %d (%q): %w", i+1, s.ID, err)
		}
		doc, err := memoryDocument(ctx, convs[i].Turns)
		if err != nil {
			return nil, fmt.Errorf("plancov: sample %d (%q): %w", i+1, s.ID, err)
		}
		c := plancovChat{Chat: chat, Sample: s.ID, Turns: len(convs[i].Turns),
			PlanCoverage: extraction.CoverPlan(plan, doc.SemanticGraph.Nodes, threshold)}
		c.finish()
		rep.Chats = append(rep.Chats, c)
		rep.Total.Turns += c.Turns
		all = append(all, c.PlanCoverage)
	}
	rep.Total.PlanCoverage = extraction.SumPlanCoverage(all...)
	rep.Total.finish()
	return rep, nil
}

// memoryDocument builds the memory of turns without vectors
// (buildMemory) and returns its document.
func memoryDocument(ctx context.Context, turns []spec.Turn) (*spec.Document, error) {
	m, _, err := buildMemory(ctx, turns, nil)
	if err != nil {
		return nil, err
	}
	doc := m.Document()
	return doc, m.Close()
}

// readPlanFile reads the bullets of the named plan; a plan without one
// is an error, most likely another file.
func readPlanFile(name string) ([]extraction.PlanBullet, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	plan, err := extraction.ReadPlan(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(plan) == 0 {
		return nil, fmt.Errorf("%s: no plan bullet (a line \"• **Category:** text\")", name)
	}
	return plan, nil
}

func (c *plancovChat) finish() {
	c.TypedPer1k = 0
	if c.Turns > 0 {
		c.TypedPer1k = 1000 * float64(c.TypedNodes) / float64(c.Turns)
	}
}

func writePlanCoverage(w io.Writer, rep *plancovReport) error {
	fmt.Fprintf(w, "plan coverage at overlap >= %g (the share of a bullet's content words one typed node holds)\n", rep.Threshold)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "chat\tsample\tturns\tbullets\tcovered\tcoverage\ttyped nodes\tper 1,000 turns\t")
	row := func(chat, sample string, c plancovChat) {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%.3f\t%d\t%.1f\t\n", chat, sample, c.Turns, c.Bullets, c.Covered, c.Coverage, c.TypedNodes, c.TypedPer1k)
	}
	for _, c := range rep.Chats {
		row(c.Chat, c.Sample, c)
	}
	row("all", "", rep.Total)
	if err := tw.Flush(); err != nil {
		return err
	}
	if rep.ImporterSkipped > 0 {
		fmt.Fprintf(w, "the importer left out %d malformed turns or samples\n", rep.ImporterSkipped)
	}
	fmt.Fprintln(w, "\ncovered/total by category of bullet:")
	cats := func(title string, c plancovChat) {
		fmt.Fprintln(w, title)
		for _, cat := range c.Categories {
			fmt.Fprintf(w, "  %s: %d/%d\n", cat.Category, cat.Covered, cat.Total)
		}
	}
	for _, c := range rep.Chats {
		cats(fmt.Sprintf("chat %s (%s)", c.Chat, c.Sample), c)
	}
	cats("all", rep.Total)
	chats := "chats"
	if len(rep.Chats) == 1 {
		chats = "chat"
	}
	_, err := fmt.Fprintf(w, "%d %s, %d turns\n", len(rep.Chats), chats, rep.Total.Turns)
	return err
}
