package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg/extraction"
)

// extract measures the graph of the examples: it counts what it
// extracted, writes the unlabelled items of the sample with their turns,
// and scores the sample by the labels given.
func TestExtractReport(t *testing.T) {
	const checkout, personal = "../../smg/examples/checkout.json", "../../smg/examples/personal.json"
	dir := t.TempDir()
	todo, labels := filepath.Join(dir, "todo.jsonl"), filepath.Join(dir, "labels.jsonl")
	var out, errs bytes.Buffer
	if status := run([]string{"extract", "--json", "--todo", todo, checkout, personal}, &out, &errs); status != 0 {
		t.Fatalf("status %d: %s", status, errs.String())
	}
	var rep extraction.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Turns != 42 || len(rep.Rows) != len(extraction.Kinds) {
		t.Fatalf("%d turns, %d rows", rep.Turns, len(rep.Rows))
	}
	f, err := os.Open(todo)
	if err != nil {
		t.Fatal(err)
	}
	var lines []todoItem
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var probe struct{ Todo string }
		if err := json.Unmarshal(sc.Bytes(), &probe); err != nil {
			t.Fatal(err)
		}
		if probe.Todo == "recall" {
			continue // a turn to label for recall (TestExtractRecall)
		}
		var it todoItem
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, it)
	}
	f.Close()
	if len(lines) != len(rep.Unlabelled) || len(lines) == 0 {
		t.Fatalf("%d lines to label, %d unlabelled", len(lines), len(rep.Unlabelled))
	}
	var fact todoItem
	for _, it := range lines {
		if it.Kind == extraction.Fact && it.Source == "personal.json" {
			fact = it
		}
	}
	if fact.Key == "" || fact.Speaker != "Ana" || !strings.Contains(fact.TurnText, strings.Fields(fact.Text)[0]) {
		t.Fatalf("no fact of personal.json with its turn to label: %+v", fact)
	}

	yes := true
	var buf bytes.Buffer
	if fact.Todo != "label" || fact.Of != extraction.Phrasing(fact.Label) {
		t.Errorf("the fact to label: todo %q, of %q", fact.Todo, fact.Of)
	}
	if err := extraction.WriteLabels(&buf, extraction.Labels{fact.Key: {Key: fact.Key, Kind: extraction.Fact, Valid: true, Rephrasing: &yes, Of: fact.Of}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(labels, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if status := run([]string{"extract", "--labels", labels, checkout, personal}, &out, &errs); status != 0 {
		t.Fatalf("status %d: %s", status, errs.String())
	}
	var factRow string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "fact ") {
			factRow = l
		}
	}
	if f := strings.Fields(factRow); len(f) < 7 || f[4] != "1" || f[5] != "1.000" || !strings.Contains(factRow, "1.000 (1 of 1; target 0.95)") {
		t.Errorf("the facts' row %q: want 1 labelled, precision 1.000, rephrasings 1 of 1\n%s", factRow, out.String())
	}
	if !strings.Contains(out.String(), "\nartifact of checkout.json: 2 sampled of 2, 0 labelled, 0 valid (precision -), 0 from prose\n") {
		t.Errorf("no line of checkout's artifacts:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "42 turns; ") {
		t.Errorf("report:\n%s", out.String())
	}

	// A bad labels file: the file and the line.
	if err := os.WriteFile(labels, []byte(buf.String()+`{"key":"x","kind":"fact","valid":true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	errs.Reset()
	if status := run([]string{"extract", "--labels", labels, checkout}, &out, &errs); status == 0 || !strings.Contains(errs.String(), labels+": reading labels: line 2: key \"x\" is not 16 hex digits") {
		t.Errorf("bad labels: status %d, %q", status, errs.String())
	}
}

// Every item of the sample drawn from the dev data (../shared/bench) has
// a label in testdata/labels, and so has every concept among the first 100
// of each source: a change of the engine that brings new items into the
// sample labels them by the rubric, in the same change.
// Once testdata/labels/recall.jsonl exists, every turn of the sample of
// turns has a recall label in it too.
func TestExtractLabelsCoverTheSample(t *testing.T) {
	const bench = "../../../shared/bench"
	inputs := []string{bench + "/locomo-dev.json", bench + "/beam-dev.json", bench + "/aider-dev"}
	for _, in := range inputs {
		if _, err := os.Stat(in); err != nil {
			t.Skipf("no dev data: %v", err)
		}
	}
	const recallLabels = "../../testdata/labels/recall.jsonl"
	_, err := os.Stat(recallLabels)
	withRecall := err == nil
	var out, errs bytes.Buffer
	args := []string{"extract", "--json", "--labels", "../../testdata/labels/extract.jsonl"}
	if withRecall {
		args = append(args, "--recall-labels", recallLabels)
	}
	args = append(args, inputs...)
	if status := run(args, &out, &errs); status != 0 {
		t.Fatalf("status %d: %s", status, errs.String())
	}
	var rep extraction.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Rows {
		want := min(60, r.Items)
		if extraction.PerSource[r.Kind] {
			want = 0
			for _, s := range r.Sources {
				want += min(60, s.Items)
			}
		}
		if r.Sampled != want {
			t.Errorf("%s: a sample of %d, want %d (all when fewer than 60; of artifacts, of each source)", r.Kind, r.Sampled, want)
		}
	}
	for _, it := range rep.Unlabelled {
		t.Errorf("no label for %s %s (%s, %s, turn %d): run 'smg-bench extract --todo' and label it by testdata/labels/README.md", it.Kind, it.Key, it.Source, it.Conversation, it.Turn)
	}
	for _, it := range rep.Rephrase {
		t.Errorf("the rephrasing of fact %s (%s, %s, turn %d) changed since it was judged: run 'smg-bench extract --todo' and judge it again", it.Key, it.Source, it.Conversation, it.Turn)
	}
	if rep.SampledTurns != 60 {
		t.Errorf("a sample of %d turns, want 60", rep.SampledTurns)
	}
	// Concepts are labelled further: the first 100 of each source.
	out.Reset()
	wide := []string{"extract", "--json", "--sample", "300", "--labels", "../../testdata/labels/extract.jsonl"}
	if status := run(append(wide, inputs...), &out, &errs); status != 0 {
		t.Fatalf("--sample 300: status %d: %s", status, errs.String())
	}
	var wider extraction.Report
	if err := json.Unmarshal(out.Bytes(), &wider); err != nil {
		t.Fatal(err)
	}
	for _, it := range wider.Unlabelled {
		if it.Kind == extraction.Concept {
			t.Errorf("no label for concept %s (%s, %s, turn %d) among the first 100 of its source: run 'smg-bench extract --sample 300 --todo' and label it", it.Key, it.Source, it.Conversation, it.Turn)
		}
	}
	if !withRecall {
		t.Logf("no %s yet: the recall of the sample of turns is not checked", recallLabels)
		return
	}
	for _, tr := range rep.UnlabelledTurns {
		t.Errorf("no recall label for turn %s (%s, %s, turn %d): run 'smg-bench extract --todo', answer it and add it by 'smg-bench recall-labels' (testdata/labels/README.md)", tr.Key, tr.Source, tr.Conversation, tr.Turn)
	}
}

// readTodo reads a worksheet's lines as maps.
func readTodo(t *testing.T, name string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var lines []map[string]any
	for l := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, m)
	}
	return lines
}

// extract draws a sample of turns and lists those without a recall label
// on the worksheet, with their text; recall-labels hashes a person's
// answers on them into a recall labels file, and extract scores recall
// by it: a decision found by its word in the turn it came from, a goal
// the engine did not extract not found.
func TestExtractRecall(t *testing.T) {
	const checkout = "../../smg/examples/checkout.json"
	dir := t.TempDir()
	todo, answers, labels := filepath.Join(dir, "todo.jsonl"), filepath.Join(dir, "answers.jsonl"), filepath.Join(dir, "recall.jsonl")
	var out, errs bytes.Buffer
	if status := run([]string{"extract", "--json", "--turns", "1000", "--todo", todo, checkout}, &out, &errs); status != 0 {
		t.Fatalf("status %d: %s", status, errs.String())
	}
	var rep extraction.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	// The turn the decision PostgreSQL came from, and another.
	decided := slices.IndexFunc(rep.Unlabelled, func(it extraction.Item) bool {
		return it.Kind == extraction.Decision && it.Label == "PostgreSQL"
	})
	if decided < 0 {
		t.Fatalf("no decision PostgreSQL among %+v", rep.Unlabelled)
	}
	turn := rep.Unlabelled[decided].Turn
	var recall []map[string]any
	for _, l := range readTodo(t, todo) {
		if l["todo"] == "recall" {
			recall = append(recall, l)
		}
	}
	if rep.SampledTurns == 0 || rep.LabelledTurns != 0 || len(recall) != rep.SampledTurns || len(rep.UnlabelledTurns) != rep.SampledTurns {
		t.Fatalf("%d turns sampled, %d labelled, %d unlabelled, %d on the worksheet", rep.SampledTurns, rep.LabelledTurns, len(rep.UnlabelledTurns), len(recall))
	}
	var this, other map[string]any
	for _, l := range recall {
		if l["turnNumber"] == float64(turn) {
			this = l
		} else if other == nil {
			other = l
		}
	}
	if this == nil || other == nil || !strings.Contains(this["turnText"].(string), "PostgreSQL") || this["speaker"] == "" || this["source"] != "checkout.json" || len(this["turn"].(string)) != 16 {
		t.Fatalf("the worksheet's turn %d: %v (another: %v)", turn, this, other)
	}

	answer := fmt.Sprintf(`{"turn":%q,"expect":[{"kind":"decision","words":["postgresql"]},{"kind":"goal","words":["Zanzibar ferry"]}],"note":"chose a database"}`+"\n"+
		`{"turn":%q,"expect":[{"kind":"request","words":["dark mode"]},{"kind":"change","words":["theme"]}],"note":"of a coding session"}`+"\n", this["turn"], other["turn"])
	if err := os.WriteFile(answers, []byte(answer), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the same answers again change nothing
		out.Reset()
		if status := run([]string{"recall-labels", answers, labels}, &out, &errs); status != 0 {
			t.Fatalf("status %d: %s", status, errs.String())
		}
	}
	written, err := os.ReadFile(labels)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(string(written)), "postgresql") || strings.Count(string(written), "\n") != 2 || !strings.Contains(string(written), extraction.TermHash("PostgreSQL")) || !strings.Contains(out.String(), "2 turns labelled (0 new)") {
		t.Errorf("recall labels:\n%s\n%s", written, out.String())
	}

	out.Reset()
	if status := run([]string{"extract", "--json", "--turns", "1000", "--recall-labels", labels, checkout}, &out, &errs); status != 0 {
		t.Fatalf("status %d: %s", status, errs.String())
	}
	rep = extraction.Report{}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rep.Rows {
		got[r.Kind] = fmt.Sprintf("%d/%d %.1f", r.Found, r.Expected, r.Recall)
	}
	if got[extraction.Decision] != "1/1 1.0" || got[extraction.Goal] != "0/1 0.0" || got[extraction.Fact] != "0/0 -1.0" || got[extraction.Request] != "0/1 0.0" || got[extraction.Change] != "0/1 0.0" || rep.LabelledTurns != 2 || len(rep.UnlabelledTurns) != rep.SampledTurns-2 {
		t.Errorf("recall %v, %d turns labelled, %d not", got, rep.LabelledTurns, len(rep.UnlabelledTurns))
	}
	out.Reset()
	if status := run([]string{"extract", "--turns", "1000", "--recall-labels", labels, checkout}, &out, &errs); status != 0 {
		t.Fatalf("status %d: %s", status, errs.String())
	}
	if !strings.Contains(out.String(), " expected  found  recall ") || !regexp.MustCompile(`(?m)^\s+decision(\s+\S+){6}\s+1\s+1\s+1\.000\s`).MatchString(out.String()) {
		t.Errorf("the table has no recall of decisions 1 of 1:\n%s", out.String())
	}
	for _, k := range []string{extraction.Request, extraction.Change} {
		if !regexp.MustCompile(`(?m)^\s+` + k + `(\s+\S+){6}\s+1\s+0\s+0\.000\s`).MatchString(out.String()) {
			t.Errorf("the table has no recall of %ss 0 of 1:\n%s", k, out.String())
		}
	}

	// An answer that says otherwise of a labelled turn: refused, the
	// labels as they were.
	if err := os.WriteFile(answers, fmt.Appendf(nil, `{"turn":%q,"expect":[]}`+"\n", this["turn"]), 0o644); err != nil {
		t.Fatal(err)
	}
	errs.Reset()
	if status := run([]string{"recall-labels", answers, labels}, &out, &errs); status == 0 || !strings.Contains(errs.String(), this["turn"].(string)+": labelled otherwise already") {
		t.Errorf("a relabelled turn: status %d, %q", status, errs.String())
	}
	if again, _ := os.ReadFile(labels); !bytes.Equal(again, written) {
		t.Errorf("the labels changed:\n%s", again)
	}
	// A bad recall labels file: the file and the line.
	if err := os.WriteFile(labels, append(written, `{"turn":"00000000000000aa","expect":[{"kind":"goal","terms":["Zanzibar"]}]}`+"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	errs.Reset()
	if status := run([]string{"extract", "--recall-labels", labels, checkout}, &out, &errs); status == 0 || !strings.Contains(errs.String(), labels+`: reading labels: line 3: expected item 1: term "Zanzibar" is not 8 hex digits`) {
		t.Errorf("bad recall labels: status %d, %q", status, errs.String())
	}
}
