package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

const (
	conversationsDir = "../../smg/examples"
	importerTestdata = "../../smg/importer/testdata"
	benchDir         = "../../../shared/bench"
)

// ingest runs smg ingest and fails the test unless it succeeds.
func ingest(t testing.TB, env map[string]string, args ...string) result {
	t.Helper()
	r := run(t, env, append([]string{"ingest"}, args...)...)
	if r.status != exitOK {
		t.Fatalf("ingest %v: status %d\n%s", args, r.status, r.stderr)
	}
	return r
}

// validate fails the test unless smg validate passes on name.
func validate(t testing.TB, env map[string]string, name string) {
	t.Helper()
	if r := run(t, env, "validate", name); r.status != exitOK {
		t.Errorf("validate %s: status %d\n%s%s", name, r.status, r.stdout, r.stderr)
	}
}

// nodesJSON lists the nodes of a memory through smg nodes --json.
func nodesJSON(t testing.TB, env map[string]string, name string, args ...string) []spec.Node {
	t.Helper()
	r := run(t, env, append([]string{"nodes", "--json", name}, args...)...)
	if r.status != exitOK {
		t.Fatalf("nodes: status %d\n%s", r.status, r.stderr)
	}
	var nodes []spec.Node
	if err := json.Unmarshal([]byte(r.stdout), &nodes); err != nil {
		t.Fatalf("nodes --json: %v", err)
	}
	return nodes
}

func findNode(t testing.TB, nodes []spec.Node, text string) spec.Node {
	t.Helper()
	i := slices.IndexFunc(nodes, func(n spec.Node) bool { return strings.Contains(n.Label, text) })
	if i < 0 {
		t.Fatalf("no node with %q", text)
	}
	return nodes[i]
}

// TestIngestCheckout builds the memory of the coding conversation and
// reads it back through nodes and show: decisions with rationale and
// rejected alternative, the 401 with its solution and the turn that
// reported it, facts in the third person with their category.
func TestIngestCheckout(t *testing.T) {
	out := filepath.Join(t.TempDir(), "shop.smg")
	r := ingest(t, nil, filepath.Join(conversationsDir, "checkout.json"), "-o", out, "--project", "shop")
	if !strings.Contains(r.stdout, "20 turns (20 new)") || r.stderr != "" {
		t.Errorf("stdout %q, stderr %q", r.stdout, r.stderr)
	}
	validate(t, nil, out)

	r = run(t, nil, "nodes", out, "--type", "decision")
	for _, want := range []string{
		"Stripe Elements",
		"because the designers want the payment form to match the rest of the site; over Stripe Checkout",
		"because the workers kept hitting database is locked errors; over SQLite",
		"superseded 2025-11-03",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("nodes --type decision lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "concept") {
		t.Errorf("--type decision lists other types:\n%s", r.stdout)
	}
	r = run(t, nil, "nodes", out, "--type", "fact")
	if !regexp.MustCompile(`Dana prefers Go for all backend work\.\s+\[preference\]; remembered on request`).MatchString(r.stdout) {
		t.Errorf("the remembered preference:\n%s", r.stdout)
	}

	p401 := findNode(t, nodesJSON(t, nil, out, "--type", "problem"), "401")
	r = run(t, nil, "show", out, p401.ID)
	if r.status != exitOK {
		t.Fatalf("show: status %d: %s", r.status, r.stderr)
	}
	for _, want := range []string{
		"metadata.code  \"HTTP 401\"",
		"← solves 0.90  solution \"Read the body once, verify it with webhook.ConstructEvent",
		"#7 2025-11-03 09:30 Dana (msg-007): I deployed it. The webhook returns 401",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("show lacks %q:\n%s", want, r.stdout)
		}
	}

	var v format.NodeView
	r = run(t, nil, "show", "--json", out, p401.ID)
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || v.Node.ID != p401.ID || len(v.Turns) != 1 {
		t.Errorf("show --json: %v, %+v", err, v)
	}
}

