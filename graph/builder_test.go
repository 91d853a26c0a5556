package graph

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/artifacts"
	"github.com/smg-memory/smg/graph/graphtest"
	"github.com/smg-memory/smg/spec"
)

func build(t testing.TB, turns []spec.Turn) *spec.Document {
	t.Helper()
	b := New(Config{}, Options{})
	for _, tu := range turns {
		if err := b.Add(tu); err != nil {
			t.Fatal(err)
		}
	}
	return b.Document()
}

// conceptMentions gives the turns that mention each concept of a
// document, by label.
func conceptMentions(doc *spec.Document) map[string][]int {
	got := map[string][]int{}
	for _, n := range doc.SemanticGraph.Nodes {
		if n.Type == spec.NodeConcept {
			got[n.Label] = n.Mentions
		}
	}
	return got
}

// index gives a document's nodes by id and its edges by triple.
type index struct {
	doc   *spec.Document
	nodes map[string]*spec.Node
}

func indexOf(doc *spec.Document) index {
	ix := index{doc: doc, nodes: map[string]*spec.Node{}}
	for i := range doc.SemanticGraph.Nodes {
		ix.nodes[doc.SemanticGraph.Nodes[i].ID] = &doc.SemanticGraph.Nodes[i]
	}
	return ix
}

// find returns the node of a type whose label contains text.
func (ix index) find(t *testing.T, typ spec.NodeType, text string) *spec.Node {
	t.Helper()
	for i := range ix.doc.SemanticGraph.Nodes {
		n := &ix.doc.SemanticGraph.Nodes[i]
		if n.Type == typ && strings.Contains(n.Label, text) {
			return n
		}
	}
	t.Fatalf("no %s node with %q", typ, text)
	return nil
}

// turn returns archived turn n of the document.
func (ix index) turn(t *testing.T, n int) spec.Turn {
	t.Helper()
	var found spec.Turn
	err := EachTurn(ix.doc, nil, func(tu spec.Turn) error {
		if tu.Turn == n {
			found = tu
		}
		return nil
	})
	if err != nil || found.Turn != n {
		t.Fatalf("turn %d: %v", n, err)
	}
	return found
}

func (ix index) edge(from, to string, rel spec.Relation) bool {
	for _, e := range ix.doc.SemanticGraph.Edges {
		if e.From == from && e.To == to && e.Relation == rel {
			return true
		}
	}
	return false
}

