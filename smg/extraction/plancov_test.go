package extraction_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/smg-memory/smg/smg/extraction"
	"github.com/smg-memory/smg/spec"
)

// plancovScript is the script whose measure CoverPlan computes, in the
// dev data beside the repository, which is not the project's to copy.
const plancovScript = "../../../shared/bench/plancov.py"

// The fixture of testdata/plancov, a made-up plan and graph, is scored as
// plancov.py scored it: expected-T.txt is what the script printed at
// threshold T, by
//
//	python3 ../shared/bench/plancov.py plan.txt nodes.json T > expected-T.txt
//
// (0.5 is the default, given or not). The plan has the tricky cases: curly
// quotes and apostrophes, "$25", "15%", hyphenated words, version numbers
// and words ending in a dot ("4.2.7", "budget."), words of two letters,
// stop words, a bullet of stop words alone, time anchors (and "Time
// anchor", which is not one), "Category:Sub:" headings, a heading that
// starts with a colon, white space Go's TrimSpace also takes (a
// non-breaking space) and lines that are not bullets; "İzmir" and a Kelvin
// sign ("K") lower-cased as Python does, which differ from Go's ToLower.
// The graph has a concept and an artifact that would cover bullets and
// must not, nodes without a description and one whose description is null.
// When python3 and the script are there, the test runs the script too,
// and compares.
func TestCoverPlanAgreesWithScript(t *testing.T) {
	plan := readFixturePlan(t)
	nodes := readFixtureNodes(t)
	python, pyErr := exec.LookPath("python3")
	_, scriptErr := os.Stat(plancovScript)
	for _, thr := range []string{"0.5", "0.25"} {
		t.Run(thr, func(t *testing.T) {
			threshold, err := strconv.ParseFloat(thr, 64)
			if err != nil {
				t.Fatal(err)
			}
			got := scriptText(extraction.CoverPlan(plan, nodes, threshold), thr)
			want, err := os.ReadFile("testdata/plancov/expected-" + thr + ".txt")
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("CoverPlan at %s gives\n%s\nplancov.py gave (testdata/plancov/expected-%s.txt)\n%s", thr, got, thr, want)
			}
			switch {
			case pyErr != nil:
				t.Skipf("the script is not run live: no python3 on PATH (%v); compared with the output it gave", pyErr)
			case scriptErr != nil:
				t.Skipf("the script is not run live: %v; compared with the output it gave", scriptErr)
			}
			var out, errs bytes.Buffer
			cmd := exec.Command(python, plancovScript, "testdata/plancov/plan.txt", "testdata/plancov/nodes.json", thr)
			cmd.Stdout, cmd.Stderr = &out, &errs
			if err := cmd.Run(); err != nil {
				t.Fatalf("plancov.py: %v: %s", err, errs.String())
			}
			if got != out.String() {
				t.Errorf("CoverPlan at %s gives\n%s\nplancov.py gives now\n%s", thr, got, out.String())
			}
		})
	}
	// The default threshold is the script's default.
	got := scriptText(extraction.CoverPlan(plan, nodes, extraction.DefaultPlanThreshold), "0.5")
	if want, err := os.ReadFile("testdata/plancov/expected-0.5.txt"); err != nil || got != string(want) {
		t.Errorf("at the default threshold, CoverPlan gives\n%s\nwant (err %v)\n%s", got, err, want)
	}
}

// scriptText is c printed as plancov.py prints it at threshold thr, as
// Python prints the float.
func scriptText(c extraction.PlanCoverage, thr string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "plan bullets %d, typed nodes %d, covered %d (%.3f) at overlap>=%s\n", c.Bullets, c.TypedNodes, c.Covered, c.Coverage, thr)
	for _, cat := range c.Categories {
		fmt.Fprintf(&b, "  %s: %d/%d\n", cat.Category, cat.Covered, cat.Total)
	}
	return b.String()
}

func readFixturePlan(t *testing.T) []extraction.PlanBullet {
	t.Helper()
	f, err := os.Open("testdata/plancov/plan.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	plan, err := extraction.ReadPlan(f)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func readFixtureNodes(t *testing.T) []spec.Node {
	t.Helper()
	b, err := os.ReadFile("testdata/plancov/nodes.json")
	if err != nil {
		t.Fatal(err)
	}
	var nodes []spec.Node
	if err := json.Unmarshal(b, &nodes); err != nil {
		t.Fatal(err)
	}
	return nodes
}

// ReadPlan reads the bullets of the fixture, each with its category, and
// leaves out the time anchors and the lines that are not bullets.
func TestReadPlan(t *testing.T) {
	plan := readFixturePlan(t)
	want := map[int]extraction.PlanBullet{
		0:  {Category: "Time anchor", Text: `lower-case "anchor" is a bullet: Python's startswith is case-sensitive.`},
		1:  {Category: "Personal Introduction", Text: "I’m Noor, a birdwatcher who logs sightings in a notebook and wants an app."},
		4:  {Category: "Architecture & Design Labels", Text: "Chose a modular monolith with REST endpoints; no microservices."},
		11: {Category: "Preference Statement", Text: "Prefers tabs over spaces, and dark mode in the UI."},
		14: {Category: "Spacing", Text: "A non-breaking space after the bullet and after the heading."},
		15: {Category: "Tight", Text: "No spaces around the heading at all here."},
		16: {Category: "Indented", Text: "A bullet indented by spaces is still a bullet once stripped."},
		17: {Category: "A", Text: "B:** the heading ends at the first colon and two stars."},
		18: {Category: "", Text: "a heading that starts with a colon has an empty category."},
		23: {Category: "Testing & Quality Assurance Labels", Text: "Reached 85% test coverage with pytest-django 4.5.2."},
	}
	if len(plan) != 24 {
		t.Fatalf("%d bullets, want 24: %q", len(plan), plan)
	}
	for i, w := range want {
		if plan[i] != w {
			t.Errorf("bullet %d is %q, want %q", i, plan[i], w)
		}
	}
	for _, b := range plan {
		if strings.HasPrefix(b.Category, "Time Anchor") || strings.Contains(b.Text, "no bullet") || strings.Contains(b.Text, "either") || strings.Contains(b.Text, "not a bullet") || strings.Contains(b.Text, "nor is") {
			t.Errorf("%q is no bullet", b)
		}
	}
}

// A plan that is not UTF-8 is an error that names its line, as the
// script cannot read it either.
func TestReadPlanNotUTF8(t *testing.T) {
	_, err := extraction.ReadPlan(strings.NewReader("BATCH 1\n• **A:** ok\n• **B:** caf\xe9\n"))
	if !errors.Is(err, extraction.ErrPlanNotUTF8) || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("got %v, want ErrPlanNotUTF8 at line 3", err)
	}
}

