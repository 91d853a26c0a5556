package classify

import (
	"testing"
	"unsafe"
)

// A coding session's chatter is what says nothing of the project: the
// commands to the agent that carry no message, the agent's account of its
// own work; its commit lines say what changed, and stay.
func TestToolChatter(t *testing.T) {
	for line, want := range map[string]bool{
		"/undo":                                 true,
		"/drop src/app.js":                      true,
		"/add/workspaces/app/api/route.ts":      true,
		"/map":                                  true,
		"/architect":                            true,
		"/ask how is state kept on the canvas?": false,
		"/run python gas_faraday_tests.py":      false,
		"Tokens: 3.8k sent, 81 received. Cost: $0.01 message, $0.02 session.":        true,
		"Applied edit to jugb/lib/main.dart":                                         true,
		"Commit 1a2b3c4 fix: read the webhook secret from the environment":           false,
		"See: https://aider.chat/docs/faq.html#can-i-use-aider-in-a-large-mono-repo": true,
		"Aider v<module 'aider.__version__' from '/opt/aider/__version__.py'>":       true,
		"/Users/ana/Library/Python/3.9/bin/aider --sonnet":                           true,
		"^C again to exit":                        true,
		"/api/users returns 404 since the deploy": false,
		"The aider docs say to pin the model.":    false,
		"":                                        false,
	} {
		if got := ToolChatter(line); got != want {
			t.Errorf("ToolChatter(%q) = %v, want %v", line, got, want)
		}
	}
	tool := "Tokens: 2.1k sent, 180 received.\nApplied edit to shop/webhook.py\nCommit 1a2b3c4 fix: read the secret\n\n^C again to exit"
	if got := WithoutChatter(tool); got != "Commit 1a2b3c4 fix: read the secret\n\n" {
		t.Errorf("WithoutChatter = %q", got)
	}
	if got := WithoutCommands("/map\nthe map misses src/lib\n"); got != "the map misses src/lib\n" {
		t.Errorf("WithoutCommands = %q", got)
	}
	if !AllChatter("/undo\n\n/quit\n") || AllChatter("/undo\nnow fix the parser\n") || AllChatter("\n") {
		t.Error("AllChatter")
	}
}

// TestWithoutLinesKeepsTheString: text whose lines all stay is given back
// as it is, sharing its memory (a memory kept open would otherwise hold
// a copy of every turn); a line dropped anywhere is dropped alone.
func TestWithoutLinesKeepsTheString(t *testing.T) {
	for _, text := range []string{"", "fix the parser", "fix the parser\nand its tests\n", "/ask why?\n"} {
		got := WithoutCommands(text)
		if got != text || len(text) > 0 && unsafe.StringData(got) != unsafe.StringData(text) {
			t.Errorf("WithoutCommands(%q) = %q, not the text itself", text, got)
		}
	}
	for text, want := range map[string]string{
		"/map\nfix it\n":         "fix it\n",
		"fix it\n/map\nand this": "fix it\nand this",
		"fix it\n/undo":          "fix it\n",
		"/map\n/undo\n":          "",
		"a\n/map\nb\n/undo\nc\n": "a\nb\nc\n",
	} {
		if got := WithoutCommands(text); got != want {
			t.Errorf("WithoutCommands(%q) = %q, want %q", text, got, want)
		}
	}
}