// TestIngestPersonal: the personal conversation gives facts about its two
// speakers by name, people and places.
func TestIngestPersonal(t *testing.T) {
	out := filepath.Join(t.TempDir(), "friends.smg")
	ingest(t, nil, filepath.Join(conversationsDir, "personal.json"), "-o", out)
	validate(t, nil, out)
	facts := nodesJSON(t, nil, out, "--type", "fact")
	brother := findNode(t, facts, "Ana's brother Tomás visited Porto with Ana three days ago (12 April 2024)")
	if brother.Category != spec.CategoryRelationship {
		t.Errorf("the brother's visit is a %s fact", brother.Category)
	}
	concepts := nodesJSON(t, nil, out, "--type", "concept")
	for name, kind := range map[string]string{"Ben": "person", "Lucia": "person", "Lisbon": "place", "Porto": "place"} {
		if got := findNode(t, concepts, name).Metadata["kind"]; got != kind {
			t.Errorf("%s is a %v, want %s", name, got, kind)
		}
	}
	r := run(t, nil, "show", out, "concept-lisbon")
	if !strings.Contains(r.stdout, "← about") || !strings.Contains(r.stdout, "Ana lives in Lisbon now") {
		t.Errorf("show concept-lisbon:\n%s", r.stdout)
	}
}

// TestIngestAppend adds a conversation to an existing memory, an encrypted
// one: turn numbers continue and the file stays encrypted.
func TestIngestAppend(t *testing.T) {
	env := withPassword("correct horse")
	out := filepath.Join(t.TempDir(), "m.smg")
	ingest(t, env, filepath.Join(conversationsDir, "checkout.json"), "-o", out)
	if r := run(t, env, "encrypt", out); r.status != exitOK {
		t.Fatalf("encrypt: %s", r.stderr)
	}
	r := ingest(t, env, filepath.Join(conversationsDir, "personal.json"), "-o", out)
	if !strings.Contains(r.stdout, "42 turns (22 new)") {
		t.Errorf("stdout %q", r.stdout)
	}
	if _, err := format.ReadFile(out, nil); err == nil {
		t.Error("appending decrypted the memory")
	}
	validate(t, env, out)
	lisbon := findNode(t, nodesJSON(t, env, out, "--type", "concept"), "Lisbon")
	if lisbon.FirstMentioned <= 20 {
		t.Errorf("Lisbon is first mentioned at turn %d, in the first conversation's numbers", lisbon.FirstMentioned)
	}
	// Both conversations' nodes are there.
	facts := nodesJSON(t, env, out, "--type", "fact")
	findNode(t, facts, "Dana prefers Go")
	findNode(t, facts, "Ana loves border collies")
}

