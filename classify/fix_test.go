package classify

import "testing"

// TestFix: the fix a reply gives is the sentence that says what to do,
// not the diagnosis before it, and the rest of the prose comes with it;
// code is no prose.
func TestFix(t *testing.T) {
	for _, tc := range []struct{ reply, fix, rest string }{
		{"The signature covers the raw request body, but the handler never verifies it. Read the body once, verify it with webhook.ConstructEvent, then use the event:\n\n```go\nfunc Webhook() {}\n```",
			"Read the body once, verify it with webhook.ConstructEvent, then use the event", "The signature covers the raw request body, but the handler never verifies it."},
		{"The lock comes from two writers. You need to set busy_timeout on the connection.",
			"You need to set busy_timeout on the connection.", "The lock comes from two writers."},
		{"Stripe retries a webhook until it gets a 200.", "Stripe retries a webhook until it gets a 200.", ""},
		{"```go\nfunc main() {}\n```", "", ""},
	} {
		fix, rest := Fix(tc.reply)
		if fix != tc.fix || rest != tc.rest {
			t.Errorf("Fix(%.40q) = %q, %q; want %q, %q", tc.reply, fix, rest, tc.fix, tc.rest)
		}
	}
}
