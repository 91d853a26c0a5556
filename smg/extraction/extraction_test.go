package extraction_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/smg-memory/smg/graph/graphtest"
	"github.com/smg-memory/smg/smg/extraction"
	"github.com/smg-memory/smg/spec"
)

// Extract gives the decisions, facts, problems, solutions, goals and
// concepts of a conversation, each from the turn it was first found in,
// with a key that the same item keeps from run to run.
func TestExtract(t *testing.T) {
	c := extraction.Conversation{Source: "examples", ID: "checkout", Turns: graphtest.Conversation(t, "checkout.json")}
	items, err := extraction.Extract(c)
	if err != nil {
		t.Fatal(err)
	}
	byKind := map[string][]extraction.Item{}
	for _, it := range items {
		byKind[it.Kind] = append(byKind[it.Kind], it)
		if it.Source != "examples" || it.Conversation != "checkout" || it.Turn < 1 || it.Turn > len(c.Turns) || it.TurnID != c.Turns[it.Turn-1].ExternalID {
			t.Errorf("item %+v: wrong provenance", it)
		}
	}
	for _, k := range extraction.Kinds {
		if k != extraction.Goal && k != extraction.Request && k != extraction.Change && k != extraction.Instruction && len(byKind[k]) == 0 {
			t.Errorf("no %s extracted", k)
		}
	}
	if !slices.ContainsFunc(byKind[extraction.Decision], func(it extraction.Item) bool { return it.Label == "PostgreSQL" && strings.Contains(it.Text, "SQLite") }) {
		t.Errorf("decisions %+v: no PostgreSQL with its sentence", byKind[extraction.Decision])
	}
	again, err := extraction.Extract(c)
	if err != nil || !reflect.DeepEqual(items, again) {
		t.Fatalf("a second extraction differs (%v)", err)
	}
	// A fact is known by its sentence, not by its rephrasing.
	for _, it := range byKind[extraction.Fact] {
		for _, o := range byKind[extraction.Fact] {
			if o.Key == it.Key && o.Text != it.Text {
				t.Errorf("facts of two sentences share key %s", it.Key)
			}
		}
	}
	// Another conversation or source: other keys.
	c.ID = "other"
	other, _ := extraction.Extract(c)
	if other[0].Key == items[0].Key || other[0].Label != items[0].Label {
		t.Errorf("keys %s and %s of one label in two conversations", other[0].Key, items[0].Key)
	}
}

func item(source, kind string, n int) extraction.Item {
	return extraction.Item{Key: fmt.Sprintf("%016x", n), Source: source, Kind: kind, Label: fmt.Sprint(n)}
}

// A goal stated again is one goal, from the turn that first stated it.
func TestExtractGoalOnce(t *testing.T) {
	goals := extractKind(t, extraction.Goal, "We need to add rate limiting to the API.", "The weather is nice.", "We still need to add rate limiting to the API.")
	if len(goals) != 1 || goals[0].Turn != 1 {
		t.Errorf("goals %+v, want one, of turn 1", goals)
	}
}

// A decision taken again is one decision, of the turn that first took it
// and again of each turn that takes it again.
func TestExtractDecisionAgain(t *testing.T) {
	decisions := extractKind(t, extraction.Decision, "Let's go with PostgreSQL for the orders.", "The weather is nice.", "Decided: we'll go with PostgreSQL for the orders.")
	if len(decisions) != 1 || decisions[0].Turn != 1 || !slices.Equal(decisions[0].Again, []int{3}) {
		t.Errorf("decisions %+v, want one, of turn 1 and again of turn 3", decisions)
	}
}

// extractKind is the items of kind extracted from a user's turns texts.
func extractKind(t *testing.T, kind string, texts ...string) []extraction.Item {
	t.Helper()
	var turns []spec.Turn
	for i, text := range texts {
		turns = append(turns, spec.Turn{Turn: i + 1, Role: "user", Content: text})
	}
	items, err := extraction.Extract(extraction.Conversation{Source: "s", ID: "c", Turns: turns})
	if err != nil {
		t.Fatal(err)
	}
	var out []extraction.Item
	for _, it := range items {
		if it.Kind == kind {
			out = append(out, it)
		}
	}
	return out
}