// TestIngestMalformed: malformed turns are reported with file and position
// and skipped; with --strict nothing is written and an existing memory is
// left as it was.
func TestIngestMalformed(t *testing.T) {
	bad := filepath.Join(importerTestdata, "transcript-malformed.json")
	dir := t.TempDir()
	out := filepath.Join(dir, "m.smg")
	r := ingest(t, nil, bad, "-o", out)
	if n := strings.Count(r.stderr, "(skipped)"); n != 8 {
		t.Errorf("%d turns reported skipped, want 8:\n%s", n, r.stderr)
	}
	if !strings.Contains(r.stderr, "transcript-malformed.json:4:3: $[2]: no content or text (skipped)") {
		t.Errorf("the report does not say where:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "2 turns (2 new)") {
		t.Errorf("stdout %q", r.stdout)
	}

	unchanged := readOnly(t, out)
	r = run(t, nil, "ingest", "--strict", filepath.Join(conversationsDir, "personal.json"), bad, "-o", out)
	if r.status != exitInvalid || !strings.Contains(r.stderr, "transcript-malformed.json:3:3") {
		t.Errorf("--strict: status %d, stderr %q", r.status, r.stderr)
	}
	unchanged("ingest --strict")

	fresh := filepath.Join(dir, "fresh.smg")
	if r := run(t, nil, "ingest", "--strict", bad, "-o", fresh); r.status != exitInvalid {
		t.Errorf("--strict into a new file: status %d", r.status)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("a failed strict ingest left %s: %v", fresh, err)
	}
	if got := entries(t, dir); len(got) != 2 || got[0] != filepath.Base(format.CacheDir(out)) {
		t.Errorf("temporary files left behind: %v, want the memory and its cache folder", got)
	}
}

func TestIngestUsage(t *testing.T) {
	dir := t.TempDir()
	text := writeTemp(t, "notes.txt", []byte("hello world\n"))
	out := filepath.Join(dir, "m.smg")
	tests := []struct {
		args   []string
		status int
		stderr string
	}{
		{[]string{"ingest", "-o", out}, exitUsage, "missing INPUT"},
		{[]string{"ingest", text}, exitUsage, `"output" not set`},
		{[]string{"ingest", text, "-o", out, "--format", "csv"}, exitUsage, `unknown input format "csv"`},
		{[]string{"ingest", text, "-o", out}, exitInvalid, "--format transcript, openai, locomo, aider, chatgpt, claude or claude-code"},
		{[]string{"ingest", filepath.Join(dir, "none.json"), "-o", out}, exitFailure, "no such file"},
		{[]string{"nodes", filepath.Join(testdataDir, "small.smg"), "--type", "widget"}, exitUsage, `node type "widget"`},
		{[]string{"nodes", filepath.Join(testdataDir, "small.smg"), "--sort", "size"}, exitUsage, `sort "size"`},
		{[]string{"show", filepath.Join(testdataDir, "small.smg")}, exitUsage, "want FILE and NODE_ID"},
		{[]string{"show", filepath.Join(testdataDir, "small.smg"), "concept-nowhere"}, exitInvalid, `no node "concept-nowhere"`},
	}
	for _, tt := range tests {
		r := run(t, nil, tt.args...)
		if r.status != tt.status || !strings.Contains(r.stderr, tt.stderr) {
			t.Errorf("%v: status %d, stderr %q; want %d and %q", tt.args, r.status, r.stderr, tt.status, tt.stderr)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed ingest wrote %s", out)
	}
	// An input without turns: TestIngestNothing.
}

// TestIngestSplit writes one memory per conversation of a LoCoMo file.
func TestIngestSplit(t *testing.T) {
	out := filepath.Join(t.TempDir(), "locomo.smg")
	ingest(t, nil, filepath.Join(importerTestdata, "locomo-sample.json"), "-o", out, "--split")
	files, _ := filepath.Glob(strings.TrimSuffix(out, ".smg") + "-*.smg")
	if len(files) < 2 {
		t.Fatalf("--split wrote %v", files)
	}
	for _, f := range files {
		validate(t, nil, f)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--split also wrote %s", out)
	}
}

// TestIngestConversation reads only the conversations --conversation names,
// split or in one memory; an id no input has is a usage error that lists
// those they have, and writes nothing.
func TestIngestConversation(t *testing.T) {
	in := filepath.Join(importerTestdata, "locomo-sample.json")
	dir := t.TempDir()
	out := filepath.Join(dir, "locomo.smg")
	ingest(t, nil, in, "-o", out, "--split", "--conversation", "conv-cd")
	if files, _ := filepath.Glob(filepath.Join(dir, "*.smg")); len(files) != 1 || filepath.Base(files[0]) != "locomo-conv-cd.smg" {
		t.Fatalf("--split --conversation conv-cd wrote %v", files)
	}
	one := filepath.Join(dir, "one.smg")
	ingest(t, nil, in, "-o", one, "--conversation", "conv-ab")
	all := filepath.Join(dir, "all.smg")
	ingest(t, nil, in, "-o", all)
	if a, b := len(archivedTurns(t, one)), len(archivedTurns(t, all)); a == 0 || a >= b {
		t.Errorf("conv-ab alone has %d turns, both %d", a, b)
	}
	none := filepath.Join(dir, "none.smg")
	r := run(t, nil, "ingest", in, "-o", none, "--no-vectors", "--conversation", "conv-z")
	if r.status != exitUsage || !strings.Contains(r.stderr, `"conv-z"`) || !strings.Contains(r.stderr, "conv-ab, conv-cd") {
		t.Errorf("an unknown id: %+v", r)
	}
	if _, err := os.Stat(none); !os.IsNotExist(err) {
		t.Errorf("an unknown id wrote %s", none)
	}
}

// archivedTurns reads every turn of a memory's deep archive through smg
// archive --json.
func archivedTurns(t testing.TB, name string) []spec.Turn {
	t.Helper()
	r := run(t, nil, "archive", "--json", name)
	var blocks []format.BlockInfo
	if err := json.Unmarshal([]byte(r.stdout), &blocks); err != nil || r.status != exitOK {
		t.Fatalf("archive --json: status %d, %v\n%s", r.status, err, r.stderr)
	}
	var turns []spec.Turn
	for _, b := range blocks {
		r := run(t, nil, "archive", "--json", "--block", strconv.Itoa(b.Number), name)
		var v blockView
		if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || r.status != exitOK {
			t.Fatalf("archive --json --block %d: status %d, %v\n%s", b.Number, r.status, err, r.stderr)
		}
		turns = append(turns, v.Turns...)
	}
	return turns
}

// TestIngestChatGPT ingests a ChatGPT export with --format chatgpt: every
// conversation's current branch is in the memory, in order, and nothing of
// the branch its user left (the answer they regenerated and the question
// after it, the only turns about a zeppelin) is, in the archive or in
// search.
func TestIngestChatGPT(t *testing.T) {
	in := filepath.Join(importerTestdata, "chatgpt-branched.json")
	if data, err := os.ReadFile(in); err != nil || !strings.Contains(string(data), "zeppelin") {
		t.Fatalf("%s has no abandoned branch to leave out: %v", in, err)
	}
	out := filepath.Join(t.TempDir(), "chatgpt.smg")
	r := ingest(t, nil, in, "-o", out, "--format", "chatgpt")
	if !strings.Contains(r.stdout, "10 turns (10 new)") || r.stderr != "" {
		t.Errorf("stdout %q, stderr %q", r.stdout, r.stderr)
	}
	validate(t, nil, out)

	turns := archivedTurns(t, out)
	var ids []string
	for _, turn := range turns {
		ids = append(ids, turn.ExternalID)
		if strings.Contains(turn.Content, "zeppelin") {
			t.Errorf("turn %d is of the abandoned branch: %q", turn.Turn, turn.Content)
		}
	}
	if want := []string{
		"f1a27c90-3b5e-4d8f-a6c2-9e0b4d7f1a21", "7e5c1a3d-9b2f-4e8a-b6d4-1f3a5c7e9b66", "2d4f6b8a-0c3e-4a5f-9b7d-c1e3f5a7b977",
		"b8a6c4e2-1d3f-4b5a-8c7e-9f0a2b4c6d88", "4a6c8e0b-2d4f-4a1c-b3e5-d7f9a1b3c599", "d2b4f6a8-0c1e-4a3c-9e5b-7f9b1d3f5acc",
		"8b0d2f4a-6c7e-4a9c-b1d3-f5b7d9f1a3dd", "6a8c0e2b-4d5f-4b7d-a9f1-c3e5a7c9e1ee",
		"a7c9e1b3-5d6f-4a8c-9e0b-2d4f6a8c0e02", "fedcba98-7654-4321-8fed-cba987654304",
	}; !slices.Equal(ids, want) {
		t.Errorf("archived turns %q\nwant %q", ids, want)
	}
	if found := searchJSON(t, out, "zeppelin"); len(found) != 0 {
		t.Errorf("search finds the abandoned branch: %+v", found)
	}
	if found := searchJSON(t, out, "francesinha"); len(found) == 0 || found[0].ExternalID != "6a8c0e2b-4d5f-4b7d-a9f1-c3e5a7c9e1ee" {
		t.Errorf("search does not find the current branch's last turn first: %+v", found)
	}
}

// TestIngestClaude ingests a Claude.ai export and a Claude Code session,
// detected, one memory per conversation with --split, named by the
// conversations' ids; a sub-agent's side chain is in none of them.
func TestIngestClaude(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		file, format string
		memories     map[string]int // file → turns
	}{
		{"claude-export.json", "claude", map[string]int{
			"claude-0f3c9a52-7d1e-4b8a-9c6f-2e5d8a1b4c70.smg": 4, "claude-7a2d5e8b-1c4f-4a7d-b0e3-9f2c5a8d1e60.smg": 2}},
		{"claude-code-session.jsonl", "claude-code", map[string]int{
			"claude-code-3f8e2a71-5c4d-4b9e-a0f6-7d2c1e8b5a94.smg": 10, "claude-code-b71c9d04-2e8f-4a63-9d15-c0a7e4f2b386.smg": 2}},
	} {
		in := filepath.Join(importerTestdata, c.file)
		for _, format := range []string{c.format, "auto"} {
			sub := filepath.Join(dir, format)
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			ingest(t, nil, in, "-o", filepath.Join(sub, c.format+".smg"), "--format", format, "--split")
			for name, n := range c.memories {
				turns := archivedTurns(t, filepath.Join(sub, name))
				if len(turns) != n {
					t.Errorf("%s, --format %s: %s has %d turns, want %d", c.file, format, name, len(turns), n)
				}
				for _, turn := range turns {
					if strings.Contains(turn.Content, "pangolin") {
						t.Errorf("%s: turn %d is the side chain's: %q", name, turn.Turn, turn.Content)
					}
				}
			}
		}
	}
}

// TestIngestBench ingests every conversation of ../shared/bench, when it
// is there, and validates what comes out. Under the race detector it takes
// the LoCoMo file and the smallest aider history; .ci/run also runs it
// without.
func TestIngestBench(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests megabytes")
	}
	inputs, _ := filepath.Glob(filepath.Join(benchDir, "*.json"))
	aider, _ := filepath.Glob(filepath.Join(benchDir, "aider-dev", "[0-9]*.md"))
	if raceEnabled && len(aider) > 0 {
		aider = []string{slices.MinFunc(aider, func(a, b string) int { return cmp.Compare(fileSize(a), fileSize(b)) })}
	}
	inputs = append(inputs, aider...)
	if len(inputs) == 0 {
		t.Skip("no ../shared/bench")
	}
	dir := t.TempDir()
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(dir, filepath.Base(in)+".smg")
			r := ingest(t, nil, "--strict", in, "-o", out)
			if !strings.Contains(r.stdout, " new)") {
				t.Errorf("stdout %q", r.stdout)
			}
			validate(t, nil, out)
		})
	}
}

