package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/importer"
)

// scaleOptions are scale's flags.
type scaleOptions struct {
	data      string
	repeat    int
	smg       string // the smg binary
	dir       string // where the transcript and the memory are made
	question  string // the question of the cold contexts
	budget    int
	tokenizer string
	recall    bool
}

// scaleStep is one command of smg run on the memory: its wall time and its
// peak resident memory, from process start to exit.
type scaleStep struct {
	Step    string  `json:"step"`
	Command string  `json:"command"`
	Seconds float64 `json:"seconds"`
	PeakMB  float64 `json:"peak_mb"`
}

// scaleReport is what scale measured.
type scaleReport struct {
	Data    string      `json:"data"`
	Repeat  int         `json:"repeat"`
	Turns   int         `json:"turns"`
	InputMB float64     `json:"input_mb"` // the transcript, JSON Lines
	Steps   []scaleStep `json:"steps"`
	// The file, and what sits beside it in its cache folder.
	FileMB       float64 `json:"file_mb"`
	StateMB      float64 `json:"state_mb"`
	IndexCacheMB float64 `json:"index_cache_mb"`
	// Warm is the latency of a context in a live process that holds the
	// memory open, over the questions of the data.
	Warm latency `json:"warm_context_ms"`
	// PerChat and OneMemory are recall's reports of the data's chats, one
	// memory each and all in one (--recall).
	PerChat   *recallReport `json:"per_chat,omitempty"`
	OneMemory *recallReport `json:"one_memory,omitempty"`
}

