package main

import (
	"cmp"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/smgtest"
)

// searchJSON runs smg search --json and returns the hits.
func searchJSON(t testing.TB, args ...string) []smg.Found {
	t.Helper()
	r := run(t, nil, append([]string{"search", "--json"}, args...)...)
	if r.status != exitOK || r.stderr != "" {
		t.Fatalf("search --json %q: status %d: %s", args, r.status, r.stderr)
	}
	var found []smg.Found
	if err := json.Unmarshal([]byte(r.stdout), &found); err != nil || found == nil {
		t.Fatalf("search --json %q: %v\n%s", args, err, r.stdout)
	}
	return found
}

func TestSearchCommand(t *testing.T) {
	name, _ := checkoutFile(t)
	unchanged := readOnly(t, name)

	r := run(t, nil, "search", name, "database is locked")
	if r.status != exitOK || r.stderr != "" {
		t.Fatalf("search: status %d: %s", r.status, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if strings.Join(strings.Fields(lines[0]), " ") != "KIND ID SCORE TEXT" || len(lines) < 4 {
		t.Fatalf("search:\n%s", r.stdout)
	}
	// The turns that said it, with their external ids and their text, and
	// the nodes, with their labels.
	for _, re := range []string{
		`(?m)^turn +turn 15 \(msg-015\) +[0-9.]+ +We switched from SQLite to PostgreSQL because the workers kept hitting database…$`,
		`(?m)^turn +turn 13 \(msg-013\) +[0-9.]+ +We were storing orders in SQLite`,
		`(?m)^node +decision-postgresql +[0-9.]+ +PostgreSQL$`,
	} {
		if !regexp.MustCompile(re).MatchString(r.stdout) {
			t.Errorf("search lacks %s:\n%s", re, r.stdout)
		}
	}

	// --json: best first, each with its score.
	found := searchJSON(t, name, "database is locked")
	if len(found) != len(lines)-1 {
		t.Errorf("--json: %d hits, %d without it", len(found), len(lines)-1)
	}
	if !slices.IsSortedFunc(found, func(a, b smg.Found) int { return cmp.Compare(b.Score, a.Score) }) {
		t.Errorf("--json: not best first: %+v", found)
	}
	// The best turn is the one that said it, among the first hits (the
	// decisions it stated may rank beside it).
	best := slices.IndexFunc(found, func(f smg.Found) bool { return f.Kind == "turn" })
	if f := found[max(best, 0)]; best < 0 || best > 2 || f.Turn != 15 || f.ExternalID != "msg-015" || f.Score <= 0 {
		t.Errorf("--json: the best turn is %+v at %d, want turn 15 (msg-015) among the first three", f, best)
	}

	// --limit keeps the best.
	if two := searchJSON(t, name, "database is locked", "--limit", "2"); !slices.EqualFunc(two, found[:2], func(a, b smg.Found) bool {
		return a.Kind == b.Kind && a.NodeID == b.NodeID && a.Turn == b.Turn
	}) {
		t.Errorf("--limit 2: %+v, want the first two of %+v", two, found)
	}

	// Nothing found: the header alone, or an empty list.
	if r := run(t, nil, "search", name, "zeppelin"); r.status != exitOK || strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("search for nothing: status %d:\n%s", r.status, r.stdout)
	}
	if found := searchJSON(t, name, "zeppelin"); len(found) != 0 {
		t.Errorf("search --json for nothing: %+v", found)
	}
	unchanged("search")
}

// TestDamagedBlockFailsAlone: an archive block that cannot be read (here
// one beyond MaxBlockSize) costs search and context its own turns only:
// the other block's turns are still found, the damaged block is named,
// the status is exitInvalid, and no index cache hides it from the next
// run.
func TestDamagedBlockFailsAlone(t *testing.T) {
	vs, err := smgtest.Load(filepath.Join(testdataDir, "vectors"))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(vs, func(v *smgtest.Vector) bool { return v.Name == "invalid-block-oversized" })
	if i < 0 {
		t.Fatal("no vector invalid-block-oversized")
	}
	name := writeTemp(t, "m.smg", vs[i].Body)
	const damaged = "archive block block-0001: archive block exceeds the size limit"
	// Turn 10, in block-0002 (turns 9 to 12), says where the checkout stands.
	for _, args := range [][]string{
		{"search", name, "where the checkout stands"},
		{"search", name, "where the checkout stands"}, // again, after a first index
		{"context", name, "where does the checkout stand?"},
	} {
		r := run(t, nil, args...)
		if r.status != exitInvalid || !strings.Contains(r.stderr, name+": "+damaged) {
			t.Errorf("%s: status %d, want %d; stderr:\n%s", args[0], r.status, exitInvalid, r.stderr)
		}
		if !regexp.MustCompile(`(?m)turn.* 10 \(msg-010\)`).MatchString(r.stdout) {
			t.Errorf("%s: turn 10 of block-0002 not found:\n%s", args[0], r.stdout)
		}
	}
}
