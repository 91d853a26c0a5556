package restore

import (
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/graph/graphtest"
	"github.com/smg-memory/smg/spec"
)

// querySeed is the example query of the seed.
const querySeed = `FIND decisions WHERE topic = "database schema" AND timestamp > "2025-12-01" ORDER BY importance DESC LIMIT 5`

// TestParseQuery parses queries and compares their canonical forms; each
// canonical form parses to itself.
func TestParseQuery(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{querySeed, querySeed},
		{`FIND nodes`, `FIND nodes`},
		{`find *`, `FIND nodes`},
		{`Find Node`, `FIND nodes`},
		{`FIND fact`, `FIND facts`},
		{`FIND concepts`, `FIND concepts`},
		{`FIND problems WHERE CURRENT`, `FIND problems WHERE CURRENT`},
		{`FIND solution where not superseded`, `FIND solutions WHERE NOT SUPERSEDED`},
		{`FIND artifacts LIMIT 3`, `FIND artifacts LIMIT 3`},
		{"FIND decisions\n\tWHERE validfrom >= \"2025-11-03\"\n\tORDER BY TIMESTAMP", `FIND decisions WHERE validFrom >= "2025-11-03" ORDER BY timestamp ASC`},
		// Precedence: NOT, then AND, then OR; only the parentheses it needs.
		{`FIND nodes WHERE pinned = true OR importance > 0.5 AND CURRENT`, `FIND nodes WHERE pinned = true OR importance > 0.5 AND CURRENT`},
		{`FIND nodes WHERE (pinned = true OR importance > 0.5) AND CURRENT`, `FIND nodes WHERE (pinned = true OR importance > 0.5) AND CURRENT`},
		{`FIND nodes WHERE ((pinned = false)) AND (((CURRENT)))`, `FIND nodes WHERE pinned = false AND CURRENT`},
		{`FIND nodes WHERE (label = "a" AND id = "b") AND (type = "c" AND scope = "d")`, `FIND nodes WHERE label = "a" AND id = "b" AND type = "c" AND scope = "d"`},
		{`FIND nodes WHERE label = "a" OR (id = "b" OR type = "c")`, `FIND nodes WHERE label = "a" OR id = "b" OR type = "c"`},
		{`FIND nodes WHERE NOT (label = "a" OR NOT id = "b")`, `FIND nodes WHERE NOT (label = "a" OR NOT id = "b")`},
		{`FIND nodes WHERE NOT NOT CURRENT`, `FIND nodes WHERE NOT NOT CURRENT`},
		// Values: numbers in their shortest form, strings with Go's escapes.
		{`FIND nodes WHERE importance >= 0.50 AND activation < 1e0 AND confidence != -0.25 AND version <= 2 AND mentions = 1E1`,
			`FIND nodes WHERE importance >= 0.5 AND activation < 1 AND confidence != -0.25 AND version <= 2 AND mentions = 10`},
		{`FIND nodes WHERE label = "say \"hi\"\t\u00e9" AND description CONTAINS "naïve"`, `FIND nodes WHERE label = "say \"hi\"\té" AND description CONTAINS "naïve"`},
		{`FIND facts WHERE category = "preference" AND source = "user" AND scope CONTAINS "dana"`, `FIND facts WHERE category = "preference" AND source = "user" AND scope CONTAINS "dana"`},
		{`FIND decisions WHERE outcome = "x" OR rationale CONTAINS "y"`, `FIND decisions WHERE outcome = "x" OR rationale CONTAINS "y"`},
		{`FIND nodes WHERE validTo < "2025-12-01T10:00:00Z" OR lastActivated > "2025-12-01T10:00:00.5+02:00"`, `FIND nodes WHERE validTo < "2025-12-01T10:00:00Z" OR lastActivated > "2025-12-01T10:00:00.5+02:00"`},
		{`FIND nodes WHERE firstMentioned > 3 AND lastMentioned <= 10`, `FIND nodes WHERE firstMentioned > 3 AND lastMentioned <= 10`},
		{`FIND nodes WHERE topic != "go" OR topic contains "stripe"`, `FIND nodes WHERE topic != "go" OR topic CONTAINS "stripe"`},
		{`FIND nodes WHERE match "database locked" ORDER BY score desc, id`, `FIND nodes WHERE MATCH "database locked" ORDER BY score DESC, id ASC`},
		{`FIND nodes ORDER BY pinned DESC, label, lastMentioned DESC LIMIT 10`, `FIND nodes ORDER BY pinned DESC, label ASC, lastMentioned DESC LIMIT 10`},
		// The examples of Appendix B.7.
		{`find * where (pinned = true) and (label = "x" and id = "y")`, `FIND nodes WHERE pinned = true AND label = "x" AND id = "y"`},
		{`find fact where not (pinned=true or importance>0.50) order by label`, `FIND facts WHERE NOT (pinned = true OR importance > 0.5) ORDER BY label ASC`},
		// Keywords are not identifiers, but may start one.
		{`FIND nodes WHERE label = "x" ORDER BY id`, `FIND nodes WHERE label = "x" ORDER BY id ASC`},
	} {
		q, err := ParseQuery(tt.in)
		if err != nil {
			t.Errorf("ParseQuery(%q): %v", tt.in, err)
			continue
		}
		if got := q.String(); got != tt.want {
			t.Errorf("ParseQuery(%q).String()\n got %s\nwant %s", tt.in, got, tt.want)
		}
		again, err := ParseQuery(q.String())
		if err != nil || again.String() != q.String() {
			t.Errorf("the canonical form %q does not parse to itself: %v", q, err)
		}
	}
}

