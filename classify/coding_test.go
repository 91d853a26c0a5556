package classify

import (
	"slices"
	"strings"
	"testing"
)

// A coding agent's tool lines say what it did: each commit with the files
// applied since the one before, or the user's own edit it committed
// first; the edits left without a commit; the commits undone.
func TestToolLines(t *testing.T) {
	var s Signals
	readToolLines(`Tokens: 11k sent, 144 received. Cost: $0.03 message, $0.25 session.
Committing src/app.js before applying edits.
Commit 1a2b3c4 chore: the user's own edit
Applied edit to src/app.js
Applied edit to src\util.js
Commit 5d6e7f8 fix: handle a null user in login
Applied edit to README.md
Removed: 9a8b7c6 feat: a heatmap
You can use /undo to undo and discard each aider commit.
`, &s)
	want := []Commit{
		{Hash: "1a2b3c4", Message: "chore: the user's own edit", Files: []string{"src/app.js"}, Own: true},
		{Hash: "5d6e7f8", Message: "fix: handle a null user in login", Files: []string{"src/app.js", "src/util.js"}},
	}
	if !slices.EqualFunc(s.Commits, want, func(a, b Commit) bool {
		return a.Hash == b.Hash && a.Message == b.Message && a.Own == b.Own && slices.Equal(a.Files, b.Files)
	}) {
		t.Errorf("commits %+v, want %+v", s.Commits, want)
	}
	if !slices.Equal(s.Uncommitted, []string{"README.md"}) || len(s.Undone) != 1 || s.Undone[0].Hash != "9a8b7c6" {
		t.Errorf("uncommitted %q, undone %+v", s.Uncommitted, s.Undone)
	}
}

// What a user's turn asks of an agent: its first sentence that asks, past
// a role, a greeting, a symptom or a lead-in; nothing for a command to the
// agent or a shell, a confirmation, the agent's own prompts, a paste with
// no ask, or a fix of something unnamed.
func TestRequest(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"add a dark mode toggle to the settings page. Keep the current colors.", "add a dark mode toggle to the settings page."},
		{"/ask why does the build fail on macos?", "why does the build fail on macos?"},
		{"/add src/app.js src/util.js", ""},
		{"/undo", ""},
		{"# Fix any errors below, if possible.\n\n## Running: flake8 app.py", ""},
		{"yes", ""},
		{"You are a senior Go engineer.\nRewrite the cache so that it evicts by size.", "Rewrite the cache so that it evicts by size."},
		{"Hello there! The export button does nothing. Can you wire it to the CSV writer?", "Can you wire it to the CSV writer?"},
		{"Okay, now move the settings into their own panel", "Okay, now move the settings into their own panel"},
		{"Assistant, the chart still shows last week. Please refresh it from the store on load.", "Please refresh it from the store on load."},
		{"Here is the output of the run:\nDone in 3.2s", ""},
		{"The crash happens because you free the buffer twice in the loop.", ""},
		{"python scripts/migrate.py --dry-run", ""},
		{"cat > notes.txt << 'EOF'", ""},
		{"Add src/app.py to the chat? (Y)es/(N)o [Yes]: y", ""},
		{"Fix the backend error", ""},
		{"please fix it", ""},
		{"Fix the error in user_service.go", "Fix the error in user_service.go"},
		{"Corrige la fonction de tri des dates dans le tableau.", "Corrige la fonction de tri des dates dans le tableau."},
		// Another language: the ask, not the symptom before it, nor a
		// word that only starts as an order does ("affichent").
		{"Les boutons sont cassés depuis hier. Remets le style des boutons comme avant.", "Remets le style des boutons comme avant."},
		{"Mes liens affichent une page vide et ne fonctionnent plus.", ""},
		{"Menü ekranın dışına taşıyor. Menüye kaydırma özelliği getir.", "Menüye kaydırma özelliği getir."},
		{"drop client/package.json", ""},
		{"Hataları gördün ve bunları düzelt.", ""},
		{"Factory react refresh:6", ""},
		{"Now you'll do the following.", ""},
		{"What does this mean?", ""},
		{"What's wrong? Fix the import in loader.py.", "Fix the import in loader.py."},
		{"Run -v does not help.", ""},
		{"Info  - Need to disable some ESLint rules?", ""},
		{"Save that diagram in a file called mermaid.txt", ""},
		{"Can you help me fix this error?", ""},
		{"You saw the error code, help me fix it.", ""},
		{"The pdf URL works now, please fix ONLY the pdf file upload that has issues.", "The pdf URL works now, please fix ONLY the pdf file upload that has issues."},
	} {
		got := ""
		english := !strings.HasPrefix(c.text, "Corrige") && !strings.HasPrefix(c.text, "Les ") && !strings.HasPrefix(c.text, "Mes ") && !strings.HasPrefix(c.text, "Menü") && !strings.HasPrefix(c.text, "Hataları")
		if r := findRequest(c.text, sentences(proseOf(c.text)), english); r != nil {
			got = r.Text
		}
		if got != c.want {
			t.Errorf("%q: %q, want %q", c.text, got, c.want)
		}
	}
}

