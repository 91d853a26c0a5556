package graph

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/spec"
)

// agentSession is a coding agent's session, as aider logs it: a request,
// an edit of a file never shown whole, the tool's commit; an error pasted
// and its fix; an edit without a commit; an undo.
func agentSession() []spec.Turn {
	at := time.Date(2025, 7, 16, 13, 0, 0, 0, time.UTC)
	turn := func(role, text string) spec.Turn {
		at = at.Add(time.Minute)
		return spec.Turn{Role: role, Content: text, Timestamp: at}
	}
	return []spec.Turn{
		turn("tool", "Added src/cart.js to the chat."),
		turn("user", "add a discount field to the cart total"),
		turn("assistant", "I'll add the discount to the total.\n\nsrc/cart.js\n```js\n<<<<<<< SEARCH\nconst total = sum(items)\n=======\nconst total = sum(items) - discount\n>>>>>>> REPLACE\n```\n"),
		turn("tool", "Tokens: 2k sent, 100 received.\nApplied edit to src/cart.js\nCommit 1a2b3c4 feat: subtract the discount from the cart total"),
		turn("user", "TypeError: discount is not defined\n    at total (src/cart.js:3:30)"),
		turn("assistant", "To fix the error, declare the discount before the total.\n\nsrc/cart.js\n```js\n<<<<<<< SEARCH\nconst total = sum(items) - discount\n=======\nconst discount = cart.discount ?? 0\nconst total = sum(items) - discount\n>>>>>>> REPLACE\n```\n"),
		turn("tool", "Applied edit to src/cart.js\nCommit 5d6e7f8 fix: declare the discount before the cart total"),
		turn("user", "also log the total"),
		turn("assistant", "Logging the total after it is computed.\n\nsrc/cart.js\n```js\n<<<<<<< SEARCH\nconst total = sum(items) - discount\n=======\nconst total = sum(items) - discount\nconsole.log(total)\n>>>>>>> REPLACE\n```\n"),
		turn("tool", "Applied edit to src/cart.js"),
		turn("user", "/undo"),
		turn("tool", "Removed: 5d6e7f8 fix: declare the discount before the cart total"),
	}
}

// A coding session's memory is a history of the work: the requests, the
// changes made for them (one a commit, or the edits of a turn without
// one, and an undo), each linked to its request and to the file it
// changed; the pasted error, solved by no fix once its fix is undone; the file one artifact,
// its first version an edit of a text never shown whole.
func TestCodingSession(t *testing.T) {
	doc := build(t, agentSession())
	ix := indexOf(doc)
	req := ix.find(t, spec.NodeFact, "Add a discount field")
	if req.Kind != spec.KindRequest || req.FirstMentioned != 2 {
		t.Errorf("the request: kind %q, first turn %d", req.Kind, req.FirstMentioned)
	}
	feat := ix.find(t, spec.NodeSolution, "subtract the discount")
	fix := ix.find(t, spec.NodeSolution, "declare the discount")
	logged := ix.find(t, spec.NodeSolution, "Edited cart.js: Logging the total")
	undo := ix.find(t, spec.NodeSolution, "Undid 5d6e7f8")
	for _, n := range []*spec.Node{feat, fix, logged, undo} {
		if n.Kind != spec.KindChange {
			t.Errorf("%q: kind %q", n.Label, n.Kind)
		}
	}
	// A change is the agent's turn that holds its edits; an undo, the
	// tool's.
	if feat.FirstMentioned != 3 || fix.FirstMentioned != 6 || logged.FirstMentioned != 9 || undo.FirstMentioned != 12 {
		t.Errorf("first turns %d %d %d %d, want 3 6 9 12", feat.FirstMentioned, fix.FirstMentioned, logged.FirstMentioned, undo.FirstMentioned)
	}
	if !ix.edge(req.ID, feat.ID, spec.RelResultedIn) {
		t.Error("the request does not link to the change made for it")
	}
	if fix.ValidTo.IsZero() {
		t.Error("the undone commit is still valid")
	}
	file := ix.find(t, spec.NodeArtifact, "src/cart.js")
	for _, n := range []*spec.Node{feat, fix, logged} {
		if !ix.edge(n.ID, file.ID, spec.RelAbout) {
			t.Errorf("%q does not link to the file it changed", n.Label)
		}
	}
	// The fix of the error pasted was undone: it solves nothing now.
	problem := ix.find(t, spec.NodeProblem, "discount is not defined")
	if ix.edge(fix.ID, problem.ID, spec.RelSolves) || fix.Metadata["fixes"] == true {
		t.Error("the undone fix still solves the error pasted")
	}
	var arts []spec.Artifact
	for _, a := range doc.ArtifactVault.Artifacts {
		arts = append(arts, a)
	}
	if len(arts) != 1 || arts[0].Filename != "src/cart.js" {
		t.Fatalf("artifacts %+v, want src/cart.js alone", arts)
	}
	vs := arts[0].Versions
	if len(vs) != 3 || !slices.ContainsFunc(vs, func(v spec.ArtifactVersion) bool { return v.Edit }) {
		t.Fatalf("versions %+v, want three, edits of a file never shown whole", vs)
	}
	if c := *vs[0].Content; c != spec.EditBlock("const total = sum(items)", "const total = sum(items) - discount") {
		t.Errorf("the first version is %q, not the edit block", c)
	}
}

