package restore

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func TestQuestionSpans(t *testing.T) {
	years := []int{2022, 2023}
	tests := []struct {
		q    string
		want []span
	}{
		{"What did Nate play on 9 October, 2022?", []span{{day(2022, 10, 9), day(2022, 10, 10)}}},
		{"Where was it taken on December 1,2023?", []span{{day(2023, 12, 1), day(2023, 12, 2)}}},
		{"What did Tim read on 8th December, 2023?", []span{{day(2023, 12, 8), day(2023, 12, 9)}}},
		{"What did she start in August 2023?", []span{{day(2023, 8, 1), day(2023, 9, 1)}}},
		{"What did she paint on Sept 3?", []span{{day(2022, 9, 3), day(2022, 9, 4)}, {day(2023, 9, 3), day(2023, 9, 4)}}},
		{"Where did they go camping in June?", []span{{day(2022, 6, 1), day(2022, 7, 1)}, {day(2023, 6, 1), day(2023, 7, 1)}}},
		// Not dates: the verb, a name that is also an abbreviation.
		{"May I ask what Jan said?", nil},
		{"What did they talk about?", nil},
	}
	for _, tt := range tests {
		if got := questionSpans(tt.q, years); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("questionSpans(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
}

// dialogue is the engine of a memory of two speakers over two days.
func dialogue(t testing.TB) *Engine {
	t.Helper()
	turns := []struct {
		when    time.Time
		speaker string
		text    string
	}{
		{day(2023, 5, 8), "Ann", "I finally repainted the kitchen, a pale green."},
		{day(2023, 5, 8), "Bob", "Nice! I repainted my bike last month."},
		{day(2023, 5, 8), "Ann", "How long did the bike take you?"},
		{day(2023, 5, 8), "Bob", "Two weekends, mostly sanding."},
		{day(2023, 6, 2), "Ann", "We adopted a cat from the shelter yesterday."},
		{day(2023, 6, 2), "Bob", "Lovely. What is its name?"},
		{day(2023, 6, 2), "Ann", "Miso, after the soup."},
	}
	b := graph.New(graph.Config{}, graph.Options{})
	for i, tu := range turns {
		if err := b.Add(spec.Turn{Turn: i + 1, Timestamp: tu.when.Add(13 * time.Hour), Role: "user", Speaker: tu.speaker, Content: tu.text}); err != nil {
			t.Fatal(err)
		}
	}
	return newEngine(t, b.Document(), nil)
}

func TestDatedTurns(t *testing.T) {
	e := dialogue(t)
	if n := e.turns.n; n != 7 {
		t.Errorf("turnCount = %d, want 7", n)
	}
	if got, want := e.datedTurns("What happened on 2 June 2023?"), []int{5, 6, 7}; !reflect.DeepEqual(got, want) {
		t.Errorf("datedTurns = %v, want %v", got, want)
	}
	if got := e.datedTurns("What happened in July 2023?"); len(got) != 0 {
		t.Errorf("datedTurns of a month without turns = %v", got)
	}
}

// TestContextTurnScores checks what a turn's score is made of: the
// answer after a question found, the date the question names, the
// speaker it names.
func TestContextTurnScores(t *testing.T) {
	e := dialogue(t)
	parts := func(q string) map[int]map[string]float64 {
		t.Helper()
		r, err := e.Context(context.Background(), q, Options{Budget: 1000})
		if err != nil {
			t.Fatal(err)
		}
		out := map[int]map[string]float64{}
		for _, it := range r.Items {
			if it.Kind == "turn" {
				out[it.Turn] = it.Parts
			}
		}
		return out
	}
	// "How long did the bike take you?" is found; its answer, which shares
	// no word with the question but its speaker's name, gets more from
	// the question before it than from the search.
	p := parts("How long did Bob's bike take?")
	if p[4] == nil || p[4]["neighbor"] <= p[4]["search"] {
		t.Errorf("the answer, turn 4: %v", p[4])
	}
	if p[3] == nil || p[3]["speaker"] != otherSpeaker {
		t.Errorf("Ann's question, in a question about Bob: %v", p[3])
	}
	// Turn 7 shares no word with the question but was said that day.
	p = parts("What did Ann say on 2 June, 2023?")
	if p[7] == nil || p[7]["date"] != dateFactor {
		t.Errorf("turn 7 of the date named: %v", p[7])
	}
}

// FuzzQuestionSpans reads dates out of any question: no panic, and every
// span ends after it starts.
func FuzzQuestionSpans(f *testing.F) {
	for _, q := range []string{"What did Ann do on 9 October, 2022?", "in June", "July 2023", "May I ask?", "31 February 2023", "0 Jan 99999"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		for _, s := range questionSpans(q, []int{2022, 2023}) {
			if !s.to.After(s.from) {
				t.Errorf("%q: the span %v–%v is empty", q, s.from, s.to)
			}
		}
	})
}
