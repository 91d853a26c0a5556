package graph

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/graph/graphtest"
	"github.com/smg-memory/smg/spec"
)

var factTime = time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC)

func remember(t *testing.T, b *Builder, f Fact) Remembered {
	t.Helper()
	r, err := b.Remember(f, factTime)
	if err != nil {
		t.Fatalf("Remember(%q): %v", f.Content, err)
	}
	return r
}

func TestRememberRewritesAndScores(t *testing.T) {
	b := New(Config{}, Options{})
	r := remember(t, b, Fact{Content: "I prefer dark mode", Source: spec.SourceUser, Reasoning: "said twice"})
	n := r.Fact
	if r.Duplicate || n.Label != "User prefers dark mode" || n.Category != spec.CategoryPreference || n.Scope != "user" {
		t.Fatalf("saved %+v", r)
	}
	// preference 9 + 2 for a person's request, over 10.
	if n.Importance != 1 || n.Source != spec.SourceUser || n.Confidence != 1 || n.Metadata["reasoning"] != "said twice" || !n.ValidFrom.Equal(factTime) {
		t.Errorf("saved %+v", n)
	}
	n = remember(t, b, Fact{Content: "User is working on a web crawler", Category: "Project"}).Fact
	if n.Category != spec.CategoryProject || n.Importance != 0.7 || n.Source != spec.SourceAI || n.CreatedBy != "smg" {
		t.Errorf("saved %+v", n)
	}
	doc := b.Document()
	if got := len(Facts(doc, FactFilter{})); got != 2 {
		t.Errorf("%d facts in the document, want 2", got)
	}
	if !doc.Metadata.Modified.Equal(factTime) {
		t.Errorf("modified %v, want the time of the fact", doc.Metadata.Modified)
	}

	ws := New(Config{}, Options{Scope: &spec.Scope{Kind: spec.ScopeWorkspace, ID: "crawler"}})
	if got := remember(t, ws, Fact{Content: "The crawler must respect robots.txt"}).Fact.Scope; got != "workspace:crawler" {
		t.Errorf("a workspace memory saves a fact in scope %q", got)
	}
}

func TestRememberRejects(t *testing.T) {
	b := New(Config{FactMaxChars: 40}, Options{})
	for _, tc := range []struct {
		f     Fact
		field string
		says  string
	}{
		{Fact{Content: "  short  "}, "content", "is 5 characters long; a fact takes 10 to 40"},
		{Fact{Content: strings.Repeat("long ", 10)}, "content", "is 49 characters long"},
		{Fact{Content: "User likes tea", Category: "hobby"}, "category", `"hobby" is not a category; use one of identity, preference`},
		{Fact{Content: "User likes tea", Scope: "planet:mars"}, "scope", `the kind "planet" is not one of user, workspace`},
		{Fact{Content: "User likes tea", Scope: "user:a b"}, "scope", "1 to 128 letters"},
		{Fact{Content: "User likes tea", Source: "robot"}, "source", `"robot" is not a source`},
		{Fact{Content: "User likes \xff tea"}, "content", "not valid UTF-8"},
	} {
		_, err := b.Remember(tc.f, factTime)
		var fe *FactError
		if !errors.As(err, &fe) || !errors.Is(err, ErrInvalidFact) || fe.Field != tc.field || !strings.Contains(fe.Message, tc.says) {
			t.Errorf("Remember(%+v) = %v, want a %s error saying %q", tc.f, err, tc.field, tc.says)
		}
	}
	if b.Store().Len() != 0 {
		t.Error("a rejected fact changed the memory")
	}
}