// TestCheckout checks what the coding conversation of testdata must give:
// decisions with their rationale and alternatives, one superseding another,
// a problem and the solution that solves it, the artifact that implements
// it, a remembered preference, goals.
func TestCheckout(t *testing.T) {
	ix := indexOf(build(t, graphtest.Conversation(t, "checkout.json")))

	elements := ix.find(t, spec.NodeDecision, "Stripe Elements")
	if !strings.Contains(elements.Rationale, "designers want the payment form to match") {
		t.Errorf("rationale %q", elements.Rationale)
	}
	if !hasOption(elements, "Stripe Checkout") {
		t.Errorf("alternatives %+v lack Stripe Checkout", elements.Alternatives)
	}

	pg := ix.find(t, spec.NodeDecision, "PostgreSQL")
	sqlite := ix.find(t, spec.NodeDecision, "SQLite")
	if !strings.Contains(pg.Rationale, "database is locked") || !hasOption(pg, "SQLite") {
		t.Errorf("PostgreSQL decision: %q, %+v", pg.Rationale, pg.Alternatives)
	}
	if sqlite.ValidTo.IsZero() || !pg.ValidTo.IsZero() || !ix.edge(pg.ID, sqlite.ID, spec.RelSupersedes) {
		t.Errorf("the switch does not supersede SQLite: validTo %v, edge %v", sqlite.ValidTo, ix.edge(pg.ID, sqlite.ID, spec.RelSupersedes))
	}
	locked := ix.find(t, spec.NodeProblem, "database is")
	if !ix.edge(pg.ID, locked.ID, spec.RelSolves) {
		t.Error("the switch to PostgreSQL does not solve the locking problem")
	}

	p401 := ix.find(t, spec.NodeProblem, "401")
	if p401.Metadata["code"] != "HTTP 401" {
		t.Errorf("the 401's code: %v", p401.Metadata)
	}
	// The fix is named by what it does, not by its diagnosis, which the
	// description keeps.
	fix := ix.find(t, spec.NodeSolution, "verify it with webhook.ConstructEvent")
	if !strings.HasPrefix(fix.Label, "Read the body once") || !strings.Contains(fix.Description, "signature covers the raw request body") {
		t.Errorf("the fix: label %q, description %q", fix.Label, fix.Description)
	}
	if !ix.edge(fix.ID, p401.ID, spec.RelSolves) {
		t.Error("the fix does not solve the 401")
	}
	webhook := ix.find(t, spec.NodeArtifact, "checkout/webhook.go")
	if !ix.edge(webhook.ID, fix.ID, spec.RelImplements) {
		t.Error("webhook.go does not implement the fix")
	}
	art := ix.doc.ArtifactVault.Artifacts[webhook.ArtifactID]
	if len(art.Versions) != 4 || webhook.ArtifactVersion != 4 {
		t.Errorf("webhook.go has %d versions, the node points at %d; want 4 (revised three times)", len(art.Versions), webhook.ArtifactVersion)
	}
	// Every version reconstructs; each after the first names its place in
	// its turn, which holds it whole, or is a patch, or a full copy because
	// its patch would be no shorter.
	var prev string
	placed := 0
	_ = artifacts.Walk(Chain(art), func(i int, content string, err error) error {
		if err != nil {
			t.Errorf("webhook.go version %d: %v", i+1, err)
		}
		v := art.Versions[i]
		if v.Placed() {
			placed++
			if whole := ix.turn(t, v.Turn).Content; v.End > len(whole) || whole[v.Start:v.End] != content {
				t.Errorf("webhook.go version %d: [%d, %d) of turn %d is not its text", i+1, v.Start, v.End, v.Turn)
			}
		} else if i > 0 && v.Patch == nil {
			if p, _ := artifacts.MakePatch(prev, content); len(p) < len(content) {
				t.Errorf("webhook.go version %d is a full copy of %d bytes, its patch would take %d", i+1, len(content), len(p))
			}
		}
		prev = content
		return nil
	})
	if placed != 4 {
		t.Errorf("%d of webhook.go's 4 versions name their place in their turn; each turn holds its version whole", placed)
	}
	if !ix.edge(elements.ID, ix.find(t, spec.NodeArtifact, "PaymentForm.jsx").ID, spec.RelResultedIn) {
		t.Error("the Elements decision did not result in the payment form")
	}

	goPref := ix.find(t, spec.NodeFact, "prefers Go for all backend work")
	if goPref.Label != "Dana prefers Go for all backend work." || goPref.Category != spec.CategoryPreference || goPref.Source != spec.SourceUser || goPref.Importance != 1 {
		t.Errorf("the preference: %q %s %s %v", goPref.Label, goPref.Category, goPref.Source, goPref.Importance)
	}
	friend := ix.find(t, spec.NodeFact, "Priya")
	if !strings.HasPrefix(friend.Label, "Dana is working on the shop with their friend Priya") {
		t.Errorf("the friend fact: %q", friend.Label)
	}
	if ix.find(t, spec.NodeConcept, "Priya").Metadata["kind"] != "person" {
		t.Error("Priya is not a person")
	}

	wm := ix.doc.WorkingMemory
	if !slices.ContainsFunc(wm.CurrentGoals, func(g string) bool { return strings.Contains(g, "idempotency keys") }) {
		t.Errorf("goals %q lack the idempotency keys", wm.CurrentGoals)
	}
	if len(wm.RecentContext) != 10 || wm.RecentContext[9].Turn != 20 || wm.ActiveArtifacts[0] != webhook.ArtifactID {
		t.Errorf("working memory: %d recent turns, active %v", len(wm.RecentContext), wm.ActiveArtifacts)
	}
	for _, n := range ix.doc.SemanticGraph.Nodes {
		if n.Label == "thanks" || n.Label == "You're welcome." {
			t.Errorf("filler made a node: %q", n.Label)
		}
	}
}

