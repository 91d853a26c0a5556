package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg/format"
)

// TestAdd: smg add records one turn, or the JSON Lines on standard
// input; a turn sent again with its id is kept once; bad input adds
// nothing and says where it is.
func TestAdd(t *testing.T) {
	out := filepath.Join(t.TempDir(), "n.smg")
	r := run(t, nil, "add", out, "--no-vectors", "--time", "2025-03-14T09:00:00Z", "Let's use Postgres for the orders.")
	if r.status != exitOK || r.stdout != out+": 1 turns (1 new)\n" {
		t.Fatalf("add: %+v", r)
	}
	for range 2 {
		r = run(t, nil, "add", out, "--no-vectors", "--journal", "--role", "assistant", "--id", "m2", "--conversation", "c1", "Postgres it is.")
	}
	if r.status != exitOK || r.stdout != out+": 2 turns (0 new, 1 held already)\n" {
		t.Errorf("add again: %+v", r)
	}
	lines := `{"role":"user","content":"And the cache?","id":"m3","timestamp":"2025-03-14T09:02:00Z"}
{"role":"assistant","content":"Redis.","id":"m4"}
`
	r = runStdin(t, lines, "add", out, "--no-vectors", "--journal", "--conversation", "c1")
	if r.status != exitOK || r.stdout != out+": 4 turns (2 new)\n" {
		t.Errorf("add from stdin: %+v", r)
	}
	edited := strings.Replace(lines, "Redis.", "Memcached.", 1)
	r = runStdin(t, edited, "add", out, "--no-vectors", "--journal", "--conversation", "c1")
	if r.status != exitOK || r.stdout != out+": 5 turns (1 new, 1 held already)\n" ||
		r.stderr != "smg: warning: turn 5 has the id \"c1/m4\" of turn 4, with other content: both are kept\n" {
		t.Errorf("an edited message: %+v", r)
	}
	// With --journal the turns are in the journal; compacted, in the file.
	if _, err := os.Stat(out + ".journal"); err != nil {
		t.Errorf("no journal: %v", err)
	}
	if info := succeed(t, nil, "info", out); !regexp.MustCompile(`(?m)^journal +3 changes \(`).MatchString(info) {
		t.Errorf("info does not show the journal:\n%s", info)
	}
	if r := run(t, nil, "compact", out); r.status != exitOK || r.stdout != "" {
		t.Fatalf("compact: %+v", r)
	}
	if _, err := os.Stat(out + ".journal"); err == nil {
		t.Error("the journal is still there after compact")
	}
	if info := succeed(t, nil, "info", out); strings.Contains(info, "journal") {
		t.Errorf("info shows a journal after compact:\n%s", info)
	}
	turns := archivedTurns(t, out)
	if len(turns) != 5 || turns[1].ConversationID != "c1" || turns[0].Timestamp.Format("15:04") != "09:00" || turns[4].SameIDAs != 4 {
		t.Errorf("turns %+v", turns)
	}
	validate(t, nil, out)

	// Without --journal, the file alone holds what add added.
	if r := run(t, nil, "add", out, "--no-vectors", "And the queue?"); r.status != exitOK {
		t.Fatalf("add: %+v", r)
	}
	if _, err := os.Stat(out + ".journal"); err == nil {
		t.Error("add left a journal")
	}
	if doc, err := format.ReadFile(out, nil); err != nil || doc.Metadata.TotalExchanges != 6 {
		t.Errorf("the file alone holds %d turns of 6 (%v)", doc.Metadata.TotalExchanges, err)
	}

	unchanged := readOnly(t, out)
	for _, c := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"--role", "boss", "x"}, `--role "boss": want user, assistant, system or tool`},
		{"", []string{"--time", "yesterday", "x"}, `--time "yesterday" is not an RFC 3339 time`},
		{"", []string{" "}, "TEXT is empty"},
		{lines + `{"role":"user","content":"cut off` + "\n", nil, "stdin:3:"},
		{`{"role":"user"}` + "\n", nil, "stdin:1:"},
		{lines, []string{"--id", "m9"}, "--role, --speaker and --id describe TEXT"},
	} {
		r := runStdin(t, c.stdin, append([]string{"add", out, "--no-vectors"}, c.args...)...)
		if r.status == exitOK || !strings.Contains(r.stderr, c.want) {
			t.Errorf("add %q with %q: status %d, stderr %q, want %q", c.args, c.stdin, r.status, r.stderr, c.want)
		}
	}
	unchanged("bad input")
}

// TestWatchOnce: smg watch --once records a Claude Code session and an
// aider history, and again after they grew only what is new.
func TestWatchOnce(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "m.smg")
	sessions := filepath.Join(dir, "project")
	if err := os.Mkdir(sessions, 0o755); err != nil {
		t.Fatal(err)
	}
	session, err := os.ReadFile(filepath.Join(importerTestdata, "claude-code-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	half := strings.Index(string(session[len(session)/2:]), "\n") + len(session)/2 + 1
	if err := os.WriteFile(filepath.Join(sessions, "s.jsonl"), session[:half], 0o644); err != nil {
		t.Fatal(err)
	}
	history := filepath.Join(dir, "history.md")
	aider, err := os.ReadFile(filepath.Join(importerTestdata, "aider-basic.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(history, aider, 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, nil, "watch", out, sessions, history, "--once", "--no-vectors")
	if r.status != exitOK || !strings.Contains(r.stdout, "new turns from "+history) || !strings.Contains(r.stdout, "new turns from "+filepath.Join(sessions, "s.jsonl")) {
		t.Fatalf("watch: %+v", r)
	}
	n := len(archivedTurns(t, out))
	unchanged := readOnly(t, out)
	if r := run(t, nil, "watch", out, sessions, history, "--once", "--no-vectors"); r.status != exitOK || r.stdout != "" {
		t.Errorf("watch again: %+v", r)
	}
	unchanged("watch of unchanged files")
	if err := os.WriteFile(filepath.Join(sessions, "s.jsonl"), session, 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, nil, "watch", out, sessions, history, "--once", "--no-vectors")
	if r.status != exitOK || strings.Contains(r.stdout, history) {
		t.Errorf("watch of the grown session: %+v", r)
	}
	if r := run(t, nil, "compact", out); r.status != exitOK {
		t.Fatalf("compact: %+v", r)
	}
	if m := len(archivedTurns(t, out)); m <= n {
		t.Errorf("%d turns after the session grew, %d before", m, n)
	}
	validate(t, nil, out)
	if r := run(t, nil, "watch", out); r.status != exitUsage || !strings.Contains(r.stderr, "missing PATH") {
		t.Errorf("watch without PATH: %+v", r)
	}
}

// smg add does not embed what it adds (the live path costs a journal
// append): it says so, and names the command that does.
func TestAddNamesEmbed(t *testing.T) {
	out := filepath.Join(t.TempDir(), "n.smg")
	r := runVectors(t, nil, "add", out, "Let's use Postgres for the orders.")
	if r.status != exitOK || !strings.Contains(r.stderr, "'smg embed "+out+"'") {
		t.Errorf("add with vectors: %+v", r)
	}
	if r := run(t, nil, "add", out, "--no-vectors", "And Redis for the cache."); r.status != exitOK || r.stderr != "" {
		t.Errorf("add without vectors: %+v", r)
	}
}
