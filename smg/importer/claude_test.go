package importer

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeExport reads the Claude.ai export: the text blocks rather than
// the flattened text, tool calls in their place, thinking and tool results
// left out, attachments and files appended, the text when the blocks have
// none, and offsets kept.
func TestClaudeExport(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "claude-export.json"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Read(bytes.NewReader(data), Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != Claude || len(res.Conversations) != 2 {
		t.Fatalf("format %s, %d conversations", res.Format, len(res.Conversations))
	}
	pg, pt := res.Conversations[0], res.Conversations[1]
	if pg.ID != "0f3c9a52-7d1e-4b8a-9c6f-2e5d8a1b4c70" || pt.ID != "7a2d5e8b-1c4f-4a7d-b0e3-9f2c5a8d1e60" {
		t.Errorf("ids %q and %q", pg.ID, pt.ID)
	}
	checkTurns(t, pg, []string{
		"user||a1e4c7b0-2d5f-4a8e-9c1b-3f6a9d2e5b01|2025-02-10T09:14:03.914271Z|Here is our schema. How do I add a status column without locking orders?\n" +
			"[attachment: schema.sql]\nCREATE TABLE orders (\n  id bigserial PRIMARY KEY,\n  customer_id bigint NOT NULL,\n  total_cents integer NOT NULL\n);\n" +
			"[file: erd.png]",
		"assistant||b2f5d8c1-3e6a-4b9f-8d2c-4a7b0e3f6c02|2025-02-10T09:14:13.377561Z|" +
			`[tool call: web_search({"query":"postgres add column default no table rewrite"})]` + "\n" +
			"On PostgreSQL 11 and later, adding a column with a constant default is instant:\n" +
			"```sql\nALTER TABLE orders ADD COLUMN status text NOT NULL DEFAULT 'new';\n```",
		// No content: the text.
		"user||c3a6e9d2-4f7b-4c0a-9e3d-5b8c1f4a7d03|2025-02-10T09:20:41.00652Z|We are on 9.6, sadly.",
		// An empty message is left out; blocks of blank text give way to the text.
		"assistant||e5c8a1f4-6b9d-4e2c-9a5f-7d0e3b6c9f05|2025-02-10T09:20:55.731804Z|Then add the column without a default, backfill in batches, and set the default afterwards.",
	})
	checkTurns(t, pt, []string{
		"user||f6d9b2a5-7c0e-4f3d-8b6a-8e1f4c7d0a06|2025-03-01T18:02:11+01:00|Translate 'good morning' into Portuguese.",
		"assistant||0a3c6e9f-8d1b-4a4e-9c7f-9f2a5d8e1b07|2025-03-01T18:02:30+01:00|Bom dia.",
	})
	// The flattened text, the thinking and the search result are left out.
	all := render(res)
	for _, s := range []string{"not supported on your current device", "check the Postgres version first", "Checking Postgres behaviour", "volatile DEFAULT"} {
		if !bytes.Contains(data, []byte(s)) || strings.Contains(all, s) {
			t.Errorf("the input lacks %q, or the turns hold it", s)
		}
	}
}

// claudeOne reads a conversation of the one message m and returns its
// turn, rendered by brief; "-" when it is left out, or the reason it is
// malformed.
func claudeOne(t *testing.T, m string) (turn, skipped string) {
	t.Helper()
	return readBrief(t, `[{"uuid": "c", "chat_messages": [`+m+`]}]`, Claude)
}

func TestClaudeMessages(t *testing.T) {
	for _, c := range []struct {
		msg      string
		want     string // the turn, "-" when left out
		malforms string
	}{
		{`{"uuid": "m", "sender": "human", "text": "hi", "created_at": "2025-02-10T09:14:03.914271+00:00"}`, "user||m|2025-02-10T09:14:03.914271Z|hi", ""},
		{`{"sender": "assistant", "text": "flat", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}`, "assistant||||a\nb", ""},
		{`{"sender": "assistant", "text": "flat", "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": ""}]}`, "assistant||||flat", ""},
		{`{"sender": "assistant", "text": "flat", "content": [{"type": "tool_use", "name": "artifacts", "input": {"id": "x", "command": "create"}}]}`,
			`assistant||||[tool call: artifacts({"id": "x", "command": "create"})]`, ""},
		{`{"sender": "assistant", "content": [{"type": "tool_use", "name": "f", "input": {"a": "` + "\xff" + `"}}]}`, "assistant||||[tool call: f({\"a\": \"\uFFFD\"})]", ""},
		{`{"sender": "assistant", "content": [{"type": "tool_use", "input": "plain"}, {"type": "tool_result", "content": [{"type": "text", "text": "left out"}]}]}`,
			"assistant||||[tool call: ?(plain)]", ""},
		{`{"sender": "human", "text": "", "attachments": [{"file_name": "notes.txt", "extracted_content": "buy milk"}, {"file_name": "empty.txt", "extracted_content": ""}]}`,
			"user||||[attachment: notes.txt]\nbuy milk", ""},
		{`{"sender": "human", "text": "look", "files": [{"file_name": "a.png"}, {"file_uuid": "f"}], "files_v2": [{"file_name": "b.png"}]}`,
			"user||||look\n[file: a.png]\n[file: ]", ""},
		{`{"sender": "Human", "text": "a sender's case does not matter"}`, "user||||a sender's case does not matter", ""},
		{`{"sender": "system", "text": "a system message"}`, "system||||a system message", ""},
		{`{"sender": "narrator", "text": "an unknown sender is a speaker"}`, "|narrator|||an unknown sender is a speaker", ""},
		// Left out.
		{`{"sender": "assistant", "text": ""}`, "-", ""},
		{`{"sender": "assistant", "text": "  ", "content": []}`, "-", ""},
		{`{"sender": "assistant", "text": null, "content": [{"type": "token_budget"}]}`, "-", ""},
		// Malformed.
		{`7`, "", "want a message object, not a number"},
		{`{"text": "x"}`, "", "no sender"},
		{`{"sender": 1, "text": "x"}`, "", "sender: want a string, not a number"},
		{`{"sender": "", "text": "x"}`, "", "empty sender"},
		{`{"sender": "human", "text": 1}`, "", "text: want a string, not a number"},
		{`{"sender": "human", "content": {"type": "text"}}`, "", "content: want a list of blocks, not an object"},
		{`{"sender": "human", "content": ["x"]}`, "", "content[0]: want a content block, not a string"},
		{`{"sender": "human", "content": [{"text": "x"}]}`, "", "content[0]: a content block without a type"},
		{`{"sender": "human", "content": [{"type": "text", "text": 1}]}`, "", "content[0].text: want a string, not a number"},
		{`{"sender": "human", "text": "x", "attachments": ["a.txt"]}`, "", "attachments[0]: want an object, not a string"},
		{`{"sender": "human", "text": "x", "files": "a.png"}`, "", "files: want a list, not a string"},
		{`{"sender": "human", "text": "x", "created_at": 1}`, "", "created_at: want a string, not a number"},
		{`{"sender": "human", "text": "x", "created_at": "Monday"}`, "", `created_at: cannot read "Monday" as a time`},
		{`{"sender": "human", "text": "x", "uuid": 1}`, "", "uuid: want a string, not a number"},
	} {
		got, skipped := claudeOne(t, c.msg)
		if skipped != c.malforms || got != c.want {
			t.Errorf("%s:\n got %q, skipped %q\nwant %q, skipped %q", c.msg, got, skipped, c.want, c.malforms)
		}
	}
}

// TestClaudeErrors: malformed messages and conversations are skipped with
// their line, column and path, or fail a strict read at the first.
func TestClaudeErrors(t *testing.T) {
	name := filepath.Join("testdata", "claude-malformed.json")
	_, err := ReadFile(name, Options{Strict: true})
	if want := name + ":2:3: $[0]: want a Claude conversation object, not a number"; err == nil || err.Error() != want {
		t.Errorf("strict: %v\nwant %s", err, want)
	}
	res, err := ReadFile(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.Skipped {
		got = append(got, fmt.Sprintf("%d:%d %s", e.Line, e.Column, e.Path))
	}
	want := []string{"2:3 $[0]", "5:5 $[1].chat_messages[1]", "6:5 $[1].chat_messages[2]", "7:5 $[1].chat_messages[3]",
		"8:5 $[1].chat_messages[4]", "9:5 $[1].chat_messages[5]", "10:5 $[1].chat_messages[6]", "13:3 $[2]", "14:12 $[3].uuid"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("skipped at %q\nwant %q", got, want)
	}
}
