package importer

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/spec"
)

// brief renders a turn as role|speaker|id|time|content, as readOne does.
func brief(tu spec.Turn) string {
	ts := ""
	if !tu.Timestamp.IsZero() {
		ts = tu.Timestamp.Format(time.RFC3339Nano)
	}
	return strings.Join([]string{tu.Role, tu.Speaker, tu.ExternalID, ts, tu.Content}, "|")
}

// checkTurns compares the turns of c with want, rendered by brief.
func checkTurns(t *testing.T, c Conversation, want []string) {
	t.Helper()
	var got []string
	for _, tu := range c.Turns {
		got = append(got, brief(tu))
	}
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("conversation %q, turn %d:\n got %q\nwant %q", c.ID, i+1, g, w)
		}
	}
}

// TestChatGPTBranch reads the branch of each conversation that ends at its
// current_node, in order, and nothing of the branch its user left: the
// first answer, regenerated, and the question asked after it, which are
// the only ones to mention a zeppelin.
func TestChatGPTBranch(t *testing.T) {
	name := filepath.Join("testdata", "chatgpt-branched.json")
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte("zeppelin")); n != 2 {
		t.Fatalf("the fixture mentions a zeppelin %d times, want 2 (the abandoned branch)", n)
	}
	res, err := Read(bytes.NewReader(data), Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != ChatGPT || len(res.Conversations) != 2 {
		t.Fatalf("format %s, %d conversations", res.Format, len(res.Conversations))
	}
	trip, bread := res.Conversations[0], res.Conversations[1]
	if trip.ID != "665b1f20-8c4e-8007-b3a1-2f6d9e0c4a17" || bread.ID != "6720a3c0-1d2e-8000-a4b5-c6d7e8f90a1b" {
		t.Errorf("ids %q and %q", trip.ID, bread.ID)
	}
	checkTurns(t, trip, []string{
		"user||f1a27c90-3b5e-4d8f-a6c2-9e0b4d7f1a21|2024-06-01T10:00:00.123456Z|I have a free weekend in early June. Where can I go from Lisbon by train?",
		"assistant||7e5c1a3d-9b2f-4e8a-b6d4-1f3a5c7e9b66|2024-06-01T10:02:00.75Z|Porto: the Alfa Pendular takes about three hours, and the old town is made for a weekend.",
		"user||2d4f6b8a-0c3e-4a5f-9b7d-c1e3f5a7b977|2024-06-01T10:05:00Z|[image]\nThis is the fare page. Which fare should I take?",
		`assistant||b8a6c4e2-1d3f-4b5a-8c7e-9f0a2b4c6d88|2024-06-01T10:05:05.5Z|search("CP Alfa Pendular Lisboa Porto fares")`,
		// A tool's message without a time has the time of the one before.
		"tool|browser|4a6c8e0b-2d4f-4a1c-b3e5-d7f9a1b3c599|2024-06-01T10:05:05.5Z|Alfa Pendular Lisboa - Porto: Turistica from 31.80 EUR, Conforto from 42.40 EUR.",
		// The thoughts and the empty message after them are left out.
		"assistant||d2b4f6a8-0c1e-4a3c-9e5b-7f9b1d3f5acc|2024-06-01T10:05:12.875Z|Take Turistica: at 31.80 EUR it is the cheapest fare, and its seats are fine for three hours.",
		"user||8b0d2f4a-6c7e-4a9c-b1d3-f5b7d9f1a3dd|2024-06-01T10:06:40Z|Booked. Thanks!",
		"assistant||6a8c0e2b-4d5f-4b7d-a9f1-c3e5a7c9e1ee|2024-06-01T10:06:41.5Z|Enjoy Porto!\nTry a francesinha near the Ribeira.",
	})
	checkTurns(t, bread, []string{
		"user||a7c9e1b3-5d6f-4a8c-9e0b-2d4f6a8c0e02|2024-10-27T03:33:20.5Z|My sourdough starter smells like nail polish. Is it dead?",
		"assistant||fedcba98-7654-4321-8fed-cba987654304|2024-10-27T03:33:25.25Z|No: the acetone smell means it is hungry. Feed it twice a day for three days.",
	})
	abandoned := []string{"0b9d3e5f-7a2c-4e1b-8d6f-3c5a9b2e7d44", "9c2e4a6b-8d1f-4b3e-a5c7-e9f1b3d5a755"}
	for _, c := range res.Conversations {
		for _, tu := range c.Turns {
			if strings.Contains(tu.Content, "zeppelin") || slices.Contains(abandoned, tu.ExternalID) {
				t.Errorf("turn %d of the abandoned branch: %s", tu.Turn, brief(tu))
			}
		}
	}

	// With current_node at the end of the other branch, that branch is
	// read instead.
	other := bytes.Replace(data, []byte(`"current_node": "6a8c0e2b-4d5f-4b7d-a9f1-c3e5a7c9e1ee"`),
		[]byte(`"current_node": "9c2e4a6b-8d1f-4b3e-a5c7-e9f1b3d5a755"`), 1)
	res, err = Read(bytes.NewReader(other), Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	checkTurns(t, res.Conversations[0], []string{
		"user||f1a27c90-3b5e-4d8f-a6c2-9e0b4d7f1a21|2024-06-01T10:00:00.123456Z|I have a free weekend in early June. Where can I go from Lisbon by train?",
		"assistant||0b9d3e5f-7a2c-4e1b-8d6f-3c5a9b2e7d44|2024-06-01T10:00:04.5Z|Take the train to Faro and book the zeppelin flight over the Algarve coast.",
		"user||9c2e4a6b-8d1f-4b3e-a5c7-e9f1b3d5a755|2024-06-01T10:00:50.25Z|Is the zeppelin flight expensive?",
	})
}

// TestChatGPTBrokenBranches: a conversation whose branch cannot be
// followed is skipped with where it breaks, or fails a strict read; the
// other conversations are read; and no input makes the walk go on for
// ever.
func TestChatGPTBrokenBranches(t *testing.T) {
	const ok = `{"id": "fine", "current_node": "k", "mapping": {"k": {"message": {"author": {"role": "user"}, "content": {"parts": ["kept"]}}}}}`
	msg := func(text string) string {
		return `"message": {"author": {"role": "user"}, "content": {"content_type": "text", "parts": ["` + text + `"]}}`
	}
	for _, c := range []struct {
		name, conv string
		at         string // where the error is: the first byte of this
		want       string
	}{
		{"its own parent", `{"current_node": "a", "mapping": {"a": {` + msg("x") + `, "parent": "a"}}}`,
			`"a"}}}`, `$[0].mapping.a.parent: the parent links make a cycle: "a" is its own ancestor`},
		{"a cycle above", `{"current_node": "x", "mapping": {"x": {"parent": "a"}, "a": {"parent": "b"}, "b": {"parent": "c"}, "c": {"parent": "a"}}}`,
			`"a"}}}`, `$[0].mapping.c.parent: the parent links make a cycle: "a" is its own ancestor`},
		{"current_node missing", `{"current_node": "gone", "mapping": {"a": {` + msg("x") + `}}}`,
			`"gone"`, `$[0].current_node: current_node "gone" is not in mapping`},
		{"a parent missing", `{"current_node": "a", "mapping": {"a": {"parent": "nowhere", ` + msg("x") + `}}}`,
			`"nowhere"`, `$[0].mapping.a.parent: parent "nowhere" is not in mapping`},
		{"no current_node", `{"mapping": {"a": {}}}`, `{"mapping"`, `$[0]: no current_node`},
		{"a null current_node", `{"current_node": null, "mapping": {}}`, `{"current_node"`, `$[0]: no current_node`},
		{"current_node a number", `{"current_node": 7, "mapping": {}}`, `7`, `$[0].current_node: want a string, not a number`},
		{"no mapping", `{"current_node": "a"}`, `{"current_node"`, `$[0]: no mapping`},
		{"mapping a list", `{"current_node": "a", "mapping": []}`, `[]`, `$[0].mapping: want an object, not an array`},
		{"a node a string", `{"current_node": "a-1", "mapping": {"a-1": "node"}}`, `"node"`, `$[0].mapping["a-1"]: want a node object, not a string`},
		{"a parent a number", `{"current_node": "a", "mapping": {"a": {"parent": 1}}}`, `1}`, `$[0].mapping.a.parent: want a string, not a number`},
		{"an id a number", `{"id": 5, "current_node": "a", "mapping": {"a": {}}}`, `5`, `$[0].id: want a string, not a number`},
	} {
		in := "[" + c.conv + ",\n" + ok + "]"
		want := fmt.Sprintf("in:1:%d: %s; the conversation is skipped", strings.Index(in, c.at)+1, c.want)
		res, err := Read(strings.NewReader(in), Options{Format: ChatGPT, Name: "in"})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if len(res.Skipped) != 1 || res.Skipped[0].Error() != want {
			t.Errorf("%s: skipped %v\nwant %s", c.name, res.Skipped, want)
		}
		if len(res.Conversations) != 1 || res.Conversations[0].ID != "fine" || len(res.Conversations[0].Turns) != 1 {
			t.Errorf("%s: read %s", c.name, render(res))
		}
		_, err = Read(strings.NewReader(in), Options{Format: ChatGPT, Name: "in", Strict: true})
		var e *Error
		if !errors.As(err, &e) || err.Error() != want {
			t.Errorf("%s, strict: %v\nwant %s", c.name, err, want)
		}
	}

	// A long branch is read whole, and a long cycle found, in one pass.
	const n = 20_000
	var b strings.Builder
	b.WriteString(`[{"current_node": "n` + fmt.Sprint(n-1) + `", "mapping": {`)
	for i := range n {
		parent := "null"
		if i > 0 {
			parent = fmt.Sprintf(`"n%d"`, i-1)
		}
		fmt.Fprintf(&b, `"n%d": {"parent": %s, "message": {"id": "m%d", "author": {"role": "user"}, "content": {"parts": ["turn %d"]}}},`, i, parent, i, i)
	}
	long := strings.TrimSuffix(b.String(), ",") + "}}]"
	res, err := Read(strings.NewReader(long), Options{Format: ChatGPT, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if turns := res.Conversations[0].Turns; len(turns) != n || turns[0].Content != "turn 0" || turns[n-1].ExternalID != fmt.Sprintf("m%d", n-1) {
		t.Errorf("a branch of %d: %d turns", n, len(turns))
	}
	cycle := strings.Replace(long, `"n0": {"parent": null`, fmt.Sprintf(`"n0": {"parent": "n%d"`, n-1), 1)
	if _, err := Read(strings.NewReader(cycle), Options{Format: ChatGPT, Strict: true}); err == nil || !strings.Contains(err.Error(), "make a cycle") {
		t.Errorf("a cycle of %d: %v", n, err)
	}
}

// chatGPTOne reads a conversation of the one message m (with the
// conversation's create_time ctime, when not "") and returns its turn,
// rendered by brief; "-" when it is left out, or the reason it is
// malformed.
func chatGPTOne(t *testing.T, m, ctime string) (turn, skipped string) {
	t.Helper()
	in := `[{"current_node": "n", "mapping": {"r": {"message": null}, "n": {"parent": "r", "message": ` + m + `}}`
	if ctime != "" {
		in += `, "create_time": ` + ctime
	}
	return readBrief(t, in+"}]", ChatGPT)
}

// readBrief reads an input of one conversation of one message in format f
// and returns its turn, rendered by brief; "-" when it is left out, or the
// reason it is malformed.
func readBrief(t *testing.T, in string, f Format) (turn, skipped string) {
	t.Helper()
	res, err := Read(strings.NewReader(in), Options{Format: f})
	if err != nil {
		t.Fatalf("%s: %v", in, err)
	}
	switch {
	case len(res.Skipped) > 0:
		return "", res.Skipped[0].Msg
	case len(res.Conversations[0].Turns) == 0:
		return "-", ""
	}
	return brief(res.Conversations[0].Turns[0]), ""
}

func TestChatGPTMessages(t *testing.T) {
	user := `"author": {"role": "user"}`
	for _, c := range []struct {
		msg, ctime string
		want       string // the turn, "-" when left out
		malforms   string
	}{
		{`{"id": "m1", ` + user + `, "create_time": 1717236000.5, "content": {"content_type": "text", "parts": ["a", "b"]}}`, "",
			"user||m1|2024-06-01T10:00:00.5Z|a\nb", ""},
		{`{` + user + `, "content": {"content_type": "text", "parts": ["no id: the node's"]}}`, "", "user||n||no id: the node's", ""},
		{`{` + user + `, "content": {"parts": ["no time: the conversation's"]}}`, "1717236000", "user||n|2024-06-01T10:00:00Z|no time: the conversation's", ""},
		{`{"author": {"role": "assistant", "name": "not a tool"}, "content": {"content_type": "code", "language": "python", "text": "print(1)"}}`, "",
			"assistant||n||print(1)", ""},
		{`{"author": {"role": "tool", "name": "python"}, "content": {"content_type": "execution_output", "text": "1"}}`, "", "tool|python|n||1", ""},
		{`{"author": {"role": "tool", "name": "dalle.text2im"}, "content": {"content_type": "multimodal_text", "parts": [{"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-1"}]}}`, "",
			"tool|dalle.text2im|n||[image]", ""},
		{`{` + user + `, "content": {"content_type": "multimodal_text", "parts": [{"content_type": "audio_transcription", "text": "spoken"}, {"content_type": "audio_asset_pointer"}, null, "typed"]}}`, "",
			"user||n||spoken\ntyped", ""},
		{`{"author": {"role": "critic"}, "content": {"parts": ["an unknown role is a speaker"]}}`, "", "|critic|n||an unknown role is a speaker", ""},
		{`{"author": {"role": "system"}, "content": {"parts": ["shown"]}, "metadata": {"is_visually_hidden_from_conversation": false}}`, "", "system||n||shown", ""},
		// Left out.
		{`{"author": {"role": "system"}, "content": {"parts": ["hidden"]}, "metadata": {"is_visually_hidden_from_conversation": true}}`, "", "-", ""},
		{`{` + user + `, "content": {"content_type": "user_editable_context", "user_profile": "I live in Lisbon."}, "metadata": {"is_visually_hidden_from_conversation": true}}`, "", "-", ""},
		{`{"author": {"role": "assistant"}, "content": {"content_type": "thoughts", "thoughts": [{"content": "hmm"}]}}`, "", "-", ""},
		{`{"author": {"role": "assistant"}, "content": {"content_type": "reasoning_recap", "content": "Thought for 4s"}}`, "", "-", ""},
		{`{"author": {"role": "tool"}, "content": {"content_type": "tether_browsing_display", "result": "", "summary": ""}}`, "", "-", ""},
		{`{"author": {"role": "assistant"}, "content": {"content_type": "text", "parts": [" \n"]}}`, "", "-", ""},
		{`{"author": {"role": "assistant"}, "content": null}`, "", "-", ""},
		// Malformed.
		{`"a message"`, "", "", "want a message object, not a string"},
		{`{"content": {"parts": ["x"]}}`, "", "", "no author"},
		{`{"author": "user", "content": {"parts": ["x"]}}`, "", "", "author: want an object, not a string"},
		{`{"author": {}, "content": {"parts": ["x"]}}`, "", "", "no author.role"},
		{`{"author": {"role": 1}, "content": {"parts": ["x"]}}`, "", "", "author.role: want a string, not a number"},
		{`{"author": {"role": " "}, "content": {"parts": ["x"]}}`, "", "", "empty author.role"},
		{`{` + user + `, "content": "x"}`, "", "", "content: want an object, not a string"},
		{`{` + user + `, "content": {"parts": "x"}}`, "", "", "content.parts: want a list, not a string"},
		{`{` + user + `, "content": {"parts": [true]}}`, "", "", "content.parts[0]: want a string or an object, not a boolean"},
		{`{` + user + `, "content": {"text": 1}}`, "", "", "content.text: want a string, not a number"},
		{`{` + user + `, "content": {"parts": ["x"]}, "create_time": true}`, "", "", "create_time: want a number, not a boolean"},
		{`{` + user + `, "content": {"parts": ["x"]}, "create_time": 1e300}`, "", "", "create_time: Unix time 1e300 out of range"},
		{`{` + user + `, "content": {"parts": ["x"]}, "id": 3}`, "", "", "id: want a string, not a number"},
	} {
		got, skipped := chatGPTOne(t, c.msg, c.ctime)
		if skipped != c.malforms || got != c.want {
			t.Errorf("%s:\n got %q, skipped %q\nwant %q, skipped %q", c.msg, got, skipped, c.want, c.malforms)
		}
	}
}
