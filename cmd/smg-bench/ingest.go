package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/spec"
)

func run(args []string, stdout, stderr io.Writer) int {
	root := &cobra.Command{
		Use:           "smg-bench",
		Short:         "Measure smg on real conversations",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(ingestCommand(stdout), sizeCommand(stdout), serveBenchCommand(stdout), recallCommand(stdout), latencyCommand(stdout), deltaCommand(stdout), extractCommand(stdout), recallLabelsCommand(stdout), plancovCommand(stdout), trainStatementsCommand(stdout), historyCommand(stdout), codingRecallCommand(stdout), scaleCommand(stdout))
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		fmt.Fprintf(stderr, "smg-bench: %v\n", err)
		return 1
	}
	return 0
}

// ingestResult is the measure of one input.
type ingestResult struct {
	Input         string  `json:"input"`
	Conversations int     `json:"conversations"`
	Turns         int     `json:"turns"`
	IngestSeconds float64 `json:"ingestSeconds"`
	TurnsPerSec   float64 `json:"turnsPerSecond"`
	// TextBytes is the size of the turns' texts; TextMBPerSec that over
	// the ingest time, in megabytes (10^6 bytes) a second.
	TextBytes    int            `json:"textBytes"`
	TextMBPerSec float64        `json:"textMBPerSecond"`
	DocumentMs   float64        `json:"documentMs"`
	SaveMs       float64        `json:"saveMs"`
	Bytes        int            `json:"bytes"`
	PipelinePerS float64        `json:"pipelineTurnsPerSecond"`
	Nodes        int            `json:"nodes"`
	Edges        int            `json:"edges"`
	Artifacts    int            `json:"artifacts"`
	NodesPer1k   float64        `json:"nodesPer1000Turns"`
	EdgesPer1k   float64        `json:"edgesPer1000Turns"`
	ByType       map[string]int `json:"nodesByType"`
}

type ingestReport struct {
	GOMAXPROCS int            `json:"gomaxprocs"`
	Count      int            `json:"count"`
	Inputs     []ingestResult `json:"inputs"`
	Total      ingestResult   `json:"total"`
	PeakRSSMB  float64        `json:"peakRssMB"`
}

