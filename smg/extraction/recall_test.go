package extraction_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg/extraction"
	"github.com/smg-memory/smg/spec"
)

func conv(source, id string, texts ...string) extraction.Conversation {
	c := extraction.Conversation{Source: source, ID: id}
	for i, text := range texts {
		c.Turns = append(c.Turns, spec.Turn{Turn: i + 1, ExternalID: fmt.Sprintf("%s-%d", id, i+1), Role: "user", Content: text})
	}
	return c
}

// The sample of turns takes as many turns from each source as it has, the
// smallest keys first, skips the turns with nothing to extract, and keeps
// a turn's key, and its place in the sample, whatever the order of the
// conversations or the numbers of the turns.
func TestSampleTurns(t *testing.T) {
	var many []string
	for i := range 20 {
		many = append(many, fmt.Sprintf("We moved the service to region %d.", i))
	}
	a := conv("a", "long", many...)
	b := conv("b", "short", "We chose PostgreSQL.", "", "thanks!", "I live in Lisbon.")
	c := conv("c", "other", "ok")
	convs := []extraction.Conversation{a, b, c}

	s := extraction.SampleTurns(convs, 6)
	perSource := map[string]int{}
	for _, tr := range s {
		perSource[tr.Source]++
		if text := convs[slices.IndexFunc(convs, func(c extraction.Conversation) bool { return c.ID == tr.Conversation })].Turns[tr.Turn-1].Content; text == "" || text == "thanks!" || text == "ok" {
			t.Errorf("turn %+v sampled: it has nothing to extract", tr)
		}
		if len(tr.Key) != 16 || tr.TurnID != fmt.Sprintf("%s-%d", tr.Conversation, tr.Turn) {
			t.Errorf("turn %+v: wrong key or id", tr)
		}
	}
	if perSource["a"] != 4 || perSource["b"] != 2 || perSource["c"] != 0 {
		t.Errorf("per source %v, want a 4, b its 2, c none (small talk only)", perSource)
	}
	if !slices.IsSortedFunc(s, func(x, y extraction.TurnRef) int {
		return strings.Compare(x.Source+x.Key, y.Source+y.Key)
	}) {
		t.Errorf("sample %+v: not by source and key", s)
	}
	// The smallest keys of a: a sample of 6 holds those of a sample of 4.
	if s4 := extraction.SampleTurns(convs, 4); !slices.Equal(s4[:2], s[:2]) || !slices.Contains(s, s4[0]) {
		t.Errorf("a sample of 4 %+v is not the start of a sample of 6 %+v", s4, s)
	}
	// The same sample in another order of the conversations, and when a
	// turn with an external id is renumbered, its key stays.
	if again := extraction.SampleTurns([]extraction.Conversation{c, b, a}, 6); !slices.Equal(again, s) {
		t.Errorf("another order, another sample: %+v, %+v", again, s)
	}
	shifted := conv("a", "long", many...)
	for i := range shifted.Turns {
		shifted.Turns[i].Turn += 100
	}
	moved := extraction.SampleTurns([]extraction.Conversation{shifted, b, c}, 6)
	for i := range moved {
		if moved[i].Key != s[i].Key || moved[i].Turn != s[i].Turn+map[string]int{"a": 100}[s[i].Source] {
			t.Errorf("renumbered: %+v, was %+v", moved[i], s[i])
		}
	}
	// Without external ids, the number names the turn.
	noIDs := conv("a", "long", many...)
	for i := range noIDs.Turns {
		noIDs.Turns[i].ExternalID = ""
	}
	if other := extraction.SampleTurns([]extraction.Conversation{noIDs}, 1); other[0].Key == s[0].Key || other[0].TurnID != "" {
		t.Errorf("a turn without id keyed like one with: %+v", other[0])
	}
}

// A term is the hash of a lowercased word; a text's terms are those of
// its words, split on all that is not a letter or a digit.
func TestTerms(t *testing.T) {
	if extraction.TermHash("PostgreSQL") != extraction.TermHash("postgresql") || len(extraction.TermHash("x")) != 8 {
		t.Errorf("TermHash: case matters or wrong length")
	}
	got := extraction.Terms("Add rate-limiting (v2), à Lisboa!")
	want := []string{}
	for _, w := range []string{"add", "rate", "limiting", "v2", "à", "lisboa"} {
		want = append(want, extraction.TermHash(w))
	}
	if !slices.Equal(got, want) {
		t.Errorf("Terms %v, want %v", got, want)
	}
}

func expect(kind string, words ...string) extraction.Expected {
	e := extraction.Expected{Kind: kind}
	for _, w := range words {
		e.Terms = append(e.Terms, extraction.TermHash(w))
	}
	return e
}