func hasOption(n *spec.Node, o string) bool {
	return slices.ContainsFunc(n.Alternatives, func(a spec.Alternative) bool { return a.Option == o })
}

// TestPersonal checks the personal conversation: facts in the third
// person with categories and resolved dates, people and places, and a move
// that supersedes where someone lives.
func TestPersonal(t *testing.T) {
	ix := indexOf(build(t, graphtest.Conversation(t, "personal.json")))
	for label, cat := range map[string]string{
		"Ben is a nurse":      spec.CategoryIdentity,
		"Ana prefers the sea": spec.CategoryPreference,
		"Ana's favorite place is the coast near Cádiz.":                              spec.CategoryPreference,
		"Ben's sister Lucia helped Ben choose him.":                                  spec.CategoryRelationship,
		"Ana is working on a photo book about the coast.":                            spec.CategoryProject,
		"Ben adopted a dog last Saturday (18 May 2024)!":                             spec.CategoryContext,
		"Ana's brother Tomás visited Porto with Ana three days ago (12 April 2024).": spec.CategoryRelationship,
		"Ana is allergic to cats":                                                    spec.CategoryIdentity,
	} {
		f := ix.find(t, spec.NodeFact, label)
		if f.Category != cat {
			t.Errorf("%q: category %s, want %s", f.Label, f.Category, cat)
		}
	}
	if f := ix.find(t, spec.NodeFact, "allergic"); f.Source != spec.SourceUser {
		t.Errorf("the fact Ana asked to remember has source %s", f.Source)
	}
	madrid := ix.find(t, spec.NodeFact, "Ana lives in Madrid")
	lisbon := ix.find(t, spec.NodeFact, "Ana lives in Lisbon")
	if madrid.ValidTo.IsZero() || !lisbon.ValidTo.IsZero() || !ix.edge(lisbon.ID, madrid.ID, spec.RelSupersedes) {
		t.Error("moving to Lisbon does not supersede living in Madrid")
	}
	if d, _ := ix.find(t, spec.NodeFact, "workshop in Sintra").Metadata["dates"].([]any); len(d) != 1 {
		t.Error("the workshop's date is not kept with the fact")
	}
	for name, kind := range map[string]string{"Ana": "person", "Ben": "person", "Lucia": "person", "Tomás": "person", "Lisbon": "place", "Madrid": "place", "Porto": "place", "Cádiz": "place"} {
		if got := ix.find(t, spec.NodeConcept, name).Metadata["kind"]; got != kind {
			t.Errorf("%s is a %v, want %s", name, got, kind)
		}
	}
	// Ids keep the letters of names with accents.
	for name, id := range map[string]string{"Tomás": "concept-tomas", "Cádiz": "concept-cadiz"} {
		if got := ix.find(t, spec.NodeConcept, name).ID; got != id {
			t.Errorf("%s has id %s, want %s", name, got, id)
		}
	}
	for _, n := range ix.doc.SemanticGraph.Nodes {
		if strings.HasPrefix(n.Label, "Take ") {
			t.Errorf("a sentence's first word joined a name: %q", n.Label)
		}
	}
}

