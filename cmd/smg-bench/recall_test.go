package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/spec"
)

// tinyLoCoMo is a LoCoMo file of one conversation (two sessions, eight
// turns, a date for a session without turns) and eight questions with
// the quirks of the real evidence lists:
//
//	q1 (4)  D1:3, whose words ("violin", "Cremona") no other turn has
//	q2 (1)  "D1:2; D2:1" and "D:1:3": three ids, all repaired
//	q3 (2)  "D2:01" (repaired) and a bare "D" (dropped); a number answer
//	q4 (5)  "D9:9", not in the conversation: dropped, the question skipped
//	q5 (4)  D2:4, the last turn
//	q6 (4)  D1:1, the first turn
//	q7 (5)  D2:2, an adversarial question with evidence
//	q8 (3)  no evidence: skipped
const tinyLoCoMo = `[{
  "sample_id": "conv-t",
  "conversation": {
    "speaker_a": "Alice", "speaker_b": "Bob",
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [
      {"speaker": "Alice", "dia_id": "D1:1", "text": "Good morning Bob, the garden tomatoes are ripe."},
      {"speaker": "Bob", "dia_id": "D1:2", "text": "Great, I will come and pick some tomatoes tomorrow."},
      {"speaker": "Alice", "dia_id": "D1:3", "text": "I finally bought a violin made in Cremona."},
      {"speaker": "Bob", "dia_id": "D1:4", "text": "Congratulations, that is wonderful news.", "img_url": ["http://x"], "blip_caption": "a photo of a cake"}
    ],
    "session_2_date_time": "10:00 am on 9 June, 2023",
    "session_2": [
      {"speaker": "Bob", "dia_id": "D2:1", "text": "The tomatoes made a lovely sauce for dinner."},
      {"speaker": "Alice", "dia_id": "D2:2", "text": "I am practising scales every evening now."},
      {"speaker": "Bob", "dia_id": "D2:3", "text": "Keep going, it will pay off."},
      {"speaker": "Alice", "dia_id": "D2:4", "text": "Next month I travel to Lisbon for a concert."}
    ],
    "session_3_date_time": "9:00 am on 1 July, 2023"
  },
  "qa": [
    {"question": "Where was the violin Alice bought made?", "answer": "Cremona", "evidence": ["D1:3"], "category": 4},
    {"question": "What did Bob say about the tomatoes and the violin?", "answer": "a sauce", "evidence": ["D1:2; D2:1", "D:1:3"], "category": 1},
    {"question": "In which year did Bob cook the sauce?", "answer": 2023, "evidence": ["D2:01", "D"], "category": 2},
    {"question": "What did Alice eat in Paris?", "evidence": ["D9:9"], "category": 5, "adversarial_answer": "cake"},
    {"question": "Where does Alice travel next month?", "answer": "Lisbon", "evidence": ["D2:4"], "category": 4},
    {"question": "What is ripe in the garden?", "answer": "tomatoes", "evidence": ["D1:1"], "category": 4},
    {"question": "What does Bob practise every evening?", "evidence": ["D2:2"], "category": 5, "adversarial_answer": "scales"},
    {"question": "Would Alice like opera?", "answer": "likely", "evidence": [], "category": 3}
  ],
  "observation": {"session_1_observation": {"Alice": [["Alice bought a violin.", "D1:3"]]}},
  "session_summary": {"session_1_summary": "Alice and Bob talk."}
}]`

// writeTiny writes tinyLoCoMo to a temporary file and returns its name.
func writeTiny(t testing.TB) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "locomo.json")
	if err := os.WriteFile(name, []byte(tinyLoCoMo), 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

// tinyTurns reads the turns of tinyLoCoMo with the importer.
func tinyTurns(t testing.TB) []spec.Turn {
	t.Helper()
	res, err := importer.Read(strings.NewReader(tinyLoCoMo), importer.Options{Format: importer.LoCoMo})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Conversations) != 1 || len(res.Conversations[0].Turns) != 8 {
		t.Fatalf("the importer read %+v", res.Conversations)
	}
	return res.Conversations[0].Turns
}