// TestParseQueryErrors checks the position and the message of errors.
func TestParseQueryErrors(t *testing.T) {
	for _, tt := range []struct {
		in, pos, msg string
	}{
		{``, "1:1", "unexpected end of query; expected FIND"},
		{`   `, "1:4", "unexpected end of query; expected FIND"},
		{`decisions`, "1:1", `unexpected "decisions"; expected FIND`},
		{`FIND`, "1:5", "unexpected end of query; expected a node type"},
		{`FIND thing`, "1:6", `unknown node type "thing"`},
		{`FIND decisions WHERE`, "1:21", "unexpected end of query; expected a condition"},
		{`FIND decisions WHERE label = "x" AND`, "1:37", "expected a condition"},
		{`FIND decisions WHERE AND label = "x"`, "1:22", `unexpected "AND"; expected a condition`},
		{`FIND decisions WHERE topc = "x"`, "1:22", `unknown field "topc"`},
		{"FIND decisions\nWHERE CURRENT\n  AND foo = 1", "3:7", `unknown field "foo"`},
		{`FIND decisions WHERE importance > "abc"`, "1:35", `importance is a number, not "abc"`},
		{`FIND decisions WHERE importance = true`, "1:35", `importance is a number, not true`},
		{`FIND decisions WHERE label = 3`, "1:30", `label is a string, not 3`},
		{`FIND decisions WHERE pinned = "yes"`, "1:31", `pinned is true or false, not "yes"`},
		{`FIND decisions WHERE pinned > true`, "1:29", `pinned is true or false: it takes = and != only`},
		{`FIND decisions WHERE label < "abc"`, "1:28", "label is a string: it takes = and != only"},
		{`FIND decisions WHERE importance CONTAINS "x"`, "1:33", "CONTAINS takes a string field; importance is a number"},
		{`FIND decisions WHERE label CONTAINS 3`, "1:37", "CONTAINS takes a string in double quotes, not 3"},
		{`FIND facts WHERE category = preference`, "1:29", `category takes a string in double quotes: write "preference"`},
		{`FIND decisions WHERE timestamp > "yesterday"`, "1:34", `"yesterday" is neither a date`},
		{`FIND decisions WHERE timestamp > "2025-13-01"`, "1:34", `neither a date`},
		{`FIND decisions WHERE validTo < 2025`, "1:32", `validTo is a time: write it in double quotes`},
		{`FIND decisions WHERE label = "abc`, "1:30", "unterminated string"},
		{`FIND decisions WHERE label = "a\qb"`, "1:30", `bad escape in string "a\qb"`},
		{`FIND decisions WHERE label @ "abc"`, "1:28", `unexpected character "@"`},
		{`FIND decisions WHERE label == "abc"`, "1:29", `unexpected "="; expected a value`},
		{`FIND decisions WHERE label "abc"`, "1:28", `unexpected "abc"`},
		{`FIND decisions WHERE (label = "abc"`, "1:36", "unexpected end of query; expected )"},
		{`FIND decisions WHERE label = "abc")`, "1:35", `unexpected ")"`},
		{`FIND decisions WHERE MATCH 3`, "1:28", "MATCH takes a string in double quotes, not 3"},
		{`FIND decisions WHERE MATCH "  "`, "1:28", "MATCH needs some text"},
		{`FIND decisions WHERE importance > 1e999`, "1:35", "number 1e999 is out of range"},
		{`FIND decisions WHERE score > 1`, "1:22", "WHERE does not take score"},
		{`FIND decisions ORDER importance`, "1:22", `unexpected "importance"; expected BY`},
		{`FIND decisions ORDER BY`, "1:24", "unexpected end of query; expected a field"},
		{`FIND decisions ORDER BY topic`, "1:25", "ORDER BY does not take topic"},
		{`FIND decisions ORDER BY importance DESC,`, "1:41", "expected a field"},
		{`FIND decisions LIMIT 0`, "1:22", "LIMIT takes a whole number of at least 1, not 0"},
		{`FIND decisions LIMIT 2.5`, "1:22", "LIMIT takes a whole number of at least 1, not 2.5"},
		{`FIND decisions LIMIT 99999999999999999999`, "1:22", "LIMIT takes a whole number"},
		{`FIND decisions LIMIT 5 LIMIT 6`, "1:24", `unexpected "LIMIT"`},
		{`FIND decisions WHERE label = "é" AND é`, "1:38", `unexpected character "é"`},
		{"FIND decisions WHERE label = \"\xff\"", "1:31", "not valid UTF-8"},
		{"FIND nodes WHERE\n\tlabel = \"x\" OR\n\t\t(id = )", "3:9", `unexpected ")"; expected a value`},
		{"FIND nodes " + strings.Repeat("(", maxQueryLength), "1:1", "longer than"},
	} {
		_, err := ParseQuery(tt.in)
		var qe *QueryError
		if !errors.As(err, &qe) {
			t.Errorf("ParseQuery(%q): %v, want a *QueryError", tt.in, err)
			continue
		}
		if qe.Pos.String() != tt.pos || !strings.Contains(qe.Msg, tt.msg) {
			t.Errorf("ParseQuery(%q):\n got %v\nwant %s: …%s…", tt.in, err, tt.pos, tt.msg)
		}
		if !strings.HasPrefix(err.Error(), tt.pos+": ") {
			t.Errorf("ParseQuery(%q): %q does not start with the position", tt.in, err)
		}
		// Offset and Line:Column say the same.
		if p := positionAt(tt.in, qe.Pos.Offset); p != qe.Pos && len(tt.in) <= maxQueryLength {
			t.Errorf("ParseQuery(%q): position %+v, but its offset is at %+v", tt.in, qe.Pos, p)
		}
	}
}