// agentTurns makes the turns of a coding session a minute apart: turn one
// of any role, edit an agent's turn that says why, then edits file (in
// lang) by one SEARCH/REPLACE block.
func agentTurns(file, lang string) (turn func(role, text string) spec.Turn, edit func(why, search, replace string) spec.Turn) {
	at := time.Date(2025, 7, 16, 13, 0, 0, 0, time.UTC)
	turn = func(role, text string) spec.Turn {
		at = at.Add(time.Minute)
		return spec.Turn{Role: role, Content: text, Timestamp: at}
	}
	edit = func(why, search, replace string) spec.Turn {
		return turn("assistant", why+"\n\n"+file+"\n```"+lang+"\n<<<<<<< SEARCH\n"+search+"\n=======\n"+replace+"\n>>>>>>> REPLACE\n```\n")
	}
	return turn, edit
}

// What a coding session keeps of its asks and fixes: the asks made before
// the agent's tool first spoke; an ask made again in other words, one
// request of both turns; a change that adds logging after an error, no
// fix of it; the agent's fix of an error the user only named, a solution,
// labelled by what the agent said it does.
func TestCodingRequestsAndFixes(t *testing.T) {
	turn, edit := agentTurns("src/report.py", "python")
	doc := build(t, []spec.Turn{
		turn("user", "Create a weekly report of the invoices."),
		turn("user", "Can you group the weekly report by customer?"),
		edit("I'll add the grouping.", "rows = load()", "rows = group(load())"),
		turn("tool", "Applied edit to src/report.py\nCommit 1111111 feat: group the weekly report by customer"),
		turn("user", "ValueError: too many values to unpack\n  File \"src/report.py\", line 3, in main"),
		edit("Let me add logging to see the rows.", "rows = group(load())", "rows = group(load())\nprint(rows)"),
		turn("tool", "Applied edit to src/report.py\nCommit 2222222 chore: add logging of the rows"),
		turn("user", "Please group the weekly report by the customer, as I asked."),
		turn("user", "fix the unpacking error in report.py"),
		edit("I'll help fix the unpacking error in the grouping loop.", "rows = group(load())", "rows = list(group(load()))"),
		turn("tool", "Applied edit to src/report.py"),
	})
	ix := indexOf(doc)
	first := ix.find(t, spec.NodeFact, "Create a weekly report")
	group := ix.find(t, spec.NodeFact, "Can you group the weekly report")
	if first.Kind != spec.KindRequest || first.FirstMentioned != 1 {
		t.Errorf("the ask made before the agent spoke: kind %q, turn %d", first.Kind, first.FirstMentioned)
	}
	if !slices.Contains(group.Mentions, 8) {
		t.Errorf("the ask made again (turn 8) is not the same request: mentions %v", group.Mentions)
	}
	for _, n := range doc.SemanticGraph.Nodes {
		if n.Kind == spec.KindRequest && strings.Contains(n.Label, "as I asked") {
			t.Errorf("the ask made again is a request of its own: %q", n.Label)
		}
	}
	logging := ix.find(t, spec.NodeSolution, "add logging of the rows")
	problem := ix.find(t, spec.NodeProblem, "too many values to unpack")
	if ix.edge(logging.ID, problem.ID, spec.RelSolves) || logging.Metadata["fixes"] == true {
		t.Error("adding logging solves the error")
	}
	fix := ix.find(t, spec.NodeSolution, "Edited report.py: Fix the unpacking error in the grouping loop.")
	if fix.Metadata["fixes"] != true {
		t.Errorf("the fix of the error the user named is no solution: %+v", fix.Metadata)
	}
}

