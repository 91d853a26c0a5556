package restore

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/spec"
)

// A question that spans a chat gets something of each stretch of it (the
// best user turn of each eighth of the turns is lifted, and the chat's
// course is given), whatever the best of one stretch would take; a
// question of one thing does not.
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
			if it.Turn > 0 {
				// A turn, or an item of the chat's course stated in it.
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

// projectChat is a chat of 48 turns about eight topics, six turns each: a
// decision, a problem and its fix, and advice; its turns are of the
// conversation id.
func projectChat(id string, topics []string) []spec.Turn {
	var turns []spec.Turn
	for i := range 48 {
		topic := topics[i/6]
		text := fmt.Sprintf("Here is how you could approach %s: start small, measure, and iterate on the design.", topic)
		switch i % 6 {
		case 0:
			text = fmt.Sprintf("I decided to use PostgreSQL 15 for %s because it handles our joins well, and the team agreed after a long review of the options we had.", topic)
		case 2:
			text = fmt.Sprintf("I'm getting a timeout error when I deploy %s to staging, can you help?", topic)
		case 4:
			text = fmt.Sprintf("Thanks, I fixed the timeout in %s by raising the pool size to 20.", topic)
		}
		role := spec.RoleUser
		if i%2 == 1 {
			role = spec.RoleAssistant
		}
		turns = append(turns, spec.Turn{Role: role, Content: text, ConversationID: id})
	}
	return turns
}

// A question that spans a chat gets the chat's course from the graph: the
// items stated in it, one short line each, in the order of their turns,
// something of every stretch, within the section's share of the budget,
// each item once; a question of one thing gets none.
func TestContextOfTheCourseFromTheGraph(t *testing.T) {
	topics := []string{"the inventory service", "the billing API", "the mobile app", "the search index", "the audit log", "the deploy pipeline", "the admin panel", "the onboarding flow"}
	turns := projectChat("", topics)
	e := newEngine(t, turnsMemory(t, time.Hour, turns...), nil)
	const budget = 800
	ask := func(q string) (course []Item, r *Result) {
		r, err := e.Context(context.Background(), q, Options{Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range r.Items {
			if it.Section == secCourse {
				course = append(course, it)
			}
		}
		return course, r
	}
	course, r := ask("Can you summarize how my project progressed across our conversations?")
	topicsIn, tokens, last := map[int]bool{}, 0, 0
	for _, it := range course {
		if it.Kind != "node" || it.NodeID == "" || it.Turn == 0 {
			t.Errorf("a line of the course is not a node's with its turn: %+v", it)
		}
		if it.Turn < last {
			t.Errorf("the course is not in the order of its turns: %d after %d", it.Turn, last)
		}
		last = it.Turn
		topicsIn[(it.Turn-1)/6] = true
		tokens += it.Tokens
	}
	if len(topicsIn) < 6 {
		t.Errorf("the course holds items of %d of the chat's 8 stretches:\n%s", len(topicsIn), r.Text)
	}
	if tokens > int(budget*courseShare) {
		t.Errorf("the course took %d tokens of %d, more than its share", tokens, budget)
	}
	_, section, _ := strings.Cut(r.Text, "## "+secCourse+"\n")
	section, _, _ = strings.Cut(section, "\n## ")
	for line := range strings.Lines(section) {
		if strings.HasPrefix(line, "- ") && len(strings.Fields(line)) > courseWords+3 {
			t.Errorf("a line of the course is not short: %q", line)
		}
	}
	seen := map[string]string{}
	for _, it := range r.Items {
		if it.NodeID != "" && seen[it.NodeID] != "" {
			t.Errorf("node %s is in %q and in %q", it.NodeID, seen[it.NodeID], it.Section)
		}
		seen[it.NodeID] = it.Section
	}
	if course, r := ask("Which database did I choose for the billing API?"); len(course) > 0 {
		t.Errorf("a question of one thing got the chat's course:\n%s", r.Text)
	}
}

// In a memory of two chats, a question that spans a chat gets the course
// of the chat it is about, the one its best turn is in: every line of the
// course from that chat, and something of most of its stretches.
func TestCourseOfOneChatOfMany(t *testing.T) {
	garden := []string{"the greenhouse", "the tomato beds", "the compost heap", "the rain barrel", "the herb spiral", "the fruit cage", "the bean poles", "the potting shed"}
	shop := []string{"the inventory service", "the billing API", "the mobile app", "the search index", "the audit log", "the deploy pipeline", "the admin panel", "the onboarding flow"}
	turns := append(projectChat("garden", garden), projectChat("shop", shop)...)
	e := newEngine(t, turnsMemory(t, time.Hour, turns...), nil)
	r, err := e.Context(context.Background(), "Can you summarize how the billing API, the inventory service and the admin panel progressed across our conversations?", Options{Budget: 800})
	if err != nil {
		t.Fatal(err)
	}
	stretches := map[int]bool{}
	n := 0
	for _, it := range r.Items {
		if it.Section != secCourse {
			continue
		}
		n++
		if it.Turn <= 48 {
			t.Errorf("a line of the course is of the other chat, turn %d: %s", it.Turn, it.Label)
		}
		stretches[(it.Turn-49)/6] = true
	}
	if n == 0 || len(stretches) < 6 {
		t.Errorf("the course holds %d lines, of %d of the chat's 8 stretches:\n%s", n, len(stretches), r.Text)
	}
	// The words that make a question span a chat can match one turn of
	// another chat best; the chat it is about matches its subject in many.
	garden[0] = "spring"
	turns = projectChat("garden", garden)
	turns[12].Content = "In which order do I sow? The order matters: the order of the rows, then the order of the beds, in the order I brought up."
	turns = append(turns, projectChat("shop", shop)...)
	e2 := newEngine(t, turnsMemory(t, time.Hour, turns...), nil)
	r, err = e2.Context(context.Background(), "Can you list the order in which I brought up the billing API, the inventory service and the admin panel?", Options{Budget: 800})
	if err != nil {
		t.Fatal(err)
	}
	n = 0
	for _, it := range r.Items {
		if it.Section == secCourse {
			n++
			if it.Turn <= 48 {
				t.Errorf("the course of a question asked in the words of another chat's turn is of that chat, turn %d: %s", it.Turn, it.Label)
			}
		}
	}
	if n == 0 {
		t.Errorf("no course:\n%s", r.Text)
	}
	// One chat: its course is over all its turns, as before.
	if lo, hi := e.chatOf(60); lo != 49 || hi != 96 {
		t.Errorf("the chat of turn 60 is turns %d to %d, want 49 to 96", lo, hi)
	}
	if lo, hi := e.chatOf(0); lo != 1 || hi != 96 {
		t.Errorf("no turn: turns %d to %d, want the memory's 1 to 96", lo, hi)
	}
}