// Recall counts, per kind, the expected items of the labelled sampled
// turns that the engine extracted from the same turn, of the same kind,
// with every term a word of its label (a fact's, or its sentence).
func TestMeasureRecall(t *testing.T) {
	turns := []extraction.TurnRef{
		{Key: "0000000000000001", Source: "s", Conversation: "c", Turn: 2},
		{Key: "0000000000000002", Source: "s", Conversation: "c", Turn: 3},
		{Key: "0000000000000003", Source: "s", Conversation: "d", Turn: 2},
		{Key: "0000000000000004", Source: "s", Conversation: "c", Turn: 4},
	}
	at := func(conv string, turn int, kind, label, text string) extraction.Item {
		return extraction.Item{Source: "s", Conversation: conv, Turn: turn, Kind: kind, Label: label, Text: text}
	}
	items := []extraction.Item{
		at("c", 2, extraction.Decision, "PostgreSQL", "We chose PostgreSQL over SQLite."),
		at("c", 2, extraction.Goal, "add rate limiting to the API", ""),
		at("c", 2, extraction.Fact, "User lives in a city.", "I live in Lisbon."),
		at("c", 3, extraction.Goal, "add limiting", ""),
		at("c", 3, extraction.Goal, "add rate checks", ""),
		at("d", 3, extraction.Decision, "Redis", ""), // another turn of d
		at("c", 2, extraction.Concept, "Redis", ""),  // another kind
	}
	labels := extraction.RecallLabels{
		"0000000000000001": {Turn: "0000000000000001", Expect: []extraction.Expected{
			expect(extraction.Decision, "postgresql"),   // found by its word, whatever its case
			expect(extraction.Goal, "rate", "limiting"), // both words: found
			expect(extraction.Fact, "Lisbon"),           // in the fact's sentence: found
			expect(extraction.Decision, "Redis"),        // only a concept of that word: not found
			expect(extraction.Problem, "PostgreSQL"),    // a decision, not a problem: not found
			expect(extraction.Decision, "Postgre"),      // a part of a word is no word: not found
		}},
		"0000000000000002": {Turn: "0000000000000002", Expect: []extraction.Expected{
			expect(extraction.Goal, "rate", "limiting"), // 'add limiting' lacks 'rate', 'add rate checks' 'limiting': not found
			expect(extraction.Decision, "PostgreSQL"),   // extracted from turn 2, not 3: not found
		}},
		"0000000000000003": {Turn: "0000000000000003", Expect: []extraction.Expected{
			expect(extraction.Decision, "Redis"), // extracted from d's turn 3: not found
		}},
		"00000000000000ff": {Turn: "00000000000000ff", Expect: []extraction.Expected{
			expect(extraction.Concept, "Redis"), // not a sampled turn: not counted
		}},
	}
	rep := extraction.Measure(items, 10, 60, nil)
	rep.MeasureRecall(turns, items, labels)
	got := map[string]string{}
	for _, r := range rep.Rows {
		got[r.Kind] = fmt.Sprintf("%d/%d %.2f", r.Found, r.Expected, r.Recall)
	}
	want := map[string]string{
		extraction.Decision: "1/5 0.20", extraction.Goal: "1/2 0.50", extraction.Fact: "1/1 1.00",
		extraction.Problem: "0/1 0.00", extraction.Solution: "0/0 -1.00", extraction.Concept: "0/0 -1.00",
		extraction.Request: "0/0 -1.00", extraction.Change: "0/0 -1.00", extraction.Instruction: "0/0 -1.00", extraction.Artifact: "0/0 -1.00",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("recall %v, want %v", got, want)
	}
	if rep.SampledTurns != 4 || rep.LabelledTurns != 3 || len(rep.UnlabelledTurns) != 1 || rep.UnlabelledTurns[0] != turns[3] {
		t.Errorf("turns %d sampled, %d labelled, unlabelled %+v", rep.SampledTurns, rep.LabelledTurns, rep.UnlabelledTurns)
	}
}

