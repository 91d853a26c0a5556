package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/baseline"
	"github.com/smg-memory/smg/spec"
)

// The systems recall compares.
const (
	systemSMG    = "smg"    // Memory.Context over the memory of the conversation
	systemBM25   = "bm25"   // BM25 over single turns, packed in score order
	systemRecent = "recent" // the most recent turns
	// systemPassages is BM25 over the documents smg's engine indexes of
	// the turns (a long turn in passages), packed as smg packs: an item
	// that does not fit is passed over. A turn counts when any passage of
	// it is in.
	systemPassages = "bm25-passages"
	// systemFused is BM25 and the encoder's cosine fused by reciprocal
	// rank (k = 60) over the same passages, packed as bm25-passages.
	systemFused = "bm25+vectors"
)

var recallSystems = []string{systemSMG, systemBM25, systemPassages, systemFused, systemRecent}

// recallReport is what recall measures. The names of its members are
// those of issue 5.
type recallReport struct {
	Data      string `json:"data"`
	Tokenizer string `json:"tokenizer"`
	Budgets   []int  `json:"budgets"`
	// Conversations are the samples read (after --limit-conversations),
	// Turns their turns.
	Conversations int `json:"conversations"`
	Turns         int `json:"turns"`
	// One says the conversations were one memory, one after the other
	// (--one).
	One bool `json:"one,omitzero"`
	// ImporterSkipped are the malformed turns and samples the importer
	// left out.
	ImporterSkipped int `json:"importer_skipped"`
	// Questions are the questions read (after --limit-questions), of every
	// category; Evaluated those recall is measured on, ByCategory them by
	// category. Skipped have no valid evidence left, UnknownCategory a
	// category other than 1 to 5; neither is evaluated.
	Questions       int            `json:"questions"`
	Evaluated       int            `json:"evaluated"`
	ByCategory      map[string]int `json:"evaluated_by_category"`
	Skipped         int            `json:"skipped"`
	UnknownCategory int            `json:"unknown_category"`
	// Evidence is the number of valid evidence ids of the questions read;
	// RepairedEvidence those of them that were rewritten, DroppedEvidence
	// the ids that were dropped (no id, not in the conversation, or a
	// duplicate).
	Evidence         int `json:"evidence"`
	RepairedEvidence int `json:"repaired_evidence"`
	DroppedEvidence  int `json:"dropped_evidence"`
	// Results are a row per system and budget, in the order of
	// recallSystems and Budgets.
	Results []recallRow `json:"results"`
	// ContextMs are the times of smg's Context calls that succeeded;
	// OverBudget counts the contexts whose Tokens exceeded the budget.
	ContextMs  latency `json:"context_ms"`
	OverBudget int     `json:"over_budget"`
	// IngestTurnsPerS is the turns of all conversations over the time of
	// Memory.IngestAll; BuildMs the sum over the conversations of the
	// ingest, Memory.Document and smg.Load.
	IngestTurnsPerS float64 `json:"ingest_turns_per_s"`
	BuildMs         float64 `json:"build_ms"`
	PeakRSSMB       float64 `json:"peak_rss_mb"`
}

// recallRow is the mean evidence recall of a system at a budget, by
// category. Error is why the system failed; its recall is then null.
type recallRow struct {
	System string         `json:"system"`
	Budget int            `json:"budget"`
	Recall categoryRecall `json:"recall"`
	// ByAbility is the mean recall by BEAM ability, when the questions
	// have abilities; "knowledge_update (newest)" is the share of
	// knowledge updates whose newest evidence turn is in the context.
	ByAbility map[string]float64 `json:"by_ability,omitempty"`
	Error     string             `json:"error,omitzero"`
}

// categoryRecall is a mean recall per category: null for a category
// without questions.
type categoryRecall struct {
	MultiHop    *float64 `json:"1"`
	Temporal    *float64 `json:"2"`
	OpenDomain  *float64 `json:"3"`
	SingleHop   *float64 `json:"4"`
	OneToFour   *float64 `json:"1-4"`
	Adversarial *float64 `json:"5"`
}

