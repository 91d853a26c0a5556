package importer

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/spec"
)

// benchAider returns the aider histories of ../shared/bench/aider-dev, or
// skips the test.
func benchAider(t testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join(benchDir, "aider-dev", "[0-9][0-9]_*.md"))
	if len(files) == 0 {
		t.Skip("no aider histories in ../shared/bench/aider-dev")
	}
	return files
}

// aiderFiles are the fixtures and, when they are there, the real files.
func aiderFiles(t *testing.T) []string {
	files, _ := filepath.Glob(filepath.Join("testdata", "aider-*.md"))
	real, _ := filepath.Glob(filepath.Join(benchDir, "aider-dev", "[0-9][0-9]_*.md"))
	return append(files, real...)
}

func readAiderFile(t *testing.T, name string) ([]string, []spec.Turn) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Read(strings.NewReader(string(data)), Options{Format: Aider, Strict: true, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Conversations) != 1 || len(res.Skipped) != 0 {
		t.Fatalf("%d conversations, %d skipped", len(res.Conversations), len(res.Skipped))
	}
	lines := strings.Split(strings.ToValidUTF8(string(data), "\uFFFD"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, "\r")
	}
	return lines, res.Conversations[0].Turns
}

// TestAiderKeepsEverything: every line of every history, but the session
// headers and blank lines, is in a turn, in order, as it is (a user line
// without its "#### ", a tool line without its "> ", trailing spaces
// aside), and the turns hold nothing else.
func TestAiderKeepsEverything(t *testing.T) {
	for _, name := range aiderFiles(t) {
		lines, turns := readAiderFile(t, name)
		var content []string
		for _, turn := range turns {
			for _, l := range strings.Split(turn.Content, "\n") {
				if l = strings.TrimRight(l, " \t"); strings.TrimSpace(l) != "" {
					content = append(content, l)
				}
			}
		}
		k := 0
		for i, l := range lines {
			raw := strings.TrimRight(l, " \t")
			if strings.TrimSpace(raw) == "" || strings.HasPrefix(l, aiderHeader) {
				continue
			}
			var forms []string
			for _, prefix := range []string{"####", ">"} {
				if rest, ok := strings.CutPrefix(raw, prefix); ok {
					forms = append(forms, strings.TrimPrefix(rest, " "))
				}
			}
			if k < len(content) && content[k] == raw {
				k++
				continue
			}
			found := false
			for _, f := range forms {
				if strings.TrimSpace(f) == "" {
					found = true // an empty user or tool line: nothing to keep
				} else if k < len(content) && content[k] == f {
					found = true
					k++
				}
				if found {
					break
				}
			}
			if !found {
				next := "(end)"
				if k < len(content) {
					next = content[k]
				}
				t.Fatalf("%s:%d: %q is not in the turns; the next turn line is %q", name, i+1, l, next)
			}
		}
		if k != len(content) {
			t.Errorf("%s: the turns hold %d lines that are not in the file, first %q", name, len(content)-k, content[k])
		}
	}
}

// TestAiderStructure checks every history: the roles alternate sanely in a
// session (never two assistant or two tool turns in a row: they would be
// one), a session's turns have its time, and no line that aider writes
// as structure (a user line, a tool line, with their trailing spaces) is
// in an assistant's reply outside a code fence, while structure-like lines
// inside fences stay in the reply.
func TestAiderStructure(t *testing.T) {
	inFence := 0
	for _, name := range aiderFiles(t) {
		lines, turns := readAiderFile(t, name)
		sessions := map[time.Time]bool{}
		for _, l := range lines {
			if rest, ok := strings.CutPrefix(l, aiderHeader); ok {
				when, err := time.Parse(time.DateTime, strings.TrimSpace(rest))
				if err != nil {
					t.Errorf("%s: header %q", name, l)
				}
				sessions[when] = true
			}
		}
		strict := strings.Contains(strings.Join(lines, "\n"), "  \n> ") || strings.Contains(strings.Join(lines, "\n"), "  \n#### ")
		for _, turn := range turns {
			if !turn.Timestamp.IsZero() && !sessions[turn.Timestamp] {
				t.Errorf("%s turn %d: time %v is no session's", name, turn.Turn, turn.Timestamp)
			}
			if turn.Role != "assistant" {
				continue
			}
			fence := byte(0)
			n := 0
			for _, l := range strings.Split(turn.Content, "\n") {
				if c, m, closes, opens := fenceOf(l); c != 0 {
					if fence == 0 && opens {
						fence, n = c, m
						continue
					}
					if fence == c && closes && m >= n {
						fence = 0
						continue
					}
				}
				structure := strings.HasPrefix(l, "#### ") || strings.HasPrefix(l, "> ")
				switch {
				case structure && fence != 0:
					inFence++
				case structure && strict && strings.HasSuffix(l, "  "):
					t.Errorf("%s turn %d: the aider line %q is in the reply, outside a fence", name, turn.Turn, l)
				}
			}
		}
	}
	if inFence == 0 {
		t.Error("no structure-like line in a fence: the test checks nothing")
	}
}