func TestQueryErrorExcerpt(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`FIND decisions WHERE topc = "x"`, "FIND decisions WHERE topc = \"x\"\n                     ^"},
		{"FIND decisions\n\tWHERE nave = 1\nLIMIT 2", "\tWHERE nave = 1\n\t      ^"},
		{"FIND decisions\n\tWHERE naïve = 1\nLIMIT 2", "\tWHERE naïve = 1\n\t        ^"},
		{"FIND decisions\r\nWHERE", "WHERE\n     ^"},
		{"FIND decisions WHERE label = \"é\" AND é", "FIND decisions WHERE label = \"é\" AND é\n                                     ^"},
	} {
		_, err := ParseQuery(tt.in)
		var qe *QueryError
		if !errors.As(err, &qe) {
			t.Fatalf("ParseQuery(%q): %v", tt.in, err)
		}
		if got := qe.Excerpt(); got != tt.want {
			t.Errorf("ParseQuery(%q): %v; excerpt\n%s\nwant\n%s", tt.in, err, got, tt.want)
		}
	}
}

// queryMemory builds the memory of the checkout conversation.
func queryMemory(t testing.TB) *spec.Document {
	t.Helper()
	b := graph.New(graph.Config{}, graph.Options{})
	for _, tu := range graphtest.Conversation(t, "checkout.json") {
		if err := b.Add(tu); err != nil {
			t.Fatal(err)
		}
	}
	return b.Document()
}