// latency is the p50 and p99 of a set of calls, in milliseconds (0
// without calls).
type latency struct {
	Calls int     `json:"calls"`
	P50   float64 `json:"p50"`
	P99   float64 `json:"p99"`
}

// recallOptions are recall's flags.
type recallOptions struct {
	data               string
	budgets            []int
	tokenizer          string
	limitConversations int
	limitQuestions     int
	// one asks every question of one memory of all the conversations,
	// one after the other (see [oneConversation]).
	one bool
	// open opens a memory's document for questions; nil is smg.Load.
	open func(*spec.Document) (contextEngine, error)
	// embedder embeds for the bm25+vectors baseline; without one its
	// rows say so.
	embedder smg.Embedder
}

// contextEngine is what recall asks for contexts: a memory.
type contextEngine interface {
	Context(ctx context.Context, query string, opts *smg.ContextOptions) (*smg.ContextResult, error)
}

func recallCommand(stdout io.Writer) *cobra.Command {
	var o recallOptions
	var asJSON, noVec bool
	cmd := &cobra.Command{
		Use:   "recall --data FILE",
		Short: "Measure evidence recall on LoCoMo questions against BM25 and the last turns",
		Long: `recall builds the memory of each conversation of a LoCoMo file and asks
it for the context of each question at each budget; the recall of a question
is the share of its evidence turns that the context includes. BM25 over
single turns, BM25 over the passages smg indexes (long turns in windows of
words), BM25 fused with the built-in sentence encoder by reciprocal rank
over the same passages, and the most recent turns, packed under the same
budgets and counted by the same tokenizer, are the baselines. The questions
are never ingested.

The memories embed their turns with the built-in encoder, as smg does by
default; the encoder embeds each text once for the memory and the
baseline. --no-vectors builds them without vectors.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.data == "" {
				return errors.New("recall: --data FILE is required")
			}
			if !noVec {
				emb, err := smg.BuiltinEmbedder()
				if err != nil {
					return fmt.Errorf("recall: %w", err)
				}
				o.embedder = baseline.NewMemo(emb)
			}
			rep, err := measureRecall(cmd.Context(), o, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(stdout, rep)
			}
			return writeRecall(stdout, rep)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.data, "data", "", "a LoCoMo file (samples with conversation and qa)")
	f.IntSliceVar(&o.budgets, "budgets", []int{500, 1000, 2000, 4000}, "the token budgets")
	f.StringVar(&o.tokenizer, "tokenizer", smg.CL100K, "count tokens with cl100k, o200k or estimate")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	f.BoolVar(&noVec, "no-vectors", false, "build the memories without vectors, and leave out the bm25+vectors baseline")
	f.IntVar(&o.limitConversations, "limit-conversations", 0, "read only the first N conversations (0: all)")
	f.IntVar(&o.limitQuestions, "limit-questions", 0, "read only the first N questions of each conversation (0: all)")
	f.BoolVar(&o.one, "one", false, "ask every question of one memory of all the conversations, one after the other, as a person's chats kept in one memory")
	return cmd
}

// question is a question recall is measured on.
type question struct {
	text     string
	category int
	evidence []string // valid turn ids, each once
	// ability is the question's BEAM ability, or ""; newest is, of its
	// evidence, the id of the turn said last.
	ability, newest string
}

// recallSums accumulates the recall of the questions, per system, budget
// and category.
type recallSums struct {
	budgets []int
	n       map[int]int                  // questions per category
	sum     map[string]map[int][]float64 // system → category → sum per budget
	// abilityN are the questions per BEAM ability, ability their sums as
	// sum's (system → ability → sum per budget).
	abilityN map[string]int
	ability  map[string]map[string][]float64
}

func newRecallSums(budgets []int) *recallSums {
	s := &recallSums{budgets: budgets, n: map[int]int{}, sum: map[string]map[int][]float64{},
		ability: map[string]map[string][]float64{}, abilityN: map[string]int{}}
	for _, sys := range recallSystems {
		s.sum[sys] = map[int][]float64{}
	}
	return s
}

// add counts the recall of question q for system at the budget of index
// b, found the turn ids its context held: by category, and by ability when
// q has one (and, of a knowledge update, whether the newest evidence was
// found).
func (s *recallSums) add(system string, q question, b int, found map[string]bool) {
	r := evidenceRecall(q.evidence, found)
	v := s.sum[system][q.category]
	if v == nil {
		v = make([]float64, len(s.budgets))
		s.sum[system][q.category] = v
	}
	v[b] += r
	if q.ability == "" {
		return
	}
	keys := []string{q.ability}
	if q.ability == abilityUpdate {
		keys = append(keys, abilityUpdateNewest)
	}
	for _, k := range keys {
		if s.ability[system] == nil {
			s.ability[system] = map[string][]float64{}
		}
		v := s.ability[system][k]
		if v == nil {
			v = make([]float64, len(s.budgets))
			s.ability[system][k] = v
		}
		if k == abilityUpdateNewest {
			if found[q.newest] {
				v[b]++
			}
			continue
		}
		v[b] += r
	}
}

// The abilities of BEAM recall reports apart: knowledge updates are also
// scored by whether the newest evidence turn is in the context.
const (
	abilityUpdate       = "knowledge_update"
	abilityUpdateNewest = "knowledge_update (newest)"
)

// abilityRow is the mean recall of system at the budget of index b, by
// ability; nil without questions of any.
func (s *recallSums) abilityRow(system string, b int) map[string]float64 {
	if len(s.abilityN) == 0 {
		return nil
	}
	out := map[string]float64{}
	for k, v := range s.ability[system] {
		n := s.abilityN[strings.TrimSuffix(k, " (newest)")]
		if n > 0 {
			out[k] = v[b] / float64(n)
		}
	}
	return out
}

// row is the mean recall of system at the budget of index b.
func (s *recallSums) row(system string, b int) categoryRecall {
	mean := func(cats ...int) *float64 {
		n, sum := 0, 0.0
		for _, c := range cats {
			n += s.n[c]
			if v := s.sum[system][c]; v != nil {
				sum += v[b]
			}
		}
		if n == 0 {
			return nil
		}
		m := sum / float64(n)
		return &m
	}
	return categoryRecall{
		MultiHop:    mean(multiHop),
		Temporal:    mean(temporal),
		OpenDomain:  mean(openDomain),
		SingleHop:   mean(singleHop),
		OneToFour:   mean(multiHop, temporal, openDomain, singleHop),
		Adversarial: mean(adversarial),
	}
}

// newestOf is, of the turn ids evidence, the one of the turn said last in
// ids, the conversation's turns in order.
func newestOf(evidence, ids []string) string {
	newest, at := "", -1
	for _, e := range evidence {
		if i := slices.Index(ids, e); i > at {
			newest, at = e, i
		}
	}
	return newest
}

// evidenceRecall is the share of evidence among found.
func evidenceRecall(evidence []string, found map[string]bool) float64 {
	if len(evidence) == 0 {
		return 0
	}
	n := 0
	for _, id := range evidence {
		if found[id] {
			n++
		}
	}
	return float64(n) / float64(len(evidence))
}

// measureRecall runs the benchmark. An smg failure (the memory or the
// engine returning an error) fails the smg rows, told on warn, and the
// baselines still run; any other error ends the run.
func measureRecall(ctx context.Context, o recallOptions, warn io.Writer) (*recallReport, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if len(o.budgets) == 0 {
		return nil, errors.New("recall: no budget")
	}
	for _, b := range o.budgets {
		if b <= 0 {
			return nil, fmt.Errorf("recall: budget %d: want a positive number of tokens", b)
		}
	}
	tk, err := smg.NewTokenizer(o.tokenizer)
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	samples, convs, skipped, err := readLoCoMo(o.data)
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	if o.limitConversations > 0 && len(samples) > o.limitConversations {
		samples, convs = samples[:o.limitConversations], convs[:o.limitConversations]
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("recall: %s: no LoCoMo sample", o.data)
	}

	rep := &recallReport{Data: o.data, Tokenizer: tk.Name(), Budgets: o.budgets, ByCategory: map[string]int{}, One: o.one}
	sums := newRecallSums(o.budgets)
	var smgErr error
	var calls []time.Duration
	var ingest time.Duration
	rep.ImporterSkipped = skipped
	var parts []recallPart
	for i, s := range samples {
		// A sample without a conversation has no turns, so no valid
		// evidence.
		conv := convs[i]
		rep.Conversations++
		rep.Turns += len(conv.Turns)
		qs := s.Questions
		if o.limitQuestions > 0 && len(qs) > o.limitQuestions {
			qs = qs[:o.limitQuestions]
		}
		ids := make([]string, len(conv.Turns))
		for i, t := range conv.Turns {
			ids[i] = t.ExternalID
		}
		set := newEvidenceSet(ids)
		var questions []question
		for _, q := range qs {
			rep.Questions++
			ev, c := repairEvidence(q.Evidence, set)
			rep.Evidence += c.Valid
			rep.RepairedEvidence += c.Repaired
			rep.DroppedEvidence += c.Dropped
			switch {
			case q.Category < multiHop || q.Category > adversarial:
				rep.UnknownCategory++
			case len(ev) == 0:
				rep.Skipped++
			default:
				questions = append(questions, question{text: q.Question, category: q.Category, evidence: ev, ability: q.Ability, newest: newestOf(ev, ids)})
				sums.n[q.Category]++
				if q.Ability != "" {
					sums.abilityN[q.Ability]++
				}
				rep.ByCategory[strconv.Itoa(q.Category)]++
				rep.Evaluated++
			}
		}
		parts = append(parts, recallPart{id: s.ID, turns: conv.Turns, questions: questions})
	}
	if o.one {
		parts = []recallPart{oneConversation(parts)}
	}

	for _, p := range parts {
		// smg: build the memory (always, to time it), then ask it.
		start := time.Now()
		e, took, err := buildEngine(ctx, p.turns, o.embedder, o.open)
		rep.BuildMs += ms(time.Since(start))
		ingest += took
		if err != nil && smgErr == nil {
			smgErr = fmt.Errorf("conversation %s: %w", p.id, err)
		}
		if e != nil && smgErr == nil {
			c, over, err := askEngine(ctx, e, p.turns, p.questions, o.budgets, tk, sums)
			calls = append(calls, c...)
			rep.OverBudget += over
			if err != nil {
				smgErr = fmt.Errorf("conversation %s: %w", p.id, err)
			}
		}

		// The baselines.
		lines, costs := turnLines(p.turns, tk)
		sep := tk.Count("\n")
		if err := askBM25(ctx, p.turns, lines, costs, sep, p.questions, o.budgets, sums); err != nil {
			return nil, fmt.Errorf("recall: conversation %s: bm25: %w", p.id, err)
		}
		cp := passagesOf(p.turns, tk)
		if err := askPassages(ctx, p.turns, cp, sep, p.questions, o.budgets, sums); err != nil {
			return nil, fmt.Errorf("recall: conversation %s: bm25 over passages: %w", p.id, err)
		}
		if o.embedder != nil {
			if err := askFused(ctx, o.embedder, p.turns, cp, sep, p.questions, o.budgets, sums); err != nil {
				return nil, fmt.Errorf("recall: conversation %s: bm25 and vectors over passages: %w", p.id, err)
			}
		}
		for b, budget := range o.budgets {
			found := map[string]bool{}
			for _, i := range packRecent(costs, sep, budget) {
				found[p.turns[i].ExternalID] = true
			}
			for _, q := range p.questions {
				sums.add(systemRecent, q, b, found)
			}
		}
	}

	for _, sys := range recallSystems {
		for b, budget := range o.budgets {
			row := recallRow{System: sys, Budget: budget}
			switch {
			case sys == systemSMG && smgErr != nil:
				row.Error = smgErr.Error()
			case sys == systemFused && o.embedder == nil:
				row.Error = "vectors are off"
			default:
				row.Recall = sums.row(sys, b)
				row.ByAbility = sums.abilityRow(sys, b)
			}
			rep.Results = append(rep.Results, row)
		}
	}
	if smgErr != nil {
		fmt.Fprintf(warn, "smg-bench: recall: smg failed: %v\n", smgErr)
	}
	rep.ContextMs = percentiles(calls)
	if ingest > 0 {
		rep.IngestTurnsPerS = float64(rep.Turns) / ingest.Seconds()
	}
	rep.PeakRSSMB = peakRSSMB()
	return rep, nil
}

// recallPart is a memory recall builds and the questions it asks of it.
type recallPart struct {
	id        string
	turns     []spec.Turn
	questions []question
}

// oneConversation is the conversations of parts one after the other, as
// one conversation: a person's chats kept in one memory. Each turn's id,
// and each question's evidence, is its conversation's id, "/", and its
// own, as ids repeat across conversations ("D1:3"); turns are numbered
// on from the conversation before, and keep their times.
func oneConversation(parts []recallPart) recallPart {
	one := recallPart{id: "all"}
	for _, p := range parts {
		prefix := p.id + "/"
		for _, t := range p.turns {
			t.Turn = len(one.turns) + 1
			if t.ExternalID != "" {
				t.ExternalID = prefix + t.ExternalID
			}
			one.turns = append(one.turns, t)
		}
		for _, q := range p.questions {
			q.evidence = slices.Clone(q.evidence)
			for i := range q.evidence {
				q.evidence[i] = prefix + q.evidence[i]
			}
			if q.newest != "" {
				q.newest = prefix + q.newest
			}
			one.questions = append(one.questions, q)
		}
	}
	return one
}

// buildEngine builds the memory of turns and opens its document with
// open (nil: smg.Load); took is the time of the ingest alone.
func buildEngine(ctx context.Context, turns []spec.Turn, emb smg.Embedder, open func(*spec.Document) (contextEngine, error)) (e contextEngine, took time.Duration, err error) {
	if open == nil {
		open = func(doc *spec.Document) (contextEngine, error) {
			m, err := smg.Load(doc, nil)
			if err != nil {
				return nil, err
			}
			// Every turn indexed before the first question, as a
			// context engine built over the document would have it.
			return m, m.WaitIndex(ctx)
		}
	}
	m, took, err := buildMemory(ctx, turns, emb)
	if err != nil {
		return nil, took, err
	}
	if e, err = open(m.Document()); err != nil {
		return nil, took, fmt.Errorf("restore: %w", err)
	}
	return e, took, nil
}

// buildMemory builds the memory of turns with the whole write path, as
// 'smg ingest' does: without vectors (noVectors), or embedding with emb
// when it is given. took is the time of the ingest alone.
func buildMemory(ctx context.Context, turns []spec.Turn, emb smg.Embedder) (m *smg.Memory, took time.Duration, err error) {
	opts := noVectors
	if emb != nil {
		opts = &smg.Options{Embedder: emb}
	}
	m = smg.New(opts)
	start := time.Now()
	if _, err := m.IngestAll(ctx, turns); err != nil {
		return nil, time.Since(start), fmt.Errorf("ingest: %w", err)
	}
	return m, time.Since(start), nil
}

// askEngine asks e for the context of each question at each budget and
// adds the recall to sums. It returns the time of each call, the number
// of contexts over their budget, and the first error, at which it stops.
func askEngine(ctx context.Context, e contextEngine, turns []spec.Turn, questions []question, budgets []int, tk smg.Tokenizer, sums *recallSums) (calls []time.Duration, over int, err error) {
	byNumber := map[int]string{} // turn number → external id, for items that give only the number
	for i, t := range turns {
		n := t.Turn
		if n == 0 {
			n = i + 1
		}
		byNumber[n] = t.ExternalID
	}
	for _, q := range questions {
		for b, budget := range budgets {
			start := time.Now()
			r, err := e.Context(ctx, q.text, &smg.ContextOptions{Budget: budget, Tokenizer: tk})
			took := time.Since(start)
			if err != nil {
				return calls, over, fmt.Errorf("context at %d tokens: %w", budget, err)
			}
			calls = append(calls, took)
			if r.Tokens > budget {
				over++
			}
			found := map[string]bool{}
			for _, it := range r.Items {
				switch {
				case it.ExternalID != "":
					found[it.ExternalID] = true
				case it.Turn > 0:
					found[byNumber[it.Turn]] = true
				}
			}
			sums.add(systemSMG, q, b, found)
		}
	}
	return calls, over, nil
}

// sessionTime is the layout of LoCoMo's session_N_date_time, which the
// importer gives every turn of the session as its timestamp.
const sessionTime = "3:04 pm on 2 January, 2006"

// turnLines writes each turn as the baselines see it, "[date] speaker:
// text" (the date as the file gives the session's; no date when the turn
// has none), and counts its tokens.
func turnLines(turns []spec.Turn, tk smg.Tokenizer) (lines []string, costs []int) {
	for _, t := range turns {
		line := t.Speaker + ": " + t.Content
		if !t.Timestamp.IsZero() {
			line = "[" + t.Timestamp.Format(sessionTime) + "] " + line
		}
		lines = append(lines, line)
		costs = append(costs, tk.Count(line))
	}
	return lines, costs
}

// pack returns the turns of order, taken in order, that fit a budget: the
// lines joined by newlines, each line costing costs[i] and each newline
// sep. It stops at the first turn that does not fit, as a reader of a
// ranking would, rather than looking further down for a shorter one. The
// sum of the counts is at most the count of the joined text plus the
// newlines (a BPE tokenizer may merge a newline with a line's last
// characters), so the text never exceeds the budget.
func pack(order, costs []int, sep, budget int) []int {
	return packOrder(order, costs, sep, budget, false)
}

// packOrder is pack, or with fill packFill.
func packOrder(order, costs []int, sep, budget int, fill bool) []int {
	var out []int
	used := 0
	for _, i := range order {
		c := costs[i]
		if len(out) > 0 {
			c += sep
		}
		if used+c > budget {
			if fill {
				continue
			}
			break
		}
		used += c
		out = append(out, i)
	}
	return out
}

// packRecent returns the most recent turns that fit a budget, from the
// last turn back.
func packRecent(costs []int, sep, budget int) []int {
	order := make([]int, len(costs))
	for i := range order {
		order[i] = len(costs) - 1 - i
	}
	return pack(order, costs, sep, budget)
}

// A ranker orders the documents of a conversation for a question, best
// first: a baseline's retriever (package baseline).
type ranker interface {
	Rank(ctx context.Context, query string) ([]int, error)
	Close() error
}

// askRanked asks r, built over the documents of a conversation, for each
// question's order of them, packs them under each budget and adds the
// recall of system to sums: a turn is found when a document of it is in
// (docTurn[i] is the index of document i's turn). fill packs as smg's
// engine does, passing over a document that does not fit (packFill);
// otherwise packing stops at the first (pack). Without documents every
// question's recall is 0.
func askRanked(ctx context.Context, system string, newRanker func() (ranker, error), docTurn, costs []int, sep int, fill bool, turns []spec.Turn, questions []question, budgets []int, sums *recallSums) error {
	if len(docTurn) == 0 {
		for _, q := range questions {
			for b := range budgets {
				sums.add(system, q, b, nil)
			}
		}
		return nil
	}
	r, err := newRanker()
	if err != nil {
		return err
	}
	defer r.Close()
	for _, q := range questions {
		order, err := r.Rank(ctx, q.text)
		if err != nil {
			return err
		}
		for b, budget := range budgets {
			found := map[string]bool{}
			for _, i := range packOrder(order, costs, sep, budget, fill) {
				found[turns[docTurn[i]].ExternalID] = true
			}
			sums.add(system, q, b, found)
		}
	}
	return nil
}

// askBM25 asks BM25 over single turns, each of lines, with the index and
// query of baseline.BM25 (Bleve's, in memory, k1 = 1.2, b = 0.75, the
// English analyzer, a match query of any of the question's terms),
// packed in score order up to the first turn that does not fit.
func askBM25(ctx context.Context, turns []spec.Turn, lines []string, costs []int, sep int, questions []question, budgets []int, sums *recallSums) error {
	docTurn := make([]int, len(turns))
	for i := range docTurn {
		docTurn[i] = i
	}
	return askRanked(ctx, systemBM25, func() (ranker, error) { return baseline.NewBM25(lines) }, docTurn, costs, sep, false, turns, questions, budgets, sums)
}

// packFill returns the items of order, taken in order, that fit a
// budget, as pack does, but passes over an item that does not fit and
// goes on with the next ones, as smg's engine packs.
func packFill(order, costs []int, sep, budget int) []int {
	return packOrder(order, costs, sep, budget, true)
}

// conversationPassages are the documents of the passage baselines: the
// passages of the turns (baseline.TurnPassages), each written as
// turnLines writes a turn, its cost, its turn, and the text it is
// embedded as (the passage alone, as smg embeds it).
type conversationPassages struct {
	texts, embed []string
	costs, turn  []int
}

func passagesOf(turns []spec.Turn, tk smg.Tokenizer) conversationPassages {
	heads := make([]string, len(turns))
	contents := make([]string, len(turns))
	for i, t := range turns {
		heads[i] = t.Speaker + ": "
		if !t.Timestamp.IsZero() {
			heads[i] = "[" + t.Timestamp.Format(sessionTime) + "] " + heads[i]
		}
		contents[i] = t.Content
	}
	var cp conversationPassages
	for _, p := range baseline.TurnPassages(heads, contents) {
		cp.texts = append(cp.texts, p.Text)
		cp.embed = append(cp.embed, p.Body)
		cp.costs = append(cp.costs, tk.Count(p.Text))
		cp.turn = append(cp.turn, p.Turn)
	}
	return cp
}

// askPassages asks BM25 over the passages of the turns, packed by
// packFill.
func askPassages(ctx context.Context, turns []spec.Turn, cp conversationPassages, sep int, questions []question, budgets []int, sums *recallSums) error {
	return askRanked(ctx, systemPassages, func() (ranker, error) { return baseline.NewBM25(cp.texts) }, cp.turn, cp.costs, sep, true, turns, questions, budgets, sums)
}

// askFused asks BM25 fused with the encoder by reciprocal-rank fusion
// (baseline.Fused) over the passages of the turns, packed by packFill.
func askFused(ctx context.Context, emb smg.Embedder, turns []spec.Turn, cp conversationPassages, sep int, questions []question, budgets []int, sums *recallSums) error {
	return askRanked(ctx, systemFused, func() (ranker, error) { return baseline.NewFused(ctx, cp.texts, cp.embed, emb) }, cp.turn, cp.costs, sep, true, turns, questions, budgets, sums)
}

// percentiles are the p50 and p99 of ds by the nearest rank.
func percentiles(ds []time.Duration) latency {
	if len(ds) == 0 {
		return latency{}
	}
	ds = slices.Sorted(slices.Values(ds))
	rank := func(p float64) time.Duration {
		i := int(math.Ceil(p*float64(len(ds)))) - 1
		return ds[max(i, 0)]
	}
	return latency{Calls: len(ds), P50: ms(rank(0.50)), P99: ms(rank(0.99))}
}

func writeRecall(w io.Writer, rep *recallReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "system\tbudget\t1 multi-hop\t2 temporal\t3 open-domain\t4 single-hop\t1-4\t5 adversarial\t")
	for _, r := range rep.Results {
		if r.Error != "" {
			fmt.Fprintf(tw, "%s\t%d\tfailed\t-\t-\t-\t-\t-\t\n", r.System, r.Budget)
			continue
		}
		c := r.Recall
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.System, r.Budget,
			fmtRecall(c.MultiHop), fmtRecall(c.Temporal), fmtRecall(c.OpenDomain), fmtRecall(c.SingleHop), fmtRecall(c.OneToFour), fmtRecall(c.Adversarial))
	}
	fmt.Fprintf(tw, "questions\t\t%d\t%d\t%d\t%d\t%d\t%d\t\n", rep.ByCategory["1"], rep.ByCategory["2"], rep.ByCategory["3"], rep.ByCategory["4"],
		rep.ByCategory["1"]+rep.ByCategory["2"]+rep.ByCategory["3"]+rep.ByCategory["4"], rep.ByCategory["5"])
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rep.Results {
		if r.Error != "" {
			fmt.Fprintf(w, "smg failed: %s\n", r.Error)
			break
		}
	}
	if err := writeAbilities(w, rep); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %d conversations, %d turns, %d questions (%d evaluated, %d skipped without valid evidence, %d of an unknown category)\n",
		rep.Data, rep.Conversations, rep.Turns, rep.Questions, rep.Evaluated, rep.Skipped, rep.UnknownCategory)
	if rep.One {
		fmt.Fprintln(w, "the conversations were one memory, one after the other, every question asked of it (--one)")
	}
	if rep.ImporterSkipped > 0 {
		fmt.Fprintf(w, "the importer left out %d malformed turns or samples\n", rep.ImporterSkipped)
	}
	fmt.Fprintf(w, "evidence: %d ids, %d of them repaired, %d dropped\n", rep.Evidence, rep.RepairedEvidence, rep.DroppedEvidence)
	fmt.Fprintf(w, "tokenizer %s; context latency p50 %.2f ms, p99 %.2f ms over %d calls", rep.Tokenizer, rep.ContextMs.P50, rep.ContextMs.P99, rep.ContextMs.Calls)
	if rep.OverBudget > 0 {
		fmt.Fprintf(w, ", %d over their budget", rep.OverBudget)
	}
	_, err := fmt.Fprintf(w, "\ningest %.0f turns/s, build (ingest, document, index) %.0f ms, peak RSS %.0f MB\n", rep.IngestTurnsPerS, rep.BuildMs, rep.PeakRSSMB)
	return err
}

// writeAbilities prints the recall by ability, when the questions have
// abilities: a row per ability, a column per system and budget.
func writeAbilities(w io.Writer, rep *recallReport) error {
	var abilities []string
	for _, r := range rep.Results {
		for k := range r.ByAbility {
			if !slices.Contains(abilities, k) {
				abilities = append(abilities, k)
			}
		}
	}
	if len(abilities) == 0 {
		return nil
	}
	slices.Sort(abilities)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "\nby ability\t")
	for _, r := range rep.Results {
		if r.Error == "" && r.System != systemRecent {
			fmt.Fprintf(tw, "%s %d\t", r.System, r.Budget)
		}
	}
	fmt.Fprintln(tw)
	for _, a := range abilities {
		fmt.Fprintf(tw, "%s\t", a)
		for _, r := range rep.Results {
			if r.Error == "" && r.System != systemRecent {
				cell := "-"
				if v, ok := r.ByAbility[a]; ok {
					cell = fmt.Sprintf("%.3f", v)
				}
				fmt.Fprintf(tw, "%s\t", cell)
			}
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprintln(tw)
	return tw.Flush()
}

// fmtRecall prints a mean recall, or "-" for a category without
// questions.
func fmtRecall(r *float64) string {
	if r == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *r)
}
