package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
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
// a label in testdata/labels: a change of the engine that brings new
// items into the sample labels them by the rubric, in the same change.
func TestExtractLabelsCoverTheSample(t *testing.T) {
	const bench = "../../../shared/bench"
	inputs := []string{bench + "/locomo-dev.json", bench + "/beam-dev.json", bench + "/aider-dev"}
	for _, in := range inputs {
		if _, err := os.Stat(in); err != nil {
			t.Skipf("no dev data: %v", err)
		}
	}
	var out, errs bytes.Buffer
	args := append([]string{"extract", "--json", "--labels", "../../testdata/labels/extract.jsonl"}, inputs...)
	if status := run(args, &out, &errs); status != 0 {
		t.Fatalf("status %d: %s", status, errs.String())
	}
	var rep extraction.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Rows {
		if want := min(60, r.Items); r.Sampled != want {
			t.Errorf("%s: a sample of %d, want %d (all when fewer than 60)", r.Kind, r.Sampled, want)
		}
	}
	for _, it := range rep.Unlabelled {
		t.Errorf("no label for %s %s (%s, %s, turn %d): run 'smg-bench extract --todo' and label it by testdata/labels/README.md", it.Kind, it.Key, it.Source, it.Conversation, it.Turn)
	}
	for _, it := range rep.Rephrase {
		t.Errorf("the rephrasing of fact %s (%s, %s, turn %d) changed since it was judged: run 'smg-bench extract --todo' and judge it again", it.Key, it.Source, it.Conversation, it.Turn)
	}
}