// What a change is in a session of tasks: a feature committed for a
// request that names issues, beside a rule for errors to come ("if the
// build fails, fix it"), fixes nothing; edits that replace their text with itself are no
// change; a small edit the agent says nothing of is labelled by the lines
// it changes and, made for a pasted error, solves it; a fix asked again of
// the same file with a word more is the same request.
func TestCodingTasksAndSmallFixes(t *testing.T) {
	turn, edit := agentTurns("src/ship.cs", "csharp")
	doc := build(t, []spec.Turn{
		turn("user", "Read TODO.md and work through its open issues.\n5. If build.log contains 'error', fix the code until it compiles."),
		edit("I'll add the ship class.", "class Ship {}", "class Ship { int gold; }"),
		turn("tool", "Applied edit to src/ship.cs\nCommit 1111111 feat: add gold to the ship"),
		edit("The file is already right.", "class Ship { int gold; }", "class Ship { int gold; }"),
		turn("tool", "Applied edit to src/ship.cs"),
		turn("user", "fix the error in ship.cs"),
		turn("user", "error CS0103: The name 'cargo' does not exist in the current context"),
		edit("", "class Ship { int gold; }", "class Ship { int gold; int cargo; }"),
		turn("tool", "Applied edit to src/ship.cs"),
		turn("user", "fix the compile error in ship.cs"),
		edit("I'll add a sail.", "class Ship { int gold; int cargo; }", "class Ship { int gold; int cargo; Sail sail; }"),
		turn("tool", "Applied edit to src/ship.cs\nCommit 3333333 feat: add a sail to the ship\n\n# Fix any errors below, if possible.\n\nsrc/ship.cs(1,35): error CS0246: The type or namespace name 'Sail' could not be found"),
		edit("I'll declare the type.", "class Ship {", "class Sail {}\nclass Ship {"),
		turn("tool", "Applied edit to src/ship.cs\nCommit 4444444 refactor: declare the Sail type"),
	})
	ix := indexOf(doc)
	feat := ix.find(t, spec.NodeSolution, "feat: add gold to the ship")
	if feat.Metadata["fixes"] == true {
		t.Error("a feature of a task list fixes the rule's 'error'")
	}
	small := ix.find(t, spec.NodeSolution, "Edited ship.cs: Changed `class Ship { int gold; }` to `class Ship { int gold; int cargo; }`.")
	problem := ix.find(t, spec.NodeProblem, "The name 'cargo' does not exist")
	if !ix.edge(small.ID, problem.ID, spec.RelSolves) {
		t.Error("the small edit made for the pasted error does not solve it")
	}
	declare := ix.find(t, spec.NodeSolution, "refactor: declare the Sail type")
	lint := ix.find(t, spec.NodeProblem, "error CS0246")
	sail := ix.find(t, spec.NodeSolution, "feat: add a sail")
	if !ix.edge(declare.ID, lint.ID, spec.RelSolves) || ix.edge(sail.ID, lint.ID, spec.RelSolves) {
		t.Error("the error the tool reported after a commit is not solved by the next change, and only by it")
	}
	changes, asks := 0, 0
	for _, n := range doc.SemanticGraph.Nodes {
		switch n.Kind {
		case spec.KindChange:
			changes++
		case spec.KindRequest:
			if strings.Contains(n.Label, "ship.cs") {
				asks++
			}
		}
	}
	if changes != 4 {
		t.Errorf("%d changes, want 4: the commits and the small fix, not the edit that changed nothing", changes)
	}
	if asks != 1 {
		t.Errorf("%d requests to fix ship.cs, want 1: asked again with a word more", asks)
	}
}