func TestRememberDuplicates(t *testing.T) {
	b := New(Config{}, Options{})
	first := remember(t, b, Fact{Content: "User likes TypeScript"}).Fact
	before := canonical(t, b.Document())
	r := remember(t, b, Fact{Content: "User prefers using TypeScript for all projects"})
	if !r.Duplicate || r.Fact.ID != first.ID || r.Fact.Label != "User likes TypeScript" || r.Similarity < DuplicateSimilarity {
		t.Fatalf("not a duplicate: %+v", r)
	}
	if canonical(t, b.Document()) != before {
		t.Error("a duplicate changed the memory")
	}
	// The same fact in another scope is another fact.
	if r := remember(t, b, Fact{Content: "User likes TypeScript", Scope: "workspace:web"}); r.Duplicate || r.Fact.ID == first.ID || r.Fact.Scope != "workspace:web" {
		t.Errorf("the fact of another scope: %+v", r)
	}
	// A number makes another fact.
	if r := remember(t, b, Fact{Content: "User prefers TypeScript 5"}); r.Duplicate {
		t.Errorf("a fact with a number is a duplicate of %q", r.Fact.Label)
	}
	// Similar is not the same.
	if r := remember(t, b, Fact{Content: "User likes TypeScript generics and Rust traits"}); r.Duplicate {
		t.Errorf("a fact that says more is a duplicate of %q", r.Fact.Label)
	}
}

func TestRememberSupersedes(t *testing.T) {
	b := New(Config{}, Options{})
	likes := remember(t, b, Fact{Content: "User likes TypeScript"}).Fact
	r := remember(t, b, Fact{Content: "I don't like TypeScript any more"})
	if r.Duplicate || !slices.Equal(r.Supersedes, []string{likes.ID}) {
		t.Fatalf("the negation: %+v", r)
	}
	paris := remember(t, b, Fact{Content: "User lives in Paris"}).Fact
	berlin := remember(t, b, Fact{Content: "I live in Berlin"})
	if !slices.Equal(berlin.Supersedes, []string{paris.ID}) {
		t.Fatalf("moving: %+v", berlin)
	}
	ix := indexOf(b.Document())
	if ix.nodes[likes.ID].ValidTo.IsZero() || ix.nodes[paris.ID].ValidTo.IsZero() || !ix.nodes[berlin.Fact.ID].ValidTo.IsZero() {
		t.Error("validity not closed on the superseded facts only")
	}
	if !ix.edge(r.Fact.ID, likes.ID, spec.RelSupersedes) || !ix.edge(berlin.Fact.ID, paris.ID, spec.RelSupersedes) {
		t.Error("no supersedes edges")
	}
	if got := len(Facts(ix.doc, FactFilter{})); got != 2 {
		t.Errorf("%d current facts, want 2", got)
	}
	if got := len(Facts(ix.doc, FactFilter{Superseded: true})); got != 4 {
		t.Errorf("%d facts with the superseded, want 4", got)
	}
	// Back in Paris: the old fact is valid again, Berlin's ends.
	again := remember(t, b, Fact{Content: "User lives in Paris"})
	if again.Duplicate || again.Fact.ID != paris.ID || !again.Fact.ValidTo.IsZero() || !slices.Equal(again.Supersedes, []string{berlin.Fact.ID}) {
		t.Errorf("moving back: %+v", again)
	}
}

