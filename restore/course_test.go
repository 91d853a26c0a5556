package restore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/smg-memory/smg/spec"
)

// A question that spans a chat gets something of each stretch of it: the
// best user turn of each fifth of the turns, whatever the best of one
// stretch would take; a question of one thing does not.
func TestContextOfTheCourse(t *testing.T) {
	var turns []spec.Turn
	for i := range 40 {
		text := fmt.Sprintf("Unrelated note %d about the weather, the bus timetable and a film I watched.", i)
		switch {
		case i < 8 && i%2 == 0:
			text = "The garden: I planted tomatoes, basil and beans in the garden beds, and the garden soil needs compost for the garden."
		case i%8 == 3:
			text = fmt.Sprintf("Week %d: the garden has new seedlings, and I fixed the fence.", i/8+1)
		}
		turns = append(turns, spec.Turn{Role: spec.RoleUser, Content: text})
	}
	e := newEngine(t, turnsMemory(t, time.Hour, turns...), nil)
	stretches := func(q string) (map[int]bool, bool) {
		r, err := e.Context(context.Background(), q, Options{Budget: 260})
		if err != nil {
			t.Fatal(err)
		}
		got, lifted := map[int]bool{}, false
		for _, it := range r.Items {
			if it.Kind == "turn" {
				got[(it.Turn-1)*5/40] = true
				lifted = lifted || it.Parts["course"] > 0
			}
		}
		return got, lifted
	}
	if got, _ := stretches("Can you summarize how my garden progressed throughout our conversations?"); len(got) < 4 {
		t.Errorf("the summary's context holds turns of %d of 5 stretches: %v", len(got), got)
	}
	if _, lifted := stretches("What did I plant in the garden beds?"); lifted {
		t.Error("a question of one thing lifted turns of the course")
	}
}
