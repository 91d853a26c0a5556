package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/extraction"
	"github.com/smg-memory/smg/smg/format"
)

// tinyPlan is a made-up plan of tinyLoCoMo's conversation.
const tinyPlan = `BATCH 1 PLAN
• **Time Anchor:** May 8, 2023
• **Personal Introduction:** Alice grows tomatoes in her garden.
• **Hobbies:Music:** Alice bought a violin made in Cremona.
• **Hobbies:Practice:** Alice practises scales every evening.
• **Travel:** Alice travels to Lisbon next month for a concert.
`

// plancovFixture writes a LoCoMo file of two samples, one the importer
// cannot read (no turns) and tinyLoCoMo's, and a plan for each; it
// returns the file and the plans' directory.
func plancovFixture(t *testing.T) (data, plans string) {
	t.Helper()
	dir := t.TempDir()
	body := strings.TrimSuffix(strings.TrimPrefix(tinyLoCoMo, "["), "]")
	bad := `{"sample_id": "conv-bad", "conversation": 3, "qa": []}`
	data = filepath.Join(dir, "data.json")
	plans = filepath.Join(dir, "plans")
	if err := os.WriteFile(data, []byte("["+bad+","+body+"]"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(plans, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, chat := range []string{"chat-01.txt", "chat-02.txt"} {
		if err := os.WriteFile(filepath.Join(plans, chat), []byte(tinyPlan), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return data, plans
}

// plancov scores the NN-th sample's memory against chat-NN.txt: the
// sample the importer cannot read has no turns and no nodes, the second is
// tinyLoCoMo's conversation, its nodes those of its memory; the total sums
// the chats, and the categories come by total.
func TestPlanCoverageCommand(t *testing.T) {
	data, plans := plancovFixture(t)
	var out, errs bytes.Buffer
	if status := run([]string{"plancov", "--data", data, "--plans", plans, "--json"}, &out, &errs); status != 0 {
		t.Fatalf("status %d: %s", status, errs.String())
	}
	var rep plancovReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Chats) != 2 || rep.Threshold != 0.5 || rep.ImporterSkipped != 1 {
		t.Fatalf("%+v", rep)
	}
	empty, tiny := rep.Chats[0], rep.Chats[1]
	if empty.Chat != "01" || empty.Sample != "conv-bad" || empty.Turns != 0 || empty.TypedNodes != 0 || empty.Covered != 0 || empty.Bullets != 4 {
		t.Errorf("chat 01: %+v", empty)
	}
	doc, err := memoryDocument(context.Background(), tinyTurns(t), smg.Config{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := extraction.ReadPlan(strings.NewReader(tinyPlan))
	if err != nil {
		t.Fatal(err)
	}
	want := extraction.CoverPlan(plan, doc.SemanticGraph.Nodes, 0.5)
	if tiny.Chat != "02" || tiny.Sample != "conv-t" || tiny.Turns != 8 || fmt.Sprint(tiny.PlanCoverage) != fmt.Sprint(want) {
		t.Errorf("chat 02: %+v, want the coverage %+v", tiny, want)
	}
	if want.TypedNodes == 0 || tiny.TypedPer1k != 1000*float64(want.TypedNodes)/8 {
		t.Errorf("chat 02: %d typed nodes, %.1f per 1,000 turns", tiny.TypedNodes, tiny.TypedPer1k)
	}
	cats := []extraction.CategoryCoverage{{Category: "Hobbies", Total: 4}, {Category: "Personal Introduction", Total: 2}, {Category: "Travel", Total: 2}}
	for i := range cats {
		cats[i].Covered = tiny.Categories[i].Covered
	}
	total := rep.Total
	if total.Turns != 8 || total.Bullets != 8 || total.Covered != tiny.Covered || total.TypedNodes != tiny.TypedNodes ||
		total.Coverage != float64(tiny.Covered)/8 || total.TypedPer1k != tiny.TypedPer1k || fmt.Sprint(total.Categories) != fmt.Sprint(cats) {
		t.Errorf("total %+v", total)
	}

	out.Reset()
	if status := run([]string{"plancov", "--data", data, "--plans", plans}, &out, &errs); status != 0 {
		t.Fatalf("status %d: %s", status, errs.String())
	}
	for _, line := range []string{"bullets  covered  coverage  typed nodes  per 1,000 turns\n", "chat 02 (conv-t)\n", "  Hobbies: ", "\nall\n", "2 chats, 8 turns\n"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("no %q in\n%s", line, out.String())
		}
	}
}

// plancov fails, and says why, without its flags, on a threshold that is
// no share, when a sample has no plan and when a plan has no bullet.
func TestPlanCoverageErrors(t *testing.T) {
	data, plans := plancovFixture(t)
	noBullet := t.TempDir()
	for _, chat := range []string{"chat-01.txt", "chat-02.txt"} {
		if err := os.WriteFile(filepath.Join(noBullet, chat), []byte("BATCH 1 PLAN\n• **Time Anchor:** May 8, 2023\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	one := t.TempDir()
	if err := os.WriteFile(filepath.Join(one, "chat-01.txt"), []byte(tinyPlan), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plancov", "--data", data}, "--data FILE and --plans DIR are required"},
		{[]string{"plancov", "--data", data, "--plans", plans, "--threshold", "1.5"}, "--threshold 1.5"},
		{[]string{"plancov", "--data", data, "--plans", plans, "--threshold", "NaN"}, "--threshold NaN"},
		{[]string{"plancov", "--data", data, "--plans", one}, `sample 2 ("conv-t"): open ` + filepath.Join(one, "chat-02.txt")},
		{[]string{"plancov", "--data", data, "--plans", noBullet}, filepath.Join(noBullet, "chat-01.txt") + ": no plan bullet"},
		{[]string{"plancov", "--data", filepath.Join(plans, "missing.json"), "--plans", plans}, "missing.json"},
	} {
		var out, errs bytes.Buffer
		if status := run(c.args, &out, &errs); status != 1 || !strings.Contains(errs.String(), c.want) {
			t.Errorf("%q: status %d, %q, want %q", c.args, status, errs.String(), c.want)
		}
	}
}

// The command's measure is plancov.py's on chat 1 of beam-dev: the
// memory plancov builds, its nodes written as 'smg nodes --json' writes
// them, and scored by the script, give the same counts, overall and by
// category. The NN-th sample of beam-dev.json is beam-100K-NN, the chat
// of beam-dev-plans/chat-NN.txt.
func TestPlanCoverageAgreesWithScriptOnBEAM(t *testing.T) {
	const bench = "../../../shared/bench"
	data, planFile, script := bench+"/beam-dev.json", bench+"/beam-dev-plans/chat-01.txt", bench+"/plancov.py"
	for _, f := range []string{data, planFile, script} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("chat 1 of beam-dev is not walked: %v", err)
		}
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skipf("chat 1 of beam-dev is not scored by plancov.py: no python3 on PATH (%v)", err)
	}
	samples, convs, _, err := readLoCoMo(data)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range samples {
		if want := fmt.Sprintf("beam-100K-%d", i+1); s.ID != want {
			t.Errorf("sample %d is %q, want %q", i+1, s.ID, want)
		}
	}
	doc, err := memoryDocument(context.Background(), convs[0].Turns, smg.Config{})
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := format.Nodes(doc, format.NodeQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := writeJSON(&b, nodes); err != nil {
		t.Fatal(err)
	}
	nodesFile := filepath.Join(t.TempDir(), "nodes.json")
	if err := os.WriteFile(nodesFile, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	cmd := exec.Command(python, script, planFile, nodesFile)
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("plancov.py: %v: %s", err, errs.String())
	}
	plan, err := readPlanFile(planFile)
	if err != nil {
		t.Fatal(err)
	}
	if got := asScript(extraction.CoverPlan(plan, doc.SemanticGraph.Nodes, extraction.DefaultPlanThreshold)); got != out.String() {
		t.Errorf("chat 1: plancov gives\n%s\nplancov.py gives\n%s", got, out.String())
	}
}

// asScript is c as plancov.py prints it at its default threshold.
func asScript(c extraction.PlanCoverage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "plan bullets %d, typed nodes %d, covered %d (%.3f) at overlap>=0.5\n", c.Bullets, c.TypedNodes, c.Covered, c.Coverage)
	for _, cat := range c.Categories {
		fmt.Fprintf(&b, "  %s: %d/%d\n", cat.Category, cat.Covered, cat.Total)
	}
	return b.String()
}