func fileSize(name string) int64 {
	fi, err := os.Stat(name)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// TestIngestNothing: an input that gives no turns (one read in the wrong
// format, or an empty one) fails with exit status 3 and a reason, and
// writes nothing: no new memory, and an old one byte for byte as it was.
func TestIngestNothing(t *testing.T) {
	checkout := filepath.Join(conversationsDir, "checkout.json")
	empty := writeTemp(t, "empty.json", []byte("[]"))
	old := filepath.Join(t.TempDir(), "old.smg")
	ingest(t, nil, checkout, "-o", old)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{checkout, "--format", "locomo"}, "no turns in it, read as locomo: 20 malformed, skipped (the first: 2:2: $[0]: no conversation); it looks like transcript"},
		{[]string{empty}, "empty.json: no turns in it"},
		// One input without turns fails the run, before the others
		// are written.
		{[]string{checkout, empty}, "empty.json: no turns in it"},
	} {
		out := filepath.Join(t.TempDir(), "new.smg")
		unchanged := readOnly(t, old)
		for _, o := range []string{out, old} {
			r := run(t, nil, append([]string{"ingest", "-o", o}, c.args...)...)
			if r.status != exitInvalid || !strings.Contains(r.stderr, c.want) {
				t.Errorf("ingest %v -o %s: status %d, stderr %q; want %d and %q", c.args, o, r.status, r.stderr, exitInvalid, c.want)
			}
			if strings.Count(r.stderr, "\n") > 2 {
				t.Errorf("ingest %v: more than an error and a hint:\n%s", c.args, r.stderr)
			}
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("ingest %v made %s: %v", c.args, out, err)
		}
		unchanged("ingest " + strings.Join(c.args, " "))
	}
}