// TestAiderSessions reads every history session by session, with the
// file's conventions: each session alone gives the turns it gives in the
// whole file (a session never reaches into the next), and in a session two
// assistant turns, or two tool turns, never follow each other (they would
// be one).
func TestAiderSessions(t *testing.T) {
	for _, name := range aiderFiles(t) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := Read(strings.NewReader(string(data)), Options{Format: Aider})
		if err != nil {
			t.Fatal(err)
		}
		lines, strict := splitAider(string(data))
		file := newAiderParser(lines, strict)
		var turns []spec.Turn
		for start := 0; start < len(lines); {
			end := start + 1
			for end < len(lines) && !strings.HasPrefix(lines[end].s, aiderHeader) {
				end++
			}
			p := &aiderParser{lines: lines[start:end], strict: strict, paragraphs: file.paragraphs}
			p.fences()
			ts := p.parse()
			for i := 1; i < len(ts); i++ {
				if ts[i].Role == ts[i-1].Role && ts[i].Role != "user" {
					t.Errorf("%s: two %s turns in a row: %q, %q", name, ts[i].Role, ts[i-1].Content, ts[i].Content)
				}
			}
			turns = append(turns, ts...)
			start = end
		}
		for i := range turns {
			turns[i].Turn = i + 1
		}
		got := render(&Result{Format: Aider, Conversations: []Conversation{{Turns: turns}}})
		if want := render(whole); got != want {
			t.Errorf("%s: read session by session, it differs:\n%s", name, firstDiff(want, got))
		}
	}
}

// fenceOf is fence, for the tests.
func fenceOf(s string) (c byte, n int, closes, opens bool) { return fence(s) }