// A file shown by its name alone ("Header.js") after the session named it
// by its path is the same file, one version chain; a name two paths end
// with is neither.
func TestFileByItsName(t *testing.T) {
	turn, edit := agentTurns("src/components/Header.js", "jsx")
	doc := build(t, []spec.Turn{
		turn("user", "add a header component"),
		edit("I'll create it.", "", "const Header = () => null\nexport default Header"),
		turn("tool", "Applied edit to src/components/Header.js\nCommit 1111111 feat: add the header"),
		turn("user", "show me the header with a title"),
		turn("assistant", "Here it is:\n\nHeader.js\n```jsx\nconst Header = () => <h1>Title</h1>\nexport default Header\n```\n"),
	})
	var files []string
	for id, a := range doc.ArtifactVault.Artifacts {
		if strings.HasSuffix(a.Filename, "Header.js") {
			files = append(files, id)
			if len(a.Versions) != 2 {
				t.Errorf("%s: %d versions, want 2", a.Filename, len(a.Versions))
			}
		}
	}
	if len(files) != 1 {
		t.Errorf("the header is %d artifacts, want 1: %v", len(files), files)
	}
}

// A problem solved is solved once: the agent's next change, made with no
// new report, fixes nothing.
func TestSolvedOnce(t *testing.T) {
	turn, edit := agentTurns("src/hud.cs", "csharp")
	doc := build(t, []spec.Turn{
		turn("user", "add a gold counter to the HUD"),
		edit("I'll add the counter.", "class Hud {}", "class Hud { Text counter; }"),
		turn("tool", "Applied edit to src/hud.cs\nCommit 1111111 feat: add a gold counter"),
		turn("user", "error CS0103: The name 'gold' does not exist in the current context"),
		edit("I'll declare it.", "class Hud { Text counter; }", "class Hud { int gold; Text counter; }"),
		turn("tool", "Applied edit to src/hud.cs\nCommit 2222222 fix: declare gold in the HUD"),
		edit("Now the display.", "class Hud { int gold; Text counter; }", "class Hud { int gold; Text counter; void Show() {} }"),
		turn("tool", "Applied edit to src/hud.cs\nCommit 3333333 feat: show the gold on the HUD"),
	})
	ix := indexOf(doc)
	problem := ix.find(t, spec.NodeProblem, "The name 'gold' does not exist")
	fix := ix.find(t, spec.NodeSolution, "fix: declare gold")
	show := ix.find(t, spec.NodeSolution, "feat: show the gold")
	if !ix.edge(fix.ID, problem.ID, spec.RelSolves) || ix.edge(show.ID, problem.ID, spec.RelSolves) || show.Metadata["fixes"] == true {
		t.Error("the error is solved by its fix alone")
	}
}

// An error met again at another place of the file is the same problem,
// of both turns; in another file, another problem.
func TestErrorMetAgain(t *testing.T) {
	turn, edit := agentTurns("lib/main.dart", "dart")
	doc := build(t, []spec.Turn{
		turn("user", "add zoom to the canvas"),
		turn("tool", "lib/main.dart:52:53: Error: The method 'inverted' isn't defined for the class 'Matrix4'."),
		edit("I'll use the static method.", "final m = t.inverted();", "final m = Matrix4.inverted(t);"),
		turn("tool", "Applied edit to lib/main.dart\nlib/main.dart:58:53: Error: The method 'inverted' isn't defined for the class 'Matrix4'."),
		turn("tool", "lib/zoom.dart:7:11: Error: The method 'inverted' isn't defined for the class 'Matrix4'."),
	})
	var found []*spec.Node
	for i, n := range doc.SemanticGraph.Nodes {
		if n.Type == spec.NodeProblem && strings.Contains(n.Label, "'inverted' isn't defined") && !strings.Contains(n.Label, "zoom.dart") {
			found = append(found, &doc.SemanticGraph.Nodes[i])
		}
	}
	other := false
	for _, n := range doc.SemanticGraph.Nodes {
		other = other || n.Type == spec.NodeProblem && strings.Contains(n.Label, "zoom.dart") && slices.Equal(n.Mentions, []int{5})
	}
	if !other {
		t.Error("the error in another file is not a problem of its own")
	}
	if len(found) != 1 || !slices.Contains(found[0].Mentions, 2) || !slices.Contains(found[0].Mentions, 4) {
		for _, n := range found {
			t.Logf("%q %q %v", n.Label, n.Description, n.Mentions)
		}
		t.Errorf("the error met twice is %d problems (want one, of turns 2 and 4)", len(found))
	}
}