// queryIDs runs a query and returns the ids of the nodes it finds.
func queryIDs(t testing.TB, doc *spec.Document, m Matcher, query string) []string {
	t.Helper()
	q, err := ParseQuery(query)
	if err != nil {
		t.Fatalf("ParseQuery(%q): %v", query, err)
	}
	nodes, err := q.Run(doc, m)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	var out []string
	for _, n := range nodes {
		out = append(out, n.ID)
	}
	return out
}

// The nodes of the checkout memory the tests name.
const (
	idPostgres    = "decision-postgresql"
	idSQLite      = "decision-sqlite"
	idElements    = "decision-stripe-elements"
	idPreferGo    = "fact-dana-prefers-go-for-all-backend-work"
	idWorksWith   = "fact-dana-is-working-on-the-shop-with-their"
	idWebhook     = "artifact-checkout-webhook-go"
	idPaymentForm = "artifact-web-src-paymentform-jsx"
	idLockedDB    = "problem-we-were-storing-orders-in-sqlite-but-two"
)

// TestRunCheckout runs queries on the memory of the checkout
// conversation: decisions by topic, validity and time, facts by category,
// orders and limits.
func TestRunCheckout(t *testing.T) {
	doc := queryMemory(t)
	for _, tt := range []struct {
		query string
		want  []string // in order
	}{
		// Topic: the node's own text, or a linked node's name.
		{`FIND decisions WHERE topic CONTAINS "database"`, []string{idPostgres, idSQLite}},
		{`FIND decisions WHERE topic = "database"`, []string{idPostgres, idSQLite}},
		{`FIND decisions WHERE topic = "datab"`, nil},
		{`FIND artifacts WHERE topic = "PostgreSQL"`, []string{idWebhook}}, // decision-postgresql resulted_in it
		{`FIND artifacts WHERE topic = "postgres"`, nil},
		{`FIND artifacts WHERE topic CONTAINS "postgres"`, []string{idWebhook}},
		{`FIND artifacts WHERE topic != "PostgreSQL"`, []string{idPaymentForm}},
		{`FIND facts WHERE topic = "go"`, []string{idPreferGo}},
		{`FIND concepts WHERE topic = "Strip"`, nil},
		// Validity.
		{`FIND decisions WHERE SUPERSEDED`, []string{idSQLite}},
		{`FIND decisions WHERE CURRENT`, []string{idPostgres, idElements}},
		{`FIND decisions WHERE NOT CURRENT`, []string{idSQLite}},
		{`FIND decisions WHERE topic CONTAINS "database" AND CURRENT`, []string{idPostgres}},
		// Strings: = is case-insensitive, CONTAINS a substring; a node
		// without the field matches neither = nor !=.
		{`FIND facts WHERE category = "preference"`, []string{idPreferGo}},
		{`FIND facts WHERE category = "PREFERENCE" OR category = "relationship"`, []string{idPreferGo, idWorksWith}},
		{`FIND nodes WHERE category = "preference"`, []string{idPreferGo}},
		{`FIND facts WHERE source = "user"`, []string{idPreferGo}},
		{`FIND decisions WHERE rationale CONTAINS "Designers"`, []string{idElements}},
		{`FIND decisions WHERE rationale != "nothing"`, []string{idPostgres, idElements}},
		{`FIND decisions WHERE NOT rationale = "nothing"`, []string{idPostgres, idElements, idSQLite}},
		{`FIND decisions WHERE label = "sqlite (before postgresql)"`, []string{idSQLite}},
		{`FIND decisions WHERE outcome = "sqlite"`, []string{idSQLite}},
		{`FIND nodes WHERE id = "decision-sqlite" OR outcome = "stripe elements"`, []string{idElements, idSQLite}},
		{`FIND nodes WHERE type = "decision"`, []string{idPostgres, idElements, idSQLite}},
		// Numbers and turns.
		{`FIND decisions WHERE confidence < 0.6`, []string{idSQLite}},
		{`FIND decisions WHERE importance >= 0.4 AND importance <= 0.7`, []string{idPostgres, idElements}},
		{`FIND decisions WHERE firstMentioned = 3 OR lastMentioned > 14`, []string{idPostgres, idElements, idSQLite}},
		{`FIND decisions WHERE mentions = 1 AND version = 1`, []string{idPostgres, idElements, idSQLite}},
		{`FIND nodes WHERE pinned = true`, nil},
		{`FIND facts WHERE pinned != true`, []string{idPreferGo, idWorksWith}},
		// Times: a date is a whole UTC day, an RFC 3339 time an instant.
		{`FIND decisions WHERE timestamp > "2025-11-03T09:30:00Z"`, []string{idPostgres, idSQLite}},
		{`FIND decisions WHERE timestamp <= "2025-11-03T10:18:00+01:00"`, []string{idElements}},
		{`FIND decisions WHERE timestamp = "2025-11-03T09:54:00Z"`, []string{idPostgres, idSQLite}},
		{`FIND decisions WHERE timestamp = "2025-11-03"`, []string{idPostgres, idElements, idSQLite}},
		{`FIND decisions WHERE timestamp > "2025-11-03"`, nil},
		{`FIND decisions WHERE timestamp >= "2025-11-03" AND timestamp < "2025-11-04"`, []string{idPostgres, idElements, idSQLite}},
		{`FIND decisions WHERE timestamp <= "2025-11-02" OR timestamp != "2025-11-03"`, nil},
		{`FIND facts WHERE timestamp > "2025-11-03T10:00:00Z"`, []string{idWorksWith}}, // a fact's validFrom
		{`FIND decisions WHERE validTo = "2025-11-03"`, []string{idSQLite}},
		{`FIND nodes WHERE validTo > "2000-01-01" OR validTo <= "2000-01-01"`, []string{idSQLite}},
		// Order and limit.
		{`FIND decisions ORDER BY label`, []string{idPostgres, idSQLite, idElements}},
		{`FIND decisions ORDER BY label DESC LIMIT 2`, []string{idElements, idSQLite}},
		{`FIND decisions ORDER BY timestamp DESC, confidence ASC`, []string{idSQLite, idPostgres, idElements}},
		{`FIND decisions ORDER BY validTo`, []string{idSQLite, idPostgres, idElements}}, // without one last, then by id
		{`FIND decisions ORDER BY validTo DESC`, []string{idSQLite, idPostgres, idElements}},
		{`FIND decisions LIMIT 1`, []string{idPostgres}},
		{`FIND facts ORDER BY firstMentioned DESC LIMIT 1`, []string{idWorksWith}},
		// MATCH without a matcher: every word, in label, aliases,
		// description, rationale or outcome.
		{`FIND nodes WHERE MATCH "Database LOCKED"`, []string{idPostgres, idSQLite, idLockedDB}},
		{`FIND decisions WHERE MATCH "database" AND NOT MATCH "replaced"`, []string{idPostgres}},
		{`FIND nodes WHERE MATCH "datab"`, nil},
	} {
		got := queryIDs(t, doc, nil, tt.query)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s\n got %q\nwant %q", tt.query, got, tt.want)
		}
	}
}

