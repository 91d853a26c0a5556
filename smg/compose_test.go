package smg_test

import (
	"context"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

func rememberAll(t *testing.T, m *smg.Memory, facts ...smg.Fact) {
	t.Helper()
	for _, f := range facts {
		if _, err := m.Remember(context.Background(), f); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCompose(t *testing.T) {
	ctx := context.Background()
	user := smg.New(&smg.Options{Scope: &spec.Scope{Kind: spec.ScopeUser, ID: "dana"}})
	defer user.Close()
	rememberAll(t, user,
		smg.Fact{Content: "I prefer short answers with code first", Category: "preference"},
		smg.Fact{Content: "I am a backend developer in Lisbon", Category: "identity"},
	)
	ws := smg.New(&smg.Options{Scope: &spec.Scope{Kind: spec.ScopeFile, ID: "checkout.py"}})
	defer ws.Close()
	if _, err := ws.IngestAll(ctx, smgtest.CheckoutTurns(t)); err != nil {
		t.Fatal(err)
	}
	rememberAll(t, ws, smg.Fact{Content: "The shop deploys the checkout service on Fridays", Category: "project"})

	q := "how do we deploy the checkout and what database does it use?"
	r, err := smg.Compose(ctx, q, &smg.ComposeOptions{ContextOptions: smg.ContextOptions{Budget: 600}}, user, ws)
	if err != nil {
		t.Fatal(err)
	}
	if r.Tokens > 600 {
		t.Errorf("%d tokens over a budget of 600", r.Tokens)
	}
	user1 := strings.Index(r.Text, "## About This User\n\n")
	space := strings.Index(r.Text, "## About This Workspace\n\n")
	if user1 < 0 || space < user1 || !strings.Contains(r.Text[user1:space], "User prefers short answers") || !strings.Contains(r.Text[user1:space], "User is a backend developer in Lisbon") ||
		!strings.Contains(r.Text[space:], "The shop deploys the checkout service on Fridays") {
		t.Fatalf("sections:\n%s", r.Text)
	}
	memories := map[string]int{}
	for _, it := range r.Items {
		memories[it.Memory]++
		if it.Memory == "file:checkout.py" && it.Parts["scope"] != 1.5 {
			t.Errorf("an item of the file's memory without its boost: %+v", it)
		}
	}
	if memories["user:dana"] == 0 || memories["file:checkout.py"] == 0 || len(memories) != 2 {
		t.Errorf("the items come from %v", memories)
	}
	again, err := smg.Compose(ctx, q, &smg.ComposeOptions{ContextOptions: smg.ContextOptions{Budget: 600}}, user, ws)
	if err != nil || again.Text != r.Text {
		t.Error("the same memories and question give another context")
	}

	// Scopes leave the facts of the others out.
	r, err = smg.Compose(ctx, q, &smg.ComposeOptions{ContextOptions: smg.ContextOptions{Budget: 600, Scopes: []string{"file"}}}, user, ws)
	if err != nil || strings.Contains(r.Text, "About This User") || !strings.Contains(r.Text, "deploys the checkout service") || !strings.Contains(r.Text, "## From earlier conversations") {
		t.Errorf("Scopes file: %v\n%s", err, r.Text)
	}
	// A memory that is off adds nothing.
	user.SetEnabled(false)
	r, err = smg.Compose(ctx, q, nil, user, ws)
	user.SetEnabled(true)
	if err != nil || strings.Contains(r.Text, "User prefers short answers") || strings.Contains(r.Text, "User is a backend developer") {
		t.Errorf("a memory that is off: %v\n%s", err, r.Text)
	}
}

// Facts take at most their own budget, however many are always loaded.
func TestComposeFactBudget(t *testing.T) {
	ctx := context.Background()
	m := smg.New(nil)
	defer m.Close()
	for _, f := range []string{"green tea", "black coffee", "oat milk", "dark chocolate", "sourdough bread", "spicy ramen", "cold brew", "mint gum"} {
		rememberAll(t, m, smg.Fact{Content: "User really enjoys " + f + " every morning", Category: "preference"})
	}
	for _, fb := range []int{40, 80} {
		r, err := smg.Compose(ctx, "breakfast", &smg.ComposeOptions{ContextOptions: smg.ContextOptions{Budget: 1000, FactBudget: fb}}, m)
		if err != nil {
			t.Fatal(err)
		}
		spent := 0
		for _, it := range r.Items {
			spent += it.Tokens
		}
		if spent > fb || spent < fb/2 {
			t.Errorf("FactBudget %d: facts took %d tokens:\n%s", fb, spent, r.Text)
		}
	}
}