// The problems of a coding session: the error lines of pasted output or a
// lint report, a sentence that says the program misbehaves, and what a
// "fix …" request names; not an order, a source excerpt, a banner, a
// report's header alone, a line that leads to the error after it, a
// shell command.
func TestCodingProblems(t *testing.T) {
	for _, c := range []struct {
		text, role string
		want       []string
	}{
		{"Failed to compile\n./app/route.ts\nError: Unsupported argument in module main\n  17 │ const data = await fetch(url) // error here", "user",
			[]string{"Error: Unsupported argument in module main"}},
		{"Applied edit to polarized_blob.py\n\npolarized_blob.py:67:10: F821 undefined name 'time'\nt0 = time.time()", "tool",
			[]string{"F821 undefined name 'time' (polarized_blob.py:67:10)"}},
		{"src/components/Item.tsx(26,25): error TS2554: Expected 1 arguments, but got 2.", "tool",
			[]string{"error TS2554: Expected 1 arguments, but got 2. (Item.tsx(26,25))"}},
		// Said message first: a log's stamp dropped, a long quoted type
		// shortened; one error at two places is one problem.
		{"[  +16 ms] lib/main.dart:82:33: Error: The getter 'buttons' isn't defined for the class 'PointerEvent'.\nlib/main.dart:90:12: Error: The getter 'buttons' isn't defined for the class 'PointerEvent'.", "tool",
			[]string{"Error: The getter 'buttons' isn't defined for the class 'PointerEvent'. (main.dart:82:33)"}},
		{"src/a.tsx(25,13): error TS2345: Argument of type '{ obtainedAt: string; id?: string; name: string; rarity: string; }' is not assignable to parameter of type 'Item'.", "tool",
			[]string{"error TS2345: Argument of type '{ obtainedAt: string; i…' is not assignable to parameter of type 'Item'. (a.tsx(25,13))"}},
		{"Single clicks are not handled for some reason.", "user", []string{"Single clicks are not handled for some reason."}},
		{"fix the sign in error, it says 504 gateway timeout", "user", []string{"Sign in error, it says 504 gateway timeout"}},
		{"Make sure it doesn't crash when the file is empty.", "user", nil},
		{"Tokens: 11k sent, 144 received. Cost: $0.03 message.", "tool", nil},
		// An error told in another language; a message that starts as
		// code; an error named in a fix; not a commit line, a rule for
		// errors to come, a criterion of a test, or a line that leans on
		// the one before.
		{"Le formulaire plante quand le champ est vide.", "user", []string{"Le formulaire plante quand le champ est vide."}},
		{"export 'Heatmap' (imported as 'Heatmap') was not found in 'recharts'", "user", []string{"export 'Heatmap' (imported as 'Heatmap') was not found in 'recharts'"}},
		{"fix AxiosError in api.ts: getaddrinfo ENOTFOUND example.invalid", "user", []string{"AxiosError in api.ts: getaddrinfo ENOTFOUND example.invalid"}},
		{"Commit 0dee54e fix: resolve AxiosError by using the right URL", "tool", nil},
		{"5. If build.log contains 'error', fix the code until it compiles.", "user", nil},
		{"2. Convergence: the error against the fine run must shrink by 16x.", "user", nil},
		{"- It's expected as a string type error", "user", nil},
		{"Kural: pass veya NotImplementedError bırakma.", "user", nil},
		{"1. max relative error of p vs theory < 0.5% away from the nulls.", "user", nil},
		{"**Native Extension Compilation Failing**", "user", nil},
		{"// Replace toast with error state", "user", nil},
		{"Unhandled Runtime Error", "user", nil},
		{"/ask it is not printed in the console during flutter run.", "user", nil},
		{"DeepSeek, on a un problème : les pages villes plantent car 'src/components/VilleTemplate.astro' n'existe pas.", "user",
			[]string{"Les pages villes plantent car 'src/components/VilleTemplate.astro' n'existe pas."}},
		{"The following RangeError was thrown during paint():", "user", nil},
		{"grep -E \"(error:|failed:|Error:)\" build.log", "user", nil},
		{"[ERROR:flutter/runtime/dart_vm_initializer.cc(41)] Unhandled Exception: Exception: Codec failed to produce an image", "tool",
			[]string{"Unhandled Exception: Exception: Codec failed to produce an image"}},
		{"so if the API answers sooner, never display the output until it is done", "user", nil},
		{"Verify: Faster response without flickering scale levels", "user", nil},
		{"ok now i see a weird default blue highlight in the sidebar nav.", "user", []string{"ok now i see a weird default blue highlight in the sidebar nav."}},
		{"interface UploadStatus {\n  [filename: string]: 'pending' | 'uploading' | 'completed' | 'failed'\n}", "user", nil},
		{"I am unable to stay on roster page, fix the error", "user", []string{"I am unable to stay on roster page"}},
		{"my frame rate is very slow. Maybe there's a way to batch drawing?", "user", []string{"my frame rate is very slow."}},
		{"Failed to compile\n./app/route.ts\nError:\n  × Expected a semicolon\n    ╭─[/work/app/route.ts:17:1]\n 17 │ const data = await r.json()", "user",
			[]string{"Expected a semicolon (route.ts:17:1)"}},
		{"══╡ EXCEPTION CAUGHT BY WIDGETS LIBRARY ╞═══════════\nThe following assertion was thrown building Painter(dirty):\nIncorrect GestureDetector arguments.", "tool",
			[]string{"Assertion: Incorrect GestureDetector arguments."}},
		{"══╡ EXCEPTION CAUGHT BY RENDERING LIBRARY ╞═════\nThe following RangeError was thrown during paint():\nRangeError (length): Invalid value: Not in inclusive range 0..99: 103", "user",
			[]string{"RangeError (length): Invalid value: Not in inclusive range 0..99: 103"}},
	} {
		var got []string
		for _, p := range codingProblems(findCodingProblems(c.text, sentences(proseOf(c.text)), c.role)) {
			got = append(got, p.Summary)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q:\n got %q\nwant %q", c.text, got, c.want)
		}
	}
}