// TestIngestAgain: ingesting an input a second time adds nothing and
// leaves the file as it was, whatever its format; an export in which a
// message was edited adds that message, marked, and says so.
func TestIngestAgain(t *testing.T) {
	inputs := []string{filepath.Join(conversationsDir, "checkout.json")}
	for _, name := range []string{
		"transcript-lines.jsonl", "openai-finetune.jsonl", "locomo-sample.json", "aider-architect.md",
		"chatgpt-branched.json", "claude-export.json", "claude-code-session.jsonl",
	} {
		inputs = append(inputs, filepath.Join(importerTestdata, name))
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "m.smg")
			first := ingest(t, nil, in, "-o", out, "--no-vectors")
			unchanged := readOnly(t, out)
			again := ingest(t, nil, in, "-o", out, "--no-vectors")
			unchanged("a second ingest")
			var n, added, held int
			if _, err := fmt.Sscanf(again.stdout[strings.Index(again.stdout, ": ")+2:], "%d turns (%d new, %d held already)", &n, &added, &held); err != nil ||
				added != 0 || held != n || !strings.Contains(first.stdout, fmt.Sprintf("%d turns (%d new)", n, n)) {
				t.Errorf("first %q, again %q (%v)", first.stdout, again.stdout, err)
			}
		})
	}

	// An edited message.
	dir := t.TempDir()
	out := filepath.Join(dir, "m.smg")
	export := `[{"id": "m1", "role": "user", "content": "Which cache should we use?"},
		{"id": "m2", "role": "assistant", "content": "Redis, for its expiry."}]`
	ingest(t, nil, writeTemp(t, "a.json", []byte(export)), "-o", out, "--no-vectors")
	edited := strings.Replace(export, "Redis, for its expiry.", "Memcached, for its speed.", 1) + "\n"
	edited = strings.Replace(edited, "]\n", `, {"id": "m3", "role": "user", "content": "Good."}]`, 1)
	r := ingest(t, nil, writeTemp(t, "b.json", []byte(edited)), "-o", out, "--no-vectors")
	if !strings.Contains(r.stdout, "4 turns (2 new, 1 held already)") ||
		!strings.Contains(r.stderr, `turn 2: turn 3 has the id "m2" of turn 2, with other content: both are kept`) {
		t.Errorf("edited export: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	turns := archivedTurns(t, out)
	if len(turns) != 4 || turns[2].SameIDAs != 2 || turns[2].ExternalID != "m2" {
		t.Errorf("turns %+v", turns)
	}
	validate(t, nil, out)
}

// TestIngestLongTranscript: a transcript longer than ingest holds at once
// is read in pieces into the memory it makes read whole (with --split,
// which takes each conversation whole), and a warning names a turn by its
// number in the conversation, not in its piece.
func TestIngestLongTranscript(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "long.jsonl")
	var b strings.Builder
	const turns = 2*pieceTurns + 500
	for i := 1; i <= turns; i++ {
		id := fmt.Sprintf("m%d", i)
		if i == pieceTurns+800 {
			id = "m10" // an edited message: its id again, other text
		}
		fmt.Fprintf(&b, `{"role": %q, "content": "Turn %d: we ship order %d from Rotterdam with DHL, the Postgres row says %d.", "id": %q}`+"\n",
			[2]string{"user", "assistant"}[i%2], i, i%97, i*7, id)
	}
	if err := os.WriteFile(in, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	pieces := filepath.Join(dir, "pieces.smg")
	r := ingest(t, nil, in, "-o", pieces)
	if !strings.Contains(r.stdout, fmt.Sprintf("%d turns (%d new)", turns, turns)) {
		t.Errorf("stdout %q", r.stdout)
	}
	if want := fmt.Sprintf("turn %d: ", pieceTurns+800); !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q, want a warning of %q", r.stderr, want)
	}
	ingest(t, nil, in, "-o", filepath.Join(dir, "whole.smg"), "--split")
	whole, _ := filepath.Glob(filepath.Join(dir, "whole-*.smg"))
	if len(whole) != 1 {
		t.Fatalf("--split wrote %v", whole)
	}
	validate(t, nil, pieces)
	a, w := nodesJSON(t, nil, pieces), nodesJSON(t, nil, whole[0])
	if len(a) == 0 || !reflect.DeepEqual(a, w) {
		t.Errorf("read in pieces, %d nodes; read whole, %d: not the same", len(a), len(w))
	}
}
