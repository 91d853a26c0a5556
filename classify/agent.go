package classify

import (
	"regexp"
	"strings"
)

// agentStatusLine is a line a coding agent writes of its own work, not of
// the project's: aider's command line, token counts and costs, its interrupts, its
// version, models and repository map, the files it adds to the chat, the
// edits it applies and commits, its questions, its failures to commit or
// to match an edit (aider/io.py and aider/coders/).
var agentStatusLine = regexp.MustCompile(`^(?:` +
	`Tokens: [\d.,]+k? sent|(?:\S*[/\\])?aider(?:\.exe)?(?:\s|$)|Cost: \$|\^C (?:again to exit|KeyboardInterrupt)|Aider v(?:\d|<module)|` +
	`(?:Main |Weak |Editor )?[Mm]odel: |Git repo: |Repo-map(?: can't include|:)|` +
	`Added .+ to the chat|Dropping .+ from the chat|Removed .+ from the chat|Applied edit to |Commit [0-9a-f]{7} |` +
	`You can use /undo|Use /help|(?:See:? )?https://aider\.chat/|.*\(Y\)es/\(N\)o|` +
	`Unable to commit|Unable to list files in git repo|Is your git repo corrupted|Has it been deleted from the file system|` +
	`# \d+ SEARCH/REPLACE blocks? failed to match|The LLM did not conform to the edit format|` +
	`Only \d+ reflections allowed|Retrying in [\d.]+ seconds|litellm\.|Scraping https?://` +
	`)`)

// AgentStatus reports whether text, a tool turn's, is a coding agent's
// account of its own work only (every line of it): it says nothing of the
// project, and a context has better use for its room.
func AgentStatus(text string) bool {
	return everyLine(text, agentStatusLine.MatchString)
}

// everyLine reports whether is holds for every line of text that is not
// blank, trimmed, and text has one.
func everyLine(text string, is func(string) bool) bool {
	n := 0
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if !is(line) {
			return false
		}
		n++
	}
	return n > 0
}

// chatCommandLine is a command to a coding agent's chat that says nothing
// of the project: "/undo", "/drop src/app.js", "/model gpt-4o", "/quit".
// The commands that carry a message or run something ("/ask …", "/code
// …", "/architect …", "/run …", "/test …", "/web …") are not chatter, but
// for the bare command, which switches a mode.
var chatCommandLine = regexp.MustCompile(`^/(?:(?:add|drop|read-only|load|save|ls|paste|editor|edit)(?:[\s/]|$)|(?:clear|commit|copy|copy-context|diff|exit|git|help|lint|map|map-refresh|model|models|multiline-mode|quit|reasoning-effort|report|reset|settings|think-tokens|tokens|undo|voice|weak-model|editor-model|chat-mode)(?:\s|$)|(?:ask|code|architect|context|run|test|web)\s*$)`)

// ToolChatter reports whether a line of a coding session says nothing of
// the project: a command to the agent's chat that carries no message
// ("/undo", "/load notes.txt"), or a line the agent writes of its own work
// (token counts, costs, "Applied edit to", files added to the chat), but
// for its commit lines, which say what changed.
func ToolChatter(line string) bool {
	line = strings.TrimSpace(line)
	return chatCommandLine.MatchString(line) || line != "" && agentStatusLine.MatchString(line) && !commitLine.MatchString(line)
}

// WithoutChatter is text without its lines of ToolChatter: a coding
// agent's output as a person would read it.
func WithoutChatter(text string) string {
	return withoutLines(text, ToolChatter)
}

// WithoutCommands is text without its lines that are commands to a coding
// agent's chat that carry no message ("/map", "/undo"): what a person typed
// to the agent, as a message.
func WithoutCommands(text string) string {
	return withoutLines(text, func(line string) bool { return chatCommandLine.MatchString(strings.TrimSpace(line)) })
}

// withoutLines is text without the lines drop holds for: text itself when
// it drops none, so that what is kept of a turn shares its string.
func withoutLines(text string, drop func(string) bool) string {
	var b strings.Builder
	at, dropped := 0, false
	for line := range strings.Lines(text) {
		switch {
		case drop(line):
			if !dropped {
				b.WriteString(text[:at])
				dropped = true
			}
		case dropped:
			b.WriteString(line)
		}
		at += len(line)
	}
	if !dropped {
		return text
	}
	return b.String()
}

// AllChatter reports whether every line of text that is not blank is
// ToolChatter, and one is.
func AllChatter(text string) bool {
	return everyLine(text, ToolChatter)
}
