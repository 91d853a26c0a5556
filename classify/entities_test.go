package classify

import (
	"slices"
	"testing"
)

// TestEntityOrder pins what each entity finder finds and the order the
// finders run in: the entities of a turn come in the order of the finders
// (URLs, code spans, errors, HTTP statuses, then the words' paths,
// identifiers and names), each kind in the order of the prose; a span
// found first is not found again, but a name may run over an error ("Python
// TypeError") and over a word that alone would be an identifier ("Alice
// My_Var").
func TestEntityOrder(t *testing.T) {
	text := "See https://go.dev/doc and `src/app` then ENOENT, a 404 error and TS2345.\n" +
		"I met Alice My_Var in Python TypeError land. With PostgreSQL we moved to New York City.\n" +
		"Take Pico to docs/api/README.md and call useState or max_retries."
	type ent struct {
		Text, Kind    string
		Start, End    int
		SentenceStart bool
		Hint, Tail    string
	}
	want := []ent{
		{"https://go.dev/doc", "url", 4, 22, false, "", ""},
		{"src/app", "path", 28, 35, false, "", ""},
		{"ENOENT", "error", 42, 48, false, "", ""},
		{"TS2345", "error", 66, 72, false, "", ""},
		{"TypeError", "error", 103, 112, false, "", ""},
		{"HTTP 404", "error", 52, 55, false, "", ""},
		{"See", "name", 0, 3, true, "", ""},
		{"Alice My_Var", "name", 80, 92, false, "person", ""},
		{"Python TypeError", "name", 96, 112, false, "", ""},
		{"PostgreSQL", "name", 124, 134, false, "", ""},
		{"New York City", "name", 147, 160, false, "place", ""},
		{"Take Pico", "name", 162, 171, true, "", "Pico"},
		{"docs/api/README.md", "path", 175, 193, false, "", ""},
		{"useState", "identifier", 203, 211, false, "", ""},
		{"max_retries", "identifier", 215, 226, false, "", ""},
	}
	var got []ent
	for _, e := range analyze(text).Entities {
		got = append(got, ent{e.Text, e.Kind, e.Start, e.End, e.SentenceStart, e.Hint, e.Tail})
	}
	if !slices.Equal(got, want) {
		t.Errorf("entities\n got %v\nwant %v", got, want)
	}
}