func TestReadLoCoMoQA(t *testing.T) {
	samples, err := readLoCoMoQA([]byte(tinyLoCoMo))
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 1 || samples[0].ID != "conv-t" || len(samples[0].Questions) != 8 {
		t.Fatalf("%+v", samples)
	}
	q := samples[0].Questions[2]
	if q.Question != "In which year did Bob cook the sauce?" || q.Category != temporal || !slices.Equal(q.Evidence, []string{"D2:01", "D"}) {
		t.Errorf("question 3: %+v", q)
	}

	// One sample, a numeric sample id, a category as a string, evidence
	// with a member that is not a string, or as one string; answers of
	// any type.
	one := `{"sample_id": 7, "conversation": {}, "qa": [
		{"question": "a?", "answer": {"x": 1}, "evidence": ["D1:1", 3, null], "category": "2"},
		{"question": "b?", "answer": null, "evidence": "D1:1 D1:2", "category": 1.5},
		{"question": "c?", "answer": [1, 2]}]}`
	samples, err = readLoCoMoQA([]byte(one))
	if err != nil {
		t.Fatal(err)
	}
	want := []locomoQuestion{
		{Question: "a?", Category: temporal, Evidence: []string{"D1:1", "", ""}},
		{Question: "b?", Category: 0, Evidence: []string{"D1:1 D1:2"}},
		{Question: "c?"},
	}
	if len(samples) != 1 || samples[0].ID != "7" || !samples[0].HasConversation || len(samples[0].Questions) != len(want) {
		t.Fatalf("%+v", samples)
	}
	for i, w := range want {
		if g := samples[0].Questions[i]; g.Question != w.Question || g.Category != w.Category || !slices.Equal(g.Evidence, w.Evidence) {
			t.Errorf("question %d: got %+v, want %+v", i, g, w)
		}
	}

	// Elements that are no sample object are left out, as the importer
	// leaves them out; so are the conversations of samples whose id or
	// conversation is of the wrong type.
	samples, err = readLoCoMoQA([]byte(`[1, null, {"sample_id": "a", "conversation": []}, {"sample_id": true, "conversation": {}}, {"conversation": {}}]`))
	if err != nil || len(samples) != 3 || samples[0].HasConversation || samples[1].HasConversation || !samples[2].HasConversation || samples[0].ID != "a" {
		t.Errorf("samples %+v, %v", samples, err)
	}

	for _, bad := range []string{``, `"x"`, `[{"qa": 3}]`, `[{"qa": [{"evidence": [1,}]}]`} {
		if _, err := readLoCoMoQA([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestRepairEvidence(t *testing.T) {
	set := newEvidenceSet([]string{"D1:1", "D1:2", "D1:3", "D2:1", "D11:26", "D30:5", ""})
	for _, tc := range []struct {
		in   []string
		want []string
		c    evidenceCounts
	}{
		{[]string{"D1:1", "D2:1"}, []string{"D1:1", "D2:1"}, evidenceCounts{Valid: 2}},
		{[]string{"D1:2; D2:1"}, []string{"D1:2", "D2:1"}, evidenceCounts{Valid: 2, Repaired: 2}},
		{[]string{"D1:1 D1:2,D1:3"}, []string{"D1:1", "D1:2", "D1:3"}, evidenceCounts{Valid: 3, Repaired: 3}},
		{[]string{"D:11:26"}, []string{"D11:26"}, evidenceCounts{Valid: 1, Repaired: 1}},
		{[]string{"D30:05", "D01:01"}, []string{"D30:5", "D1:1"}, evidenceCounts{Valid: 2, Repaired: 2}},
		{[]string{"D", "", " ; "}, nil, evidenceCounts{Dropped: 3}},
		{[]string{"D10:19", "X1:1", "D1:1:1"}, nil, evidenceCounts{Dropped: 3}},
		{[]string{"D1:1", "D01:1"}, []string{"D1:1"}, evidenceCounts{Valid: 1, Dropped: 1, Duplicates: 1}},
	} {
		got, c := repairEvidence(tc.in, set)
		if !slices.Equal(got, tc.want) || c != tc.c {
			t.Errorf("%q: got %q %+v, want %q %+v", tc.in, got, c, tc.want, tc.c)
		}
	}

	// Turns whose ids are spelt another way are matched as they are spelt.
	got, c := repairEvidence([]string{"D1:01", "D1:1", "D2:2"}, newEvidenceSet([]string{"D1:01", "d2:2"}))
	if !slices.Equal(got, []string{"D1:01", "d2:2"}) || c != (evidenceCounts{Valid: 2, Repaired: 1, Dropped: 1, Duplicates: 1}) {
		t.Errorf("other spellings: %q %+v", got, c)
	}
}

func TestRecallArithmetic(t *testing.T) {
	found := map[string]bool{"a": true, "c": true}
	for _, tc := range []struct {
		ev   []string
		want float64
	}{{[]string{"a"}, 1}, {[]string{"a", "b"}, 0.5}, {[]string{"b", "c", "d"}, 1.0 / 3}, {[]string{"b"}, 0}, {nil, 0}} {
		if got := evidenceRecall(tc.ev, found); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.ev, got, tc.want)
		}
	}

	// 1-4 is the mean over the questions of 1 to 4, not over the
	// categories' means.
	s := newRecallSums([]int{10, 20})
	ev := []string{"a", "b", "c", "d"}
	foundOf := func(r float64) map[string]bool { // r of ev found
		f := map[string]bool{}
		for _, id := range ev[:int(r*4)] {
			f[id] = true
		}
		return f
	}
	add := func(cat int, r10, r20 float64) {
		s.n[cat]++
		q := question{category: cat, evidence: ev}
		s.add(systemBM25, q, 0, foundOf(r10))
		s.add(systemBM25, q, 1, foundOf(r20))
	}
	add(multiHop, 0, 0.5)
	add(singleHop, 1, 1)
	add(singleHop, 1, 1)
	add(singleHop, 0.5, 1)
	add(adversarial, 0.25, 1)
	r := s.row(systemBM25, 0)
	if *r.MultiHop != 0 || *r.SingleHop != 2.5/3 || *r.OneToFour != 2.5/4 || *r.Adversarial != 0.25 || r.Temporal != nil || r.OpenDomain != nil {
		t.Errorf("at 10: %s", recallString(r))
	}
	if r := s.row(systemBM25, 1); *r.MultiHop != 0.5 || *r.OneToFour != 3.5/4 {
		t.Errorf("at 20: %s", recallString(r))
	}
	if r := s.row(systemRecent, 0); *r.SingleHop != 0 || *r.OneToFour != 0 || r.Temporal != nil {
		t.Errorf("a system without recall: %s", recallString(r))
	}

	if s.abilityRow(systemBM25, 0) != nil {
		t.Error("recall by ability of questions without abilities")
	}
	// By ability: a knowledge update also counts whether its newest
	// evidence was found.
	for _, q := range []struct {
		ability string
		found   []string
	}{{abilityUpdate, []string{"a", "b"}}, {abilityUpdate, []string{"d"}}, {"summarization", nil}} {
		s.abilityN[q.ability]++
		f := map[string]bool{}
		for _, id := range q.found {
			f[id] = true
		}
		s.add(systemSMG, question{category: singleHop, evidence: ev, ability: q.ability, newest: "d"}, 0, f)
	}
	if got := s.abilityRow(systemSMG, 0); got[abilityUpdate] != 0.375 || got[abilityUpdateNewest] != 0.5 || got["summarization"] != 0 || len(got) != 3 {
		t.Errorf("by ability %v", got)
	}
	if got := newestOf([]string{"D2:9", "D1:3"}, []string{"D1:3", "D1:4", "D2:9"}); got != "D2:9" {
		t.Errorf("newestOf = %q", got)
	}

	ds := []time.Duration{}
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	if l := percentiles(ds); l != (latency{Calls: 100, P50: 50, P99: 99}) {
		t.Errorf("percentiles %+v", l)
	}
	if l := percentiles(ds[99:]); l != (latency{Calls: 1, P50: 1, P99: 1}) {
		t.Errorf("percentiles of one call %+v", l)
	}
	if l := percentiles(nil); l != (latency{}) {
		t.Errorf("percentiles of none %+v", l)
	}
}

func recallString(r categoryRecall) string {
	b, _ := json.Marshal(r)
	return string(b)
}

func TestPack(t *testing.T) {
	costs := []int{5, 3, 8, 2}
	for _, tc := range []struct {
		order  []int
		budget int
		want   []int
	}{
		{[]int{0, 1, 2, 3}, 100, []int{0, 1, 2, 3}},
		{[]int{0, 1, 2, 3}, 9, []int{0, 1}}, // 5 + 1 + 3
		{[]int{0, 1, 2, 3}, 8, []int{0}},    // stops at 1, which does not fit, though 3 would
		{[]int{2, 3}, 11, []int{2, 3}},      // 8 + 1 + 2
		{[]int{0, 1}, 4, nil},               // the first does not fit
		{nil, 10, nil},
	} {
		if got := pack(tc.order, costs, 1, tc.budget); !slices.Equal(got, tc.want) {
			t.Errorf("%v at %d: %v, want %v", tc.order, tc.budget, got, tc.want)
		}
	}
	if got := packRecent(costs, 1, 4); !slices.Equal(got, []int{3}) {
		t.Errorf("recent at 4: %v", got)
	}
	if got := packRecent(costs, 1, 15); !slices.Equal(got, []int{3, 2, 1}) {
		t.Errorf("recent at 15: %v", got)
	}
}

func TestBaselines(t *testing.T) {
	turns := tinyTurns(t)
	tk, err := smg.NewTokenizer(smg.Estimate)
	if err != nil {
		t.Fatal(err)
	}
	lines, costs := turnLines(turns, tk)
	if want := "[1:56 pm on 8 May, 2023] Bob: Congratulations, that is wonderful news.\n[shares a photo: a photo of a cake]"; lines[3] != want {
		t.Errorf("line 4 %q, want %q", lines[3], want)
	}
	sep := tk.Count("\n")
	ev := func(ids ...string) question { return question{category: singleHop, evidence: ids} }

	// recall of one question for bm25.
	bm25 := func(q question, budget int) float64 {
		t.Helper()
		s := newRecallSums([]int{budget})
		s.n[q.category]++
		if err := askBM25(context.Background(), turns, lines, costs, sep, []question{q}, []int{budget}, s); err != nil {
			t.Fatal(err)
		}
		return *s.row(systemBM25, 0).SingleHop
	}
	violin := ev("D1:3")
	violin.text = "Where was the violin Alice bought made?"
	if r := bm25(violin, 10000); r != 1 {
		t.Errorf("bm25 at 10000: recall %v of the violin's turn", r)
	}
	// The violin's turn is the only hit, so it is all a budget of its
	// size holds.
	if r := bm25(violin, costs[2]); r != 1 {
		t.Errorf("bm25 at the size of the turn: recall %v", r)
	}
	if r := bm25(violin, costs[2]-1); r != 0 {
		t.Errorf("bm25 below the size of the turn: recall %v", r)
	}
	tomatoes := ev("D1:1", "D1:2", "D2:1")
	tomatoes.text = "tomatoes"
	if r := bm25(tomatoes, 10000); r != 1 {
		t.Errorf("bm25 finds %v of the tomatoes", r)
	}
	nothing := ev("D1:1")
	nothing.text = "the of a"
	if r := bm25(nothing, 10000); r != 0 {
		t.Errorf("bm25 of stop words: recall %v", r)
	}

	// recent at the size of the last turn holds it and nothing else.
	found := map[string]bool{}
	for _, i := range packRecent(costs, sep, costs[len(costs)-1]) {
		found[turns[i].ExternalID] = true
	}
	if evidenceRecall([]string{"D2:4"}, found) != 1 || evidenceRecall([]string{"D1:1"}, found) != 0 || len(found) != 1 {
		t.Errorf("recent at %d tokens found %v", costs[len(costs)-1], found)
	}
	// and every turn at a budget of all of them.
	if got := packRecent(costs, sep, 10000); len(got) != len(turns) {
		t.Errorf("recent at 10000 tokens: %v", got)
	}
}

func TestRecallReport(t *testing.T) {
	name := writeTiny(t)
	var out, errs bytes.Buffer
	if status := run([]string{"recall", "--data", name, "--budgets", "1,100000", "--tokenizer", "estimate", "--json"}, &out, &errs); status != 0 {
		t.Fatalf("status %d: %s", status, errs.String())
	}
	var rep map[string]any
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, k := range []string{"data", "conversations", "questions", "dropped_evidence", "results", "context_ms", "ingest_turns_per_s", "peak_rss_mb"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("no %q in %s", k, out.String())
		}
	}
	for k, want := range map[string]any{
		"data": name, "tokenizer": "estimate", "conversations": 1.0, "turns": 8.0, "questions": 8.0, "evaluated": 6.0, "skipped": 2.0,
		"unknown_category": 0.0, "evidence": 8.0, "repaired_evidence": 4.0, "dropped_evidence": 2.0,
	} {
		if rep[k] != want {
			t.Errorf("%s: %v, want %v", k, rep[k], want)
		}
	}
	ctxMs, _ := rep["context_ms"].(map[string]any)
	if _, ok := ctxMs["p50"]; !ok {
		t.Errorf("context_ms %v", rep["context_ms"])
	}
	if _, ok := ctxMs["p99"]; !ok {
		t.Errorf("context_ms %v", rep["context_ms"])
	}

	results, _ := rep["results"].([]any)
	var rows []string
	for _, r := range results {
		row := r.(map[string]any)
		sys, budget := row["system"].(string), row["budget"].(float64)
		rows = append(rows, sys+" "+strconv.FormatFloat(budget, 'f', -1, 64))
		recall, ok := row["recall"].(map[string]any)
		if !ok {
			t.Errorf("%s at %v: no recall", sys, budget)
			continue
		}
		for _, k := range []string{"1", "2", "3", "4", "1-4", "5"} {
			if _, ok := recall[k]; !ok {
				t.Errorf("%s at %v: no recall %q", sys, budget, k)
			}
		}
		if sys == systemSMG {
			continue // the engine is not measured here
		}
		if recall["3"] != nil {
			t.Errorf("%s at %v: recall %v for a category without questions", sys, budget, recall["3"])
		}
		// A budget smaller than any turn holds nothing; one larger than
		// the conversation holds everything.
		want := 0.0
		if budget == 100000 {
			want = 1
		}
		for _, k := range []string{"1", "2", "4", "1-4", "5"} {
			if recall[k] != want {
				t.Errorf("%s at %v: recall %q %v, want %v", sys, budget, k, recall[k], want)
			}
		}
	}
	if want := []string{"smg 1", "smg 100000", "bm25 1", "bm25 100000", "bm25-passages 1", "bm25-passages 100000", "bm25+vectors 1", "bm25+vectors 100000", "recent 1", "recent 100000"}; !slices.Equal(rows, want) {
		t.Errorf("rows %q, want %q", rows, want)
	}

	// Without vectors the fused baseline says why it has no figures.
	var plain, plainErrs bytes.Buffer
	if status := run([]string{"recall", "--data", name, "--budgets", "100000", "--tokenizer", "estimate", "--json", "--no-vectors"}, &plain, &plainErrs); status != 0 {
		t.Fatalf("--no-vectors: status %d: %s", status, plainErrs.String())
	}
	var noVec recallReport
	if err := json.Unmarshal(plain.Bytes(), &noVec); err != nil {
		t.Fatal(err)
	}
	for _, r := range noVec.Results {
		if off := r.Error == "vectors are off"; off != (r.System == systemFused) {
			t.Errorf("--no-vectors: %s: error %q", r.System, r.Error)
		}
	}

	// The table.
	out.Reset()
	errs.Reset()
	if status := run([]string{"recall", "--data", name, "--budgets", "50", "--tokenizer", "estimate", "--limit-questions", "3"}, &out, &errs); status != 0 {
		t.Fatalf("status %d: %s", status, errs.String())
	}
	var systems []string
	for _, line := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(line); len(f) == 8 && f[1] == "50" {
			systems = append(systems, f[0])
		}
	}
	if !slices.Equal(systems, recallSystems) {
		t.Errorf("rows of %q at 50 tokens in\n%s", systems, out.String())
	}
	for _, want := range []string{"1 conversations, 8 turns, 3 questions (3 evaluated, 0 skipped", "evidence: 5 ids, 4 of them repaired, 1 dropped", "tokenizer estimate"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
}

func TestRecallErrors(t *testing.T) {
	name := writeTiny(t)
	for _, args := range [][]string{
		{"recall"},
		{"recall", "--data", filepath.Join(t.TempDir(), "missing.json")},
		{"recall", "--data", name, "--budgets", "0"},
		{"recall", "--data", name, "--tokenizer", "p50k"},
		{"recall", "--data", name, "extra"},
	} {
		var out, errs bytes.Buffer
		if status := run(args, &out, &errs); status != 1 || errs.Len() == 0 {
			t.Errorf("%q: status %d, %q", args, status, errs.String())
		}
	}
}

func TestRecallLimits(t *testing.T) {
	// Two samples; the second's conversation comes from the same turns
	// under another id.
	two := "[" + strings.TrimSuffix(strings.TrimPrefix(tinyLoCoMo, "["), "]") + "," +
		strings.Replace(strings.TrimSuffix(strings.TrimPrefix(tinyLoCoMo, "["), "]"), `"conv-t"`, `"conv-u"`, 1) + "]"
	name := filepath.Join(t.TempDir(), "two.json")
	if err := os.WriteFile(name, []byte(two), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := measureRecall(context.Background(), recallOptions{data: name, budgets: []int{100}, tokenizer: "estimate", limitQuestions: 2}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Conversations != 2 || rep.Turns != 16 || rep.Questions != 4 || rep.Evaluated != 4 || rep.RepairedEvidence != 6 {
		t.Errorf("two conversations, two questions each: %+v", rep)
	}
	rep, err = measureRecall(context.Background(), recallOptions{data: name, budgets: []int{100}, tokenizer: "estimate", limitConversations: 1}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Conversations != 1 || rep.Turns != 8 || rep.Questions != 8 {
		t.Errorf("one conversation: %+v", rep)
	}
}

// fakeEngine answers every question with the same items, or fails.
type fakeEngine struct {
	items  []smg.Found
	tokens int
	err    error
}

func (f fakeEngine) Context(ctx context.Context, query string, opts *smg.ContextOptions) (*smg.ContextResult, error) {
	if f.err != nil {
		return nil, f.err
	}
	return &smg.ContextResult{Items: f.items, Tokens: f.tokens, Budget: opts.Budget}, nil
}

func TestRecallSMG(t *testing.T) {
	name := writeTiny(t)
	measure := func(open func(*spec.Document) (contextEngine, error)) (*recallReport, string) {
		t.Helper()
		var warn bytes.Buffer
		rep, err := measureRecall(context.Background(), recallOptions{data: name, budgets: []int{1, 100000}, tokenizer: "estimate", open: open}, &warn)
		if err != nil {
			t.Fatal(err)
		}
		return rep, warn.String()
	}
	baselinesRan := func(rep *recallReport) {
		t.Helper()
		for _, r := range rep.Results[2:] {
			if r.System == systemFused && r.Error == "vectors are off" {
				continue
			}
			if r.Error != "" || r.Recall.OneToFour == nil || r.Budget == 100000 && *r.Recall.OneToFour != 1 {
				t.Errorf("%s at %d: %s %s", r.System, r.Budget, r.Error, recallString(r.Recall))
			}
		}
	}

	// An engine that fails: the smg rows say why, the baselines run.
	for _, open := range []func(*spec.Document) (contextEngine, error){
		func(*spec.Document) (contextEngine, error) { return fakeEngine{err: errors.New("not built yet")}, nil },
		func(*spec.Document) (contextEngine, error) { return nil, errors.New("not built yet") },
	} {
		rep, warn := measure(open)
		if !strings.Contains(warn, "not built yet") {
			t.Errorf("warning %q", warn)
		}
		for _, r := range rep.Results[:2] {
			if r.System != systemSMG || !strings.Contains(r.Error, "not built yet") || r.Recall != (categoryRecall{}) {
				t.Errorf("smg row %+v", r)
			}
		}
		if rep.ContextMs != (latency{}) {
			t.Errorf("latency of failed calls: %+v", rep.ContextMs)
		}
		baselinesRan(rep)
		var out bytes.Buffer
		if err := writeRecall(&out, rep); err != nil || !strings.Contains(out.String(), "smg failed: conversation conv-t: ") {
			t.Errorf("table: %v\n%s", err, out.String())
		}
	}

	// Items name turns by external id or by number; a context over its
	// budget is counted.
	var items []smg.Found
	for i, tu := range tinyTurns(t) {
		it := smg.Found{Kind: "turn", Turn: tu.Turn}
		if i%2 == 0 {
			it.ExternalID = tu.ExternalID
		}
		items = append(items, it, smg.Found{Kind: "node", NodeID: "n"})
	}
	rep, warn := measure(func(*spec.Document) (contextEngine, error) { return fakeEngine{items: items, tokens: 50}, nil })
	if warn != "" {
		t.Errorf("warning %q", warn)
	}
	for _, r := range rep.Results[:2] {
		if r.Error != "" || *r.Recall.OneToFour != 1 || *r.Recall.Adversarial != 1 {
			t.Errorf("smg at %d: %s %s", r.Budget, r.Error, recallString(r.Recall))
		}
	}
	if rep.ContextMs.Calls != 12 || rep.OverBudget != 6 {
		t.Errorf("%d calls, %d over budget", rep.ContextMs.Calls, rep.OverBudget)
	}
	baselinesRan(rep)
}

func TestRecallPairing(t *testing.T) {
	// A malformed sample the importer leaves out: its questions have no
	// turns, so no valid evidence, and the next sample keeps its own.
	body := strings.TrimSuffix(strings.TrimPrefix(tinyLoCoMo, "["), "]")
	bad := `{"sample_id": "conv-t", "conversation": 3, "qa": [{"question": "x?", "evidence": ["D1:1"], "category": 4}]}`
	name := filepath.Join(t.TempDir(), "pairing.json")
	if err := os.WriteFile(name, []byte("["+bad+","+body+"]"), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := measureRecall(context.Background(), recallOptions{data: name, budgets: []int{100000}, tokenizer: "estimate"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Conversations != 2 || rep.Turns != 8 || rep.Questions != 9 || rep.Evaluated != 6 || rep.Skipped != 3 || rep.DroppedEvidence != 3 || rep.ImporterSkipped != 1 {
		t.Errorf("%+v", rep)
	}
	if r := rep.Results[1]; r.System != systemBM25 || *r.Recall.OneToFour != 1 {
		t.Errorf("%s: %s", r.System, recallString(r.Recall))
	}
}

// packFill passes over an item that does not fit and fills on, never
// past the budget; bm25-passages finds a long turn by a passage that
// fits where the whole turn does not.
func TestPassagesBaseline(t *testing.T) {
	costs := []int{5, 20, 3, 4}
	if got := packFill([]int{0, 1, 2, 3}, costs, 1, 14); !slices.Equal(got, []int{0, 2, 3}) {
		t.Errorf("packFill at 14: %v, want [0 2 3]", got)
	}
	tk, err := smg.NewTokenizer(smg.Estimate)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("filler words here ", 60) + "the zeppelin hangar" + strings.Repeat(" more filler text", 60)
	turns := []spec.Turn{
		{Turn: 1, Speaker: "A", ExternalID: "D1:1", Content: "short turn about paint"},
		{Turn: 2, Speaker: "B", ExternalID: "D1:2", Content: long},
	}
	q := question{text: "zeppelin hangar", category: singleHop, evidence: []string{"D1:2"}}
	s := newRecallSums([]int{120})
	s.n[singleHop]++
	if err := askPassages(context.Background(), turns, passagesOf(turns, tk), 1, []question{q}, []int{120}, s); err != nil {
		t.Fatal(err)
	}
	if tk.Count(long) <= 120 {
		t.Fatalf("the long turn costs %d tokens: not long", tk.Count(long))
	}
	if r := *s.row(systemPassages, 0).SingleHop; r != 1 {
		t.Errorf("bm25-passages at 120 tokens: recall %v of the long turn", r)
	}
}

// TestRecallOne: --one asks every question of one memory of all the
// conversations. Ids that repeat across conversations stay apart: a
// question's evidence is its own conversation's turn, not the other's of
// the same id.
func TestRecallOne(t *testing.T) {
	parts := []recallPart{
		{id: "conv-t", turns: []spec.Turn{{Turn: 1, ExternalID: "D1:1", Content: "a"}, {Turn: 2, ExternalID: "D1:2", Content: "b"}},
			questions: []question{{text: "q1", evidence: []string{"D1:2"}, newest: "D1:2"}}},
		{id: "conv-u", turns: []spec.Turn{{Turn: 1, ExternalID: "D1:1", Content: "c"}},
			questions: []question{{text: "q2", evidence: []string{"D1:1"}, newest: "D1:1"}}},
	}
	one := oneConversation(parts)
	var ids []string
	for i, tu := range one.turns {
		if tu.Turn != i+1 {
			t.Errorf("turn %d numbered %d", i+1, tu.Turn)
		}
		ids = append(ids, tu.ExternalID)
	}
	if want := []string{"conv-t/D1:1", "conv-t/D1:2", "conv-u/D1:1"}; !slices.Equal(ids, want) {
		t.Errorf("ids %q, want %q", ids, want)
	}
	if len(one.questions) != 2 || !slices.Equal(one.questions[1].evidence, []string{"conv-u/D1:1"}) || one.questions[1].newest != "conv-u/D1:1" {
		t.Errorf("questions %+v", one.questions)
	}
	if parts[1].questions[0].evidence[0] != "D1:1" || parts[0].turns[0].ExternalID != "D1:1" {
		t.Error("the parts changed")
	}

	// Two samples of the same turns under two ids, as one memory: every
	// question evaluated once, against the 16 turns.
	two := "[" + strings.TrimSuffix(strings.TrimPrefix(tinyLoCoMo, "["), "]") + "," +
		strings.Replace(strings.TrimSuffix(strings.TrimPrefix(tinyLoCoMo, "["), "]"), `"conv-t"`, `"conv-u"`, 1) + "]"
	name := filepath.Join(t.TempDir(), "two.json")
	if err := os.WriteFile(name, []byte(two), 0o600); err != nil {
		t.Fatal(err)
	}
	per, err := measureRecall(context.Background(), recallOptions{data: name, budgets: []int{1, 100000}, tokenizer: "estimate"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := measureRecall(context.Background(), recallOptions{data: name, budgets: []int{1, 100000}, tokenizer: "estimate", one: true}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.One || rep.Conversations != 2 || rep.Turns != 16 || rep.Evaluated != per.Evaluated || per.One {
		t.Errorf("one memory: %+v; one per conversation: %+v", rep, per)
	}
	checked := 0
	for _, r := range rep.Results {
		if r.System != systemBM25 || r.Recall.OneToFour == nil {
			continue
		}
		checked++
		// Everything fits in 100,000 tokens; nothing in 1.
		if want := map[int]float64{1: 0, 100000: 1}[r.Budget]; *r.Recall.OneToFour != want {
			t.Errorf("bm25 at %d tokens over the one memory: %v, want %v", r.Budget, *r.Recall.OneToFour, want)
		}
	}
	if checked != 2 {
		t.Errorf("%d rows of bm25 with a recall, want 2", checked)
	}
}
