package format_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

var update = flag.Bool("update", false, "rewrite the golden memories of testdata/conversations")

// checkoutMemory is the memory of the coding conversation of testdata.
func checkoutMemory(t testing.TB) *smg.Memory {
	t.Helper()
	m := smg.New(&smg.Options{ProjectName: "shop", NoVectors: true})
	if _, err := m.IngestAll(context.Background(), smgtest.CheckoutTurns(t)); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCheckoutGolden pins the whole memory of the checkout conversation:
// the same conversation gives the same file, byte for byte, so a change
// to what ingest finds shows up as a diff of checkout.smg.
func TestCheckoutGolden(t *testing.T) {
	const name = "../../testdata/conversations/checkout.smg"
	got, err := checkoutMemory(t).Marshal(&format.EncodeOptions{Plain: true, Indent: true})
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(name, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("%v (run go test ./smg/format -run Golden -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the checkout memory differs from %s (run go test ./smg/format -run Golden -update to accept it)", name)
	}
	if _, err := format.ValidateBytes(want, nil); err != nil {
		t.Errorf("the golden memory is not valid: %v", err)
	}
}

func TestNodes(t *testing.T) {
	doc := checkoutMemory(t).Document()
	decisions, err := format.Nodes(doc, format.NodeQuery{Type: spec.NodeDecision})
	if err != nil {
		t.Fatal(err)
	}
	if len(decisions) < 3 {
		t.Fatalf("%d decisions, want Stripe Elements, SQLite and PostgreSQL", len(decisions))
	}
	for i, n := range decisions {
		if n.Type != spec.NodeDecision {
			t.Errorf("a %s among the decisions", n.Type)
		}
		if i > 0 && n.Importance > decisions[i-1].Importance {
			t.Errorf("not by importance: %v after %v", n.Importance, decisions[i-1].Importance)
		}
	}

	recent, err := format.Nodes(doc, format.NodeQuery{Sort: "recent", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(recent) != 5 {
		t.Fatalf("limit 5 gave %d", len(recent))
	}
	for i := 1; i < len(recent); i++ {
		if recent[i].LastMentioned > recent[i-1].LastMentioned {
			t.Errorf("not most recent first: turn %d after %d", recent[i].LastMentioned, recent[i-1].LastMentioned)
		}
	}
	all, _ := format.Nodes(doc, format.NodeQuery{Sort: "id"})
	if len(all) != len(doc.SemanticGraph.Nodes) || !slices.IsSortedFunc(all, func(a, b spec.Node) int { return strings.Compare(a.ID, b.ID) }) {
		t.Errorf("sort by id gave %d of %d nodes, or out of order", len(all), len(doc.SemanticGraph.Nodes))
	}

	for _, q := range []format.NodeQuery{{Type: "decisions"}, {Sort: "size"}} {
		if _, err := format.Nodes(doc, q); !errors.Is(err, format.ErrBadQuery) {
			t.Errorf("%+v: %v, want ErrBadQuery", q, err)
		}
	}
}

// TestShowNode shows the 401 problem: the solution that solves it comes in,
// and the turn that reported it comes with its text and date.
func TestShowNode(t *testing.T) {
	doc := checkoutMemory(t).Document()
	problems, _ := format.Nodes(doc, format.NodeQuery{Type: spec.NodeProblem})
	i := slices.IndexFunc(problems, func(n spec.Node) bool { return strings.Contains(n.Label, "401") })
	if i < 0 {
		t.Fatal("no 401 problem")
	}
	v, err := format.ShowNode(doc, problems[i].ID, format.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(v.In, func(e format.EdgeView) bool {
		return e.Relation == spec.RelSolves && e.Type == spec.NodeSolution && strings.Contains(e.Label, "webhook.ConstructEvent")
	}) {
		t.Errorf("no solution solves the 401: %+v", v.In)
	}
	if len(v.Turns) != len(v.Node.Mentions) || len(v.Turns) == 0 {
		t.Fatalf("%d turns for %d mentions", len(v.Turns), len(v.Node.Mentions))
	}
	if tu := v.Turns[0]; !strings.Contains(tu.Content, "401") || tu.Timestamp.IsZero() || tu.ExternalID == "" {
		t.Errorf("the reporting turn: %+v", tu)
	}

	if _, err := format.ShowNode(doc, "concept-nothing-here", format.Limits{}); !errors.Is(err, format.ErrNotFound) {
		t.Errorf("an unknown node: %v", err)
	}
}

func TestArchivedTurns(t *testing.T) {
	doc := checkoutMemory(t).Document()
	turns, err := format.ArchivedTurns(doc, []int{20, 1, 7, 7}, format.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 3 || turns[0].Turn != 1 || turns[1].Turn != 7 || turns[2].Turn != 20 {
		t.Errorf("got turns %v", turnNumbers(turns))
	}
	for _, missing := range [][]int{{0}, {21}, {3, 99}} {
		if _, err := format.ArchivedTurns(doc, missing, format.Limits{}); !errors.Is(err, format.ErrNotFound) {
			t.Errorf("turns %v: %v, want ErrNotFound", missing, err)
		}
	}
}

func turnNumbers(turns []spec.Turn) []int {
	var ns []int
	for _, t := range turns {
		ns = append(ns, t.Turn)
	}
	return ns
}