// The sample takes n items of a kind from the sources in turn, the
// smallest keys first; a source with fewer leaves its share to the
// others; an item with a larger key changes nothing, and one of the
// sample that goes is replaced by the next.
func TestSample(t *testing.T) {
	var items []extraction.Item
	for i := range 10 {
		items = append(items, item("a", extraction.Fact, 100+i), item("b", extraction.Fact, 200+i))
	}
	items = append(items, item("c", extraction.Fact, 1), item("c", extraction.Concept, 2), item("a", extraction.Fact, 100))
	keys := func(its []extraction.Item) string {
		var ks []string
		for _, it := range its {
			ks = append(ks, strings.TrimLeft(it.Key, "0"))
		}
		return strings.Join(ks, " ")
	}
	s := extraction.Sample(items, 5)
	if got, want := keys(s), "64 65 c8 c9 1 2"; got != want {
		t.Errorf("sample %s, want %s (100-101 and 200-201 in hex, c's fact, c's concept)", got, want)
	}
	if got := keys(extraction.Sample(append(slices.Clone(items), item("a", extraction.Fact, 999)), 5)); got != keys(s) {
		t.Errorf("an item of a larger key changed the sample: %s", got)
	}
	rest := slices.DeleteFunc(slices.Clone(items), func(it extraction.Item) bool { return it.Label == "101" })
	if got, want := keys(extraction.Sample(rest, 5)), "64 66 c8 c9 1 2"; got != want {
		t.Errorf("without 101: %s, want %s", got, want)
	}
	// Artifacts: n of each source.
	var arts []extraction.Item
	for i := range 4 {
		arts = append(arts, item("a", extraction.Artifact, 100+i), item("b", extraction.Artifact, 200+i))
	}
	if got, want := keys(extraction.Sample(append(arts, item("c", extraction.Artifact, 1)), 3)), "64 65 66 c8 c9 ca 1"; got != want {
		t.Errorf("artifacts: sample %s, want %s (3 of a, 3 of b, c's one)", got, want)
	}
}

// Extract gives an artifact item for each artifact of the vault, named as
// the graph names it, with its content to judge it by; two pieces of code
// of one language in one turn are two items, and a second run gives the
// same keys.
func TestExtractArtifacts(t *testing.T) {
	turns := []spec.Turn{
		{Turn: 1, Role: "user", Content: "Write a script that greets me, and one that says goodbye."},
		{Turn: 2, Role: "assistant", Content: "Here:\n\n```python\nimport sys\nname = sys.argv[1]\nprint('hello', name)\n```\n\nAnd:\n\n```python\nimport os\nuser = os.getlogin()\nprint('goodbye', user)\n```\n"},
	}
	c := extraction.Conversation{Source: "s", ID: "c", Turns: turns}
	items, err := extraction.Extract(c)
	if err != nil {
		t.Fatal(err)
	}
	var arts []extraction.Item
	for _, it := range items {
		if it.Kind == extraction.Artifact {
			arts = append(arts, it)
		}
	}
	if len(arts) != 2 || arts[0].Key == arts[1].Key {
		t.Fatalf("artifacts %+v, want two of distinct keys", arts)
	}
	for _, it := range arts {
		if it.Turn != 2 || it.Label != "python code" || !strings.HasPrefix(it.Text, "code python: import ") {
			t.Errorf("artifact %+v: want python code of turn 2 with its content", it)
		}
	}
	again, _ := extraction.Extract(c)
	if !reflect.DeepEqual(items, again) {
		t.Errorf("a second extraction differs")
	}
}

