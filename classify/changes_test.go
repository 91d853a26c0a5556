package classify

import (
	"strings"
	"testing"
)

// The sentence a change is labelled by says what the agent changes: an
// intent said as an order, "fix this by moving …" as "Move …", an item of
// its list; not an apology, a cause or a guess alone, a lead-in, changes
// it does not name, trouble named by its kind ("fix the login error").
func TestChangeSentence(t *testing.T) {
	for _, c := range []struct{ why, want string }{
		{"I'll help move the token check into auth.ts.", "Move the token check into auth.ts."},
		{"I'll help fix the login error in auth.ts.", ""},
		{"I apologize for the oversight. This error occurs because the provider has no project. Let's fix this by updating the module to pass the project id.", "Update the module to pass the project id."},
		{"Now I can see the duplicate provider issue. Let's fix this by: 1. Moving all provider blocks to `provider.tf` 2. Removing the copy from `backend.tf`", "Move all provider blocks to `provider.tf`"},
		{"I'll help implement these UX improvements with properly formatted changes. Let's break this down into steps: 1. First, let's update the type:", ""},
		{"It seems that the `url` attribute is not available here. Here are the changes:", ""},
		{"I'll help modify the route.ts file to handle this properly.", ""},
		{"First, let's fix the type definitions and remove the duplicate report display:", "Fix the type definitions and remove the duplicate report display."},
		{"Certainly!", ""},
		{"This typically happens when the provider is defined in multiple files.", ""},
		{"It's because the module block passes a provider argument. Remove the provider argument from both module blocks.", "Remove the provider argument from both module blocks."},
		{"This change moves the provider block into provider.tf.", "This change moves the provider block into provider.tf."},
		{"Since I don't have access to that file, I'll assume a typical structure for the call.", ""},
		{"To resolve this, we need to enable the Artifact Registry API before creating the repository.", "Enable the Artifact Registry API before creating the repository."},
		{"Modify the `main.tf` file to implement this change.", ""},
		{"However, we can make a small improvement to main.tf to expose the service URL as an output.", "Make a small improvement to main.tf to expose the service URL as an output."},
		{"I'll help fix the `cn` function error. We need to import it from the utils file.", ""},
		{"I'll fix the syntax error in the route.ts file. There's an extra closing parenthesis that needs to be removed.", "There's an extra closing parenthesis that needs to be removed."},
	} {
		if got := ChangeSentence(c.why); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.why, got, c.want)
		}
	}
}

// A small edit is said by the lines it changes; a larger one, a new file
// or none is not; edits that replace their text with itself change
// nothing.
func TestEditSentence(t *testing.T) {
	edit := func(search, replace string) Artifact { return Artifact{Edit: &Edit{Search: search, Replace: replace}} }
	for _, c := range []struct {
		arts []Artifact
		want string
	}{
		{[]Artifact{edit("a := 1\nb := 2\n", "a := 1\nb := 3\n")}, "Changed `b := 2` to `b := 3`."},
		{[]Artifact{edit("import os\n", "import os\nimport sys\n")}, "Added `import sys`."},
		{[]Artifact{edit("x()\nprint(x)\n", "x()\n")}, "Removed `print(x)`."},
		{[]Artifact{edit("", "package main\n")}, ""},
		{[]Artifact{edit("a\nb\nc\n", "d\ne\nf\n")}, ""},
		{[]Artifact{{Content: "whole file"}}, ""},
	} {
		if got := EditSentence(c.arts); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.arts, got, c.want)
		}
	}
	if !NoEdit([]Artifact{edit("a\n", "a\n")}) || NoEdit([]Artifact{edit("a\n", "a\n"), edit("a\n", "b\n")}) || NoEdit([]Artifact{{Content: "x"}}) {
		t.Error("NoEdit: only edits that all change nothing")
	}
}

// What a commit's message and an agent's words say of a change: a type of
// feature or tidying, a fix by its verb in any language (not by its type,
// which agents give changes of behaviour too), nothing fixed by logging,
// error handling or a search for a cause.
func TestWhatAChangeSays(t *testing.T) {
	for _, c := range []struct {
		message                 string
		tidies, fixes, fixesNot bool
	}{
		{"feat: add a heatmap of the swaps", true, false, false},
		{"refactor(ui)!: split the header", true, false, false},
		{"fix: show the button for ten rows only", false, false, false},
		{"fix: import PointerScrollEvent to fix the type error", false, true, false},
		{"refactor: simülasyon mantığını düzelt", true, true, false},
		{"fix: ComponentPalette layout çakışmasını düzelt", false, true, false},
		{"fix: PyQt6 QSvgWidget import hatasını QSvgRenderer ile çöz", false, true, false},
		{"fix: risolve il crash del menu", false, true, false},
		{"fix: add error handling to the roster page", false, false, true},
		{"fix: import Router to investigate the redirect", false, false, true},
		{"fix: handle network errors in fetchState", false, false, true},
	} {
		if Tidies(c.message) != c.tidies || CommitFixes(c.message) != c.fixes || FixesNothing(c.message) != c.fixesNot {
			t.Errorf("%q: tidies %v, fixes %v, fixes nothing %v", c.message, Tidies(c.message), CommitFixes(c.message), FixesNothing(c.message))
		}
	}
}

// A commit that joins several pieces of work bundles them, in the
// languages agents' users write; one piece of work does not.
func TestBundles(t *testing.T) {
	for msg, want := range map[string]bool{
		"feat: add the palette, the clock and the logo":                true,
		"feat: VCC, GROUND bileşenleri ve global clock generator ekle": true,
		"chore: Hyprland uyumluluğu ve UI geliştirmeleri":              true,
		"feat: Add mouse wheel zoom functionality":                     false,
		"refactor: Migre le template de Chartres vers BaseLayout":      false,
		"feat: Add NSAppTransportSecurity to Info.plist":               false,
	} {
		if got := Bundles(msg); got != want {
			t.Errorf("Bundles(%q) = %v, want %v", msg, got, want)
		}
	}
}

// What the agent said before its edits is cut after its last whole
// sentence, not at the dot of a path in it.
func TestEditWhy(t *testing.T) {
	cause := "The error is occurring because we're using `assertion` in the condition, which is not the correct syntax for service account IAM policies."
	long := "I apologize for the confusion. " + strings.Repeat(cause+" ", 3) +
		"Let's modify the `google_service_account_iam_member` resource in the `gcp-github-docker-module/main.tf` file to use the correct syntax for the attribute condition and the provider."
	content := long + "\n\nmain.tf\n```hcl\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n"
	arts := findArtifacts(content, segments(content))
	got := EditWhy(content, arts)
	if want := "I apologize for the confusion. " + strings.Repeat(cause+" ", 2) + cause; got != want {
		t.Errorf("EditWhy:\n got %q\nwant %q", got, want)
	}
}
