package importer

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// benchDir holds the benchmark data of ../shared/bench, when it is there.
var benchDir = filepath.Join("..", "..", "..", "shared", "bench")

// render writes a result as text, one block per turn, for golden files.
func render(res *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "format: %s\n", res.Format)
	for _, e := range res.Skipped {
		fmt.Fprintf(&b, "skipped: %s\n", e)
	}
	for _, c := range res.Conversations {
		fmt.Fprintf(&b, "== conversation %q speakers %q\n", c.ID, c.Speakers)
		for _, t := range c.Turns {
			fmt.Fprintf(&b, "-- turn %d role=%q speaker=%q id=%q", t.Turn, t.Role, t.Speaker, t.ExternalID)
			if !t.Timestamp.IsZero() {
				fmt.Fprintf(&b, " time=%s", t.Timestamp.Format(time.RFC3339Nano))
			}
			fmt.Fprintf(&b, "\n%s\n", t.Content)
		}
	}
	return b.String()
}

// fixtures are the files of testdata, with what reading each must give.
var fixtures = []struct {
	file    string
	format  Format
	turns   []int // per conversation
	skipped int
}{
	{"transcript-basic.json", Transcript, []int{10}, 0},
	{"transcript-roles.json", Transcript, []int{10}, 0},
	{"transcript-lines.jsonl", Transcript, []int{3}, 0},
	{"transcript-malformed.json", Transcript, []int{2}, 8},
	{"transcript-malformed.jsonl", Transcript, []int{3}, 3},
	{"openai-chat.json", OpenAI, []int{9}, 0},
	{"openai-messages.json", OpenAI, []int{3}, 0},
	{"openai-finetune.jsonl", OpenAI, []int{3, 2}, 0},
	{"openai-malformed.json", OpenAI, []int{2}, 6},
	{"locomo-sample.json", LoCoMo, []int{7, 2}, 0},
	{"locomo-malformed.json", LoCoMo, []int{2}, 8},
	{"aider-basic.md", Aider, []int{14}, 0},
	{"aider-architect.md", Aider, []int{6}, 0},
	{"aider-partial.md", Aider, []int{4}, 0},
	{"aider-failed-edit.md", Aider, []int{5}, 0},
	{"aider-cutoff.md", Aider, []int{7}, 0},
	{"aider-paragraphs.md", Aider, []int{4}, 0},
	{"aider-stripped.md", Aider, []int{4}, 0},
	{"aider-crlf.md", Aider, []int{4}, 0},
	{"chatgpt-branched.json", ChatGPT, []int{8, 2}, 0},
	{"chatgpt-malformed.json", ChatGPT, []int{2}, 10},
	{"claude-export.json", Claude, []int{4, 2}, 0},
	{"claude-malformed.json", Claude, []int{2}, 9},
	{"claude-code-session.jsonl", ClaudeCode, []int{10, 2}, 0},
	{"claude-code-malformed.jsonl", ClaudeCode, []int{2}, 7},
}

// TestFixtures reads every file of testdata, detecting its format, and
// compares the result with its golden file.
func TestFixtures(t *testing.T) {
	seen := map[string]bool{}
	for _, fx := range fixtures {
		seen[fx.file] = true
		t.Run(fx.file, func(t *testing.T) {
			name := filepath.Join("testdata", fx.file)
			res, err := ReadFile(name, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Format != fx.format {
				t.Errorf("format %s, want %s", res.Format, fx.format)
			}
			var turns []int
			for _, c := range res.Conversations {
				turns = append(turns, len(c.Turns))
				for i, turn := range c.Turns {
					if turn.Turn != i+1 {
						t.Errorf("turn %d is numbered %d", i+1, turn.Turn)
					}
					if turn.Role == "" && turn.Speaker == "" {
						t.Errorf("turn %d has no role and no speaker", i+1)
					}
					switch turn.Role {
					case "", "user", "assistant", "system", "tool":
					default:
						t.Errorf("turn %d: role %q", i+1, turn.Role)
					}
				}
			}
			if fmt.Sprint(turns) != fmt.Sprint(fx.turns) {
				t.Errorf("turns per conversation %v, want %v", turns, fx.turns)
			}
			if len(res.Skipped) != fx.skipped {
				t.Errorf("%d skipped, want %d: %v", len(res.Skipped), fx.skipped, res.Skipped)
			}
			for _, e := range res.Skipped {
				if e.Name != name || e.Line == 0 || e.Msg == "" {
					t.Errorf("skipped turn without its file, line or reason: %#v", e)
				}
			}
			golden(t, filepath.Join("testdata", "golden", fx.file+".txt"), render(res))

			// The format given gives the same result as detecting it.
			again, err := ReadFile(name, Options{Format: fx.format})
			if err != nil {
				t.Fatal(err)
			}
			if render(again) != render(res) {
				t.Error("reading with the format given differs from detecting it")
			}
		})
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.*"))
	for _, f := range files {
		if !seen[filepath.Base(f)] {
			t.Errorf("%s is not in the fixtures table", f)
		}
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("differs from %s (run go test -update and check the diff):\n%s", path, firstDiff(string(want), got))
	}
}

// firstDiff shows the first line where two texts differ.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, wl, gl)
		}
	}
	return ""
}

