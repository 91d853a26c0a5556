package classify

import (
	"regexp"
	"strings"
)

// agentStatusLine is a line a coding agent writes of its own work, not of
// the project's: aider's token counts and costs, its interrupts, its
// version, models and repository map, the files it adds to the chat, the
// edits it applies and commits, its questions, its failures to commit or
// to match an edit (aider/io.py and aider/coders/).
var agentStatusLine = regexp.MustCompile(`^(?:` +
	`Tokens: [\d.,]+k? sent|Cost: \$|\^C (?:again to exit|KeyboardInterrupt)|Aider v\d|` +
	`(?:Main |Weak |Editor )?[Mm]odel: |Git repo: |Repo-map(?: can't include|:)|` +
	`Added .+ to the chat|Dropping .+ from the chat|Removed .+ from the chat|Applied edit to |Commit [0-9a-f]{7} |` +
	`You can use /undo|Use /help|https://aider\.chat/|.*\(Y\)es/\(N\)o|` +
	`Unable to commit|Unable to list files in git repo|Is your git repo corrupted|Has it been deleted from the file system|` +
	`# \d+ SEARCH/REPLACE blocks? failed to match|The LLM did not conform to the edit format|` +
	`Only \d+ reflections allowed|Retrying in [\d.]+ seconds|litellm\.|Scraping https?://` +
	`)`)

// AgentStatus reports whether text, a tool turn's, is a coding agent's
// account of its own work only (every line of it): it says nothing of the
// project, and a context has better use for its room.
func AgentStatus(text string) bool {
	n := 0
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if !agentStatusLine.MatchString(line) {
			return false
		}
		n++
	}
	return n > 0
}
