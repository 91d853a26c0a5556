package restore

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// checkout is the engine of the memory of the bundled coding
// conversation.
func checkout(t testing.TB) *Engine {
	t.Helper()
	return newEngine(t, checkoutAt(t, 8, 0)[0], nil)
}

func TestContextFindsTheEvidence(t *testing.T) {
	e := checkout(t)
	tk, err := NewTokenizer(CL100K)
	if err != nil {
		t.Fatal(err)
	}
	// Two questions, each in its own context of 600 tokens. (Asked as
	// one question, at 600 tokens the turns of the 401 crowd out the
	// decision: the sections share one budget.)
	why, err := e.Context(context.Background(), "Why did we choose Stripe Elements?", Options{Budget: 600, Tokenizer: tk})
	if err != nil {
		t.Fatal(err)
	}
	how, err := e.Context(context.Background(), "How was the webhook's 401 fixed?", Options{Budget: 600, Tokenizer: tk})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*Result{why, how} {
		if r.Tokens > 600 || tk.Count(r.Text) != r.Tokens {
			t.Errorf("%d tokens (counted %d) for a budget of 600", r.Tokens, tk.Count(r.Text))
		}
		for _, it := range r.Items {
			if it.Tokens <= 0 || it.Section == "" {
				t.Errorf("an item without its cost or section: %+v", it)
			}
		}
	}
	for r, wants := range map[*Result][]string{
		why: {"## Decisions", "Stripe Elements, because the designers want the payment form to match"},
		how: {"## From earlier conversations", "[3 November 2025]", "No signatures found", "Solution: Read the body once, verify it with webhook.ConstructEvent"},
	} {
		for _, want := range wants {
			if !strings.Contains(r.Text, want) {
				t.Errorf("the context lacks %q:\n%s", want, r.Text)
			}
		}
	}
	var decision, turn7 bool
	for _, it := range why.Items {
		if it.NodeID == "decision-stripe-elements" && it.Turn == 3 && it.ExternalID == "msg-003" && it.Section == "Decisions" {
			decision = true
		}
	}
	for _, it := range how.Items {
		if it.Kind == "turn" && it.Turn == 7 && it.ExternalID == "msg-007" && it.Parts["search"] > 0 {
			turn7 = true
		}
	}
	if !decision || !turn7 {
		t.Errorf("provenance: the decision with its source turn %v, turn 7 found by search %v", decision, turn7)
	}
}

