package restore

import (
	"context"
	"reflect"
	"strings"
	"testing"
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
		how: {"## From earlier conversations", "[3 November 2025]", "No signatures found", "never verifies it"},
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