// TestSpecExamples runs the examples of spec/smg-v1.md, Appendix B.8, on
// the memory of Appendix A.
func TestSpecExamples(t *testing.T) {
	b, err := os.ReadFile("../spec/smg-v1.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	section := func(from, to string) string {
		i := strings.Index(text, "\n"+from)
		if i < 0 {
			t.Fatalf("the spec has no heading %q", from)
		}
		rest := text[i+1:]
		if j := strings.Index(rest[1:], "\n"+to); j >= 0 {
			rest = rest[:j+1]
		}
		return rest
	}
	m := regexp.MustCompile("(?s)\n```json\n(.*?)\n```\n").FindStringSubmatch(section("## Appendix A", "## "))
	if m == nil {
		t.Fatal("Appendix A has no JSON block")
	}
	var doc spec.Document
	if err := json.Unmarshal([]byte(m[1]), &doc); err != nil {
		t.Fatalf("Appendix A: %v", err)
	}
	rows := regexp.MustCompile("(?m)^\\| `(FIND [^`]*)` \\| (.*) \\|$").FindAllStringSubmatch(section("### B.8", "## "), -1)
	if len(rows) < 10 {
		t.Fatalf("found %d examples in Appendix B.8", len(rows))
	}
	for _, row := range rows {
		// The ids in backquotes, but not those of a note in parentheses
		// or after "nothing".
		var want []string
		if !strings.HasPrefix(row[2], "nothing") {
			finds := regexp.MustCompile(`\([^)]*\)`).ReplaceAllString(row[2], "")
			for _, id := range regexp.MustCompile("`([^`]*)`").FindAllStringSubmatch(finds, -1) {
				want = append(want, id[1])
			}
		}
		if got := queryIDs(t, &doc, nil, row[1]); !slices.Equal(got, want) {
			t.Errorf("%s\n got %q\nwant %q (Appendix B.8)", row[1], got, want)
		}
	}
}