// What a change fixed is its solution only when it says how: edits that
// say nothing ("Edited a.ts") solve the error all the same, a change of
// no solution; a feature's commit that bundles several pieces of work
// fixes nothing; the agent's trouble with its model's provider is the
// user's problem, which no change of the code fixes; what fixes nothing
// (error handling) is read in the commit's message before the agent's
// words.
func TestSolutionsSayHow(t *testing.T) {
	turn, edit := agentTurns("app/route.ts", "typescript")
	doc := build(t, []spec.Turn{
		turn("tool", "Aider v0.86.2\nMain model: claude-sonnet-4-5 with diff edit format"),
		turn("user", "add the upload route"),
		turn("tool", "litellm.AuthenticationError: Missing Anthropic API Key - A call is being made to anthropic but no key is set either in the environment variables or via params.\nThe API provider is not able to authenticate you. Check your API key."),
		edit("I'll add the route.", "export {}", "export async function POST() {}"),
		turn("tool", "Applied edit to app/route.ts\nCommit 1111111 feat: add the upload route"),
		turn("user", "405 Method Not Allowed when I upload a file"),
		edit("", "export async function POST() {}", "export async function POST(req: Request) { return handle(req) }\nexport async function PUT(req: Request) { return handle(req) }"),
		turn("tool", "Applied edit to app/route.ts"),
		turn("user", "the upload page crashes when the file is empty"),
		edit("I'll add a size check, the progress bar and the retry button.", "export async function PUT", "if (size === 0) return\nexport async function PUT"),
		turn("tool", "Applied edit to app/route.ts\nCommit 3333333 feat: add a size check, a progress bar and a retry button"),
		turn("user", "app/route.ts:3:9: Error: No named parameter with the name 'onError'."),
		edit("The function has no onError parameter, so we need to remove it and handle errors differently.", "if (size === 0) return", "if (!size) return"),
		turn("tool", "Applied edit to app/route.ts\nCommit 4444444 fix: remove the onError parameter"),
	})
	ix := indexOf(doc)
	key := ix.find(t, spec.NodeProblem, "Missing Anthropic API Key")
	feat := ix.find(t, spec.NodeSolution, "feat: add the upload route")
	if key.Metadata["setup"] != true || ix.edge(feat.ID, key.ID, spec.RelSolves) || feat.Metadata["fixes"] == true {
		t.Error("the provider's refusal is solved by a change of the code")
	}
	method := ix.find(t, spec.NodeProblem, "405 Method Not Allowed")
	edited := ix.find(t, spec.NodeSolution, "Edited route.ts")
	if !ix.edge(edited.ID, method.ID, spec.RelSolves) || edited.Metadata["fixes"] == true {
		t.Errorf("edits that say nothing of how (%q): solves the 405 %v, a solution %v; want true, false",
			edited.Label, ix.edge(edited.ID, method.ID, spec.RelSolves), edited.Metadata["fixes"])
	}
	crash := ix.find(t, spec.NodeProblem, "the upload page crashes")
	bundle := ix.find(t, spec.NodeSolution, "feat: add a size check")
	if ix.edge(bundle.ID, crash.ID, spec.RelSolves) || bundle.Metadata["fixes"] == true {
		t.Error("a feature's commit of three pieces of work fixes the crash")
	}
	param := ix.find(t, spec.NodeProblem, "No named parameter")
	remove := ix.find(t, spec.NodeSolution, "fix: remove the onError parameter")
	if !ix.edge(remove.ID, param.ID, spec.RelSolves) || remove.Metadata["fixes"] != true {
		t.Error("a fix whose agent says it handles errors differently is not the solution its commit names")
	}
}