// TestContextBudget checks that no budget is ever exceeded, by the
// tokenizer that counts it, and that a context is the same every time.
func TestContextBudget(t *testing.T) {
	e := checkout(t)
	for _, name := range []string{CL100K, O200K, Estimate} {
		tk, err := NewTokenizer(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, budget := range []int{1, 20, 60, 150, 400, 1000, 5000} {
			q := "webhook signature PostgreSQL database locked idempotency"
			r, err := e.Context(context.Background(), q, Options{Budget: budget, Tokenizer: tk})
			if err != nil {
				t.Fatal(err)
			}
			if n := tk.Count(r.Text); n > budget || n != r.Tokens {
				t.Errorf("%s, budget %d: %d tokens, reported %d", name, budget, n, r.Tokens)
			}
			again, _ := e.Context(context.Background(), q, Options{Budget: budget, Tokenizer: tk})
			if !reflect.DeepEqual(r, again) {
				t.Errorf("%s, budget %d: two contexts for the same question differ", name, budget)
			}
			sum := 0
			for _, it := range r.Items {
				sum += it.Tokens
			}
			if (budget == 400 || budget == 1000) && sum < budget/3 {
				t.Errorf("%s, budget %d: only %d tokens of items", name, budget, sum)
			}
		}
	}
}

func TestSearch(t *testing.T) {
	e := checkout(t)
	items, err := e.Search(context.Background(), "database locked", 5)
	if err != nil || len(items) == 0 {
		t.Fatalf("%v, %v", items, err)
	}
	found := false
	for _, it := range items {
		if it.Kind == "turn" && it.Turn > 0 {
			tu, _ := e.turn(it.Turn)
			found = found || strings.Contains(tu.Content, "database is locked")
		}
	}
	if !found {
		t.Errorf("no turn about the locked database among %+v", items)
	}
}

func TestEngineReadsReferencedCode(t *testing.T) {
	e := checkout(t)
	for n := 1; n <= e.turns.n; n++ {
		tu, ok := e.turn(n)
		if !ok {
			t.Fatalf("turn %d is missing", n)
		}
		if len(tu.ContentRefs) > 0 {
			t.Fatalf("turn %d kept its references: %+v", tu.Turn, tu.ContentRefs)
		}
	}
	tu, _ := e.turn(4)
	if !strings.Contains(tu.Content, "PaymentElement") {
		t.Errorf("turn 4 lacks its code: %q", tu.Content)
	}
}

// TestFactsInTheBudget checks how facts the question did not find take
// their place in a context: a fact about the user that they asked to
// keep is always loaded, and ranks below everything the question found,
// so it has the room of working memory's share and no more; one the
// engine read in a turn, about the user or anyone else, is no candidate
// at all; and a fact only the graph reached goes in through the turn
// that stated it, not as a line of its own, while a fact the search
// found has its line.
func TestFactsInTheBudget(t *testing.T) {
	doc := checkoutAt(t, 8, 0)[0]
	const from = "decision-stripe-elements" // the question finds it; an edge leads to the graph's fact
	doc.SemanticGraph.Nodes = append(doc.SemanticGraph.Nodes,
		spec.Node{ID: "fact-nurse", Type: spec.NodeFact, Category: spec.CategoryIdentity, Label: "User works nights as a nurse",
			Importance: 1, Activation: 1, FirstMentioned: 2, Mentions: []int{2}, Source: spec.SourceUser},
		spec.Node{ID: "fact-read", Type: spec.NodeFact, Category: spec.CategoryIdentity, Label: "User grew up in Porto",
			Importance: 1, Activation: 1, FirstMentioned: 2, Mentions: []int{2}, Source: spec.SourceAI},
		spec.Node{ID: "fact-dana-nurse", Type: spec.NodeFact, Category: spec.CategoryIdentity, Label: "Dana's sister works nights as a nurse",
			Importance: 1, Activation: 1, FirstMentioned: 2, Mentions: []int{2}},
		spec.Node{ID: "fact-reached", Type: spec.NodeFact, Category: spec.CategoryProject, Label: "Dana keeps receipts in a shoebox",
			Importance: 1, Activation: 1, FirstMentioned: 4, Mentions: []int{4}},
	)
	doc.SemanticGraph.Edges = append(doc.SemanticGraph.Edges, spec.Edge{From: from, To: "fact-reached", Relation: spec.RelRelatedTo, Strength: 1})
	e := newEngine(t, doc, nil)

	query := "Why did we choose Stripe Elements?"
	cands := e.candidates(query, mustSearch(t, e, query), nil, nil)
	byKey := map[string]cand{}
	for _, c := range cands {
		byKey[c.key] = c
	}
	always, ok := byKey["n:fact-nurse"]
	if !ok {
		t.Fatal("the identity fact the user asked to keep is not a candidate: it is always loaded")
	}
	if c, ok := byKey["n:fact-read"]; ok {
		t.Errorf("an identity fact about the user that the engine read, and the question did not find, is a candidate: %+v", c.item)
	}
	if c, ok := byKey["n:fact-dana-nurse"]; ok {
		t.Errorf("an identity fact about someone else the question did not find is a candidate: %+v", c.item)
	}
	for _, c := range cands {
		if c.item.Kind == "turn" && c.parts["search"] > 0 && c.item.Score <= always.item.Score {
			t.Errorf("turn %d, found by the search, scores %v, not above the unfound fact always loaded (%v)", c.item.Turn, c.item.Score, always.item.Score)
		}
	}
	if c, ok := byKey["n:fact-reached"]; ok {
		t.Errorf("a fact only the graph reached has a line of its own: %+v", c.item)
	}
	if c := byKey[turnKey(4)]; c.parts["statement"] == 0 {
		t.Errorf("the turn that stated the fact the graph reached gets nothing from it: %+v", c.parts)
	}

	found := e.candidates("receipts shoebox", mustSearch(t, e, "receipts shoebox"), nil, nil)
	if !slices.ContainsFunc(found, func(c cand) bool { return c.key == "n:fact-reached" }) {
		t.Error("a fact the search found has no line")
	}
}

func mustSearch(t *testing.T, e *Engine, q string) []hit {
	t.Helper()
	hits, err := search(e.ix, q, searchHits, nil)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

// Small talk ("thanks", "You're welcome.") never goes in a context, even
// when the budget has room for it and a neighbour lends it a score.
func TestContextLeavesSmallTalkOut(t *testing.T) {
	e := checkout(t)
	tk, err := NewTokenizer(CL100K)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"Why did we choose Stripe Elements instead of Stripe Checkout?", "How did we fix the webhook returning 401 in production?"} {
		r, err := e.Context(context.Background(), q, Options{Budget: 2000, Tokenizer: tk})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range r.Items {
			if it.ExternalID == "msg-011" || it.ExternalID == "msg-012" {
				t.Errorf("%q: small talk %s went in:\n%s", q, it.ExternalID, r.Text)
			}
		}
		if !strings.Contains(r.Text, "Dana: That fixed it") {
			t.Errorf("%q: the turn before the small talk is missing:\n%s", q, r.Text)
		}
	}
}

// A long item found weakly does not fill a small context: in a context of
// 400 tokens, the 134 tokens of turn 6's webhook code, which "Which
// language does Dana prefer for backend work?" reaches only through its
// neighbours, stay out, while a turn as weak but short may go in, and at
// a budget where it is a small part, the long one may too.
func TestWeakLongItemsStayOut(t *testing.T) {
	mk := func(turn, tokens int, score float64) cand {
		return cand{key: turnKey(turn), text: strings.Repeat("x ", tokens), item: Item{Section: secHistory, Kind: "turn", Turn: turn, Score: score, Tokens: tokens}}
	}
	cands := []cand{mk(9, 32, 1.3), mk(6, 134, 0.36), mk(13, 27, 0.3)}
	tk := estimator{}
	has := func(chosen []cand, turn int) bool {
		return slices.ContainsFunc(chosen, func(c cand) bool { return c.item.Turn == turn })
	}
	small, _ := pack(cands, tk, 400, DefaultAllocation, 0)
	if !has(small, 9) || !has(small, 13) || has(small, 6) {
		t.Errorf("at 400 tokens, chosen: %v; want turns 9 and 13, not the weak long turn 6", turnsOf(small))
	}
	large, _ := pack(cands, tk, 4000, DefaultAllocation, 0)
	if !has(large, 6) {
		t.Errorf("at 4,000 tokens, chosen: %v; want turn 6 too", turnsOf(large))
	}
	cands[1].item.Score = 0.5 // found well enough
	if again, _ := pack(cands, tk, 400, DefaultAllocation, 0); !has(again, 6) {
		t.Error("a long turn found at more than weakFloor of the best stays out")
	}
}

func turnsOf(cs []cand) []int {
	var out []int
	for _, c := range cs {
		out = append(out, c.item.Turn)
	}
	return out
}

// A fact the user asked to keep goes in beside the turn that stated it
// when the question finds it; a fact found in the conversation alone is
// exchangeable with its turn.
func TestRequestedFactBesideItsTurn(t *testing.T) {
	e := checkout(t)
	const id = "fact-dana-prefers-go-for-all-backend-work"
	n := e.nodes[id]
	if n == nil || n.Source != spec.SourceUser || e.source[id] != 9 {
		t.Fatalf("the checkout memory lacks the fact Dana asked to keep, stated in turn 9: %+v", n)
	}
	q := "Which language does Dana prefer for backend work?"
	r, err := e.Context(context.Background(), q, Options{Budget: 400})
	if err != nil {
		t.Fatal(err)
	}
	turns, nodes := itemsOf(r)
	if turns[9].Turn == 0 || nodes[id].NodeID == "" || nodes[id].Section != secUser {
		t.Errorf("want turn 9 and the fact under %q:\n%s", secUser, r.Text)
	}

	n.Source = spec.SourceAI // as if found in the conversation alone
	e.lines.Clear()
	e.counts.Clear()
	r, err = e.Context(context.Background(), q, Options{Budget: 400})
	if err != nil {
		t.Fatal(err)
	}
	if turns, nodes := itemsOf(r); turns[9].Turn == 0 || nodes[id].NodeID != "" {
		t.Errorf("a fact found in the conversation went in beside its turn:\n%s", r.Text)
	}
}

// A coding agent's account of its own work (token counts, the files it
// added, its commits) never goes in a context; a tool turn with the
// project's error does.
func TestContextLeavesAgentStatusOut(t *testing.T) {
	b := graph.New(graph.Config{}, graph.Options{})
	for i, tu := range []spec.Turn{
		{Role: "user", Content: "Why does the build of the Flutter app fail?"},
		{Role: "tool", Content: "Tokens: 1.5k sent, 289 received. Cost: $0.00053 message.\nAdded lib/main.dart to the chat"},
		{Role: "tool", Content: "lib/main.dart:58:62: Error: The method 'transform3' isn't defined for the class 'double'. The build failed."},
		{Role: "assistant", Content: "The build fails because transform3 does not exist; use transform instead."},
	} {
		tu.Turn = i + 1
		if err := b.Add(tu); err != nil {
			t.Fatal(err)
		}
	}
	e := newEngine(t, b.Document(), nil)
	tk, err := NewTokenizer(CL100K)
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Context(context.Background(), "How many tokens did the build send, and why did the build fail?", Options{Budget: 2000, Tokenizer: tk})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Text, "Tokens: 1.5k sent") || !strings.Contains(r.Text, "transform3' isn't defined") {
		t.Errorf("context:\n%s", r.Text)
	}
}