// A recall labels file reads back what was written, and a bad line fails
// the read with its number and what is wrong.
func TestReadRecallLabels(t *testing.T) {
	in := extraction.RecallLabels{
		"00000000000000aa": {Turn: "00000000000000aa", Expect: []extraction.Expected{expect(extraction.Goal, "rate", "limiting")}, Note: "a plan"},
		"00000000000000bb": {Turn: "00000000000000bb", Expect: []extraction.Expected{}},
		// The kinds of coding sessions: what was asked, what was changed.
		"00000000000000cc": {Turn: "00000000000000cc", Expect: []extraction.Expected{expect(extraction.Request, "dark", "mode"), expect(extraction.Change, "theme")}},
	}
	var buf bytes.Buffer
	if err := extraction.WriteRecallLabels(&buf, in); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), `{"turn":"00000000000000aa","expect":[{"kind":"goal","terms":["`) {
		t.Errorf("written as %s", buf.String())
	}
	out, err := extraction.ReadRecallLabels(strings.NewReader("\n" + buf.String()))
	if err != nil || fmt.Sprint(out) != fmt.Sprint(in) {
		t.Fatalf("read back %+v, %v; want %+v", out, err, in)
	}
	good := `{"turn":"00000000000000aa","expect":[]}`
	for _, c := range []struct{ line, msg string }{
		{`{"turn":"00000000000000aa","expect":[`, "unexpected EOF"},
		{`{"turn":"0aa","expect":[]}`, `turn "0aa" is not 16 hex digits`},
		{`{"turn":"00000000000000cc","expect":[{"kind":"topic","terms":["0123abcd"]}]}`, `expected item 1: kind "topic" is none of`},
		{`{"turn":"00000000000000cc","expect":[{"kind":"change","terms":["0123abcd"]},{"kind":"edit","terms":["0123abcd"]}]}`, `expected item 2: kind "edit" is none of`},
		{`{"turn":"00000000000000cc","expect":[{"kind":"goal","terms":["0123abcd"]},{"kind":"goal","terms":[]}]}`, "expected item 2: no key words"},
		{`{"turn":"00000000000000cc","expect":[{"kind":"goal","terms":["Lisbon"]}]}`, `term "Lisbon" is not 8 hex digits`},
		{`{"turn":"00000000000000cc","expect":[{"kind":"goal","terms":["0123ABCD"]}]}`, "is not 8 hex digits"},
		{`{"turn":"00000000000000cc","expect":[{"kind":"goal","words":["Lisbon"]}]}`, "unknown field"},
		{`{"turn":"00000000000000cc","expect":[],"verdict":1}`, "unknown field"},
		{`{"turn":"00000000000000cc","expect":[]} {}`, "more than one recall label"},
		{good, "turn 00000000000000aa is labelled again"},
	} {
		_, err := extraction.ReadRecallLabels(strings.NewReader(good + "\n\n" + c.line + "\n"))
		wantLineError(t, err, 3, c.msg)
	}
}

// Answers in plain words become recall labels of terms, and merge into
// labels: a turn labelled alike again is kept once, one labelled
// otherwise fails the merge and changes nothing.
func TestRecallAnswers(t *testing.T) {
	answers := `{"turn":"00000000000000aa","expect":[{"kind":"goal","words":["Rate limiting"]},{"kind":"decision","words":["PostgreSQL"]}],"note":"n"}
{"turn":"00000000000000bb","expect":[]}
{"turn":"00000000000000ee","expect":[{"kind":"request","words":["dark mode"]},{"kind":"change","words":["theme", "toggle"]}]}
`
	got, err := extraction.ReadRecallAnswers(strings.NewReader(answers))
	if err != nil {
		t.Fatal(err)
	}
	want := extraction.RecallLabels{
		"00000000000000aa": {Turn: "00000000000000aa", Expect: []extraction.Expected{expect(extraction.Goal, "rate", "limiting"), expect(extraction.Decision, "postgresql")}, Note: "n"},
		"00000000000000bb": {Turn: "00000000000000bb", Expect: []extraction.Expected{}},
		"00000000000000ee": {Turn: "00000000000000ee", Expect: []extraction.Expected{expect(extraction.Request, "dark", "mode"), expect(extraction.Change, "theme", "toggle")}},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("answers read as %+v, want %+v", got, want)
	}
	for _, c := range []struct{ line, msg string }{
		{`{"turn":"00000000000000cc","expect":[{"kind":"goal","words":["", "--"]}]}`, "expected item 1: no key words"},
		{`{"turn":"00000000000000cc","expect":[{"kind":"idea","words":["x"]}]}`, `kind "idea"`},
		{`{"turn":"00000000000000cc","expect":[{"kind":"goal","terms":["0123abcd"]}]}`, "unknown field"},
		{`{"turn":"00000000000000aa","expect":[]}`, "labelled again"},
	} {
		_, err := extraction.ReadRecallAnswers(strings.NewReader(answers + "\n" + c.line))
		wantLineError(t, err, 5, c.msg)
	}

	labels := extraction.RecallLabels{"00000000000000bb": want["00000000000000bb"]}
	if err := extraction.MergeRecallLabels(labels, got); err != nil || len(labels) != 3 {
		t.Fatalf("merged %d, %v", len(labels), err)
	}
	other := extraction.RecallLabels{
		"00000000000000dd": {Turn: "00000000000000dd", Expect: []extraction.Expected{}},
		"00000000000000aa": {Turn: "00000000000000aa", Expect: []extraction.Expected{}},
	}
	if err := extraction.MergeRecallLabels(labels, other); !errors.Is(err, extraction.ErrRelabelled) || !strings.Contains(err.Error(), "00000000000000aa") || len(labels) != 3 || len(labels["00000000000000aa"].Expect) != 2 {
		t.Errorf("relabelled: %v; labels %+v", err, labels)
	}
}

func FuzzReadRecallLabels(f *testing.F) {
	f.Add([]byte(`{"turn":"00000000000000aa","expect":[{"kind":"goal","terms":["0123abcd","89abcdef"]}],"note":"x"}` + "\n"))
	f.Add([]byte(`{"turn":"00000000000000bb","expect":null}` + "\n\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip(t, data, extraction.ReadRecallLabels, extraction.WriteRecallLabels)
	})
}
