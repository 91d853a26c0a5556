package restore

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/spec"
)

// A change, the error it fixed and the file as the change left it are
// found together: the problem's line names the change that solved it and
// the file's version, the change's line the error it fixed, and their
// items say so by id.
func TestFixesFoundTogether(t *testing.T) {
	edit := func(why, search, replace string) spec.Turn {
		return spec.Turn{Role: spec.RoleAssistant, Content: why + "\n\nsrc/hud.cs\n```csharp\n<<<<<<< SEARCH\n" + search + "\n=======\n" + replace + "\n>>>>>>> REPLACE\n```\n"}
	}
	doc := turnsMemory(t, time.Minute,
		spec.Turn{Role: spec.RoleUser, Content: "add a gold counter to the HUD"},
		edit("I'll add the counter.", "class Hud {}", "class Hud { Text counter; }"),
		spec.Turn{Role: spec.RoleTool, Content: "Applied edit to src/hud.cs\nCommit 1111111 feat: add a gold counter"},
		spec.Turn{Role: spec.RoleUser, Content: "error CS0103: The name 'gold' does not exist in the current context"},
		edit("I'll declare it.", "class Hud { Text counter; }", "class Hud { int gold; Text counter; }"),
		spec.Turn{Role: spec.RoleTool, Content: "Applied edit to src/hud.cs\nCommit 2222222 fix: declare gold in the HUD"},
		edit("Now the display.", "class Hud { int gold; Text counter; }", "class Hud { int gold; Text counter; void Show() {} }"),
		spec.Turn{Role: spec.RoleTool, Content: "Applied edit to src/hud.cs\nCommit 3333333 feat: show the gold on the HUD"},
	)
	var problem, fix string
	hud := ""
	for _, n := range doc.SemanticGraph.Nodes {
		switch {
		case n.Type == spec.NodeProblem && strings.Contains(n.Label, "'gold' does not exist"):
			problem = n.ID
		case n.Kind == spec.KindChange && strings.Contains(n.Label, "declare gold"):
			fix = n.ID
		case n.Type == spec.NodeArtifact && strings.HasSuffix(n.Label, "hud.cs"):
			hud = n.ArtifactID
		}
	}
	if problem == "" || fix == "" || hud == "" {
		t.Fatalf("no problem, fix or file in %d nodes", len(doc.SemanticGraph.Nodes))
	}
	// The fix made the file's second version; the display its third.
	want := []FileVersion{{ArtifactID: hud, Path: "src/hud.cs", Version: 2}}
	e := newEngine(t, doc, nil)
	for _, c := range []struct{ question, node, line string }{
		{"How did we get rid of the error that the name gold does not exist?", problem, "(solved by: commit 2222222; files: hud.cs v2)"},
		{"What did the commit that declares gold in the HUD fix?", fix, "(fixes: error CS0103: The name 'gold' does not exist in the current…; files: hud.cs v2)"},
	} {
		r, err := e.Context(context.Background(), c.question, Options{Budget: 1000})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(r.Items, func(it Item) bool { return it.NodeID == c.node })
		if i < 0 {
			t.Errorf("%q: the context lacks %s:\n%s", c.question, c.node, r.Text)
			continue
		}
		it := r.Items[i]
		if !strings.Contains(r.Text, c.line) {
			t.Errorf("%q: the context lacks %q:\n%s", c.question, c.line, r.Text)
		}
		if !slices.Equal(it.Files, want) {
			t.Errorf("%q: files %+v, want %+v", c.question, it.Files, want)
		}
		if c.node == problem && !slices.Equal(it.SolvedBy, []string{fix}) || c.node == fix && !slices.Equal(it.Solves, []string{problem}) {
			t.Errorf("%q: solves %v, solved by %v", c.question, it.Solves, it.SolvedBy)
		}
	}
}
