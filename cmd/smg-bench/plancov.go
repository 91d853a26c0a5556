package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
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
	ImporterSkipped int `json:"importerSkipped"`
	// HeldOut: each chat's memory was built with a model of statements
	// trained on the others.
	HeldOut bool          `json:"heldOut"`
	Chats   []plancovChat `json:"chats"`
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
	// Links are the plan's updates and contradictions the memory links.
	Links extraction.PlanLinks `json:"links"`
	// TypedPer1k is the typed nodes per 1,000 turns.
	TypedPer1k float64 `json:"typedNodesPer1000Turns"`
}

func plancovCommand(stdout io.Writer) *cobra.Command {
	var data, plans string
	var threshold float64
	var asJSON, builtIn bool
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
of bullet the covered and the total, by total, descending.

The graph keeps the sentences of a user that a model of statements judges
worth keeping, a model trained on chats and their plans (see
train-statements). Each chat's memory is built with a model trained on the
other chats of the file, never on its own, so that the figure is that of
chats the model has not seen; --built-in builds every memory with the
model compiled into smg, trained on all of them (the coverage of its own
training data, not a measure).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if data == "" || plans == "" {
				return errors.New("plancov: --data FILE and --plans DIR are required")
			}
			if !(threshold >= 0 && threshold <= 1) {
				return fmt.Errorf("plancov: --threshold %v: want the share of a bullet's words a node must hold, 0 to 1", threshold)
			}
			rep, err := measurePlanCoverage(cmd.Context(), data, plans, threshold, !builtIn)
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
	f.BoolVar(&builtIn, "built-in", false, "build every memory with smg's model of statements, trained on every chat, rather than one trained on the others")
	return cmd
}

func trainStatementsCommand(stdout io.Writer) *cobra.Command {
	var data, plans, out string
	cmd := &cobra.Command{
		Use:   "train-statements --data FILE --plans DIR -o FILE",
		Short: "Train the model of which sentences of a user's turns a memory keeps, on BEAM chats and their plans",
		Long: `train-statements trains the model of statements that smg compiles in
(classify/statements.model): a logistic regression over the words of a user's
sentence, on the user sentences of the chats of a BEAM file in the LoCoMo
layout, each labelled by the chat's plan (DIR/chat-NN.txt for the NN-th
sample): kept when it holds at least half of a bullet's content words, as
plan coverage counts them. The same chats give the same model.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if data == "" || plans == "" || out == "" {
				return errors.New("train-statements: --data FILE, --plans DIR and -o FILE are required")
			}
			chats, _, err := readPlannedChats(data, plans)
			if err != nil {
				return fmt.Errorf("train-statements: %w", err)
			}
			b, err := extraction.TrainStatements(chats).MarshalBinary()
			if err != nil {
				return err
			}
			if err := os.WriteFile(out, b, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s: a model of %d chats, %d bytes\n", out, len(chats), len(b))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&data, "data", "", "a BEAM file in the LoCoMo layout (beam-dev.json)")
	f.StringVar(&plans, "plans", "", "the directory of the chats' plans, chat-01.txt and on")
	f.StringVarP(&out, "output", "o", "", "the model's `FILE`")
	return cmd
}

// readPlannedChats reads the samples of the file data with the plans of
// the directory plans, the NN-th sample's chat-NN.txt, and the number of
// the file's turns the importer skipped.
func readPlannedChats(data, plans string) (chats []extraction.PlannedChat, skipped int, err error) {
	samples, convs, skipped, err := readLoCoMo(data)
	if err != nil {
		return nil, 0, err
	}
	if len(samples) == 0 {
		return nil, 0, fmt.Errorf("%s: no LoCoMo sample", data)
	}
	for i, s := range samples {
		plan, err := readPlanFile(filepath.Join(plans, fmt.Sprintf("chat-%02d.txt", i+1)))
		if err != nil {
			return nil, 0, fmt.Errorf("sample %d (%q): %w", i+1, s.ID, err)
		}
		chats = append(chats, extraction.PlannedChat{ID: s.ID, Turns: convs[i].Turns, Plan: plan})
	}
	return chats, skipped, nil
}

// measurePlanCoverage builds the memory of each sample of the file data
// and scores its nodes against its plan in the directory plans; heldOut,
// with a model of statements trained on the other samples.
func measurePlanCoverage(ctx context.Context, data, plans string, threshold float64, heldOut bool) (*plancovReport, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	chats, skipped, err := readPlannedChats(data, plans)
	if err != nil {
		return nil, fmt.Errorf("plancov: %w", err)
	}
	rep := &plancovReport{Data: data, Plans: plans, Threshold: threshold, ImporterSkipped: skipped, HeldOut: heldOut}
	var all []extraction.PlanCoverage
	for i, c := range chats {
		var cfg smg.Config
		if heldOut {
			others := append(slices.Clone(chats[:i]), chats[i+1:]...)
			cfg.Statements = extraction.TrainStatements(others)
		}
		doc, err := memoryDocument(ctx, c.Turns, cfg)
		if err != nil {
			return nil, fmt.Errorf("plancov: sample %d (%q): %w", i+1, c.ID, err)
		}
		chat := plancovChat{Chat: fmt.Sprintf("%02d", i+1), Sample: c.ID, Turns: len(c.Turns),
			PlanCoverage: extraction.CoverPlan(c.Plan, doc.SemanticGraph.Nodes, threshold),
			Links:        extraction.LinkPlan(c.Plan, doc.SemanticGraph, threshold)}
		chat.finish()
		rep.Total.Links.Add(chat.Links)
		rep.Chats = append(rep.Chats, chat)
		rep.Total.Turns += chat.Turns
		all = append(all, chat.PlanCoverage)
	}
	rep.Total.PlanCoverage = extraction.SumPlanCoverage(all...)
	rep.Total.finish()
	return rep, nil
}

// memoryDocument builds the memory of turns without vectors, of cfg, and
// returns its document.
func memoryDocument(ctx context.Context, turns []spec.Turn, cfg smg.Config) (*spec.Document, error) {
	m := smg.New(&smg.Options{NoVectors: true, Config: cfg})
	if _, err := m.IngestAll(ctx, turns); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
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
	fmt.Fprintln(w, "\nupdates that supersede what they update, contradictions in conflict with what they contradict (covered by a node linked to one about the same thing):")
	for _, c := range append(slices.Clone(rep.Chats), rep.Total) {
		name := "chat " + c.Chat
		if c.Chat == "" {
			name = "all"
		}
		l := c.Links
		fmt.Fprintf(w, "  %s: updates %d/%d, contradictions %d/%d (supersedes edges %d, contradicts edges %d)\n",
			name, l.UpdatesLinked, l.Updates, l.ContradictionsLinked, l.Contradictions, l.Supersedes, l.Contradicts)
	}
	chats := "chats"
	if len(rep.Chats) == 1 {
		chats = "chat"
	}
	_, err := fmt.Fprintf(w, "%d %s, %d turns\n", len(rep.Chats), chats, rep.Total.Turns)
	return err
}