// Measure counts the items and scores the labelled ones of the sample;
// the others are listed to label.
func TestMeasure(t *testing.T) {
	var items []extraction.Item
	for i := range 4 {
		items = append(items, item("a", extraction.Fact, i+1))
	}
	items = append(items, item("a", extraction.Concept, 9))
	yes, no := true, false
	labels := extraction.Labels{
		items[0].Key: {Key: items[0].Key, Kind: extraction.Fact, Valid: true, Rephrasing: &yes, Of: extraction.Phrasing(items[0].Label)},
		items[1].Key: {Key: items[1].Key, Kind: extraction.Fact, Valid: false, Rephrasing: &no, Of: extraction.Phrasing(items[1].Label)},
		// Its rephrasing was judged of another wording: to judge again.
		items[2].Key: {Key: items[2].Key, Kind: extraction.Fact, Valid: true, Rephrasing: &no, Of: extraction.Phrasing("an older label")},
	}
	rep := extraction.Measure(items, 2000, 3, labels)
	var fact, concept extraction.Row
	for _, r := range rep.Rows {
		switch r.Kind {
		case extraction.Fact:
			fact = r
		case extraction.Concept:
			concept = r
		}
	}
	want := extraction.Row{Kind: extraction.Fact, Items: 4, PerThousand: 2, Sampled: 3, Labelled: 3, Valid: 2, Precision: 2.0 / 3, Target: 0.9, Rephrasings: 2, RephrasingsOK: 1, Recall: -1,
		Sources: []extraction.SourceRow{{Source: "a", Items: 4, Sampled: 3, Labelled: 3, Valid: 2}}}
	if !reflect.DeepEqual(fact, want) {
		t.Errorf("facts %+v, want %+v", fact, want)
	}
	if concept.Sampled != 1 || concept.Labelled != 0 || concept.Precision != -1 {
		t.Errorf("concepts %+v", concept)
	}
	if len(rep.Unlabelled) != 1 || rep.Unlabelled[0].Kind != extraction.Concept {
		t.Errorf("unlabelled %+v", rep.Unlabelled)
	}
	if len(rep.Rephrase) != 1 || rep.Rephrase[0].Key != items[2].Key {
		t.Errorf("rephrasings to judge %+v, want the third fact's", rep.Rephrase)
	}

	// Artifacts judged an assistant's prose answer are counted, by source.
	arts := []extraction.Item{item("a", extraction.Artifact, 1), item("b", extraction.Artifact, 2), item("b", extraction.Artifact, 3)}
	labels = extraction.Labels{}
	for i, note := range []string{"prose: an explanation", "fragment: half an edit", ""} {
		labels[arts[i].Key] = extraction.Label{Key: arts[i].Key, Kind: extraction.Artifact, Valid: note == "", Note: note}
	}
	for _, r := range extraction.Measure(arts, 10, 1, labels).Rows {
		if r.Kind != extraction.Artifact {
			continue
		}
		want := extraction.Row{Kind: extraction.Artifact, Items: 3, PerThousand: 300, Sampled: 2, Labelled: 2, Valid: 0, Precision: 0, Target: 0.9, Recall: -1, Prose: 1,
			Sources: []extraction.SourceRow{{Source: "a", Items: 1, Sampled: 1, Labelled: 1, Prose: 1}, {Source: "b", Items: 2, Sampled: 1, Labelled: 1}}}
		if !reflect.DeepEqual(r, want) {
			t.Errorf("artifacts %+v, want %+v", r, want)
		}
	}
}

// A labels file reads back what was written, and a bad line fails the
// read with its number and what is wrong.
func TestReadLabels(t *testing.T) {
	yes := true
	in := extraction.Labels{
		"00000000000000aa": {Key: "00000000000000aa", Kind: extraction.Fact, Valid: true, Rephrasing: &yes, Of: "0123abcd", Note: "a job"},
		"00000000000000bb": {Key: "00000000000000bb", Kind: extraction.Concept},
	}
	var buf bytes.Buffer
	if err := extraction.WriteLabels(&buf, in); err != nil {
		t.Fatal(err)
	}
	out, err := extraction.ReadLabels(strings.NewReader("\n" + buf.String()))
	if err != nil || len(out) != 2 || *out["00000000000000aa"].Rephrasing != true || out["00000000000000aa"].Note != "a job" {
		t.Fatalf("read back %+v, %v", out, err)
	}
	good := `{"key":"00000000000000aa","kind":"fact","valid":true}`
	for _, c := range []struct{ line, msg string }{
		{`{"key":"00000000000000aa","kind":"fact"`, "unexpected EOF"},
		{`{"key":"0aa","kind":"fact","valid":true}`, `key "0aa" is not 16 hex digits`},
		{`{"key":"00000000000000AA","kind":"fact","valid":true}`, "is not 16 hex digits"},
		{`{"key":"00000000000000cc","kind":"topic","valid":true}`, `kind "topic" is none of`},
		{`{"key":"00000000000000cc","kind":"goal","valid":true,"rephrasing":true,"of":"0123abcd"}`, "a goal has no rephrasing"},
		{`{"key":"00000000000000cc","kind":"fact","valid":true,"rephrasing":true}`, `and "of", the phrasing judged, go together`},
		{`{"key":"00000000000000cc","kind":"fact","valid":true,"of":"0123abcd"}`, `and "of", the phrasing judged, go together`},
		{`{"key":"00000000000000cc","kind":"fact","valid":true,"rephrasing":false,"of":"0123"}`, `of "0123" is not 8 hex digits`},
		{`{"key":"00000000000000cc","kind":"goal","valid":true,"verdict":1}`, "unknown field"},
		{`{"key":"00000000000000cc","kind":"goal","valid":true} {}`, "more than one label"},
		{good, "key 00000000000000aa is labelled again"},
	} {
		_, err := extraction.ReadLabels(strings.NewReader(good + "\n\n" + c.line + "\n"))
		wantLineError(t, err, 3, c.msg)
	}
}

