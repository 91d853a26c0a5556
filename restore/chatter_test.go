package restore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/spec"
)

// A context of a coding session holds none of its chatter: a turn of
// commands to the agent or of the agent's notices is not shown, and the
// notices of a tool turn that says more are left out of its line; its
// commit line stays.
func TestContextWithoutChatter(t *testing.T) {
	e := newEngine(t, turnsMemory(t, time.Minute,
		spec.Turn{Role: spec.RoleTool, Content: "/usr/local/bin/aider --model sonnet\nAider v0.74.2\nGit repo: .git with 42 files"},
		spec.Turn{Role: spec.RoleUser, Content: "/add shop/webhook.py"},
		spec.Turn{Role: spec.RoleTool, Content: "Added shop/webhook.py to the chat"},
		spec.Turn{Role: spec.RoleUser, Content: "The Stripe webhook returns 401 in production."},
		spec.Turn{Role: spec.RoleAssistant, Content: "The handler verifies the Stripe signature with the test secret; read the live webhook secret from the environment."},
		spec.Turn{Role: spec.RoleTool, Content: "Tokens: 2.1k sent, 180 received. Cost: $0.0090 message.\nApplied edit to shop/webhook.py\nCommit 1a2b3c4 fix: read the Stripe webhook secret from the environment\nYou can use /undo to undo and discard each aider commit."},
		spec.Turn{Role: spec.RoleUser, Content: "/undo"},
		spec.Turn{Role: spec.RoleUser, Content: "/map\nThe Stripe webhook still returns 401 after the secret change."},
		spec.Turn{Role: spec.RoleUser, Content: "/quit"},
	), nil)
	r, err := e.Context(context.Background(), "Why did the Stripe webhook return 401, and what changed in webhook.py?", Options{Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	for _, chatter := range []string{"/undo", "/quit", "/add", "/map", "Tokens:", "Applied edit", "Added shop", "Aider v", "aider --model"} {
		if strings.Contains(r.Text, chatter) {
			t.Errorf("the context holds %q:\n%s", chatter, r.Text)
		}
	}
	for _, want := range []string{"Commit 1a2b3c4 fix: read the Stripe webhook secret", "returns 401 in production", "still returns 401"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the context lacks %q:\n%s", want, r.Text)
		}
	}
	turns, _ := itemsOf(r)
	for _, n := range []int{1, 2, 3, 7, 9} {
		if _, ok := turns[n]; ok {
			t.Errorf("turn %d, all chatter, is in the context", n)
		}
	}
}