func scaleCommand(stdout io.Writer) *cobra.Command {
	o := scaleOptions{repeat: 16, budget: 1000, tokenizer: "cl100k", recall: true,
		question: "what did we decide about the database schema?"}
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "scale --data FILE",
		Short: "Measure a memory of a lifetime: one conversation of the chats of a file, repeated",
		Long: `scale writes the chats of a file in the LoCoMo layout (beam-dev.json),
one after the other, --repeat times, as one transcript in JSON Lines (each
turn {role, content, timestamp, id}, two minutes apart, ids
rR/CHAT/DIA), and measures what a person who keeps a year of work in one
memory meets, each command of smg (--smg) a process of its own, timed from
start to exit with its peak resident memory: ingest (--no-vectors), info,
nodes --json, a context without any cache, a context that writes the
index cache, and one with it. It reports the file's size and what sits
beside it (the builder's state, the index cache); the latency of a context
in a live process that holds the memory open, over the file's questions;
and, with --recall, recall's evidence recall of the chats one memory each
and all in one memory (recall --one), at --budget tokens.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.repeat < 1 {
				return fmt.Errorf("--repeat %d: want at least 1", o.repeat)
			}
			if o.smg == "" {
				var err error
				if o.smg, err = smgBinary(); err != nil {
					return fmt.Errorf("no smg binary beside smg-bench or on the PATH: give --smg: %w", err)
				}
			}
			if o.dir == "" {
				dir, err := os.MkdirTemp("", "smg-scale-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(dir)
				o.dir = dir
			} else if err := os.MkdirAll(o.dir, 0o755); err != nil {
				return err
			}
			rep, err := measureScale(cmd.Context(), o, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(stdout, rep)
			}
			return writeScale(stdout, rep)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.data, "data", "", "a file in the LoCoMo layout (beam-dev.json): its chats make the memory, its questions the queries")
	f.IntVar(&o.repeat, "repeat", o.repeat, "how many times the chats are repeated, one after the other")
	f.StringVar(&o.smg, "smg", "", "the smg binary (default: smg beside smg-bench, or on the PATH)")
	f.StringVar(&o.dir, "dir", "", "where to make the transcript and the memory, kept (default: a temporary folder, removed)")
	f.StringVar(&o.question, "question", o.question, "the question of the contexts from process start")
	f.IntVar(&o.budget, "budget", o.budget, "the token budget of each context")
	f.StringVar(&o.tokenizer, "tokenizer", o.tokenizer, "count tokens with cl100k, o200k or estimate")
	f.BoolVar(&o.recall, "recall", o.recall, "also measure recall of the chats one memory each and all in one (minutes)")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	_ = cmd.MarkFlagRequired("data")
	return cmd
}

func measureScale(ctx context.Context, o scaleOptions, warn io.Writer) (*scaleReport, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	rep := &scaleReport{Data: o.data, Repeat: o.repeat}
	samples, convs, _, err := readLoCoMo(o.data)
	if err != nil {
		return nil, err
	}
	in := filepath.Join(o.dir, "scale.jsonl")
	turns, err := writeScaleTranscript(in, convs, o.repeat)
	if err != nil {
		return nil, err
	}
	rep.Turns = turns
	rep.InputMB = fileMB(in)
	name := filepath.Join(o.dir, "scale.smg")
	for _, name := range []string{name, format.StateName(name)} {
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if err := os.RemoveAll(format.IndexCacheDir(name)); err != nil {
		return nil, err
	}
	cached := []string{"context", "--no-vectors", "--budget", fmt.Sprint(o.budget), "--tokenizer", o.tokenizer, name, o.question}
	steps := []struct {
		step string
		args []string
	}{
		{"ingest", []string{"ingest", "--no-vectors", "--format", "transcript", in, "-o", name}},
		{"info", []string{"info", name}},
		{"nodes --json", []string{"nodes", "--json", name}},
		{"context, no cache at all", append([]string{"context", "--no-index-cache"}, cached[1:]...)},
		{"context, writing the index cache", cached},
		{"context with the index cache", cached},
	}
	for _, s := range steps {
		st, err := runStep(ctx, o.smg, s.step, s.args)
		if err != nil {
			return nil, err
		}
		rep.Steps = append(rep.Steps, st)
		if s.step == "ingest" {
			rep.FileMB, rep.StateMB = fileMB(name), fileMB(format.StateName(name))
		}
	}
	rep.IndexCacheMB = float64(format.DirSize(format.IndexCacheDir(name))) / 1e6

	if rep.Warm, err = warmContexts(ctx, name, samples, o); err != nil {
		return nil, err
	}
	if o.recall {
		ro := recallOptions{data: o.data, budgets: []int{o.budget}, tokenizer: o.tokenizer}
		if rep.PerChat, err = measureRecall(ctx, ro, warn); err != nil {
			return nil, err
		}
		ro.one = true
		if rep.OneMemory, err = measureRecall(ctx, ro, warn); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// writeScaleTranscript writes the chats convs, repeat times, as one
// transcript in JSON Lines, and returns its number of turns.
func writeScaleTranscript(name string, convs []importer.Conversation, repeat int) (int, error) {
	f, err := os.Create(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	at := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)
	n := 0
	for r := range repeat {
		for _, c := range convs {
			for _, t := range c.Turns {
				line, err := json.Marshal(map[string]string{
					"role": string(t.Role), "content": t.Content,
					"timestamp": at.Add(time.Duration(n) * 2 * time.Minute).Format(time.RFC3339),
					"id":        fmt.Sprintf("r%d/%s/%s", r, c.ID, t.ExternalID),
				})
				if err != nil {
					return 0, err
				}
				w.Write(line)
				w.WriteByte('\n')
				n++
			}
		}
	}
	if err := w.Flush(); err != nil {
		return 0, err
	}
	return n, f.Close()
}

// runStep runs smg with args, its output dropped, and measures it.
func runStep(ctx context.Context, bin, step string, args []string) (scaleStep, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil {
		return scaleStep{}, fmt.Errorf("%s: smg %s: %w\n%s", step, strings.Join(args, " "), err, stderr.String())
	}
	return scaleStep{Step: step, Command: "smg " + strings.Join(args, " "), Seconds: took.Seconds(), PeakMB: childPeakRSSMB(cmd.ProcessState)}, nil
}

// warmContexts opens the memory in this process, waits for its index,
// and times a context for each question of samples.
func warmContexts(ctx context.Context, name string, samples []locomoSample, o scaleOptions) (latency, error) {
	tk, err := smg.NewTokenizer(o.tokenizer)
	if err != nil {
		return latency{}, err
	}
	m, err := smg.Open(name, &smg.OpenOptions{NoVectors: true})
	if err != nil {
		return latency{}, err
	}
	defer m.Close()
	if err := m.WaitIndex(ctx); err != nil {
		return latency{}, err
	}
	opts := &smg.ContextOptions{Budget: o.budget, Tokenizer: tk}
	var calls []time.Duration
	for _, s := range samples {
		for _, q := range s.Questions {
			start := time.Now()
			if _, err := m.Context(ctx, q.Question, opts); err != nil {
				return latency{}, err
			}
			calls = append(calls, time.Since(start))
		}
	}
	return percentiles(calls), nil
}

func fileMB(name string) float64 {
	fi, err := os.Stat(name)
	if err != nil {
		return 0
	}
	return float64(fi.Size()) / 1e6
}

func writeScale(w io.Writer, r *scaleReport) error {
	fmt.Fprintf(w, "%s, its chats %d times as one conversation: %d turns, %.1f MB of JSON Lines\n\n", r.Data, r.Repeat, r.Turns, r.InputMB)
	fmt.Fprintf(w, "%-36s %9s %10s\n", "step", "time", "peak RSS")
	for _, s := range r.Steps {
		fmt.Fprintf(w, "%-36s %7.2f s %7.0f MB\n", s.Step, s.Seconds, s.PeakMB)
	}
	fmt.Fprintf(w, "\nthe file %.1f MB; beside it the builder's state %.1f MB, the index cache %.1f MB\n", r.FileMB, r.StateMB, r.IndexCacheMB)
	fmt.Fprintf(w, "warm context, the memory open   p50 %6.1f ms  p99 %6.1f ms  (%d questions)\n", r.Warm.P50, r.Warm.P99, r.Warm.Calls)
	if r.PerChat != nil && r.OneMemory != nil {
		b := r.PerChat.Budgets[0]
		fmt.Fprintf(w, "\nrecall of evidence at %d tokens (1-4)   per chat   one memory\n", b)
		for _, system := range []string{systemSMG, systemBM25} {
			fmt.Fprintf(w, "  %-36s %8s %12s\n", system, recallOf(r.PerChat, system, b), recallOf(r.OneMemory, system, b))
		}
		fmt.Fprintf(w, "  %-36s %8.1f %12.1f\n", "context p99, ms", r.PerChat.ContextMs.P99, r.OneMemory.ContextMs.P99)
	}
	return nil
}

// recallOf is the recall of system at budget b in rep, over categories 1
// to 4, as text.
func recallOf(rep *recallReport, system string, b int) string {
	for _, row := range rep.Results {
		if row.System == system && row.Budget == b && row.Recall.OneToFour != nil {
			return fmt.Sprintf("%.3f", *row.Recall.OneToFour)
		}
	}
	return "-"
}