// TestRunDefaultOrder: without ORDER BY, the most important first, then
// by id; the nodes come back whole.
func TestRunDefaultOrder(t *testing.T) {
	doc := queryMemory(t)
	q, err := ParseQuery(`FIND *`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := q.Run(doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(doc.SemanticGraph.Nodes) {
		t.Fatalf("FIND * found %d of %d nodes", len(got), len(doc.SemanticGraph.Nodes))
	}
	want := slices.Clone(doc.SemanticGraph.Nodes)
	slices.SortStableFunc(want, func(a, b spec.Node) int {
		switch {
		case a.Importance > b.Importance:
			return -1
		case a.Importance < b.Importance:
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Label != want[i].Label || !slices.Equal(got[i].Mentions, want[i].Mentions) {
			t.Fatalf("node %d is %s, want %s", i, got[i].ID, want[i].ID)
		}
	}
}

// fixedMatcher is a Matcher with fixed answers.
type fixedMatcher map[string]map[string]float64

func (m fixedMatcher) Match(text string) (map[string]float64, error) {
	if res, ok := m[text]; ok {
		return res, nil
	}
	return nil, errNoMatch
}

var errNoMatch = errors.New("no such text")

func TestRunMatcher(t *testing.T) {
	doc := queryMemory(t)
	m := fixedMatcher{
		"database":   {idPostgres: 0.5, "concept-stripe": 2, "no-such-node": 9},
		"backend go": {idPreferGo: 1, "concept-stripe": 0.25},
	}
	for _, tt := range []struct {
		query string
		want  []string
	}{
		{`FIND nodes WHERE MATCH "database"`, []string{idPostgres, "concept-stripe"}},
		{`FIND nodes WHERE MATCH "database" ORDER BY score DESC`, []string{"concept-stripe", idPostgres}},
		{`FIND nodes WHERE MATCH "database" OR MATCH "backend go" ORDER BY score DESC`, []string{"concept-stripe", idPreferGo, idPostgres}},
		{`FIND nodes WHERE MATCH "database" AND MATCH "backend go"`, []string{"concept-stripe"}},
		{`FIND decisions WHERE MATCH "database" ORDER BY score`, []string{idPostgres}},
	} {
		if got := queryIDs(t, doc, m, tt.query); !slices.Equal(got, tt.want) {
			t.Errorf("%s\n got %q\nwant %q", tt.query, got, tt.want)
		}
	}
	q, err := ParseQuery(`FIND nodes WHERE CURRENT AND MATCH "something else"`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Run(doc, m); !errors.Is(err, errNoMatch) || !strings.Contains(err.Error(), `MATCH "something else"`) {
		t.Errorf("a matcher's error: %v", err)
	}
}

// TestRunValidity: CURRENT and SUPERSEDED against the memory's present, the
// time of its last turn.
func TestRunValidity(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	doc := spec.New("m", at("2030-01-01T00:00:00Z")) // modified long after the last turn
	doc.WorkingMemory.RecentContext = []spec.Turn{{Turn: 1, Content: "x", Timestamp: at("2025-06-01T12:00:00Z")}}
	node := func(id, validTo string) spec.Node {
		n := spec.Node{ID: id, Type: spec.NodeFact, Label: id, Version: 1}
		if validTo != "" {
			n.ValidTo = at(validTo)
		}
		return n
	}
	doc.SemanticGraph.Nodes = []spec.Node{
		node("fact-closed", "2025-06-01T11:00:00Z"),
		node("fact-closes-now", "2025-06-01T12:00:00Z"),
		node("fact-closes-later", "2025-06-02T00:00:00Z"),
		node("fact-open", ""),
		node("fact-replaced", ""),
		node("fact-replacement", ""),
	}
	doc.SemanticGraph.Edges = []spec.Edge{{From: "fact-replacement", To: "fact-replaced", Relation: spec.RelSupersedes, Strength: 1}}
	if got, want := queryIDs(t, doc, nil, `FIND facts WHERE CURRENT ORDER BY id`), []string{"fact-closes-later", "fact-open", "fact-replacement"}; !slices.Equal(got, want) {
		t.Errorf("CURRENT: %q, want %q", got, want)
	}
	if got, want := queryIDs(t, doc, nil, `FIND facts WHERE SUPERSEDED ORDER BY id`), []string{"fact-closed", "fact-closes-now", "fact-replaced"}; !slices.Equal(got, want) {
		t.Errorf("SUPERSEDED: %q, want %q", got, want)
	}
	// Without turn times, the present is metadata.modified.
	doc.WorkingMemory.RecentContext[0].Timestamp = time.Time{}
	if got, want := queryIDs(t, doc, nil, `FIND facts WHERE CURRENT ORDER BY id`), []string{"fact-open", "fact-replacement"}; !slices.Equal(got, want) {
		t.Errorf("CURRENT at metadata.modified: %q, want %q", got, want)
	}
}

func TestHasPhrase(t *testing.T) {
	for _, tt := range []struct {
		text, phrase string
		want         bool
	}{
		{"we use go for it", "go", true},
		{"go", "go", true},
		{"good", "go", false},
		{"ago, go", "go", true},
		{"gogo go", "go", true},
		{"c++ and c", "c++", true},
		{"c++x", "c++", true},
		{"database schema changes", "database schema", true},
		{"database schemas", "database schema", false},
		{"naïve", "na", false},
		{"anything", "", true},
		{"", "x", false},
	} {
		if got := hasPhrase(tt.text, tt.phrase); got != tt.want {
			t.Errorf("hasPhrase(%q, %q) = %v", tt.text, tt.phrase, got)
		}
	}
}

// FuzzParseQuery: the parser never panics, errors have a position inside
// the text, and a query that parses prints to a query that parses to the
// same text.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		querySeed,
		`FIND nodes WHERE (pinned = true OR importance > 0.5) AND NOT CURRENT ORDER BY score DESC, id LIMIT 3`,
		`find facts where category = "preference" and scope contains "user:" or match "go backend"`,
		`FIND decisions WHERE validTo < "2025-12-01T10:00:00.5+02:00" AND SUPERSEDED`,
		`FIND * WHERE label = "a\"b\\c\u00e9\x41" AND mentions >= 1e1`,
		"FIND nodes\nWHERE\ttopic != \"x\"",
		`FIND decisions WHERE label = "abc`,
		`FIND decisions WHERE (`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		q, err := ParseQuery(src)
		if err != nil {
			var qe *QueryError
			if !errors.As(err, &qe) {
				t.Fatalf("%q: %v is not a *QueryError", src, err)
			}
			if qe.Pos.Offset < 0 || qe.Pos.Offset > len(src) || qe.Pos.Line < 1 || qe.Pos.Column < 1 {
				t.Fatalf("%q: %v: position %+v", src, err, qe.Pos)
			}
			_ = qe.Excerpt()
			return
		}
		s := q.String()
		again, err := ParseQuery(s)
		if err != nil {
			t.Fatalf("%q prints as %q, which does not parse: %v", src, s, err)
		}
		if again.String() != s {
			t.Fatalf("%q prints as %q, which prints as %q", src, s, again.String())
		}
	})
}