// The agent's trouble with its model's provider is a problem of its
// set-up; the project's errors are not.
func TestSetupProblems(t *testing.T) {
	for _, c := range []struct {
		text  string
		setup bool
	}{
		{"litellm.AuthenticationError: Missing Anthropic API Key - A call is being made to anthropic but no key is set", true},
		{`litellm.BadRequestError: OpenrouterException - {"error":{"message":"acme/model-9 is not a valid model ID","code":400}}`, true},
		{"lib/main.dart:58:53: Error: The method 'inverted' isn't defined for the class 'Matrix4'.", false},
		{"TypeError: Cannot read properties of undefined (reading 'map')", false},
	} {
		ps := codingProblems(findCodingProblems(c.text, nil, "tool"))
		if len(ps) != 1 || ps[0].Setup != c.setup {
			t.Errorf("%q: %+v, want one problem, of the set-up %v", c.text, ps, c.setup)
		}
	}
}

// The choices a user's request to a coding agent fixes: a tool to use, a
// return to what was, the stack a specification lists; not a use of
// anything, code, or what an order uses without choosing.
func TestCodingDecisions(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"Add a chart of the weekly totals. Use chart.js for the charts.", "chart.js"},
		{"Honestly, go back to the vertical list of cards.", "vertical list of cards"},
		{"- Framework: SvelteKit with server routes", "SvelteKit with server routes"},
		{"Do the styling with plain CSS modules", "plain CSS modules"},
		{"Let's switch from Redux to Zustand for the store.", "Zustand"},
		{"Il faut passer de Webpack à Vite.", "Vite"},
		{"nous devons passer de '@type': 'State' à '@type': 'AdministrativeArea'", ""},
		{"Use any libraries you need.", ""},
		{"using total = sum(values);", ""},
		{"Please fix the chart colours.", ""},
		{"create a go project in this directory. call it pixie", "the name pixie"},
		{"Write one function fetch_all(urls) that uses httpx's async client — follow its docs.", "httpx's async client"},
		{"Plain CSS only — no frameworks, no build step.", "Plain CSS"},
		{"can we make three cards (upload, Review (instead of analysis), done) like the title", "Review"},
		{"keep it consistent with the rest of the app.Use bulma for styling", "bulma"},
		{"I only want the totals shown.", ""},
		{"What would you call it?", ""},
		{"Rotating column only in s in [0.3, 0.7], zero outside.", ""},
		{"Let the API handle URL encoding instead of doing it twice.", ""},
		{"how to run on macos? using flutter command", ""},
		{"Use chain of thought reasoning, and think out loud.", ""},
		{"Use proper TypeScript types for the props.", ""},
	} {
		var got []string
		for _, d := range codingDecisions(sentences(proseOf(c.text))) {
			got = append(got, d.Outcome)
		}
		if c.want == "" && len(got) > 0 || c.want != "" && !slices.Contains(got, c.want) {
			t.Errorf("%q: decisions %q, want %q", c.text, got, c.want)
		}
	}
}