// TestNickname: a speaker called by the start of her name is one person
// (a node of the kind person);
// a turn that only speaks to her ("Hey Mel!", "That's lovely, Mel.") gives
// her a name, not a mention.
func TestNickname(t *testing.T) {
	at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	doc := build(t, []spec.Turn{
		{Speaker: "Caroline", Role: "user", Content: "Hey Mel! Good to see you!", Timestamp: at},
		{Speaker: "Melanie", Role: "user", Content: "Hi Caroline! I went to the beach with my kids yesterday.", Timestamp: at},
		{Speaker: "Caroline", Role: "user", Content: "That's lovely, Mel. Melanie, you always find time for them.", Timestamp: at},
		{Speaker: "Caroline", Role: "user", Content: "My mom asked how Melanie is doing.", Timestamp: at},
	})
	ix := indexOf(doc)
	var people, kinds []string
	for _, n := range doc.SemanticGraph.Nodes {
		if n.Metadata["kind"] == "person" {
			people = append(people, n.Label)
		}
		if n.Kind == spec.KindPerson {
			kinds = append(kinds, n.Label) // a speaker is of the kind person
		}
	}
	slices.Sort(people)
	slices.Sort(kinds)
	if !slices.Equal(people, []string{"Caroline", "Melanie"}) || !slices.Equal(kinds, people) {
		t.Errorf("people %q, of the kind person %q, want Caroline and Melanie", people, kinds)
	}
	mel := ix.find(t, spec.NodeConcept, "Melanie")
	if !slices.Contains(mel.Aliases, "Mel") || !slices.Equal(mel.Mentions, []int{4}) {
		t.Errorf("Melanie: aliases %q, mentions %v", mel.Aliases, mel.Mentions)
	}
	if f := ix.find(t, spec.NodeFact, "kids"); f.Label != "Melanie went to the beach with their kids yesterday (7 May 2023)." {
		t.Errorf("fact %q", f.Label)
	}
}

// A name first only spoken to, and later spoken of, is mentioned by the
// turns that speak of it.
func TestSpokenToBeforeSpokenOf(t *testing.T) {
	doc := build(t, []spec.Turn{
		{Role: "user", Content: "Hey Rex! Good boy!"},
		{Role: "assistant", Content: "What a lovely greeting."},
		{Role: "user", Content: "I walked Rex to the park today."},
	})
	rex := indexOf(doc).find(t, spec.NodeConcept, "Rex")
	if !slices.Equal(rex.Mentions, []int{3}) {
		t.Errorf("Rex mentioned in %v, want turn 3 only", rex.Mentions)
	}
}

// A user whom the transcript does not name (or names by the role,
// "User"), and who gives their name, is the user: no concept of their
// name, whoever uses it; a speaker of the transcript keeps their node.
func TestUsersOwnName(t *testing.T) {
	doc := build(t, []spec.Turn{
		{Speaker: "User", Role: "user", Content: "I'm Christina Lopez, a colour technologist, and I use Figma for palettes."},
		{Speaker: "Assistant", Role: "assistant", Content: "Great to meet you, Christina! Figma works well for that. Christina Lopez, try its styles.\n\nUse the styles panel."},
		{Speaker: "User", Role: "user", Content: "Thanks. Christina is my name, Figma is my tool. Use it how?"},
	})
	if concepts := slices.Collect(maps.Keys(conceptMentions(doc))); !slices.Equal(concepts, []string{"Figma"}) {
		t.Errorf("concepts %q: want Figma only, no concept of the user's own name, nor a person named by their role", concepts)
	}
	doc = build(t, []spec.Turn{
		{Speaker: "Caroline", Role: "user", Content: "I'm Caroline, and I paint."},
		{Speaker: "Melanie", Role: "user", Content: "Caroline told me she loves it."},
	})
	if n := indexOf(doc).find(t, spec.NodeConcept, "Caroline"); n.Metadata["kind"] != "person" {
		t.Errorf("the speaker Caroline: %+v", n)
	}
}

