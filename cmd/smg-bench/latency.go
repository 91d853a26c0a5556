package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/spec"
)

// latencyOptions are latency's flags.
type latencyOptions struct {
	data      string
	turns     int
	budget    int
	tokenizer string
	count     int
	live      int
	// vectors builds and opens the memory with the built-in encoder.
	vectors bool
	// profile, when set, is a directory for a CPU profile of each
	// measure (read, open, cached, context, live).
	profile string
}

// latencyReport is what latency measures on one memory. Times are
// medians of count runs, in milliseconds.
type latencyReport struct {
	Data      string `json:"data"`
	Turns     int    `json:"turns"`
	Nodes     int    `json:"nodes"`
	Edges     int    `json:"edges"`
	FileBytes int    `json:"file_bytes"`
	// Vectors are the memory's vectors (with --vectors).
	Vectors   int     `json:"vectors"`
	Budget    int     `json:"budget"`
	Tokenizer string  `json:"tokenizer"`
	BuildS    float64 `json:"build_s"`
	// Cold opens, without the index cache: reading the file, then the
	// first context (built before the turns are indexed, unless the
	// index is quicker), then the whole index.
	DecodeMs        float64 `json:"decode_ms"`
	FirstContextMs  float64 `json:"first_context_ms"`
	FirstPartial    bool    `json:"first_context_partial"`
	IndexReadyMs    float64 `json:"index_ready_ms"`
	CachedContextMs float64 `json:"cached_first_context_ms"`
	// IndexCachedMs is from opening the file without a cache to the
	// whole index written to the cache.
	IndexCachedMs float64 `json:"index_and_cache_ms"`
	// A copy of the file alone (with --vectors), on a machine with no
	// cache: from opening it to the first context, and to every vector
	// made again in the background (once), and the texts embedded a
	// second then.
	CopyFirstContextMs float64 `json:"copy_first_context_ms,omitzero"`
	CopyVectorsS       float64 `json:"copy_vectors_s,omitzero"`
	CopyTextsPerS      float64 `json:"copy_texts_per_s,omitzero"`
	Context            latency `json:"context_ms"`
	LiveTurnContext    latency `json:"live_turn_context_ms"`
	// LiveContext is every question again on the live memory, after its
	// live turns; LiveDiffering counts those whose context is not the
	// one of the same memory loaded afresh (smg.Load of its document).
	LiveContext   latency `json:"live_context_ms"`
	LiveDiffering int     `json:"live_contexts_differing"`
	// The live path through the file (FileMemory): opening it for a
	// change and recording one turn, from the builder's state kept beside
	// it and without it; a live turn recorded and synced in the journal,
	// the context right after it, a fact saved; the write of the whole
	// file that ends the journal.
	OpenRecordMs       float64 `json:"open_record_ms"`
	OpenRecordReplayMs float64 `json:"open_record_replay_ms"`
	LiveRecord         latency `json:"live_record_ms"`
	LiveRecordContext  latency `json:"live_record_context_ms"`
	LiveRemember       latency `json:"live_remember_ms"`
	CompactMs          float64 `json:"compact_ms"`
	PeakRSSMB          float64 `json:"peak_rss_mb"`
}

