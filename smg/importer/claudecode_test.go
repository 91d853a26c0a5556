package importer

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeCodeSession reads a Claude Code session: one turn per line of
// text, tool calls and their results (named by their tool), a conversation
// per session in the order they start, and nothing of the sub-agent's side
// chain, the bookkeeping lines or the notes Claude Code wrote as the user.
func TestClaudeCodeSession(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "claude-code-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Read(bytes.NewReader(data), Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != ClaudeCode || len(res.Conversations) != 2 {
		t.Fatalf("format %s, %d conversations", res.Format, len(res.Conversations))
	}
	fix, refund := res.Conversations[0], res.Conversations[1]
	if fix.ID != "3f8e2a71-5c4d-4b9e-a0f6-7d2c1e8b5a94" || refund.ID != "b71c9d04-2e8f-4a63-9d15-c0a7e4f2b386" {
		t.Errorf("ids %q and %q", fix.ID, refund.ID)
	}
	const id = "c0d1e2f3-0000-4000-8000-00000000"
	checkTurns(t, fix, []string{
		"user||" + id + "u001|2025-07-14T08:02:11.301Z|The webhook test fails about one run in ten. Can you find out why?",
		"assistant||" + id + "a002|2025-07-14T08:02:16.012Z|Let me read the test first.",
		"assistant||" + id + `a003|2025-07-14T08:02:16.54Z|[tool call: Read({"file_path":"/home/dana/shop/webhook_test.go"})]`,
		"tool|Read|" + id + "u002|2025-07-14T08:02:16.601Z|     1\tfunc TestWebhookSignature(t *testing.T) {\n     2\t\tsig := sign(body, time.Now())\n" +
			"     3\t\ttime.Sleep(10 * time.Millisecond)\n     4\t\tcheck(t, sig)\n     5\t}",
		"assistant||" + id + `a004|2025-07-14T08:02:19.22Z|[tool call: Task({"description":"Find clock reads","prompt":"Find where the webhook package reads the clock."})]`,
		"tool|Task|" + id + "u003|2025-07-14T08:02:25.01Z|signature.go:42 calls time.Now() to check the 5-minute tolerance.",
		"assistant||" + id + "a005|2025-07-14T08:02:31.777Z|The check reads the wall clock, so a slow run can cross a second boundary. I will inject the clock.\n" +
			`[tool call: Edit({"file_path":"/home/dana/shop/signature.go","old_string":"now := time.Now()","new_string":"now := s.clock()"})]`,
		"tool|Edit|" + id + "u004|2025-07-14T08:02:31.95Z|<tool_use_error>String to replace not found in file.</tool_use_error>",
		"user||" + id + "u007|2025-07-14T08:11:42.519Z|[image]\nCI still fails, see the screenshot.",
		"assistant||" + id + "a006|2025-07-14T08:11:50.003Z|Fixed: the test now passes a fixed clock, so it cannot cross a second boundary.",
	})
	checkTurns(t, refund, []string{
		"user||e2f3a4b5-0000-4000-8000-00000000u001|2025-07-15T13:00:02Z|Start a branch for the refund endpoint.",
		"assistant||e2f3a4b5-0000-4000-8000-00000000a001|2025-07-15T13:00:06.25Z|Created the branch refunds.",
	})
	// Left out: the side chain, the thinking, the summary line, the
	// compaction's boundary and summary, the caveat, the queued command.
	all := render(res)
	for _, s := range []string{"pangolin", "Find where the webhook package reads the clock.\n", "depends on time or ordering",
		"Fix the flaky webhook signature test", "Conversation compacted", "This session is being continued", "Caveat:", "also run go vet"} {
		if !bytes.Contains(data, []byte(strings.TrimSuffix(s, "\n"))) || strings.Contains(all, s) {
			t.Errorf("the input lacks %q, or the turns hold it", s)
		}
	}
}

// readClaudeCode reads the lines of a session and returns its turns,
// rendered by brief, or the reason the first malformed line is.
func readClaudeCode(t *testing.T, lines ...string) (turns []string, skipped string) {
	t.Helper()
	res, err := Read(strings.NewReader(strings.Join(lines, "\n")), Options{Format: ClaudeCode})
	if err != nil {
		t.Fatalf("%s: %v", lines, err)
	}
	if len(res.Skipped) > 0 {
		return nil, res.Skipped[0].Msg
	}
	for _, c := range res.Conversations {
		for _, tu := range c.Turns {
			turns = append(turns, brief(tu))
		}
	}
	return turns, ""
}