// A fix the user prescribes as they ask for it is a solution: each part
// after "Fix X:" that says how things must be, "it" said as what is fixed;
// not the orders beside them, nor prescriptions without an ask to fix.
func TestPrescribedFixes(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"Fix the retry check in sync.py: it should compare the count with the limit, not the delay.",
			[]string{"The retry check in sync.py should compare the count with the limit, not the delay."}},
		{"Fix loader.py:\n1. The cache key must include the locale.\n2. Log the misses.\n3. The parser comes from utils, not core.",
			[]string{"The cache key must include the locale.", "The parser comes from utils, not core."}},
		{"Add a settings page. It should list the user's keys.", nil},
		{"Fix the upload endpoint: the example response shows a specific format we should validate against. The form field must be named file.",
			[]string{"The form field must be named file."}},
	} {
		var got []string
		for _, s := range prescribedFixes(sentences(proseOf(c.text))) {
			got = append(got, s.Sentence)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q:\n got %q\nwant %q", c.text, got, c.want)
		}
	}
}

// A long sentence is cut in its middle, by words, to keep its end.
func TestClipMiddle(t *testing.T) {
	s := "verilog_generator.py (veya export modülü) SR Latch ve diğer kompleks elemanları (Flip-Flop'lar, sayaçlar) doğru şekilde Verilog koduna dönüştürmüyor."
	got := clipMiddle(s, 100)
	if len(got) > 100 || !strings.HasPrefix(got, "verilog_generator.py (veya export") || !strings.HasSuffix(got, "koduna dönüştürmüyor.") || !strings.Contains(got, " … ") {
		t.Errorf("%q (%d bytes)", got, len(got))
	}
	if clipMiddle("short enough", 100) != "short enough" {
		t.Error("a short sentence is cut")
	}
}