// TestAiderBenchFiles reads the real histories: every one has user,
// assistant and tool turns, its sessions' times, its edits confirmed.
func TestAiderBenchFiles(t *testing.T) {
	for _, name := range benchAider(t) {
		res, err := ReadFile(name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		turns := res.Conversations[0].Turns
		roles := map[string]int{}
		applied := 0
		for _, turn := range turns {
			roles[turn.Role]++
			if turn.Timestamp.IsZero() {
				t.Errorf("%s turn %d has no time (every bench file starts with a session header)", name, turn.Turn)
			}
			if turn.Role == "tool" && strings.Contains(turn.Content, "Applied edit to ") {
				applied++
			}
			if turn.Role != "tool" && strings.HasPrefix(turn.Content, "Tokens: ") {
				t.Errorf("%s turn %d: a %s turn starts with a Tokens line", name, turn.Turn, turn.Role)
			}
		}
		if roles["user"] == 0 || roles["assistant"] == 0 || roles["tool"] == 0 || applied == 0 {
			t.Errorf("%s: roles %v, %d applied edits", name, roles, applied)
		}
	}
}

// TestAiderFenceRules checks the fence rules on small histories.
func TestAiderFenceRules(t *testing.T) {
	const B = "  "
	for _, c := range []struct {
		name, in string
		want     []string // role: content
	}{
		{"structure inside a fence is content",
			"#### q" + B + "\n\n```\n#### not a user line" + B + "\n> not a tool line" + B + "\n```\n\n> Tokens: 1" + B + "\n",
			[]string{"user: q", "assistant: ```\n#### not a user line" + B + "\n> not a tool line" + B + "\n```", "tool: Tokens: 1"}},
		{"a longer fence closes a fence; a shorter one does not",
			"#### q" + B + "\n\n````md\n```\n#### a" + B + "\n`````\n",
			[]string{"user: q", "assistant: ````md\n```\n#### a" + B + "\n`````"}},
		{"tildes",
			"#### q" + B + "\n\n~~~\n> x" + B + "\n~~~\n",
			[]string{"user: q", "assistant: ~~~\n> x" + B + "\n~~~"}},
		{"an inline code span is not a fence",
			"#### q" + B + "\n\n```not a fence```\n\n#### r" + B + "\n",
			[]string{"user: q", "assistant: ```not a fence```", "user: r"}},
		{"a fence cut off by the next request",
			"#### q" + B + "\n\n```py\nx = 1\n\n#### r" + B + "\n\n```\n",
			[]string{"user: q", "assistant: ```py\nx = 1", "user: r", "assistant: ```"}},
		{"a fence cut off by a new session",
			"#### q" + B + "\n\n```py\nx = 1\n# aider chat started at 2025-01-01 10:00:00\n> Aider" + B + "\n",
			[]string{"user: q", "assistant: ```py\nx = 1", "tool: Aider"}},
		{"a blockquote line without the break, after a blank, does not cut a fence",
			"#### q" + B + "\n\n```md\n\n> a quote\n```\n",
			[]string{"user: q", "assistant: ```md\n\n> a quote\n```"}},
		{"a message of several lines",
			"#### test it" + B + "\n> Run shell command?\nnpm test" + B + "\n\nok\n",
			[]string{"user: test it", "tool: Run shell command?\nnpm test", "assistant: ok"}},
		{"a message of several lines ends at a user line",
			"> Commit abc\nmessage body\n#### next" + B + "\n",
			[]string{"tool: Commit abc\nmessage body", "user: next"}},
		{"blank lines end a message in current files",
			"#### /ask why?" + B + "\n\n#### why?" + B + "\n#### really?" + B + "\n",
			[]string{"user: /ask why?", "user: why?\nreally?"}},
		{"a Markdown heading in a reply",
			"#### q" + B + "\n\n#### Plan\n\n1. do it\n",
			[]string{"user: q", "assistant: #### Plan\n\n1. do it"}},
		{"a heading with trailing spaces is a user line",
			"#### q" + B + "\n\nreply\n#### r" + B + "\n",
			[]string{"user: q", "assistant: reply", "user: r"}},
		{"no trailing spaces anywhere",
			"#### q\n#### r\n\n#### Plan\n> done\n>\n",
			[]string{"user: q\nr", "user: Plan", "tool: done"}},
		{"no trailing spaces, and a message's lines a paragraph each",
			"#### q\n\n#### r\n\nreply\n",
			[]string{"user: q\nr", "assistant: reply"}},
		{"invalid UTF-8 is replaced",
			"#### caf\xe9" + B + "\n",
			[]string{"user: caf\uFFFD"}},
		{"a bare #### line",
			"####\n#### q\n",
			[]string{"user: q"}},
		{"a header with a bad time",
			"# aider chat started at yesterday\n#### q" + B + "\n",
			[]string{"user: q"}},
	} {
		res, err := Read(strings.NewReader(c.in), Options{Format: Aider})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var got []string
		for _, turn := range res.Conversations[0].Turns {
			got = append(got, turn.Role+": "+turn.Content)
		}
		if strings.Join(got, "\n|") != strings.Join(c.want, "\n|") {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// A line right after one of aider's messages, with no blank line between,
// is more of the message, even when the message's first line ends with the
// two spaces: a shell command aider shows over several lines ("> cd server
// " then "   npm start  ") is not the assistant's.
func TestAiderCommandLines(t *testing.T) {
	log := "# aider chat started at 2024-05-01 10:00:00\n\n" +
		"#### start the servers  \n\n" +
		"Run both servers.\n\n" +
		"> Tokens: 6.6k sent, 194 received.  \n" +
		"> cd server   \n" +
		"   npm start  \n" +
		"> Run shell commands? (Y)es/(N)o/(S)kip all [Yes]: s  \n" +
		"> flutter clean       \n" +
		"flutter pub get     \n" +
		"flutter run -d macos  \n" +
		"> # Start the backend server \n" +
		"cd server                  \n" +
		"npm start                  \n" +
		"                           \n" +
		"# Start the frontend server\n" +
		"cd ../client               \n" +
		"npm run dev  \n\n" +
		"#### thanks  \n"
	r, err := Read(strings.NewReader(log), Options{Format: Aider})
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, tu := range r.Conversations[0].Turns {
		roles = append(roles, tu.Role)
		if tu.Role == "assistant" && strings.Contains(tu.Content, "npm start") || (strings.Contains(tu.Content, "flutter run") || strings.Contains(tu.Content, "npm run dev")) && tu.Role != "tool" {
			t.Errorf("a command aider showed is a %s turn: %q", tu.Role, tu.Content)
		}
	}
	if want := []string{"user", "assistant", "tool", "user"}; !slices.Equal(roles, want) {
		t.Errorf("roles %v, want %v", roles, want)
	}
}