// A fact about someone named supersedes that person's fact of the same
// exclusive predicate, not another's, and after a reload too: "Ana lives
// in Lisbon" ends "Ana lives in Madrid", not "Ben lives in Madrid".
func TestRememberSupersedesOfOthers(t *testing.T) {
	b := New(Config{}, Options{})
	madrid := remember(t, b, Fact{Content: "Ana lives in Madrid"}).Fact
	ben := remember(t, b, Fact{Content: "Ben lives in Porto"}).Fact
	lisbon := remember(t, b, Fact{Content: "Ana lives in Lisbon"})
	if !slices.Equal(lisbon.Supersedes, []string{madrid.ID}) {
		t.Fatalf("Ana's move: %+v", lisbon)
	}
	if madrid.Category != spec.CategoryIdentity {
		t.Errorf("where Ana lives is of category %q, want identity, as where the user lives is", madrid.Category)
	}
	again, err := Load(b.Document(), Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rome, err := again.Remember(Fact{Content: "Ana lives in Rome"}, factTime)
	if err != nil || !slices.Equal(rome.Supersedes, []string{lisbon.Fact.ID}) {
		t.Fatalf("after a reload, Ana's next move: %+v, %v", rome, err)
	}
	if n := indexOf(again.Document()).nodes[ben.ID]; !n.ValidTo.IsZero() {
		t.Error("Ana's moves ended Ben's fact")
	}
}

func TestEditForgetPin(t *testing.T) {
	b := New(Config{}, Options{})
	id := remember(t, b, Fact{Content: "User drinks coffee"}).Fact.ID
	for i := range 7 {
		if _, err := b.EditFact(id, "User drinks coffee, cup number "+string(rune('1'+i)), factTime.Add(time.Duration(i)*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	n := indexOf(b.Document()).nodes[id]
	if n.Version != 8 || n.Label != "User drinks coffee, cup number 7" || len(n.PreviousSummaries) != spec.MaxPreviousSummaries ||
		n.PreviousSummaries[0].Text != "User drinks coffee, cup number 2" || n.PreviousSummaries[0].Version != 3 {
		t.Errorf("after 7 edits: %+v", n)
	}
	if _, err := b.EditFact(id, "short", factTime); !errors.Is(err, ErrInvalidFact) {
		t.Errorf("a short edit: %v", err)
	}
	if _, err := b.EditFact("fact-none", "User drinks tea daily", factTime); !errors.Is(err, ErrNoNode) {
		t.Errorf("editing no fact: %v", err)
	}

	if err := b.Pin(id, true, factTime); err != nil || !indexOf(b.Document()).nodes[id].Pinned {
		t.Errorf("pin: %v", err)
	}
	if got := Facts(b.Document(), FactFilter{Pinned: true}); len(got) != 1 || got[0].Activation != 1 {
		t.Errorf("pinned facts: %+v", got)
	}
	if err := b.Pin(id, false, factTime); err != nil || indexOf(b.Document()).nodes[id].Pinned {
		t.Errorf("unpin: %v", err)
	}

	if _, err := b.Forget(id, factTime); err != nil {
		t.Fatal(err)
	}
	if _, ok := indexOf(b.Document()).nodes[id]; ok {
		t.Error("a forgotten fact is still there")
	}
	if _, err := b.Forget(id, factTime); !errors.Is(err, ErrNoNode) {
		t.Errorf("forgetting twice: %v", err)
	}
	// Forgotten, it can be said again.
	if r := remember(t, b, Fact{Content: "User drinks coffee, cup number 7"}); r.Duplicate {
		t.Error("a forgotten fact is a duplicate")
	}
}

func TestClearFacts(t *testing.T) {
	b := New(Config{}, Options{})
	remember(t, b, Fact{Content: "User likes green tea"})
	remember(t, b, Fact{Content: "Dana likes black coffee", Scope: "user:dana"})
	ws := remember(t, b, Fact{Content: "The team deploys on Fridays", Scope: "team:core"}).Fact
	if gone := b.ClearFacts("user", factTime); len(gone) != 2 {
		t.Errorf("cleared %v, want the two user facts", gone)
	}
	if got := Facts(b.Document(), FactFilter{}); len(got) != 1 || got[0].ID != ws.ID {
		t.Errorf("left %+v", got)
	}
}

// TestFactsSurviveReload: what was remembered, edited, pinned and
// forgotten after the turns is what a reloaded memory holds, and still
// holds after more turns; a fact found in a turn stays forgotten although
// the replay of the turns finds it again.
func TestFactsSurviveReload(t *testing.T) {
	turns := graphtest.Conversation(t, "personal.json")
	b := New(Config{}, Options{})
	for _, tu := range turns[:len(turns)-2] {
		if err := b.Add(tu); err != nil {
			t.Fatal(err)
		}
	}
	ix := indexOf(b.Document())
	found := ix.find(t, spec.NodeFact, "Ana prefers the sea")
	nurse := ix.find(t, spec.NodeFact, "Ben is a nurse")
	if _, err := b.Forget(found.ID, factTime); err != nil {
		t.Fatal(err)
	}
	if _, err := b.EditFact(nurse.ID, "Ben is a nurse at the city hospital", factTime); err != nil {
		t.Fatal(err)
	}
	saved := remember(t, b, Fact{Content: "User wants answers in Spanish", Pinned: true}).Fact

	again, err := Load(b.Document(), Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if canonical(t, again.Document()) != canonical(t, b.Document()) {
		t.Fatal("the reloaded memory differs")
	}
	for _, tu := range turns[len(turns)-2:] {
		b.Add(tu)
		again.Add(tu)
	}
	doc := again.Document()
	if canonical(t, doc) != canonical(t, b.Document()) {
		t.Error("continued after a reload, the memory differs")
	}
	ix = indexOf(doc)
	if _, ok := ix.nodes[found.ID]; ok {
		t.Error("the forgotten fact came back")
	}
	if n := ix.nodes[nurse.ID]; n.Label != "Ben is a nurse at the city hospital" || len(n.PreviousSummaries) != 1 {
		t.Errorf("the edit was lost: %+v", n)
	}
	if n := ix.nodes[saved.ID]; n == nil || !n.Pinned {
		t.Error("the saved fact was lost")
	}
	// The duplicate check knows the reloaded facts.
	if r, _ := again.Remember(Fact{Content: "I want my answers in Spanish"}, factTime); !r.Duplicate {
		t.Errorf("after a reload, a known fact is not a duplicate: %+v", r)
	}
}

// TestForgetRestores: forgetting a current fact that superseded another
// makes that one current again, and says so; forgetting a fact that is
// itself superseded restores nothing.
func TestForgetRestores(t *testing.T) {
	b := New(Config{}, Options{})
	paris := remember(t, b, Fact{Content: "User lives in Paris"}).Fact
	berlin := remember(t, b, Fact{Content: "I live in Berlin"}).Fact
	london := remember(t, b, Fact{Content: "I live in London"})
	if !slices.Equal(london.Supersedes, []string{berlin.ID}) {
		t.Fatalf("moving again: %+v", london)
	}
	current := func() []string {
		var ids []string
		for _, n := range Facts(b.Document(), FactFilter{}) {
			ids = append(ids, n.ID)
		}
		return ids
	}

	// Berlin is superseded: forgetting it brings nothing back.
	f, err := b.Forget(berlin.ID, factTime)
	if err != nil || f.ID != berlin.ID || len(f.Restored) != 0 || !slices.Equal(current(), []string{london.Fact.ID}) {
		t.Fatalf("forgetting a superseded fact: %+v, %v; current %v", f, err, current())
	}

	// Forgetting the current London brings back Paris only if London
	// superseded it: it did not (Berlin did), so nothing is current.
	f, err = b.Forget(london.Fact.ID, factTime)
	if err != nil || len(f.Restored) != 0 || len(current()) != 0 {
		t.Fatalf("forgetting London: %+v, %v; current %v", f, err, current())
	}

	// Paris, then Berlin that supersedes it: forgetting Berlin restores
	// Paris, with a new version and no end of validity.
	b = New(Config{}, Options{})
	paris = remember(t, b, Fact{Content: "User lives in Paris"}).Fact
	berlin = remember(t, b, Fact{Content: "I live in Berlin"}).Fact
	if !slices.Equal(current(), []string{berlin.ID}) {
		t.Fatalf("current %v", current())
	}
	before := b.factNode(paris.ID).Version
	f, err = b.Forget(berlin.ID, factTime)
	if err != nil || !slices.Equal(f.Restored, []string{paris.ID}) || !slices.Equal(current(), []string{paris.ID}) {
		t.Fatalf("forgetting Berlin: %+v, %v; current %v", f, err, current())
	}
	if n := b.factNode(paris.ID); !n.ValidTo.IsZero() || n.Version != before+1 {
		t.Errorf("Paris restored: %+v", n)
	}
	// What it holds still supersedes as before.
	if r := remember(t, b, Fact{Content: "I live in Rome"}); !slices.Equal(r.Supersedes, []string{paris.ID}) {
		t.Errorf("after the restore, Rome supersedes %v", r.Supersedes)
	}
}

// TestFactLengthAsSaved: a fact's length is that of the fact as saved, in
// the third person: "I use vim" (9 characters) is "User uses vim" (13).
func TestFactLengthAsSaved(t *testing.T) {
	b := New(Config{}, Options{})
	if r := remember(t, b, Fact{Content: "I use vim"}); r.Fact.Label != "User uses vim" {
		t.Errorf("saved %+v", r.Fact)
	}
	id := remember(t, b, Fact{Content: "User drinks coffee"}).Fact.ID
	if n, err := b.EditFact(id, "I drink tea", factTime); err != nil || n.Label != "User drinks tea" {
		t.Errorf("edited: %+v, %v", n, err)
	}
	long := "I " + strings.Repeat("x", 496) // 498 characters, 503 as saved
	for _, c := range []struct{ content, want string }{
		{"tiny", `fact content: saved as "tiny", is 4 characters long; a fact takes 10 to 500`},
		{long, "fact content: saved in the third person, is 503 characters long; a fact takes 10 to 500"},
		{long + "xxx", "fact content: is 501 characters long; a fact takes 10 to 500"},
	} {
		_, err := b.Remember(Fact{Content: c.content}, factTime)
		if !errors.Is(err, ErrInvalidFact) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%.20q: %v, want %q", c.content, err, c.want)
		}
		if _, err := b.EditFact(id, c.content, factTime); !errors.Is(err, ErrInvalidFact) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("edit to %.20q: %v, want %q", c.content, err, c.want)
		}
	}
}

// Facts that say the same word of a person's life are linked, so that a
// question that finds one reaches the other; the word is no concept.
func TestFactTopics(t *testing.T) {
	b := New(Config{}, Options{})
	for i, text := range []string{"I adopted two turtles last month.", "The weather is nice today.", "I love watching my turtles eat.", "I bought a kayak last week."} {
		if err := b.Add(spec.Turn{Turn: i + 1, Role: "user", Speaker: "Nate", Content: text}); err != nil {
			t.Fatal(err)
		}
	}
	doc := b.Document()
	ix := indexOf(doc)
	var facts []string
	for _, n := range doc.SemanticGraph.Nodes {
		if n.Type == spec.NodeConcept && (n.Label == "turtles" || n.Label == "kayak") {
			t.Errorf("a word of facts is a concept: %s", n.Label)
		}
		if n.Type == spec.NodeFact && strings.Contains(n.Label, "turtles") {
			facts = append(facts, n.ID)
		}
	}
	if len(facts) != 2 || !ix.edge(facts[0], facts[1], spec.RelRelatedTo) && !ix.edge(facts[1], facts[0], spec.RelRelatedTo) {
		t.Errorf("the facts about turtles %v are not linked", facts)
	}
}

// A preference for a purpose is one at a time: "Dana prefers Rust for all
// backend work" supersedes "Dana prefers Go for all backend work", not her
// preference for another purpose.
func TestRememberPreferenceFor(t *testing.T) {
	b := New(Config{}, Options{})
	goBackend := remember(t, b, Fact{Content: "Dana prefers Go for all backend work."}).Fact
	tsFrontend := remember(t, b, Fact{Content: "Dana prefers TypeScript for frontend work."}).Fact
	r := remember(t, b, Fact{Content: "Dana prefers Rust for all backend work."})
	if r.Duplicate || !slices.Equal(r.Supersedes, []string{goBackend.ID}) {
		t.Fatalf("Rust for the backend: %+v", r)
	}
	ix := indexOf(b.Document())
	if ix.nodes[goBackend.ID].ValidTo.IsZero() || !ix.nodes[tsFrontend.ID].ValidTo.IsZero() {
		t.Error("the superseded preference is current, or the frontend's is not")
	}
}