func ingestCommand(stdout io.Writer) *cobra.Command {
	var asJSON bool
	var procs, count int
	var one bool
	var cpuProfile, memProfile string
	cmd := &cobra.Command{
		Use:   "ingest INPUT...",
		Short: "Measure the write path: turns per second, memory, graph size",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			runtime.GOMAXPROCS(procs)
			if cpuProfile != "" {
				f, err := os.Create(cpuProfile)
				if err != nil {
					return err
				}
				defer f.Close()
				if err := pprof.StartCPUProfile(f); err != nil {
					return err
				}
				defer pprof.StopCPUProfile()
			}
			rep := ingestReport{GOMAXPROCS: procs, Count: count, Total: ingestResult{Input: "total", ByType: map[string]int{}}}
			for _, name := range args {
				r, err := measureIngest(name, count, one, memProfile)
				if err != nil {
					return err
				}
				rep.Inputs = append(rep.Inputs, r)
				t := &rep.Total
				t.Conversations += r.Conversations
				t.Turns += r.Turns
				t.TextBytes += r.TextBytes
				t.IngestSeconds += r.IngestSeconds
				t.DocumentMs += r.DocumentMs
				t.SaveMs += r.SaveMs
				t.Bytes += r.Bytes
				t.Nodes += r.Nodes
				t.Edges += r.Edges
				t.Artifacts += r.Artifacts
				for k, v := range r.ByType {
					t.ByType[k] += v
				}
			}
			rep.Total.finish()
			rep.PeakRSSMB = peakRSSMB()
			if asJSON {
				return writeJSON(stdout, rep)
			}
			return writeIngest(stdout, rep)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().IntVar(&procs, "procs", 1, "GOMAXPROCS while measuring (the target is per core)")
	cmd.Flags().IntVar(&count, "count", 5, "build each conversation this many times and keep the median times")
	cmd.Flags().BoolVar(&one, "one", false, "build one memory of all the conversations of each input, in order, instead of one memory each")
	cmd.Flags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file")
	cmd.Flags().StringVar(&memProfile, "memprofile", "", "write a heap profile to this file after each save (the last one stays): what the memory holds, and what the run allocated")
	return cmd
}

// measureIngest builds the memories of one input, one per conversation,
// timing the ingest alone (not the reading of the input), then the
// document and the save. Each conversation is built count times and the
// median of each time kept: a shared machine's noise moves single runs by
// a third.
//
// With one, the conversations are built as one memory, in order; with
// one and a count of 1, the input is streamed into it, a conversation at a
// time, as smg ingest reads it (the ingest time then includes reading the
// input), so that the peak memory is what smg ingest's would be.
//
// With memProfile, it writes a heap profile there after the last save,
// while the memory, its document and its file are still held.
func measureIngest(name string, count int, one bool, memProfile string) (ingestResult, error) {
	if one && count <= 1 {
		return measureStreamed(name, memProfile)
	}
	res, err := importer.ReadFile(name, importer.Options{})
	if err != nil {
		return ingestResult{}, err
	}
	r := ingestResult{Input: filepath.Base(name), Conversations: len(res.Conversations), ByType: map[string]int{}}
	convs := res.Conversations
	if one && len(convs) > 1 {
		all := importer.Conversation{ID: convs[0].ID}
		for _, c := range convs {
			all.Turns = append(all.Turns, c.Turns...)
		}
		convs = []importer.Conversation{all}
	}
	ctx := context.Background()
	for _, c := range convs {
		for _, t := range c.Turns {
			r.TextBytes += len(t.Content)
		}
		var ingest, document, save []time.Duration
		var doc *spec.Document
		var size int
		for range max(count, 1) {
			m := smg.New(noVectors)
			start := time.Now()
			if _, err := m.IngestAll(ctx, c.Turns); err != nil {
				return r, fmt.Errorf("%s: %w", name, err)
			}
			ingest = append(ingest, time.Since(start))
			start = time.Now()
			doc = m.Document()
			document = append(document, time.Since(start))
			start = time.Now()
			b, err := m.Marshal(nil)
			if err != nil {
				return r, fmt.Errorf("%s: %w", name, err)
			}
			save = append(save, time.Since(start))
			size = len(b)
			if err := profileHeld(memProfile, m, b); err != nil {
				return r, err
			}
		}
		r.IngestSeconds += median(ingest).Seconds()
		r.DocumentMs += ms(median(document))
		r.SaveMs += ms(median(save))
		r.Bytes += size
		r.Turns += len(c.Turns)
		r.Nodes += len(doc.SemanticGraph.Nodes)
		r.Edges += len(doc.SemanticGraph.Edges)
		r.Artifacts += len(doc.ArtifactVault.Artifacts)
		for _, n := range doc.SemanticGraph.Nodes {
			r.ByType[string(n.Type)]++
		}
	}
	r.finish()
	return r, nil
}

// measureStreamed is measureIngest of one memory built once, the input
// streamed into it.
func measureStreamed(name, memProfile string) (ingestResult, error) {
	r := ingestResult{Input: filepath.Base(name), ByType: map[string]int{}}
	ctx := context.Background()
	m := smg.New(noVectors)
	start := time.Now()
	_, err := importer.StreamFile(name, importer.Options{}, func(c importer.Conversation) error {
		r.Conversations++
		r.Turns += len(c.Turns)
		for _, t := range c.Turns {
			r.TextBytes += len(t.Content)
		}
		_, err := m.IngestAll(ctx, c.Turns)
		return err
	})
	if err != nil {
		return r, fmt.Errorf("%s: %w", name, err)
	}
	r.IngestSeconds = time.Since(start).Seconds()
	start = time.Now()
	doc := m.Document()
	r.DocumentMs = ms(time.Since(start))
	start = time.Now()
	b, err := m.Marshal(nil)
	if err != nil {
		return r, fmt.Errorf("%s: %w", name, err)
	}
	r.SaveMs, r.Bytes = ms(time.Since(start)), len(b)
	if err := profileHeld(memProfile, m, b); err != nil {
		return r, err
	}
	r.Nodes, r.Edges, r.Artifacts = len(doc.SemanticGraph.Nodes), len(doc.SemanticGraph.Edges), len(doc.ArtifactVault.Artifacts)
	for _, n := range doc.SemanticGraph.Nodes {
		r.ByType[string(n.Type)]++
	}
	r.finish()
	return r, nil
}

// profileHeld writes the heap profile to name, when set, while the memory
// and its file are held.
func profileHeld(name string, m *smg.Memory, file []byte) error {
	if name == "" {
		return nil
	}
	runtime.GC()
	err := writeHeapProfile(name)
	runtime.KeepAlive(m)
	runtime.KeepAlive(file)
	return err
}

// writeHeapProfile writes the heap profile of the run so far to name:
// what was allocated over the run and what is still held.
func writeHeapProfile(name string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// median is the middle of ds, or the mean of the two middle ones.
func median(ds []time.Duration) time.Duration {
	ds = slices.Sorted(slices.Values(ds))
	n := len(ds)
	if n%2 == 1 {
		return ds[n/2]
	}
	return (ds[n/2-1] + ds[n/2]) / 2
}

// ms is d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// writeJSON prints a report as indented, deterministic JSON.
func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v, json.Deterministic(true), jsontext.WithIndent("  "))
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func (r *ingestResult) finish() {
	if r.IngestSeconds > 0 {
		r.TurnsPerSec = float64(r.Turns) / r.IngestSeconds
		r.TextMBPerSec = float64(r.TextBytes) / 1e6 / r.IngestSeconds
		r.PipelinePerS = float64(r.Turns) / (r.IngestSeconds + r.SaveMs/1000)
	}
	if r.Turns > 0 {
		r.NodesPer1k = 1000 * float64(r.Nodes) / float64(r.Turns)
		r.EdgesPer1k = 1000 * float64(r.Edges) / float64(r.Turns)
	}
}

func writeIngest(w io.Writer, rep ingestReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "input\tconv\tturns\tingest turns/s\ttext MB/s\twith save turns/s\tdocument ms\tsave ms\tKB\tnodes/1k turns\tedges/1k turns\tartifacts\t")
	for _, r := range append(slices.Clone(rep.Inputs), rep.Total) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.2f\t%.0f\t%.1f\t%.1f\t%.0f\t%.0f\t%.0f\t%d\t\n", r.Input, r.Conversations, r.Turns, r.TurnsPerSec, r.TextMBPerSec, r.PipelinePerS,
			r.DocumentMs, r.SaveMs, float64(r.Bytes)/1024, r.NodesPer1k, r.EdgesPer1k, r.Artifacts)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var types []string
	for _, t := range spec.NodeTypes {
		types = append(types, fmt.Sprintf("%s %d", t, rep.Total.ByType[string(t)]))
	}
	_, err := fmt.Fprintf(w, "nodes by type: %v\nGOMAXPROCS %d, median of %d runs, peak RSS %.0f MB\n", types, rep.GOMAXPROCS, rep.Count, rep.PeakRSSMB)
	return err
}