func TestClaudeCodeLines(t *testing.T) {
	line := func(typ, content string) string {
		return `{"type": "` + typ + `", "sessionId": "s", "uuid": "u", "timestamp": "2025-07-14T08:02:11.301Z", "message": {"role": "` + typ + `", "content": ` + content + `}}`
	}
	const ts = "|u|2025-07-14T08:02:11.301Z|"
	use := `{"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "go test ./..."}}]}}`
	for _, c := range []struct {
		lines    []string
		want     []string
		malforms string
	}{
		{[]string{line("user", `"hi"`)}, []string{"user|" + ts + "hi"}, ""},
		{[]string{line("assistant", `[{"type": "text", "text": "a"}, {"type": "thinking", "thinking": "t"}, {"type": "redacted_thinking", "data": "x"}, {"type": "text", "text": "b"}]`)},
			[]string{"assistant|" + ts + "a\nb"}, ""},
		{[]string{use, line("user", `[{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}, {"type": "text", "text": "and then?"}]`)},
			[]string{`assistant||||[tool call: Bash({"command": "go test ./..."})]`, "tool|Bash" + ts + "ok", "user|" + ts + "and then?"}, ""},
		{[]string{line("user", `[{"type": "tool_result", "tool_use_id": "unknown", "content": [{"type": "text", "text": "a"}, {"type": "image", "source": {}}]}]`)},
			[]string{"tool|" + ts + "a\n[image]"}, ""},
		{[]string{line("user", `[{"type": "tool_result", "tool_use_id": "t1", "content": ""}, {"type": "tool_result", "content": null}]`)}, nil, ""},
		{[]string{line("user", `[{"type": "document", "source": {}}, "a bare string"]`)}, []string{"user|" + ts + "[document]\na bare string"}, ""},
		{[]string{`{"type": "user", "message": {"content": "no role: the type's"}}`}, []string{"user||||no role: the type's"}, ""},
		{[]string{`{"type": "assistant", "message": {"role": "bard", "content": "an unknown role is a speaker"}}`}, []string{"|bard|||an unknown role is a speaker"}, ""},
		// Left out.
		{[]string{`{"type": "summary", "summary": "s", "leafUuid": "u"}`, `{"type": "system", "content": "c"}`, `{"type": "x-future", "message": 1}`}, nil, ""},
		{[]string{`{"type": "user", "isSidechain": true, "message": {"content": "side"}}`}, nil, ""},
		{[]string{`{"type": "user", "isMeta": true, "message": {"content": "meta"}}`}, nil, ""},
		{[]string{`{"type": "user", "isCompactSummary": true, "message": {"content": "summary"}}`}, nil, ""},
		{[]string{line("assistant", `[{"type": "thinking", "thinking": "only"}]`), line("user", `" "`), line("user", `null`)}, nil, ""},
		// Malformed.
		{[]string{`{"type": "user", "message": {"content": "x"}`}, nil, "not JSON: the line ends inside a JSON value"},
		{[]string{`{}`, `[1]`}, nil, "no type"},
		{[]string{`{"type": "user"}`, `[1]`}, nil, "no message"},
		{[]string{line("user", `"x"`), `[1]`}, nil, "want an object, not an array"},
		{[]string{`{"type": 1}`}, nil, "type: want a string, not a number"},
		{[]string{`{"type": "user", "sessionId": 1, "message": {}}`}, nil, "sessionId: want a string, not a number"},
		{[]string{`{"type": "user", "message": "x"}`}, nil, "message: want an object, not a string"},
		{[]string{`{"type": "user", "message": {"role": 1}}`}, nil, "message.role: want a string, not a number"},
		{[]string{`{"type": "user", "message": {"role": ""}}`}, nil, "empty message.role"},
		{[]string{`{"type": "user", "timestamp": "now", "message": {"content": "x"}}`}, nil, `timestamp: cannot read "now" as a time`},
		{[]string{`{"type": "user", "timestamp": true, "message": {"content": "x"}}`}, nil, "timestamp: want a string, not a boolean"},
		{[]string{`{"type": "user", "uuid": 1, "message": {"content": "x"}}`}, nil, "uuid: want a string, not a number"},
		{[]string{line("user", `{"text": "x"}`)}, nil, "message.content: want a string or a list of blocks, not an object"},
		{[]string{line("user", `[1]`)}, nil, "message.content[0]: want a content block, not a number"},
		{[]string{line("user", `[{"text": "x"}]`)}, nil, "message.content[0]: a content block without a type"},
		{[]string{line("user", `[{"type": "text"}]`)}, nil, "message.content[0]: a text block without text"},
		{[]string{line("user", `[{"type": "tool_result", "content": 1}]`)}, nil, "message.content[0].content: want a string or a list of blocks, not a number"},
		{[]string{line("user", `[{"type": "tool_result", "content": [{"type": "text"}]}]`)}, nil, "message.content[0].content[0]: a text part without text"},
	} {
		turns, skipped := readClaudeCode(t, c.lines...)
		if skipped != c.malforms || strings.Join(turns, "\n--\n") != strings.Join(c.want, "\n--\n") {
			t.Errorf("%s:\n got %q, skipped %q\nwant %q, skipped %q", c.lines, turns, skipped, c.want, c.malforms)
		}
	}
}

// TestClaudeCodeErrors: a line that is not JSON (a session cut off while
// it was written) is skipped with its line, or fails a strict read there;
// an input that is not JSON Lines at all fails.
func TestClaudeCodeErrors(t *testing.T) {
	name := filepath.Join("testdata", "claude-code-malformed.jsonl")
	_, err := ReadFile(name, Options{Strict: true})
	if want := name + ":3:2: not JSON: invalid character 'h' in literal true (expecting 'r')"; err == nil || err.Error() != want {
		t.Errorf("strict: %v\nwant %s", err, want)
	}
	res, err := ReadFile(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e := res.Skipped[len(res.Skipped)-1]; e.Line != 10 || e.Msg != "not JSON: the line ends inside a JSON value" {
		t.Errorf("the cut-off last line: %v", e)
	}
	for _, in := range []string{"hello", "[{}]", `"a string"`, "\xef\xbb\xbf\n  # a heading"} {
		_, err := Read(strings.NewReader(in), Options{Format: ClaudeCode, Name: "in"})
		if err == nil || !strings.Contains(err.Error(), "not JSON Lines") {
			t.Errorf("%q: %v", in, err)
		}
	}
}