// TestSameMemoryWhateverTheChunks ingests a conversation one turn at a time,
// and in two sittings with the document saved and loaded between: the
// documents are the same.
func TestSameMemoryWhateverTheChunks(t *testing.T) {
	for _, name := range []string{"checkout.json", "personal.json"} {
		turns := graphtest.Conversation(t, name)
		want := canonical(t, build(t, turns))

		b := New(Config{}, Options{})
		for i, tu := range turns {
			if err := b.Add(tu); err != nil {
				t.Fatal(err)
			}
			if i%5 == 0 {
				b.Document() // a snapshot on the way changes nothing
			}
		}
		if got := canonical(t, b.Document()); got != want {
			t.Errorf("%s: snapshots on the way change the memory", name)
		}

		for _, cut := range []int{1, 7, len(turns) - 1} {
			first := New(Config{}, Options{})
			for _, tu := range turns[:cut] {
				first.Add(tu)
			}
			saved := first.Document()
			again, err := Load(saved, Config{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tu := range turns[cut:] {
				if err := again.Add(tu); err != nil {
					t.Fatal(err)
				}
			}
			if got := canonical(t, again.Document()); got != want {
				t.Errorf("%s: saved after %d turns and continued, the memory differs", name, cut)
			}
		}
	}
}

func canonical(t testing.TB, doc *spec.Document) string {
	t.Helper()
	b, err := spec.MarshalCanonical(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestInvalidTurns(t *testing.T) {
	b := New(Config{}, Options{})
	for _, tu := range []spec.Turn{
		{Content: "no author"},
		{Speaker: " \t", Content: "a blank speaker"},
		{Role: "robot", Content: "an unknown role"},
		{Role: "user", Content: "not UTF-8 \xff"},
	} {
		if err := b.Add(tu); err == nil {
			t.Errorf("%+v was accepted", tu)
		}
	}
	if b.Turns() != 0 {
		t.Error("a refused turn was counted")
	}
	// A blank speaker beside a role is no speaker: no person node.
	if err := b.Add(spec.Turn{Role: "user", Speaker: " ", Content: "0"}); err != nil {
		t.Fatal(err)
	}
	if n := len(b.Document().SemanticGraph.Nodes); n != 0 {
		t.Errorf("a blank speaker made %d nodes", n)
	}
}

// TestDocumentSharesNoBlockData checks that a document's archive blocks are
// the caller's: damaging them leaves the memory's next document whole.
func TestDocumentSharesNoBlockData(t *testing.T) {
	b := New(Config{BlockSize: 4}, Options{})
	for _, tu := range graphtest.Conversation(t, "checkout.json") {
		if err := b.Add(tu); err != nil {
			t.Fatal(err)
		}
	}
	first := b.Document()
	if len(first.DeepArchive.Blocks) < 3 {
		t.Fatalf("%d blocks, want several", len(first.DeepArchive.Blocks))
	}
	for _, blk := range first.DeepArchive.Blocks {
		clear(blk.Turns)          // the open block's
		clear(blk.CompressedData) // the closed ones'
		for i := range blk.KeyPoints {
			blk.KeyPoints[i] = "damaged"
		}
	}
	for _, blk := range b.Document().DeepArchive.Blocks {
		raw, err := BlockData(blk, 1<<26)
		if err != nil || artifacts.Hash(string(raw)) != blk.ContentHash {
			t.Errorf("%s: damaged through an earlier document: %v", blk.ID, err)
		}
		if slices.Contains(blk.KeyPoints, "damaged") {
			t.Errorf("%s: key points damaged through an earlier document", blk.ID)
		}
	}
}

// TestSharedDocument: a shared document is the document, its closed
// blocks' bytes the builder's own (not copied at each call), and none of
// them can be appended to in place.
func TestSharedDocument(t *testing.T) {
	b := New(Config{BlockSize: 4}, Options{})
	for _, tu := range graphtest.Conversation(t, "checkout.json") {
		if err := b.Add(tu); err != nil {
			t.Fatal(err)
		}
	}
	doc, shared, again := b.Document(), b.SharedDocument(), b.SharedDocument()
	if !reflect.DeepEqual(doc, shared) {
		t.Fatal("the shared document is not the document")
	}
	closed := 0
	for i, blk := range shared.DeepArchive.Blocks {
		if len(blk.CompressedData) == 0 {
			continue
		}
		closed++
		if &blk.CompressedData[0] != &again.DeepArchive.Blocks[i].CompressedData[0] {
			t.Errorf("%s: copied", blk.ID)
		}
		if &blk.CompressedData[0] == &doc.DeepArchive.Blocks[i].CompressedData[0] {
			t.Errorf("%s: Document shares it", blk.ID)
		}
		if cap(blk.CompressedData) != len(blk.CompressedData) {
			t.Errorf("%s: room to append into the builder's bytes", blk.ID)
		}
	}
	if closed < 2 {
		t.Fatalf("%d closed blocks", closed)
	}
}

// A capitalized word that the conversation writes in lower case more
// often is a word, not a name; a name written in lower case in commands
// stays a name.
func TestCommonWordsAreNoConcepts(t *testing.T) {
	var turns []spec.Turn
	for _, text := range []string{
		"I keep a note of every build.",
		"The note says the build failed.",
		"Another note: run the tests first.",
		"Run flutter build to check it.",
		"Then flutter test, and flutter run.",
		"The output of flutter doctor is clean.",
		"We ship the app with Flutter and a Note field.",
		"I like how Flutter draws the widgets.",
		"Our Flutter app is fast now.",
		"We love Flutter.",
		"We saw the Result of the test run.",
		"We use React for the UI.",
		"Our React app is fast.",
	} {
		turns = append(turns, spec.Turn{Role: "user", Content: text})
	}
	labels := map[string]bool{}
	for _, n := range build(t, turns).SemanticGraph.Nodes {
		if n.Type == spec.NodeConcept {
			labels[n.Label] = true
		}
		if n.Label == "Flutter" && n.FirstMentioned != 4 {
			t.Errorf("Flutter is first mentioned at turn %d, want 4 ('flutter build')", n.FirstMentioned)
		}
	}
	if labels["Note"] || labels["Result"] || !labels["Flutter"] || !labels["React"] {
		t.Errorf("concepts %v: want Flutter and React, not Note or Result", labels)
	}
}

// A frequent English word that only the assistant capitalizes (its
// templates' "Present") is no name; one the user capitalizes too is.
func TestAssistantsCapitalsAreNoNames(t *testing.T) {
	var turns []spec.Turn
	for i := 0; i < 6; i++ {
		turns = append(turns, spec.Turn{Role: "assistant", Content: "Your job runs from 2020 to Present in the template."})
	}
	turns = append(turns,
		spec.Turn{Role: "user", Content: "We build the UI with React now."},
		spec.Turn{Role: "assistant", Content: "Then React hooks keep the state."})
	labels := map[string]bool{}
	for _, n := range build(t, turns).SemanticGraph.Nodes {
		labels[n.Label] = true
	}
	if labels["Present"] || !labels["React"] {
		t.Errorf("concepts %v: want React, not Present", labels)
	}
}

// A name of code said in one turn only is no concept; said in a second
// turn, it is one, mentioned at both.
func TestIdentifiersOfOneTurn(t *testing.T) {
	turns := []spec.Turn{
		{Role: "user", Content: "The `security_risks` field and `security_risks` again are empty."},
		{Role: "user", Content: "We call `fetch_orders` in the worker."},
		{Role: "user", Content: "Then `fetch_orders` times out."},
	}
	got := conceptMentions(build(t, turns))
	if _, ok := got["security_risks"]; ok || !slices.Equal(got["fetch_orders"], []int{2, 3}) {
		t.Errorf("concepts %v: want fetch_orders at turns 2 and 3, no security_risks", got)
	}
}

// A name of code that is a word of the language (`id`) is the assistant's
// vocabulary however often it says it; one that is not (`fetch_orders`)
// matters once it keeps coming back to it, and so does the word once the
// user says it too.
func TestAssistantsWordsOfCode(t *testing.T) {
	var turns []spec.Turn
	for range assistantMentions + 1 {
		turns = append(turns, spec.Turn{Role: "assistant", Content: "Read the `id` field, then call `fetch_orders` on it."})
	}
	got := conceptMentions(build(t, turns))
	if _, ok := got["id"]; ok || got["fetch_orders"] == nil {
		t.Errorf("concepts %v: want fetch_orders, not id", got)
	}
	turns = append(turns, spec.Turn{Role: "user", Content: "Why is the `id` empty?"})
	if got := conceptMentions(build(t, turns)); got["id"] == nil {
		t.Errorf("concepts %v: the user asked about id", got)
	}
}

// "It works" of nothing that was broken solves nothing.
func TestConfirmationWithoutProblem(t *testing.T) {
	doc := build(t, []spec.Turn{
		{Role: "user", Content: "Show me how to center a div."},
		{Role: "assistant", Content: "Use flexbox on the parent: display flex and justify-content center."},
		{Role: "user", Content: "That worked, thanks!"},
	})
	for _, n := range doc.SemanticGraph.Nodes {
		if n.Type == spec.NodeSolution {
			t.Errorf("a solution of no problem: %q", n.Label)
		}
	}
}

// What only the assistant names: a name ("Resume Worded", in a list of
// tools) is a concept only once someone else names it too, however often
// the assistant does; a file it keeps coming back to is one after
// assistantMentions replies, and a relay of a reply (aider's architect
// handing it to the editor as the user's input) is no reply of its own.
func TestAssistantsNames(t *testing.T) {
	var turns []spec.Turn
	for i := range 6 {
		turns = append(turns, spec.Turn{Role: "assistant", Content: fmt.Sprintf("Step %d: test your resume with Jobscan or Resume Worded.", i+1)})
	}
	reply := spec.Turn{Role: "assistant", Content: "I will edit scripts/economy.cs next."}
	relayed := spec.Turn{Role: "user", Content: reply.Content}
	for range assistantMentions - 1 {
		turns = append(turns, reply, relayed) // four replies, four relays
	}
	// A sentence's first word names nothing, whoever writes it.
	turns = append(turns, spec.Turn{Role: "user", Content: "Nevertheless, the bias weakens it."})
	for range assistantMentions {
		turns = append(turns, spec.Turn{Role: "assistant", Content: `Use links such as "However," and "Nevertheless," in your essay.`})
	}
	turns = append(turns, spec.Turn{Role: "user", Content: "I tried Jobscan yesterday. Now create a flutter project, and put the key in it."})
	for range assistantMentions {
		turns = append(turns, spec.Turn{Role: "assistant", Content: "Run it with Flutter, and send updates with PUT."})
	}
	labels := map[string]bool{}
	for _, n := range build(t, turns).SemanticGraph.Nodes {
		labels[n.Label] = true
	}
	if !labels["Jobscan"] || !labels["Flutter"] || labels["Resume Worded"] || labels["Nevertheless"] || labels["PUT"] || labels["scripts/economy.cs"] {
		t.Errorf("concepts %v: want Jobscan, which the user named, and Flutter, which they wrote in lower case; not Resume Worded nor Nevertheless, named by the assistant alone, nor PUT, whose lower case is another word, nor the file of four replies and their relays", labels)
	}
	turns = append(turns, reply)
	if doc := build(t, turns); !slices.ContainsFunc(doc.SemanticGraph.Nodes, func(n spec.Node) bool { return n.Label == "scripts/economy.cs" }) {
		t.Error("a file of five replies is no concept")
	}
}

// A name's full form labels it when it is also used short: "Game of
// Thrones", not "Game".
func TestFullNameLabels(t *testing.T) {
	doc := build(t, []spec.Turn{
		{Speaker: "Tim", Role: "user", Content: "I'm hooked on Game of Thrones."},
		{Speaker: "John", Role: "user", Content: "Which season of Game are you on? I love Game, and Sheeran too."},
		{Speaker: "Tim", Role: "user", Content: "Season two. Did you see Ed Sheeran live?"},
	})
	labels := map[string][]string{}
	for _, n := range doc.SemanticGraph.Nodes {
		labels[n.Label] = n.Aliases
	}
	if _, ok := labels["Game of Thrones"]; !ok {
		t.Errorf("concepts %v: want Game of Thrones", labels)
	}
	if _, ok := labels["Game"]; ok {
		t.Errorf("concepts %v: Game is the short form of Game of Thrones", labels)
	}
}

// A word that starts or ends a known name of several words is that name
// only when the name writes it so: "Elements" is "Stripe Elements",
// "Schedule" is not "Scheduled Grammarly Premium".
func TestEdgeWordsOfNames(t *testing.T) {
	doc := build(t, []spec.Turn{
		{Role: "user", Content: "How will Scheduled Grammarly Premium checks help? I also use Stripe Elements."},
		{Role: "assistant", Content: "Schedule the checks weekly. Elements handles the card form."},
		{Role: "user", Content: "Schedule them for Monday. Elements looks fine."},
	})
	got := conceptMentions(doc)
	if !slices.Equal(got["Stripe Elements"], []int{1, 2, 3}) || !slices.Equal(got["Scheduled Grammarly Premium"], []int{1}) || got["Schedule"] != nil {
		t.Errorf("concepts %v: want Stripe Elements at turns 1 to 3, the Grammarly plan at turn 1 alone, no Schedule", got)
	}
}

// A name in capitals takes the turns that wrote it in lower case only when
// the lower case is the same word: "PUT" is not "put", "API" is "api";
// "US" is not "Use" or "Using" either, though they share a stem.
func TestAcronymsAndLowerCase(t *testing.T) {
	doc := build(t, []spec.Turn{
		{Role: "user", Content: "I put the templates in a folder and call the api from the page."},
		{Role: "user", Content: "The PUT route and the API key both fail."},
		{Role: "user", Content: "I moved to the US last year."},
		{Role: "user", Content: "In the US, we pay in dollars."},
		{Role: "user", Content: "Use the key. Using it fails. Used keys fail too."},
	})
	got := map[string][]int{}
	for _, n := range doc.SemanticGraph.Nodes {
		got[n.Label] = n.Mentions
	}
	if !slices.Equal(got["PUT"], []int{2}) || !slices.Equal(got["API"], []int{1, 2}) {
		t.Errorf("mentions %v: want PUT at turn 2 alone, API at turns 1 and 2", got)
	}
	if !slices.Equal(got["US"], []int{3, 4}) {
		t.Errorf("mentions %v: want US at turns 3 and 4, not use, using or used", got)
	}
}

// A name of code that the assistant's line lists with others names
// nothing on its own, however many replies list it; named on its own, it
// is a concept that the lists mention too.
func TestListedNamesOfCode(t *testing.T) {
	var turns []spec.Turn
	for range assistantMentions {
		turns = append(turns, spec.Turn{Role: "assistant", Content: "It returns profileLink, articlesCount, favouriteCount."})
	}
	turns = append(turns, spec.Turn{Role: "user", Content: "But `articlesCount` is zero."})
	got := map[string][]int{}
	for _, n := range build(t, turns).SemanticGraph.Nodes {
		got[n.Label] = n.Mentions
	}
	if _, ok := got["profileLink"]; ok || !slices.Equal(got["articlesCount"], []int{1, 2, 3, 4, 5, 6}) {
		t.Errorf("concepts %v: want articlesCount, at every turn, and no profileLink", got)
	}
}