// wantLineError fails t unless err is an ErrLabels of line whose message
// says msg.
func wantLineError(t *testing.T, err error, line int, msg string) {
	t.Helper()
	le, ok := errors.AsType[*extraction.LabelError](err)
	if !ok || le.Line != line || !strings.Contains(le.Msg, msg) || !errors.Is(err, extraction.ErrLabels) {
		t.Errorf("%v, want line %d: …%s…", err, line, msg)
	}
}

func FuzzReadLabels(f *testing.F) {
	f.Add([]byte(`{"key":"00000000000000aa","kind":"fact","valid":true,"rephrasing":false,"of":"0123abcd","note":"x"}` + "\n"))
	f.Add([]byte("\n\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip(t, data, extraction.ReadLabels, extraction.WriteLabels)
	})
}

// roundTrip reads data by read: an error is ErrLabels; labels read are
// written by write, and read back and written again, the same bytes.
func roundTrip[T any](t *testing.T, data []byte, read func(io.Reader) (T, error), write func(io.Writer, T) error) {
	t.Helper()
	labels, err := read(bytes.NewReader(data))
	if err != nil {
		if !errors.Is(err, extraction.ErrLabels) {
			t.Fatalf("an error that is not ErrLabels: %v", err)
		}
		return
	}
	var once, twice bytes.Buffer
	if err := write(&once, labels); err != nil {
		t.Fatal(err)
	}
	again, err := read(bytes.NewReader(once.Bytes()))
	if err != nil {
		t.Fatalf("written labels do not read back: %v\n%s", err, once.Bytes())
	}
	if err := write(&twice, again); err != nil || !bytes.Equal(once.Bytes(), twice.Bytes()) {
		t.Fatalf("labels read back write otherwise (%v):\n%s\n%s", err, once.Bytes(), twice.Bytes())
	}
}

// A speaker whom the turns only speak to ("Hey Bob!") is shown by the
// first turn they spoke, not by a turn that does not name them.
func TestExtractSpeakerSpokenTo(t *testing.T) {
	turns := []spec.Turn{
		{Turn: 1, Speaker: "Ana", Role: "user", Content: "Hey Bob! I moved to Lisbon last month."},
		{Turn: 2, Speaker: "Bob", Role: "user", Content: "Wow, Ana, that's great!"},
		{Turn: 3, Speaker: "Ana", Role: "user", Content: "Thanks Bob! The light there is amazing."},
	}
	items, err := extraction.Extract(extraction.Conversation{Source: "s", ID: "c", Turns: turns})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, it := range items {
		if it.Kind == extraction.Concept {
			got[it.Label] = it.Turn
		}
	}
	if got["Ana"] != 1 || got["Bob"] != 2 || got["Lisbon"] != 1 {
		t.Errorf("concepts by turn %v, want Ana 1, Bob 2, Lisbon 1", got)
	}
	// Called by a nickname more often than by her name, she is labelled
	// by it, and still shown by her first turn.
	turns = []spec.Turn{
		{Turn: 1, Speaker: "Caroline", Role: "user", Content: "Hey Mel! Good to see you!"},
		{Turn: 2, Speaker: "Melanie", Role: "user", Content: "Hi! I went to the beach."},
		{Turn: 3, Speaker: "Caroline", Role: "user", Content: "Nice, Mel! Thanks, Mel!"},
		{Turn: 4, Speaker: "Caroline", Role: "user", Content: "Bye Mel!"},
	}
	if items, err = extraction.Extract(extraction.Conversation{Source: "s", ID: "c", Turns: turns}); err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.Kind == extraction.Concept && it.Turn != 1 && it.Turn != 2 {
			t.Errorf("%q shown by turn %d, want the first its speaker spoke", it.Label, it.Turn)
		}
	}
}
