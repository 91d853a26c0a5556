package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/smg-memory/smg/spec"
)

// seedQuery is the example query of the seed.
const seedQuery = `FIND decisions WHERE topic = "database schema" AND timestamp > "2025-12-01" ORDER BY importance DESC LIMIT 5`

// queryIDs runs smg query --json and returns the ids of the nodes.
func queryIDs(t testing.TB, name, query string) []string {
	t.Helper()
	r := run(t, nil, "query", "--json", name, query)
	if r.status != exitOK || r.stderr != "" {
		t.Fatalf("query %q: status %d: %s", query, r.status, r.stderr)
	}
	var nodes []spec.Node
	if err := json.Unmarshal([]byte(r.stdout), &nodes); err != nil || nodes == nil {
		t.Fatalf("query --json %q: %v\n%s", query, err, r.stdout)
	}
	ids := []string{}
	for _, n := range nodes {
		ids = append(ids, n.ID)
	}
	return ids
}

func TestQueryCommand(t *testing.T) {
	name, _ := checkoutFile(t)
	unchanged := readOnly(t, name)

	// The seed's example: nothing in this memory is from December.
	r := run(t, nil, "query", name, seedQuery)
	if r.status != exitOK || r.stderr != "" || strings.Join(strings.Fields(r.stdout), " ") != "TYPE ID IMPORTANCE ACTIVATION LAST LABEL" {
		t.Errorf("the seed's query: status %d, stdout %q, stderr %q", r.status, r.stdout, r.stderr)
	}
	if ids := queryIDs(t, name, seedQuery); len(ids) != 0 {
		t.Errorf("the seed's query found %q", ids)
	}

	// In November, the database decisions, the current one first.
	q := `FIND decisions WHERE topic = "database" AND timestamp > "2025-11-01" ORDER BY importance DESC LIMIT 5`
	r = run(t, nil, "query", name, q)
	if r.status != exitOK || r.stderr != "" {
		t.Fatalf("query: status %d: %s", r.status, r.stderr)
	}
	if !regexp.MustCompile(`(?s)decision-postgresql .*because the workers kept hitting database is locked errors; over SQLite\n.*decision-sqlite .*superseded 2025-11-03\n$`).MatchString(r.stdout) {
		t.Errorf("query %q:\n%s", q, r.stdout)
	}
	for _, tt := range []struct {
		query string
		want  []string
	}{
		{q, []string{"decision-postgresql", "decision-sqlite"}},
		{`FIND decisions WHERE SUPERSEDED`, []string{"decision-sqlite"}},
		{`find facts where category = "preference"`, []string{"fact-dana-prefers-go-for-all-backend-work"}},
		{`FIND decisions WHERE CURRENT ORDER BY timestamp LIMIT 1`, []string{"decision-stripe-elements"}},
	} {
		if got := queryIDs(t, name, tt.query); !slices.Equal(got, tt.want) {
			t.Errorf("query %q: %q, want %q", tt.query, got, tt.want)
		}
	}
	unchanged("query")
}

// TestQueryErrors: a query that does not parse is a usage error, shown
// with the line of the query and a caret under the column; the file is not
// read.
func TestQueryErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.smg")
	for _, tt := range []struct {
		query  string
		stderr string
	}{
		{`FIND decisions WHERE topc = "x"`, "smg: query: 1:22: unknown field \"topc\"\n" +
			"  FIND decisions WHERE topc = \"x\"\n" +
			"                       ^\n" +
			"smg: hint: run 'smg query --help' for usage\n"},
		{"FIND decisions\n\tWHERE CURRENT AND\n\timportance > \"high\"", "smg: query: 3:15: importance is a number, not \"high\"\n" +
			"  \timportance > \"high\"\n" +
			"  \t             ^\n"},
		{`FIND decisions WHERE`, "smg: query: 1:21: unexpected end of query; expected a condition\n" +
			"  FIND decisions WHERE\n" +
			"                      ^\n"},
		{`FIND things`, "smg: query: 1:6: unknown node type \"things\""},
	} {
		r := run(t, nil, "query", missing, tt.query)
		if r.status != exitUsage || r.stdout != "" || !strings.HasPrefix(r.stderr, tt.stderr) {
			t.Errorf("query %q: status %d, stdout %q, stderr\n%s\nwant status %d and\n%s", tt.query, r.status, r.stdout, r.stderr, exitUsage, tt.stderr)
		}
	}

	for _, args := range [][]string{{"query"}, {"query", missing}, {"query", missing, "FIND", "nodes"}} {
		if r := run(t, nil, args...); r.status != exitUsage {
			t.Errorf("%q: status %d: %s", args, r.status, r.stderr)
		}
	}
	// A good query on a file that is not there is not a usage error.
	if r := run(t, nil, "query", missing, "FIND nodes"); r.status != exitFailure {
		t.Errorf("a missing file: status %d: %s", r.status, r.stderr)
	}
}
