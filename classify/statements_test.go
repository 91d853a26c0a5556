package classify

import (
	"slices"
	"testing"
	"time"

	"github.com/smg-memory/smg/classify/linear"
)

// restate makes an item of a sentence a model kept: the third person, the
// subject named once, the kind, a request or a pointer at its end cut;
// and refuses what cannot stand alone.
func TestRestate(t *testing.T) {
	for _, c := range []struct {
		in, want, kind, category string
	}{
		{"I'm building a budget tracker with Flask 2.3.1 and I want it to run on port 5000, can you help me with that?",
			"User is building a budget tracker with Flask 2.3.1 and they want it to run on port 5000.", "", "project"},
		{"I'm worried I won't make the April 15 deadline for the grant application.",
			"User is worried they won't make the April 15 deadline for the grant application.", "", "project"},
		{"I prefer minimal dependencies to keep the app lightweight.", "User prefers minimal dependencies to keep the app lightweight.", "", "preference"},
		{"Always include encryption details when I ask about data privacy.",
			"Always include encryption details when the user asks about data privacy.", KindInstruction, "preference"},
		{"Never use emojis in code comments.", "Never use emojis in code comments.", KindInstruction, "preference"},
		{"I want to launch the beta by the end of June, here's my plan:", "User wants to launch the beta by the end of June.", KindGoal, "project"},
		{"I'm kinda stuck on the layout of the pricing page, you know, the grid.", "User is stuck on the layout of the pricing page the grid.", "", "project"},
		{"I've set a goal to finish the draft by March 25, but I'm worried I won't make it, what should I do?",
			"User has set a goal to finish the draft by March 25, but they are worried they won't make it.", "", "project"},
		// Refused: a question, an order for now, a pointer, a pronoun whose
		// referent is elsewhere, a sentence cut short.
		{"Can you review my schema for the transactions table?", "", "", ""},
		{"How do I add a foreign key to the users table?", "", "", ""},
		{"Add a button to the settings page.", "", "", ""},
		{"Here's my code so far:", "", "", ""},
		{"It keeps failing with a 500 error on login.", "", "", ""},
		{"I'm having trouble getting it to work.", "", "", ""},
		{"This script works, but I'd like to make it faster.", "", "", ""},
		{"I will definitely.", "", "", ""},
	} {
		f, ok := restate(c.in, "User")
		if ok != (c.want != "") || f.Text != c.want || f.Kind != c.kind || ok && f.Category != c.category {
			t.Errorf("%q:\n got %v %q kind %q category %q\nwant %q kind %q category %q", c.in, ok, f.Text, f.Kind, f.Category, c.want, c.kind, c.category)
		}
	}
}

// readsAlone: a pronoun among a sentence's first words, or at its start,
// leans on another sentence; one after a thing it can mean does not.
func TestReadsAlone(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"i read that book last week and loved it.", true},
		{"i'm excited about this project.", true},
		{"i saw that you had the alchemist on your shelf.", true},
		{"i'm a huge fan of it.", false},
		{"i'm going to try making it tonight.", false},
		{"they loved the new menu.", false},
		{"james will definitely.", false},
		{"i love her cooking.", true},
	} {
		if got := readsAlone(c.s); got != c.want {
			t.Errorf("%q: %v, want %v", c.s, got, c.want)
		}
	}
}

// The model compiled in reads, and keeps what a user says of their work
// rather than what they ask or point at.
func TestStatementModel(t *testing.T) {
	m := StatementModel()
	if len(m.W) == 0 {
		t.Fatal("no weights")
	}
	keep := "I'm building a personal budget tracker with Flask 2.3.1 and SQLite 3.39, targeting a local server on port 5000."
	pref := "I prefer dark mode in every editor."
	drop := "Here's my code so far:"
	if p := m.Probability(StatementFeatures(keep)); p <= keepStatement {
		t.Errorf("a statement of the user's project: %.2f", p)
	}
	if p := m.Probability(StatementFeatures(pref)); p <= keepStatement {
		t.Errorf("a preference: %.2f", p)
	}
	if p := m.Probability(StatementFeatures(drop)); p > keepStatement {
		t.Errorf("a pointer to code: %.2f", p)
	}
}