// TestContextTellsWhatWasLeft: at a small budget a context tells the best
// of what was found but did not fit, best first, with the start of their
// text, none of it among what went in; the larger budget takes the best
// of them in. Without Options.Left it tells none. A node's item carries
// the node's label.
func TestContextTellsWhatWasLeft(t *testing.T) {
	e := checkout(t)
	ctx := context.Background()
	q := "webhook signature PostgreSQL database locked idempotency"
	r, err := e.Context(ctx, q, Options{Budget: 150, Left: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Left) == 0 || len(r.Left) > 5 {
		t.Fatalf("at 150 tokens, %d items left out told, want 1 to 5", len(r.Left))
	}
	in, labelled := map[string]bool{}, 0
	for _, it := range r.Items {
		in[fmt.Sprint(it.Kind, it.NodeID, it.Turn, it.Excerpt)] = true
		if (it.Kind == "node" || it.Kind == "artifact") && it.Label == "" {
			t.Errorf("a node's item without its label: %+v", it)
		}
		if it.Label != "" {
			labelled++
		}
	}
	if labelled == 0 {
		t.Error("no item of a node in the context: the labels are not tested")
	}
	for i, it := range r.Left {
		if in[fmt.Sprint(it.Kind, it.NodeID, it.Turn, it.Excerpt)] {
			t.Errorf("left out, but in: %+v", it)
		}
		if it.Text == "" || len(it.Text) > leftTextBytes+len("…") {
			t.Errorf("left out item %d: text of %d bytes", i, len(it.Text))
		}
		if i > 0 && it.Score > r.Left[i-1].Score {
			t.Errorf("left out items not best first: %v after %v", it.Score, r.Left[i-1].Score)
		}
	}
	large, err := e.Context(ctx, q, Options{Budget: 5000})
	if err != nil {
		t.Fatal(err)
	}
	best := r.Left[0]
	if !slices.ContainsFunc(large.Items, func(it Item) bool { return it.Kind == best.Kind && it.NodeID == best.NodeID && it.Turn == best.Turn }) {
		t.Errorf("the best item left out at 150 tokens (%+v) is not in at 5,000", best)
	}
	if none, _ := e.Context(ctx, q, Options{Budget: 150}); none.Left != nil {
		t.Errorf("without Left: %d items left out told", len(none.Left))
	}
}