// CoverPlan's rules one by one: only typed nodes count, a bullet is
// covered at exactly the threshold, a bullet without words never is (at a
// positive threshold), and the categories come by total, the first met
// first of equal totals.
func TestCoverPlanRules(t *testing.T) {
	plan := []extraction.PlanBullet{
		{Category: "B", Text: "Noor chose PostgreSQL over MySQL"}, // noor, chose, postgresql, mysql
		{Category: "A", Text: "Noor likes tea"},                   // noor, likes, tea
		{Category: "B", Text: "It is at the on"},                  // no words
		{Category: "C", Text: "Deploys with Docker Compose"},      // deploys, docker, compose
		{Category: "A", Text: "Noor lives in Porto"},              // noor, lives, porto
	}
	nodes := []spec.Node{
		{Type: spec.NodeDecision, Label: "PostgreSQL", Description: "Noor's team chose it"}, // 2 of 4: covered at 0.5
		{Type: spec.NodeConcept, Label: "Noor likes tea"},                                   // a concept: ignored
		{Type: spec.NodeArtifact, Label: "compose.yaml", Description: "deploys with docker compose"},
		{Type: spec.NodeFact, Label: "Noor lives in Porto"},
		{Type: "preference", Label: "likes green tea"}, // an unknown type counts: 2 of 3
	}
	c := extraction.CoverPlan(plan, nodes, 0.5)
	want := extraction.PlanCoverage{Bullets: 5, Covered: 3, Coverage: 0.6, TypedNodes: 3, Categories: []extraction.CategoryCoverage{
		{Category: "B", Covered: 1, Total: 2}, {Category: "A", Covered: 2, Total: 2}, {Category: "C", Covered: 0, Total: 1},
	}}
	if fmt.Sprint(c) != fmt.Sprint(want) {
		t.Errorf("got %+v, want %+v", c, want)
	}
	if c := extraction.CoverPlan(plan, nodes, 0.75); c.Covered != 1 {
		t.Errorf("at 0.75, %d covered, want 1 (Porto)", c.Covered)
	}
	if c := extraction.CoverPlan(plan, nil, 0); c.Covered != 5 || c.TypedNodes != 0 {
		t.Errorf("at 0 without nodes, %+v, want all covered (0 >= 0, as the script has it)", c)
	}
	if c := extraction.CoverPlan(nil, nodes, 0.5); c.Bullets != 0 || c.Coverage != 0 || len(c.Categories) != 0 {
		t.Errorf("without bullets: %+v", c)
	}
}

// A sum adds the counts, category by category, and sorts them again; of
// equal totals, the one met first in the order of the coverages comes
// first.
func TestSumPlanCoverage(t *testing.T) {
	a := extraction.PlanCoverage{Bullets: 4, Covered: 2, TypedNodes: 5, Categories: []extraction.CategoryCoverage{
		{Category: "X", Covered: 1, Total: 3}, {Category: "Y", Covered: 1, Total: 1},
	}}
	b := extraction.PlanCoverage{Bullets: 6, Covered: 1, TypedNodes: 2, Categories: []extraction.CategoryCoverage{
		{Category: "Z", Covered: 0, Total: 3}, {Category: "Y", Covered: 1, Total: 2}, {Category: "W", Covered: 0, Total: 1},
	}}
	got := extraction.SumPlanCoverage(a, b)
	want := extraction.PlanCoverage{Bullets: 10, Covered: 3, Coverage: 0.3, TypedNodes: 7, Categories: []extraction.CategoryCoverage{
		{Category: "X", Covered: 1, Total: 3}, {Category: "Y", Covered: 2, Total: 3}, {Category: "Z", Covered: 0, Total: 3}, {Category: "W", Covered: 0, Total: 1},
	}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := extraction.SumPlanCoverage(); got.Bullets != 0 || got.Coverage != 0 {
		t.Errorf("the sum of nothing is %+v", got)
	}
}
