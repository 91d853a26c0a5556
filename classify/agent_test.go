package classify

import "testing"

// An agent's account of its own work is status; a tool turn with the
// project's output or error is not.
func TestAgentStatus(t *testing.T) {
	for text, want := range map[string]bool{
		"Tokens: 1.5k sent, 289 received. Cost: $0.00053 message, $0.00053 session.": true,
		"^C again to exit": true,
		"Aider v0.82.1\nModel: deepseek/deepseek-chat with architect edit format\nGit repo: .git with 41 files\nRepo-map: using 4096 tokens, auto refresh": true,
		"Applied edit to src/App.tsx\nCommit 3f2a1bc feat: add the sidebar\nYou can use /undo to undo and discard each aider commit.":                      true,
		"Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: y":                                                                     true,
		"Running npm test\nFAIL src/App.test.tsx\nTypeError: cannot read properties of undefined":                                                          false,
		"lib/main.dart:58:62: Error: The method 'transform3' isn't defined for the class 'double'.":                                                        false,
		"": false,
	} {
		if got := AgentStatus(text); got != want {
			t.Errorf("AgentStatus(%q) = %v, want %v", text, got, want)
		}
	}
}
