package restore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// twoPeople is the engine of a memory with facts about two people, Ana
// and Ben: Ana lived in Madrid and lives in Lisbon since 2 May 2024 (the
// Lisbon fact supersedes the Madrid one), she is allergic to shellfish,
// the team deploys with Fly.io; and, saved rather than said, facts about
// Ana and Ben of the categories always loaded, and one about the user.
func twoPeople(t testing.TB) *Engine {
	t.Helper()
	march, may := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC), time.Date(2024, 5, 2, 9, 0, 0, 0, time.UTC)
	turns := []struct {
		when          time.Time
		speaker, text string
	}{
		{march, "Ana", "Hi, I'm Ana. I live in Madrid."},
		{march, "Ben", "Nice to meet you Ana. I'm Ben, I work at Acme as a backend engineer."},
		{march, "Ana", "I'm allergic to shellfish, so no paella for me at the team dinner."},
		{march, "Ben", "We deploy the API with Fly.io, the staging app is api-staging."},
		{march, "Ben", "I prefer tea to coffee, and I have a dog named Rex."},
		{march, "Ana", "I love hiking in the mountains on weekends."},
		{may, "Ana", "I live in Lisbon now, I moved there last week."},
		{may, "Ben", "Congrats! Lisbon is lovely."},
	}
	b := graph.New(graph.Config{}, graph.Options{})
	for i, tu := range turns {
		at := tu.when.Add(time.Duration(i) * time.Minute)
		if err := b.Add(spec.Turn{Turn: i + 1, ExternalID: "t" + string(rune('1'+i)), Timestamp: at, Role: "user", Speaker: tu.speaker, Content: tu.text}); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []graph.Fact{
		{Content: "Ben has a dog named Rex", Category: spec.CategoryRelationship},
		{Content: "Ben is a backend engineer at Acme", Category: spec.CategoryIdentity},
		{Content: "Ana prefers dark mode in editors", Category: spec.CategoryPreference},
		{Content: "I prefer short answers with code first", Category: spec.CategoryPreference},
	} {
		if _, err := b.Remember(f, may.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	return newEngine(t, b.Document(), nil)
}

// itemsOf returns r's items by turn (turns) and by node id (nodes).
func itemsOf(r *Result) (turns map[int]Item, nodes map[string]Item) {
	turns, nodes = map[int]Item{}, map[string]Item{}
	for _, it := range r.Items {
		switch it.Kind {
		case "turn":
			turns[it.Turn] = it
		case "node":
			nodes[it.NodeID] = it
		}
	}
	return turns, nodes
}

// A turn that stated a fact superseded since says so in the context, and
// by what; so does a superseded fact's line, and the items carry it.
func TestContextMarksSuperseded(t *testing.T) {
	e := twoPeople(t)
	const madrid, lisbon = "fact-ana-lives-in-madrid", "fact-ana-lives-in-lisbon-now-ana-moved-there"
	if e.nodes[madrid] == nil || e.nodes[lisbon] == nil || e.nodes[madrid].ValidTo.IsZero() {
		t.Fatalf("the memory lacks the facts, or Madrid is current: %+v", e.nodes[madrid])
	}
	r, err := e.Context(context.Background(), "Where does Ana live?", Options{Budget: 1000})
	if err != nil {
		t.Fatal(err)
	}
	turns, _ := itemsOf(r)
	old, now := turns[1], turns[7]
	if old.Turn == 0 || now.Turn == 0 {
		t.Fatalf("the context lacks the Madrid turn or the Lisbon turn:\n%s", r.Text)
	}
	want := "Ana: Hi, I'm Ana. I live in Madrid. (superseded on 2 May 2024 by: Ana lives in Lisbon now"
	if !strings.Contains(r.Text, want) {
		t.Errorf("the Madrid turn's line does not say it was superseded, want %q in:\n%s", want, r.Text)
	}
	if len(old.SupersededBy) != 1 || old.SupersededBy[0].NodeID != madrid || old.SupersededBy[0].By != lisbon ||
		!old.SupersededBy[0].At.Equal(e.nodes[madrid].ValidTo) {
		t.Errorf("the Madrid turn's item: SupersededBy %+v", old.SupersededBy)
	}
	if len(now.SupersededBy) != 0 || strings.Contains(r.Text, "Lisbon now, I moved there last week. (superseded") {
		t.Errorf("the Lisbon turn is marked superseded: %+v", now.SupersededBy)
	}
	if now.Score <= old.Score {
		t.Errorf("the current fact's turn scores %v, not above the superseded one's (%v)", now.Score, old.Score)
	}

	// The fact's own line.
	c := e.nodeLine(e.nodes[madrid])
	if !strings.HasPrefix(c.text, "- Ana lives in Madrid.") || !strings.HasPrefix(c.note, "(superseded on 2 May 2024 by: Ana lives in Lisbon now") ||
		len(c.item.SupersededBy) != 1 || c.item.SupersededBy[0].By != lisbon {
		t.Errorf("the superseded fact's line: %q, %+v", c.text, c.item.SupersededBy)
	}
	if c := e.nodeLine(e.nodes[lisbon]); strings.Contains(c.text+c.note, "superseded") || c.item.SupersededBy != nil {
		t.Errorf("the current fact's line: %q", c.text)
	}
	// Its line in a chat's course too.
	c = e.courseLine(e.nodes[madrid], e.nodes[madrid].FirstMentioned)
	if c.note != "(superseded on 2 May 2024)" || len(c.item.SupersededBy) != 1 || c.item.SupersededBy[0].By != lisbon {
		t.Errorf("the superseded fact's line in a course: %q %q, %+v", c.text, c.note, c.item.SupersededBy)
	}
	if c := e.courseLine(e.nodes[lisbon], e.nodes[lisbon].FirstMentioned); c.note != "" || c.item.SupersededBy != nil {
		t.Errorf("the current fact's line in a course: %q %q", c.text, c.note)
	}
}

// A fact about someone else goes in for its relevance to the question,
// not because it exists: "how do we deploy?" gets none of the facts about
// Ana and Ben saved as identity, preference or relationship, while the
// fact about the user, saved in the first person, is in every context.
func TestFactsAboutOthersGoInWhenFound(t *testing.T) {
	e := twoPeople(t)
	r, err := e.Context(context.Background(), "how do we deploy?", Options{Budget: 400})
	if err != nil {
		t.Fatal(err)
	}
	turns, nodes := itemsOf(r)
	for id, it := range nodes {
		if strings.HasPrefix(id, "fact-ben-") || strings.HasPrefix(id, "fact-ana-") {
			t.Errorf("an unrelated fact went in, at %v: %s\n%s", it.Score, id, r.Text)
		}
	}
	if _, ok := nodes["fact-user-prefers-short-answers-with-code-first"]; !ok {
		t.Errorf("the fact about the user is missing:\n%s", r.Text)
	}
	if _, ok := turns[4]; !ok {
		t.Errorf("the turn about Fly.io is missing:\n%s", r.Text)
	}

	// Found, they go in.
	r, err = e.Context(context.Background(), "What is the name of Ben's dog?", Options{Budget: 400})
	if err != nil {
		t.Fatal(err)
	}
	if _, nodes := itemsOf(r); nodes["fact-ben-has-a-dog-named-rex"].NodeID == "" {
		t.Errorf("the fact the question found is missing:\n%s", r.Text)
	}
}

// A context as of a date answers from what was current then: before Ana
// moved, Madrid is where she lives, without a note, and the Lisbon turn,
// said later, is not there; after, the Madrid turn says it was superseded.
func TestContextAsOf(t *testing.T) {
	e := twoPeople(t)
	q := "Where does Ana live?"
	r, err := e.Context(context.Background(), q, Options{Budget: 1000, At: time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	turns, _ := itemsOf(r)
	if _, ok := turns[1]; !ok || turns[1].SupersededBy != nil || strings.Contains(r.Text, "superseded") || strings.Contains(r.Text, "Lisbon") {
		t.Errorf("as of 1 April 2024:\n%s", r.Text)
	}
	for _, it := range r.Items {
		if it.Timestamp.After(time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("an item of after the date: %+v", it)
		}
	}
	r, err = e.Context(context.Background(), q, Options{Budget: 1000, At: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if turns, _ := itemsOf(r); len(turns[1].SupersededBy) != 1 || !strings.Contains(r.Text, "Lisbon") {
		t.Errorf("as of 1 June 2024:\n%s", r.Text)
	}
}