// A user's turn to an assistant gives the statements a model keeps, each
// once, with its kind; the same turn from one person to another gives
// none of them (its facts come from the rules alone), and neither does an
// assistant's.
func TestStatements(t *testing.T) {
	always := &linear.Model{W: make([]float32, 16), Bias: 5}
	a := NewWith(Options{Statements: always})
	text := "I'm building a budget tracker with Flask 2.3.1 and SQLite. Always format code snippets with syntax highlighting when I ask about implementation. Can you help me with the schema?"
	at := time.Date(2024, 3, 15, 12, 0, 0, 0, time.UTC)
	s := a.Analyze(Turn{Text: text, Role: "user", Time: at, Assisted: true, Listener: "the assistant"})
	var got []string
	for _, f := range s.Facts {
		got = append(got, f.Kind+": "+f.Text)
	}
	want := []string{
		": User is building a budget tracker with Flask 2.3.1 and SQLite.",
		"instruction: Always format code snippets with syntax highlighting when the user asks about implementation.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("statements:\n got %q\nwant %q", got, want)
	}
	// (Its facts are the rules': "I'm building…" is one, of the project.)
	if s := a.Analyze(Turn{Text: text, Role: "user", Time: at, Speaker: "Dana", Listener: "Ben"}); slices.ContainsFunc(s.Facts, func(f Fact) bool { return f.Kind != "" }) {
		t.Errorf("a person's turn to another gave statements: %+v", s.Facts)
	}
	if s := a.Analyze(Turn{Text: text, Role: "assistant", Time: at, Assisted: true}); len(s.Facts) > 0 {
		t.Errorf("an assistant's turn gave statements: %+v", s.Facts)
	}
}

// Sentences are what a model of statements is trained on: the prose's,
// code aside, without lead-ins and marks.
func TestSentences(t *testing.T) {
	got := Sentences("Ok, so I'm using Postgres 15. Here's the query:\n```sql\nSELECT 1;\n```\nIt works now ->-> 1,2")
	want := []string{"I'm using Postgres 15.", "Here's the query:", "It works now"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A sentence that says a value changed is kept whatever the model says,
// a question that takes a change for granted gives it as a fact, and a
// change a request tells of what the sentence named is part of it.
func TestStatementsOfUpdates(t *testing.T) {
	never := &linear.Model{W: make([]float32, 16), Bias: -5}
	a := NewWith(Options{Statements: never})
	at := time.Date(2024, 3, 15, 12, 0, 0, 0, time.UTC)
	for text, want := range map[string]string{
		"I'm nervous that I won't make the new May 9 deadline, can you help me plan?":                                      "User is nervous that they won't make the new May 9 deadline.",
		"How should I pack for an offsite that got moved from October 8 to October 15, given the weather?":                 "The offsite got moved from October 8 to October 15.",
		"Can I mention my lease, which was extended to 18 months, in my visa application?":                                 "User's lease was extended to 18 months.",
		"Thanks, that explanation of the schema helped a lot.":                                                             "",
		"I'm nervous about the dentist appointment with Dr Okafor, so can you remind me that it's moved to May 9 at 2 PM?": "User is nervous about the dentist appointment with Dr Okafor, and it's moved to May 9 at 2 PM.",
		"What should I pack for an offsite in Lisbon that starts on October 8?":                                            "",
	} {
		s := a.Analyze(Turn{Text: text, Role: "user", Time: at, Assisted: true, Listener: "the assistant"})
		var got []string
		for _, f := range s.Facts {
			if f.Kind == "" {
				got = append(got, f.Text)
			}
		}
		if want == "" && len(got) > 0 || want != "" && !slices.Equal(got, []string{want}) {
			t.Errorf("%q:\n got %q\nwant %q", text, got, want)
		}
	}
}

// A number glued to a word is part of a name, not a value; a sentence of
// hearsay states no update.
func TestValuesOfNames(t *testing.T) {
	got := Quantities("newer features in ES2021 and Flask-Argon2 v0.3.0 for Python3, now 10 cards")
	if want := []Quantity{{"count:card", "10"}}; !slices.Equal(got, want) {
		t.Errorf("Quantities: got %v, want %v", got, want)
	}
	for text, want := range map[string]bool{
		"I moved the call to April 22.":                                     true,
		"I've heard that switching to Argon2 could cut the delay to 50 ms.": false,
		"We're switching to ES2021 for the new build.":                      false,
	} {
		if got := statesUpdate(text); got != want {
			t.Errorf("statesUpdate(%q) = %v, want %v", text, got, want)
		}
	}
}