func latencyCommand(stdout io.Writer) *cobra.Command {
	var o latencyOptions
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "latency --data FILE",
		Short: "Measure opening a large memory and answering from it",
		Long: `latency builds one memory of --turns turns from the conversations of a
LoCoMo file (repeated as often as needed), saves it, and measures, each a
median of --count runs: reading the file; from opening it to the first
context and to the whole index, without the index cache; from opening it
to the first context with the cache; then the latency of a context for each
question of the file on the whole index, and of a context asked right
after a turn is ingested into the opened memory (the incremental update
included); then, after the live turns, the latency of a context for each
question again, and how many of those contexts differ from the same
memory's loaded afresh (none should). The built memory is dropped before the cold opens, which are
of a process that holds nothing else. The tokenizer is loaded before any
timing: a process loads it once.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.data == "" {
				return errors.New("latency: --data FILE is required")
			}
			rep, err := measureLatency(cmd.Context(), o, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(stdout, rep)
			}
			return writeLatency(stdout, rep)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.data, "data", "", "a LoCoMo file: its turns make the memory, its questions the queries")
	f.IntVar(&o.turns, "turns", 10000, "the memory's number of turns")
	f.IntVar(&o.budget, "budget", 1000, "the token budget of each context")
	f.StringVar(&o.tokenizer, "tokenizer", smg.CL100K, "count tokens with cl100k, o200k or estimate")
	f.IntVar(&o.count, "count", 5, "runs of each cold-open measure")
	f.IntVar(&o.live, "live", 50, "turns ingested into the live memory, each followed by a context")
	f.BoolVar(&o.vectors, "vectors", false, "build and open the memory with the built-in sentence encoder, each question embedded (without: the graph and full text alone)")
	f.StringVar(&o.profile, "profile", "", "write a CPU profile of each measure into this directory (read, open, cached, context, live .pprof)")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

func measureLatency(ctx context.Context, o latencyOptions, warn io.Writer) (*latencyReport, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.turns <= 0 || o.budget <= 0 || o.count <= 0 {
		return nil, errors.New("latency: --turns, --budget and --count must be positive")
	}
	tk, err := smg.NewTokenizer(o.tokenizer)
	if err != nil {
		return nil, fmt.Errorf("latency: %w", err)
	}
	tk.Count("load the tokenizer's vocabulary now")
	data, err := os.ReadFile(o.data)
	if err != nil {
		return nil, fmt.Errorf("latency: %w", err)
	}
	res, err := importer.Read(bytes.NewReader(data), importer.Options{Format: importer.LoCoMo, Name: o.data})
	if err != nil {
		return nil, fmt.Errorf("latency: %w", err)
	}
	samples, err := readLoCoMoQA(data)
	if err != nil {
		return nil, fmt.Errorf("latency: %s: %w", o.data, err)
	}
	var all []spec.Turn
	for _, c := range res.Conversations {
		all = append(all, c.Turns...)
	}
	var questions []string
	for _, s := range samples {
		for _, q := range s.Questions {
			questions = append(questions, q.Question)
		}
	}
	if len(all) == 0 || len(questions) == 0 {
		return nil, fmt.Errorf("latency: %s: no turns or no questions", o.data)
	}
	// The memory's turns, and the live ones asked after it.
	turns := make([]spec.Turn, 0, o.turns+o.live)
	for len(turns) < o.turns+o.live {
		turns = append(turns, all[len(turns)%len(all)])
	}
	live := turns[o.turns:]
	turns = turns[:o.turns]

	rep := &latencyReport{Data: o.data, Turns: o.turns, Budget: o.budget, Tokenizer: tk.Name()}
	build := noVectors
	if o.vectors {
		build = nil
	}
	m := smg.New(build)
	start := time.Now()
	if _, err := m.IngestAll(ctx, turns); err != nil {
		return nil, fmt.Errorf("latency: ingest: %w", err)
	}
	if err := m.WaitVectors(ctx); err != nil {
		return nil, fmt.Errorf("latency: embedding: %w", err)
	}
	rep.BuildS = time.Since(start).Seconds()
	dir, err := os.MkdirTemp("", "smg-latency-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "memory.smg")
	if err := m.Save(name, nil); err != nil {
		return nil, fmt.Errorf("latency: %w", err)
	}
	// The cold opens are of a process that holds no other memory, as a
	// client's first: the garbage collector of one that still held the
	// built memory would mark its hundreds of megabytes at each cycle.
	m.Close()
	m = nil
	runtime.GC()
	doc, err := format.ReadFile(name, &format.DecodeOptions{CachedVectors: true})
	if err != nil {
		return nil, err
	}
	rep.Nodes, rep.Edges = len(doc.SemanticGraph.Nodes), len(doc.SemanticGraph.Edges)
	if vi := doc.DeepArchive.VectorIndex; vi != nil {
		rep.Vectors = len(vi.Embeddings)
	}
	if fi, err := os.Stat(name); err == nil {
		rep.FileBytes = int(fi.Size())
	}
	opts := &smg.ContextOptions{Budget: o.budget, Tokenizer: tk}
	q0 := questions[0]

	prof := profiler{dir: o.profile}
	if err := prof.start("read"); err != nil {
		return nil, err
	}
	var reads []time.Duration
	for range o.count {
		start := cold()
		if _, err := format.ReadFile(name, nil); err != nil {
			return nil, err
		}
		reads = append(reads, time.Since(start))
	}
	rep.DecodeMs = percentiles(reads).P50
	if err := prof.start("open"); err != nil {
		return nil, err
	}

	var first, ready []time.Duration
	for range o.count {
		start := cold()
		om, err := smg.Open(name, &smg.OpenOptions{NoVectors: !o.vectors})
		if err != nil {
			return nil, err
		}
		r, err := om.Context(ctx, q0, opts)
		if err != nil {
			return nil, err
		}
		first = append(first, time.Since(start))
		rep.FirstPartial = rep.FirstPartial || r.Partial
		if err := om.WaitIndex(ctx); err != nil {
			return nil, err
		}
		ready = append(ready, time.Since(start))
		om.Close()
	}
	rep.FirstContextMs, rep.IndexReadyMs = percentiles(first).P50, percentiles(ready).P50

	cache := filepath.Join(dir, "index")
	var writes, cached []time.Duration
	for range o.count {
		prof.stop()
		os.RemoveAll(cache)
		start := time.Now()
		om, err := smg.Open(name, &smg.OpenOptions{IndexCache: cache, NoVectors: !o.vectors})
		if err != nil {
			return nil, err
		}
		if err := om.WaitIndex(ctx); err != nil {
			return nil, err
		}
		writes = append(writes, time.Since(start))
		om.Close()

		if err := prof.start("cached"); err != nil {
			return nil, err
		}
		start = cold()
		om, err = smg.Open(name, &smg.OpenOptions{IndexCache: cache, NoVectors: !o.vectors})
		if err != nil {
			return nil, err
		}
		r, err := om.Context(ctx, q0, opts)
		if err != nil {
			return nil, err
		}
		cached = append(cached, time.Since(start))
		prof.stop()
		om.Close()
		if r.Partial {
			fmt.Fprintln(warn, "latency: the context after opening the cache was partial: the cache was not used")
		}
	}
	rep.IndexCachedMs, rep.CachedContextMs = percentiles(writes).P50, percentiles(cached).P50
	if o.vectors {
		if err := measureCopy(ctx, name, q0, opts, rep); err != nil {
			return nil, err
		}
	}

	// Steady state: every question on the whole index.
	om, err := smg.Open(name, &smg.OpenOptions{NoVectors: !o.vectors})
	if err != nil {
		return nil, err
	}
	defer om.Close()
	if err := om.WaitIndex(ctx); err != nil {
		return nil, err
	}
	if err := prof.start("context"); err != nil {
		return nil, err
	}
	var calls []time.Duration
	for _, q := range questions {
		start := time.Now()
		if _, err := om.Context(ctx, q, opts); err != nil {
			return nil, err
		}
		calls = append(calls, time.Since(start))
	}
	rep.Context = percentiles(calls)
	prof.stop()

	// Live: a turn, then a question, with the index brought up to date in
	// between, on the opened memory.
	calls = calls[:0]
	if err := prof.start("live"); err != nil {
		return nil, err
	}
	defer prof.stop()
	for i, t := range live {
		if err := om.Ingest(ctx, t); err != nil {
			return nil, err
		}
		start := time.Now()
		if _, err := om.Context(ctx, questions[i%len(questions)], opts); err != nil {
			return nil, err
		}
		calls = append(calls, time.Since(start))
	}
	rep.LiveTurnContext = percentiles(calls)
	prof.stop()

	// Every question again, on the live memory and on the same memory
	// loaded afresh: a live memory answers as a fresh one would.
	if err := om.WaitVectors(ctx); err != nil {
		return nil, err
	}
	fresh, err := smg.Load(om.Document(), nil)
	if err != nil {
		return nil, err
	}
	defer fresh.Close()
	if err := fresh.WaitIndex(ctx); err != nil {
		return nil, err
	}
	calls = calls[:0]
	for _, q := range questions {
		start := time.Now()
		got, err := om.Context(ctx, q, opts)
		if err != nil {
			return nil, err
		}
		calls = append(calls, time.Since(start))
		want, err := fresh.Context(ctx, q, opts)
		if err != nil {
			return nil, err
		}
		if got.Text != want.Text || !reflect.DeepEqual(got.Items, want.Items) {
			rep.LiveDiffering++
		}
	}
	rep.LiveContext = percentiles(calls)
	if err := measureDurable(ctx, name, live, questions, opts, o, rep); err != nil {
		return nil, err
	}
	rep.PeakRSSMB = peakRSSMB()
	return rep, nil
}

// measureDurable measures the live path through the file: opening the
// memory's file for a change and recording a turn, with the builder's
// state beside the file and without it (a replay of every turn); then
// each live turn recorded and synced (FileMemory.Record, the journal),
// with a context asked right after it; a fact saved (FileMemory.Remember);
// and the write of the whole file that ends the journal.
func measureDurable(ctx context.Context, saved string, live []spec.Turn, questions []string, opts *smg.ContextOptions, o latencyOptions, rep *latencyReport) error {
	if len(live) < 2 {
		return nil
	}
	// Turns of their own: the live turns repeat the memory's, which a
	// memory holds already (spec §5.2).
	turns := make([]spec.Turn, len(live))
	for i, t := range live {
		t.ConversationID, t.ExternalID = "live", fmt.Sprintf("live-%d", i)
		turns[i] = t
	}
	name := filepath.Join(filepath.Dir(saved), "durable.smg")
	raw, err := os.ReadFile(saved)
	if err != nil {
		return err
	}
	if err := os.WriteFile(name, raw, 0o644); err != nil {
		return err
	}
	fopts := &smg.FileOptions{Open: smg.OpenOptions{NoVectors: !o.vectors}}
	openRecord := func(t spec.Turn) (time.Duration, error) {
		os.Remove(format.JournalName(name))
		start := cold()
		f, err := smg.OpenFileMemory(name, fopts)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		if _, err := f.Record(ctx, []spec.Turn{t}, nil); err != nil {
			return 0, err
		}
		return time.Since(start), nil
	}
	var runs []time.Duration
	for range o.count {
		d, err := openRecord(turns[0])
		if err != nil {
			return err
		}
		runs = append(runs, d)
	}
	rep.OpenRecordReplayMs = percentiles(runs).P50
	// A write of the whole file keeps the builder's state beside it.
	f, err := smg.OpenFileMemory(name, fopts)
	if err != nil {
		return err
	}
	if _, err := f.Record(ctx, turns[:1], nil); err != nil {
		return err
	}
	if err := f.Compact(ctx); err != nil {
		return err
	}
	f.Close()
	runs = runs[:0]
	for range o.count {
		d, err := openRecord(turns[1])
		if err != nil {
			return err
		}
		runs = append(runs, d)
	}
	rep.OpenRecordMs = percentiles(runs).P50
	os.Remove(format.JournalName(name))

	f, err = smg.OpenFileMemory(name, fopts)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Record(ctx, turns[:1], nil); err != nil { // the memory opened for a change
		return err
	}
	if m, err := f.Memory(ctx); err != nil {
		return err
	} else if err := m.WaitIndex(ctx); err != nil { // as the other live measures: on the whole index
		return err
	}
	var records, contexts, facts []time.Duration
	for i, t := range turns[1:] {
		start := time.Now()
		if r, err := f.Record(ctx, []spec.Turn{t}, nil); err != nil || r.Added != 1 {
			return fmt.Errorf("latency: recording a live turn: %+v, %v", r, err)
		}
		records = append(records, time.Since(start))
		m, err := f.Memory(ctx)
		if err != nil {
			return err
		}
		start = time.Now()
		if _, err := m.Context(ctx, questions[i%len(questions)], opts); err != nil {
			return err
		}
		contexts = append(contexts, time.Since(start))
	}
	for i := range turns {
		start := time.Now()
		if _, err := f.Remember(ctx, smg.Fact{Content: fmt.Sprintf("The user's order number %d ships from Rotterdam", 1000+i), Category: "project"}); err != nil {
			return err
		}
		facts = append(facts, time.Since(start))
	}
	rep.LiveRecord, rep.LiveRecordContext, rep.LiveRemember = percentiles(records), percentiles(contexts), percentiles(facts)
	start := time.Now()
	if err := f.Compact(ctx); err != nil {
		return err
	}
	rep.CompactMs = float64(time.Since(start).Microseconds()) / 1000
	return nil
}

// measureCopy opens a copy of the named file alone, without the cache
// beside it, as on another machine: the time to its first context, then
// to every vector made again in the background.
func measureCopy(ctx context.Context, name, q string, opts *smg.ContextOptions, rep *latencyReport) error {
	raw, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "smg-latency-copy-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cp := filepath.Join(dir, "copy.smg")
	if err := os.WriteFile(cp, raw, 0o600); err != nil {
		return err
	}
	start := cold()
	m, err := smg.Open(cp, nil)
	if err != nil {
		return err
	}
	defer m.Close()
	if _, err := m.Context(ctx, q, opts); err != nil {
		return err
	}
	rep.CopyFirstContextMs = ms(time.Since(start))
	if err := m.WaitVectors(ctx); err != nil {
		return err
	}
	took := time.Since(start)
	rep.CopyVectorsS = took.Seconds()
	n := 0
	m.ReadDocument(func(doc *spec.Document) {
		if vi := doc.DeepArchive.VectorIndex; vi != nil {
			n = len(vi.Embeddings)
		}
	})
	rep.CopyTextsPerS = float64(n) / took.Seconds()
	return nil
}

// cold collects the garbage of the runs before, as a fresh process has
// none to collect, and starts the clock of a cold open.
func cold() time.Time {
	runtime.GC()
	return time.Now()
}

func writeLatency(w io.Writer, r *latencyReport) error {
	partial := "complete"
	if r.FirstPartial {
		partial = "partial"
	}
	_, err := fmt.Fprintf(w, `%s: a memory of %d turns, %d nodes, %d edges, %d vectors; %d bytes; built in %.1f s
budget %d tokens (%s); times are medians

cold open, no index cache
  read the file              %8.1f ms
  open → first context       %8.1f ms  (%s)
  open → whole index         %8.1f ms
cold open, index cache
  open → first context       %8.1f ms
  open → index and cache     %8.1f ms
a copy of the file alone (--vectors)
  open → first context       %8.1f ms
  open → every vector again  %8.1f s  (%.0f texts/s, in the background)
context, whole index         p50 %6.1f ms  p99 %6.1f ms  (%d questions)
live: turn → context         p50 %6.1f ms  p99 %6.1f ms  (%d turns)
context, after the live turns p50 %6.1f ms  p99 %6.1f ms  (%d questions; %d differ from a fresh load)
the file, live (journal)
  open, record a turn        %8.1f ms  (from the builder's state; %.1f ms replaying every turn)
  record a turn, synced      p50 %6.1f ms  p99 %6.1f ms  (%d turns)
  context right after it     p50 %6.1f ms  p99 %6.1f ms
  save a fact, synced        p50 %6.1f ms  p99 %6.1f ms  (%d facts)
  write the whole file       %8.1f ms
peak memory                  %8.0f MB
`, r.Data, r.Turns, r.Nodes, r.Edges, r.Vectors, r.FileBytes, r.BuildS, r.Budget, r.Tokenizer,
		r.DecodeMs, r.FirstContextMs, partial, r.IndexReadyMs, r.CachedContextMs, r.IndexCachedMs,
		r.CopyFirstContextMs, r.CopyVectorsS, r.CopyTextsPerS,
		r.Context.P50, r.Context.P99, r.Context.Calls, r.LiveTurnContext.P50, r.LiveTurnContext.P99, r.LiveTurnContext.Calls,
		r.LiveContext.P50, r.LiveContext.P99, r.LiveContext.Calls, r.LiveDiffering,
		r.OpenRecordMs, r.OpenRecordReplayMs, r.LiveRecord.P50, r.LiveRecord.P99, r.LiveRecord.Calls,
		r.LiveRecordContext.P50, r.LiveRecordContext.P99, r.LiveRemember.P50, r.LiveRemember.P99, r.LiveRemember.Calls,
		r.CompactMs, r.PeakRSSMB)
	return err
}

// profiler writes a CPU profile of each measure into dir, when dir is set:
// NAME-1.pprof, NAME-2.pprof… for the runs of a measure, which
// `go tool pprof` reads together.
type profiler struct {
	dir  string
	runs map[string]int
	f    *os.File
}

// start ends the profile under way, if any, and starts one for name.
func (p *profiler) start(name string) error {
	p.stop()
	if p.dir == "" {
		return nil
	}
	if p.runs == nil {
		p.runs = map[string]int{}
	}
	p.runs[name]++
	f, err := os.Create(filepath.Join(p.dir, fmt.Sprintf("%s-%d.pprof", name, p.runs[name])))
	if err != nil {
		return fmt.Errorf("latency: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("latency: %w", err)
	}
	p.f = f
	return nil
}

// stop ends the profile under way, if any.
func (p *profiler) stop() {
	if p.f != nil {
		pprof.StopCPUProfile()
		p.f.Close()
		p.f = nil
	}
}
