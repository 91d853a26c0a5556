package tools_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/smg/tools"
	"github.com/smg-memory/smg/spec"
)

// open opens the memory of a file in dir, created at its first change.
func open(t testing.TB, dir, name string) *smg.FileMemory {
	t.Helper()
	f, err := smg.OpenFileMemory(filepath.Join(dir, name), &smg.FileOptions{Create: &smg.Options{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// call calls a tool and fails the test on an error (not an error reply).
func call(t testing.TB, h *tools.Handler, name, input string) tools.Reply {
	t.Helper()
	r, err := h.Call(context.Background(), name, json.RawMessage(input))
	if err != nil {
		t.Fatalf("%s %s: %v", name, input, err)
	}
	return r
}

func TestHandler(t *testing.T) {
	dir := t.TempDir()
	user := open(t, dir, "me.smg")
	h := tools.NewHandler(user, nil, nil)

	// save: written to the file before the reply.
	r := call(t, h, "save_memory", `{"content":"I prefer dark mode in every editor","category":"preference","reasoning":"The user said so."}`)
	if !r.Success || r.IsError() || r.ID == "" || r.Category != "preference" || r.Memory != "user" || r.Importance <= 0 ||
		r.Content != "User prefers dark mode in every editor" || r.Message != "Saved: User prefers dark mode in every editor" {
		t.Fatalf("save: %+v", r)
	}
	id := r.ID
	if got := smgtest.CurrentFacts(t, user.Name(), nil); !slices.Equal(got, []string{"User prefers dark mode in every editor"}) {
		t.Errorf("the file holds %q", got)
	}
	doc, _ := format.ReadFile(user.Name(), nil)
	if n := doc.SemanticGraph.Nodes[0]; n.CreatedBy != "save_memory" || n.Source != spec.SourceAI || n.Metadata == nil {
		t.Errorf("the fact saved: %+v", n)
	}

	// The same fact again: a duplicate, with the fact the memory holds.
	r = call(t, h, "save_memory", `{"content":"User prefers dark mode in every editor","category":"preference","reasoning":"Said again."}`)
	if r.Success || !r.Duplicate || r.IsError() || r.Existing == nil || r.Existing.ID != id ||
		r.Existing.Content != "User prefers dark mode in every editor" || !strings.HasPrefix(r.Message, "Already saved: ") {
		t.Errorf("duplicate: %+v", r)
	}
	b, _ := json.Marshal(r)
	if want := `{"success":false,"duplicate":true,"existing":{"id":"` + id + `","content":"User prefers dark mode in every editor"},"memory":"user","message":"Already saved: User prefers dark mode in every editor"}`; string(b) != want {
		t.Errorf("duplicate:\n%s\nwant\n%s", b, want)
	}

	// A fact the library refuses: an error reply with its message.
	r = call(t, h, "save_memory", `{"content":"User collects vintage fountain pens","category":"hobby","reasoning":"Pens."}`)
	if r.Success || !r.IsError() || !strings.Contains(r.Error, `"hobby" is not a category; use one of identity, preference, relationship, project, context`) {
		t.Errorf("a bad category: %+v", r)
	}
	b, _ = json.Marshal(r)
	if !strings.HasPrefix(string(b), `{"success":false,"error":"\"hobby\" is not a category`) {
		t.Errorf("a bad category: %s", b)
	}
	r = call(t, h, "save_memory", `{"content":"too short","category":"context","reasoning":"Short."}`)
	if !strings.Contains(r.Error, "a fact takes 10 to 500") {
		t.Errorf("a short fact: %+v", r)
	}
	call(t, h, "save_memory", `{"content":"User's staging server is called mercury","category":"project","reasoning":"Its name comes up."}`)

	// search finds it, in the user's memory.
	r = call(t, h, "search_memory", `{"query":"dark mode"}`)
	if !r.Success || len(r.Results) == 0 {
		t.Fatalf("search: %+v", r)
	}
	if hit := r.Results[0]; hit.ID != id || hit.Memory != "user" || hit.Kind != "fact" || hit.Category != "preference" || hit.Score <= 0 ||
		hit.Content != "User prefers dark mode in every editor" {
		t.Errorf("search: %+v", hit)
	}
	r = call(t, h, "search_memory", `{"query":"dark mode","category":"project"}`)
	if !r.Success || len(r.Results) != 0 || r.Results == nil {
		t.Errorf("search of another category: %+v", r)
	}
	b, _ = json.Marshal(r)
	if !strings.Contains(string(b), `"results":[]`) {
		t.Errorf("nothing found: %s", b)
	}

	// get_context holds it, within the budget.
	r = call(t, h, "get_context", `{"query":"which theme should the code samples use?","budget":300}`)
	if !r.Success || !strings.Contains(r.Context, "User prefers dark mode in every editor") || r.Tokens > 300 || r.Budget != 300 {
		t.Errorf("get_context: %+v", r)
	}

	// remove, then the id is gone.
	r = call(t, h, "remove_memory", `{"id":"`+id+`"}`)
	if !r.Success || r.ID != id || r.Memory != "user" || r.Message != "Removed: User prefers dark mode in every editor" {
		t.Errorf("remove: %+v", r)
	}
	if got := smgtest.CurrentFacts(t, user.Name(), nil); !slices.Equal(got, []string{"User's staging server is called mercury"}) {
		t.Errorf("after remove, the file holds %q", got)
	}
	r = call(t, h, "remove_memory", `{"id":"`+id+`"}`)
	if r.Success || !strings.Contains(r.Error, "no saved fact has the id") {
		t.Errorf("remove an unknown id: %+v", r)
	}
	if r = call(t, h, "get_context", `{"query":"which theme should the code samples use?"}`); strings.Contains(r.Context, "dark mode") {
		t.Errorf("a removed fact is in the context:\n%s", r.Context)
	}

	// What the model should fix is a reply, not an error.
	for _, c := range []struct{ name, input, want string }{
		{"forget_everything", `{}`, `there is no tool "forget_everything"`},
		{"save_memory", `{"content":`, "the input is not valid JSON; save_memory takes content, category, reasoning, scope"},
		{"save_memory", `["User likes tea"]`, "the input is not a JSON object"},
		{"save_memory", `{"content":"User likes tea","category":"preference","reasoning":"x","tags":[]}`, `unknown parameter "tags"; save_memory takes content, category, reasoning, scope`},
		{"save_memory", `{"content":"User likes tea a lot","category":"preference"}`, "reasoning is missing"},
		{"save_memory", `{"content":"User likes tea a lot","category":"preference","reasoning":"x","scope":"planet"}`, `the kind "planet" is not one of`},
		{"search_memory", `{"query":"tea","memory":"workspace"}`, "there is no workspace memory here"},
		{"search_memory", `{"query":"tea","limit":"5"}`, "limit must be an integer"},
		{"get_context", `{"query":"tea","budget":10}`, "budget is 10 tokens; it takes 100 to 32000"},
		{"get_context", `{"query":"tea","budget":1e12}`, "budget is 1e12 tokens; it takes 100 to 32000"},
		{"get_context", `{"query":"tea","budget":-1e300}`, "budget is -1e300 tokens; it takes 100 to 32000"},
		{"get_context", `{"query":"tea","budget":150.5}`, "budget must be an integer from 100 to 32000"},
		{"search_memory", `{"query":"tea","limit":51}`, "limit is 51; it takes 1 to 50"},
	} {
		r, err := h.Call(context.Background(), c.name, json.RawMessage(c.input))
		if err != nil || r.Success || !strings.Contains(r.Error, c.want) {
			t.Errorf("%s %s: %+v, %v; want an error reply with %q", c.name, c.input, r, err, c.want)
		}
	}
}

func TestHandlerWorkspace(t *testing.T) {
	dir := t.TempDir()
	user, ws := open(t, dir, "me.smg"), open(t, dir, "crawler.smg")
	h := tools.NewHandler(user, ws, nil)

	r := call(t, h, "save_memory", `{"content":"User prefers answers with code first","category":"preference","reasoning":"Said so."}`)
	if r.Memory != "user" {
		t.Errorf("a fact without a scope went to %q", r.Memory)
	}
	r = call(t, h, "save_memory", `{"content":"The crawler retries a timed-out fetch three times","category":"project","reasoning":"A team decision.","scope":"workspace:crawler"}`)
	if !r.Success || r.Memory != "workspace" || r.Scope != "workspace:crawler" {
		t.Fatalf("a workspace fact: %+v", r)
	}
	wsID := r.ID
	r = call(t, h, "save_memory", `{"content":"Dana is the user's manager","category":"relationship","reasoning":"Who they report to.","scope":"user:dana"}`)
	if r.Memory != "user" || r.Scope != "user:dana" {
		t.Errorf("a user:dana fact: %+v", r)
	}
	if got := smgtest.CurrentFacts(t, ws.Name(), nil); !slices.Equal(got, []string{"The crawler retries a timed-out fetch three times"}) {
		t.Errorf("the workspace's file holds %q", got)
	}
	if got := smgtest.CurrentFacts(t, user.Name(), nil); len(got) != 2 || slices.Contains(got, "The crawler retries a timed-out fetch three times") {
		t.Errorf("the user's file holds %q", got)
	}

	// search labels each hit with its memory.
	r = call(t, h, "search_memory", `{"query":"crawler retries fetch"}`)
	if len(r.Results) == 0 || r.Results[0].Memory != "workspace" || r.Results[0].ID != wsID || r.Results[0].Scope != "workspace:crawler" {
		t.Errorf("search: %+v", r)
	}
	if r = call(t, h, "search_memory", `{"query":"crawler retries fetch","memory":"user"}`); len(r.Results) != 0 {
		t.Errorf("search of the user's memory: %+v", r)
	}

	// get_context composes both, in their sections, within the budget.
	r = call(t, h, "get_context", `{"query":"how many times does the crawler retry a fetch?","budget":400}`)
	user1, space := strings.Index(r.Context, "## About This User"), strings.Index(r.Context, "## About This Workspace")
	if user1 < 0 || space < user1 || !strings.Contains(r.Context[user1:space], "code first") ||
		!strings.Contains(r.Context[space:], "three times") || r.Tokens > 400 {
		t.Errorf("get_context (%d tokens):\n%s", r.Tokens, r.Context)
	}

	// remove looks where the scope says, or everywhere.
	if r = call(t, h, "remove_memory", `{"id":"`+wsID+`","scope":"user"}`); !r.IsError() {
		t.Errorf("removing a workspace fact from the user's memory: %+v", r)
	}
	if r = call(t, h, "remove_memory", `{"id":"`+wsID+`"}`); !r.Success || r.Memory != "workspace" {
		t.Errorf("remove: %+v", r)
	}
	if got := smgtest.CurrentFacts(t, ws.Name(), nil); len(got) != 0 {
		t.Errorf("after remove, the workspace's file holds %q", got)
	}

	// Without a workspace memory, a workspace fact goes to the user's.
	h = tools.NewHandler(user, nil, nil)
	if r = call(t, h, "save_memory", `{"content":"The team deploys on Thursdays only","category":"project","reasoning":"A team rule.","scope":"team"}`); r.Memory != "user" || r.Scope != "team" {
		t.Errorf("a team fact without a workspace memory: %+v", r)
	}
}

// The handler takes what the schemas take, and refuses what they refuse.
func TestHandlerAgreesWithSchemas(t *testing.T) {
	for _, s := range samples {
		dir := t.TempDir()
		h := tools.NewHandler(open(t, dir, "me.smg"), open(t, dir, "ws.smg"), nil)
		r := call(t, h, s.tool, s.input)
		ok := !r.IsError() || s.tool == "remove_memory" && strings.HasPrefix(r.Error, "no saved fact has the id")
		if ok != s.ok {
			t.Errorf("%s %s: the handler takes it: %v, the schema: %v (%+v)", s.tool, s.input, ok, s.ok, r)
		}
	}
}

// Two handlers on one file, as two processes would be, keep each other's
// facts.
func TestHandlersShareAFile(t *testing.T) {
	dir := t.TempDir()
	a := tools.NewHandler(open(t, dir, "me.smg"), nil, nil)
	b := tools.NewHandler(open(t, dir, "me.smg"), nil, nil)
	call(t, a, "save_memory", `{"content":"User lives in Lisbon","category":"identity","reasoning":"Where they live."}`)
	call(t, b, "save_memory", `{"content":"User works as a nurse","category":"identity","reasoning":"Their job."}`)
	call(t, a, "save_memory", `{"content":"User drinks green tea","category":"preference","reasoning":"What they like."}`)
	got := smgtest.CurrentFacts(t, filepath.Join(dir, "me.smg"), nil)
	if want := []string{"User drinks green tea", "User lives in Lisbon", "User works as a nurse"}; !slices.Equal(got, want) {
		t.Errorf("the file holds %q, want %q", got, want)
	}
	if r := call(t, b, "search_memory", `{"query":"tea"}`); len(r.Results) != 1 {
		t.Errorf("b does not see a's fact: %+v", r)
	}
}