// TestStrict: with Strict, the first malformed turn is the error of the
// read, named by file, line and path.
func TestStrict(t *testing.T) {
	for _, fx := range fixtures {
		if fx.skipped == 0 {
			continue
		}
		name := filepath.Join("testdata", fx.file)
		lax, err := ReadFile(name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := ReadFile(name, Options{Strict: true})
		if res != nil || err == nil {
			t.Errorf("%s: strict read succeeded", name)
			continue
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %T is not an *Error", name, err)
			continue
		}
		if err.Error() != lax.Skipped[0].Error() {
			t.Errorf("%s: strict error %q, want the first skipped turn %q", name, err, lax.Skipped[0])
		}
		if !strings.HasPrefix(err.Error(), name+":") {
			t.Errorf("%s: error %q does not start with the file name", name, err)
		}
	}
	// The errors name exactly where the turn is.
	_, err := ReadFile(filepath.Join("testdata", "locomo-malformed.json"), Options{Strict: true})
	if want := filepath.Join("testdata", "locomo-malformed.json") + ":2:3: $[0]: want a LoCoMo sample object, not a string"; err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	_, err = Read(strings.NewReader("[{\"role\": \"user\", \"content\": \"hi\"},\n  {\"role\": \"user\"}]"), Options{Strict: true, Name: "chat.json"})
	if want := "chat.json:2:3: $[1]: no content or text"; err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestErrorString(t *testing.T) {
	for _, c := range []struct {
		e    Error
		want string
	}{
		{Error{Name: "a.json", Line: 3, Column: 5, Path: "$[2]", Msg: "no content"}, "a.json:3:5: $[2]: no content"},
		{Error{Name: "a.json", Line: 3, Msg: "m"}, "a.json:3: m"},
		{Error{Line: 3, Column: 1, Msg: "m"}, "3:1: m"},
		{Error{Path: "$[0]", Msg: "m"}, "$[0]: m"},
		{Error{Name: "a.md", Msg: "m"}, "a.md: m"},
		{Error{Msg: "m"}, "m"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%#v: %q, want %q", c.e, got, c.want)
		}
	}
}

// TestWholeInputErrors: an input that is not in its format at all fails,
// with where it stops being so.
func TestWholeInputErrors(t *testing.T) {
	for _, c := range []struct {
		format Format
		in     string
		want   string
	}{
		{Auto, "", "in:1:1: cannot tell the input's format: the input is empty"},
		{Auto, "hello world\n", "in:1:1: cannot tell the input's format: not JSON and not an aider chat history"},
		{Auto, "[1, 2, 3]", "in:1:2: cannot tell the input's format: a JSON array of something else than objects"},
		{Auto, `[{"a": 1}]`, "in:1:1: cannot tell the input's format: a JSON array of objects that are not messages or LoCoMo samples"},
		{Auto, `{"a": 1}`, "in:1:1: cannot tell the input's format: a JSON object that is not a message, a list of messages or a LoCoMo sample"},
		{Auto, "[\n {\"role\": \"user\" \"content\": 1}]", `in:2:18: cannot tell the input's format: it starts like JSON, but want ',' or '}'`},
		{Transcript, "[\n {\"role\": \"user\", \"content\": \"hi\"},\n ]", "in:3:2: not JSON: invalid character ']' looking for the beginning of a value"},
		{Transcript, `[{"role": "user", "content": "hi"}`, "in:1:35: not JSON: unexpected end of JSON input"},
		{Transcript, `[{"role": "user", "content": "hi"}] [`, "in:1:37: not JSON: more text after the JSON value"},
		{Transcript, "[{\"role\": \"user\", \"content\": \"a \\ucard\"}]", "in:1:33: not JSON: invalid escape sequence `\\ucar` in string"},
		{Transcript, "hello", "in:1:1: not JSON: want a JSON array or JSON Lines of objects"},
		{Transcript, "  \n", "in:2:1: empty input: want a JSON array or JSON Lines of objects"},
		{Transcript, "{\"role\": \"user\",\n \"content\": \"pretty-printed\"}\n", "in:1:17: not JSON: the line ends inside a JSON value"},
		{OpenAI, `{"model": "gpt-4o"}`, `in:1:1: $: want an object with a "messages" array`},
		{OpenAI, "{\"messages\": [\n  {\"role\": \"user\", \"content\": \"hi\"}\n  {\"role\": \"user\"}]}", "in:3:3: not JSON: want ',' or ']'"},
		{OpenAI, "{\"messages\": [}\n{\"messages\": []}\n", "in:1:15: not JSON: invalid character '}' looking for the beginning of a value"},
		{OpenAI, `"hi"`, `in:1:1: not JSON: want a JSON array of messages, or an object with a "messages" array`},
		{LoCoMo, `{"qa": []`, "in:1:10: not JSON: unexpected end of JSON input"},
		{LoCoMo, `"x"`, "in:1:1: not JSON: want a JSON array of LoCoMo samples"},
		{Aider, "just some text\n", `in:1:1: not an aider chat history: no "# aider chat started at" line, user line ("#### ") or tool line ("> ")`},
		{ChatGPT, "hello", "in:1:1: not JSON: want a JSON array of ChatGPT conversations"},
		{ChatGPT, "", "in:1:1: not JSON: want a JSON array of ChatGPT conversations"},
		{ChatGPT, "[{\"mapping\": {},\n \"current_node\": \"a\",}]", "in:2:22: not JSON: want a string for an object key"},
		{Claude, "\n\n7", "in:3:1: not JSON: want a JSON array of Claude conversations"},
		{Claude, `[{"uuid": "c", "chat_messages": [}]`, "in:1:34: not JSON: invalid character '}' looking for the beginning of a value"},
		{ClaudeCode, "hello\n", "in:1:1: not JSON Lines: want a Claude Code session, one JSON object per line"},
		{ClaudeCode, `[{"type": "user"}]`, "in:1:1: not JSON Lines: want a Claude Code session, one JSON object per line"},
		{Auto, `[{"mapping": []}]`, "in:1:1: cannot tell the input's format: a JSON array of objects that are not messages or LoCoMo samples"},
		{Auto, `{"type": "file-history-snapshot", "messageId": "m"}` + "\n" + `{"type": "user", "message": {"content": "hi"}}`,
			"in:1:1: cannot tell the input's format: a JSON object that is not a message, a list of messages or a LoCoMo sample"},
		{"yaml", "a: b", `unknown input format "yaml" (want auto, transcript, openai, locomo, aider, chatgpt, claude or claude-code)`},
	} {
		res, err := Read(strings.NewReader(c.in), Options{Format: c.format, Name: "in"})
		if err == nil {
			t.Errorf("%s %q: no error; read %s", c.format, c.in, render(res))
			continue
		}
		if err.Error() != c.want {
			t.Errorf("%s %q:\n got %s\nwant %s", c.format, c.in, err, c.want)
		}
		if res != nil {
			t.Errorf("%s %q: a result with the error", c.format, c.in)
		}
	}
	_, err := Read(strings.NewReader("hello"), Options{})
	if !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("%v is not ErrUnknownFormat", err)
	}
	if _, err := ReadFile(filepath.Join("testdata", "missing.json"), Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

// TestEmptyInputs: inputs with nothing in them read as nothing.
func TestEmptyInputs(t *testing.T) {
	for _, c := range []struct {
		format Format
		in     string
	}{
		{Auto, "[]"}, {Transcript, " [ ] "}, {OpenAI, "[]"}, {OpenAI, `{"messages": []}`}, {LoCoMo, "[]"},
		{Aider, ""}, {Aider, "\n\n"}, {Auto, "\xef\xbb\xbf[]"},
		{ChatGPT, "[]"}, {ChatGPT, `[{"id": "c", "current_node": "r", "mapping": {"r": {"message": null}}}]`},
		{Claude, "[]"}, {Claude, `{"uuid": "c", "chat_messages": []}`},
		{ClaudeCode, ""}, {ClaudeCode, " \n\n"}, {ClaudeCode, `{"type": "summary", "leafUuid": "u"}`},
	} {
		res, err := Read(strings.NewReader(c.in), Options{Format: c.format, Strict: true})
		if err != nil {
			t.Errorf("%s %q: %v", c.format, c.in, err)
			continue
		}
		for _, conv := range res.Conversations {
			if len(conv.Turns) > 0 {
				t.Errorf("%s %q: turns %v", c.format, c.in, conv.Turns)
			}
		}
	}
}

func TestParseFormat(t *testing.T) {
	for _, s := range []string{"auto", "transcript", "openai", "locomo", "aider", " LoCoMo ", "chatgpt", "claude", "claude-code", "Claude-Code"} {
		if _, err := ParseFormat(s); err != nil {
			t.Error(err)
		}
	}
	if _, err := ParseFormat("csv"); err == nil {
		t.Error("csv parsed")
	}
}

// TestDetect checks Detect on every fixture and bench file, on their
// first bytes only, and on inputs it must not recognise.
func TestDetect(t *testing.T) {
	check := func(t *testing.T, name string, want Format) {
		t.Helper()
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{len(data), DetectSize, 4096, 1024} {
			if n > len(data) {
				continue
			}
			got, err := Detect(data[:n])
			if err != nil || got != want {
				t.Errorf("%s, first %d bytes: %s, %v; want %s", name, n, got, err, want)
			}
		}
	}
	for _, fx := range fixtures {
		check(t, filepath.Join("testdata", fx.file), fx.format)
	}
	t.Run("bench", func(t *testing.T) {
		files, _ := filepath.Glob(filepath.Join(benchDir, "aider-dev", "[0-9][0-9]_*.md"))
		locomo := filepath.Join(benchDir, "locomo-dev.json")
		if _, err := os.Stat(locomo); err != nil && len(files) == 0 {
			t.Skip("no benchmark conversations in ../shared/bench:", err)
		} else if err == nil {
			check(t, locomo, LoCoMo)
		}
		for _, f := range files {
			check(t, f, Aider)
		}
	})

	for _, c := range []struct {
		in   string
		want Format
	}{
		{`[{"role": "user", "content": "hi"}]`, Transcript},
		{`[{"speaker": "Ana", "text": "hi"}]`, Transcript},
		{`[{"role": "user", "content": "hi"}, {"role": "assistant", "content": null, "tool_calls": []}]`, OpenAI},
		{`[{"role": "user", "content": [{"type": "text", "text": "hi"}]}]`, OpenAI},
		{`{"messages": [{"role": "user", "content": "hi"}]}`, OpenAI},
		{`{"role": "user", "content": "hi"}` + "\n" + `{"role": "assistant", "content": "hello"}`, Transcript},
		{`[{"qa": [{"question": "when`, LoCoMo},
		{`{"conversation": {}}`, LoCoMo},
		{"#### make it faster  \n", Aider},
		{"\n> Aider v0.50.0  \n\n# aider chat started at 2024-01-01 10:00:00\n", Aider},
		{`[{"role": "user", "content": "a very long message that is cut`, Transcript},
		// ChatGPT: the old order of members, the new (sorted), cut short,
		// one conversation.
		{`[{"title": "Trip", "create_time": 1717236000.0, "update_time": 1717236401.6, "mapping": {"aaa": {"id": "aaa", "message": {"content": {"parts": ["cut`, ChatGPT},
		{`[{"async_status": null, "conversation_id": "c", "create_time": 1730000000.1, "current_node": "n", "default_model_slug": "gpt-4o`, ChatGPT},
		{`{"title": "one", "mapping": {}, "current_node": "r"}`, ChatGPT},
		// Claude.
		{`[{"uuid": "c", "name": "n", "created_at": "2025-02-10T09:14:03Z", "account": {"uuid": "a"}, "chat_messages": [{"uuid": "m", "text": "cut`, Claude},
		{`{"uuid": "c", "chat_messages": []}`, Claude},
		// Claude Code: a line of a session, its first or a later one; the
		// first lines can be bookkeeping, one of them with content.
		{`{"type":"summary","summary":"Fix the test","leafUuid":"u"}`, ClaudeCode},
		{`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"}}`, ClaudeCode},
		{`{"type":"file-history-snapshot","messageId":"m","snapshot":{},"isSnapshotUpdate":false}` + "\n" +
			`{"type":"queue-operation","operation":"enqueue","sessionId":"s","content":"go vet"}` + "\n" +
			`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"a long line that is cut`, ClaudeCode},
		{`{"type":"queue-operation","operation":"enqueue","sessionId":"s","content":"go vet"}` + "\r\n\r\n" + `{"parentUuid":null`, ClaudeCode},
	} {
		got, err := Detect([]byte(c.in))
		if err != nil || got != c.want {
			t.Errorf("%q: %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "  \n", "hello", "[1]", `[{"a": 1}]`, `{"a": 1}`, "[\"x\"", "{\"a\" 1}", "# README\n\n#### Usage\n", "\x00\x01"} {
		if got, err := Detect([]byte(in)); !errors.Is(err, ErrUnknownFormat) {
			t.Errorf("%q: %s, %v; want ErrUnknownFormat", in, got, err)
		}
	}
}

// TestReadEqualsReadFile: Read on the bytes and ReadFile agree.
func TestReadEqualsReadFile(t *testing.T) {
	name := filepath.Join("testdata", "transcript-malformed.json")
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Read(bytes.NewReader(data), Options{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadFile(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if render(a) != render(b) {
		t.Error("Read and ReadFile differ")
	}
}

// TestRequireTurns: with RequireTurns, an input that gives no turn is an
// *Error wrapping ErrNoTurns that says why: nothing in it, or every turn
// malformed, and the format it looks like when read as another.
func TestRequireTurns(t *testing.T) {
	transcript := `[{"role": "user", "content": "hello there"}, {"role": "assistant", "content": "hi"}]`
	for _, c := range []struct {
		format Format
		in     string
		want   []string
	}{
		{Auto, "[]", []string{"in: no turns in it, read as transcript"}},
		{Claude, `{"uuid": "c", "chat_messages": []}`, []string{"no turns in it, read as claude"}},
		{LoCoMo, transcript, []string{"read as locomo: 2 malformed, skipped (the first: 1:2: $[0]: no conversation)", "it looks like transcript"}},
	} {
		_, err := Read(strings.NewReader(c.in), Options{Format: c.format, Name: "in", RequireTurns: true})
		var e *Error
		if !errors.Is(err, ErrNoTurns) || !errors.As(err, &e) {
			t.Errorf("%s %q: %v, want an *Error wrapping ErrNoTurns", c.format, c.in, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %q: %q does not say %q", c.format, c.in, err, w)
			}
		}
		// Without RequireTurns, the same input reads as nothing.
		if _, err := Read(strings.NewReader(c.in), Options{Format: c.format}); err != nil {
			t.Errorf("%s %q without RequireTurns: %v", c.format, c.in, err)
		}
	}
	// An input with turns is read as ever.
	res, err := Read(strings.NewReader(transcript), Options{RequireTurns: true})
	if err != nil || len(res.Conversations) != 1 || len(res.Conversations[0].Turns) != 2 {
		t.Errorf("a transcript: %v, %+v", err, res)
	}
}
