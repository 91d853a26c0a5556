package classify

import (
	"slices"
	"testing"
)

// TestNamesOfWorksAndPeople: a title in quotes, a name with "of the" or
// initials, is one name, not its pieces; an adjective of a people before
// its noun, a name only addressed, a template's blank, a point of a
// formula and a literal of code are no names; and the names of code
// pasted without a fence are not taken; those a line lists by three or
// more are marked so.
func TestNamesOfWorksAndPeople(t *testing.T) {
	if e := analyze("`pdf_url`: URL of the PDF document.").Entities; len(e) == 0 || e[len(e)-1].Tail != "PDF" {
		t.Errorf("the tail of a name that starts a sentence starts at a capital: %+v", e)
	}
	for _, tc := range []struct {
		text string
		want map[string]string // entity text → kind ("" : no entity)
		// addressed are the names taken as a sentence's first word (a
		// name spoken to, a word after a bullet): they count only once
		// they show up elsewhere.
		addressed []string
		// listed are the names of code listed by three or more.
		listed []string
	}{
		{text: `Just finished "A Dance with Dragons" and loved it.`,
			want: map[string]string{"A Dance with Dragons": "name", "Dragons": "", "Dance": ""}},
		{text: "Here's a pic of my favorite, Lord of the Rings, on the wall.",
			want: map[string]string{"Lord of the Rings": "name", "Rings": ""}},
		{text: "Processing of the PDF fails. Bank of America called.",
			want: map[string]string{"of the PDF": "", "PDF": "name", "Bank of America": "name"}},
		{text: "Have you read all of George R. R. Martin's books?",
			want: map[string]string{"George R. R. Martin": "name", "Martin": ""}},
		{text: "We found an Irish pub near the European coastline, then flew to Lisbon.",
			want: map[string]string{"Irish": "", "European": "", "Lisbon": "name"}},
		{text: "Hey Maria! Thanks, Mell. Go for it, Jon! I met Ana in Porto.",
			want: map[string]string{"Maria": "name", "Mell": "name", "Jon": "name", "Ana": "name"}, addressed: []string{"Maria", "Mell", "Jon"}},
		{text: "Sincerely,\n\nDarryl [Last Name]\nCall me at [Your Phone Number].",
			want: map[string]string{"Last Name": "", "Your Phone Number": ""}},
		{text: "Consider a triangle with base \\(BC\\) and sides \\(AB = AC\\) in GeoGebra.",
			want: map[string]string{"BC": "", "AB": "", "AC": "", "GeoGebra": "name"}},
		{text: "This method returns `True` if the password matches, and `check_password_hash` does it.",
			want: map[string]string{"True": "", "check_password_hash": "identifier"}},
		{text: "Here is my sidebar:\n\nimport { Home, Shield, Brain } from 'lucide-react';\ninterface SubMenuItemProps {\n<span class=\"icon\">check_circle</span>\nchiA, SA = exit_state(0.1, 0.1)\n\nIt breaks in Safari.",
			want: map[string]string{"Home": "", "Shield": "", "Brain": "", "SubMenuItemProps": "", "check_circle": "", "SA": "", "Safari": "name"}},
		{text: "## Refactor\nMove the parser out.\n### 90-Day Plan Overview\nThis will ensure:\n• Proper DAG scaffolding",
			want: map[string]string{"Refactor": "", "Plan Overview": "", "90-Day Plan Overview": ""}, addressed: []string{"Proper DAG"}},
		{text: "Frames skip only when CPU-bound, in our ATS-friendly app on the CPU. For UK-based users too.",
			want: map[string]string{"CPU-bound": "", "ATS-friendly": "", "UK-based": "", "CPU": "name"}},
		{text: "The build failed:\n[        ] Try correcting the name of an existing getter in Flutter.",
			want: map[string]string{"Try": "name", "Flutter": "name"}, addressed: []string{"Try"}},
		{text: "| Schema | missing in the file | Ajouter the type | set by Stripe |",
			want: map[string]string{"Ajouter": "name", "Stripe": "name"}, addressed: []string{"Ajouter"}},
		{text: "I usually play CS:GO, and Street Fighter at the local arcade.",
			want: map[string]string{"GO": "", "CS": "", "Street Fighter": "name"}},
		{text: "I am looking at CI/CD Pipelines with GitHub Actions over TCP/IP, and I/O too.",
			want: map[string]string{"CI": "", "CD": "", "CD Pipelines": "", "Pipelines": "", "TCP": "", "IP": "", "GitHub Actions": "name"}},
		{text: "I met Michael at Montserrat Writers’ Festival, then at the Writers' Guild of America, and read James' notes.",
			want: map[string]string{"Montserrat Writers’ Festival": "name", "Writers' Guild of America": "name", "Montserrat Writers": "", "James": "name"}},
		{text: "Jan 15 is the deadline; Jan agreed. The theorem dates to the 6th century BCE, the wall to 500 BC.",
			want: map[string]string{"Jan": "name", "BCE": "", "BC": ""}},
		{text: "Ah ha ha, yeah, JUST DOING IT! The NBA playoffs and the AWS SDK.",
			want: map[string]string{"DOING IT": "", "JUST DOING IT": "", "NBA": "name", "AWS SDK": "name"}},
		{text: "My data:\n{\n\"area\": \"Employee Training\",\n\"priority\": \"High\"\n}\nIt comes from Workday.",
			want: map[string]string{"Employee Training": "", "High": "", "Workday": "name"}},
		{text: "Pull the user data: username, profileLink, articlesCount and favouriteCount.\nThen fix src/app.py and src/db.py.",
			want:   map[string]string{"profileLink": "identifier", "articlesCount": "identifier", "src/app.py": "path", "src/db.py": "path"},
			listed: []string{"profileLink", "articlesCount", "favouriteCount"}},
		{text: "The log says:\nusage: Object { prompt_tokens: 37208, total_tokens: 37895 }\nWhy does Vercel cut it?",
			want: map[string]string{"prompt_tokens": "", "total_tokens": "", "Object": "", "Vercel": "name"}},
		{text: "The console:\ncompletion_tokens: 687\n\u200b\ntotalTokens: 37895\nmodel: \"gpt-4o\"\nPython: 3.12\nWhy does Vercel cut it?",
			want: map[string]string{"completion_tokens": "", "totalTokens": "", "Python": "name", "Vercel": "name"}},
		{text: "Run it:\nUnity.exe -batchmode -projectPath C:\\Game -logFile build.log\n@ArkMaster123 ➜ /workspaces/app (main) $\nThen read build.log with `--es-module-specifier-resolution` off in Node.",
			want: map[string]string{"projectPath": "", "logFile": "", "ArkMaster123": "", "--es-module-specifier-resolution": "", "Node": "name"}},
		{text: "It fails:\n  at file:///C:/Sites/poll/node_modules/@sveltejs/kit/src/core/postbuild/prerender.js:65:25\n  File \"/Users/a/proj/venv/lib/python3.12/site-packages/pip/_internal/misc.py\", line 3\norg-dartlang-sdk:///flutter/lib/ui/painting.dart:2417:6: Context: Found this candidate.\nMy src/routes/poll.ts imports it. Missing iOS-compatible flags. cat > a.py << 'EOF' then EOF. It is set in a small Midwestern town.",
			want: map[string]string{"sveltejs/kit/src/core/postbuild/prerender.js": "", "pip/_internal/misc.py": "", "/Users/a/proj/venv/lib/python3.12/site-packages/pip/_internal/misc.py": "", "src/routes/poll.ts": "path", "flutter/lib/ui/painting.dart": "", "iOS-compatible": "", "EOF": "", "Midwestern": "", "Sites": "", "node_modules": "", "File": ""}},
		{text: "Write transfer_matrix(alpha_I, rho_Q).\nPut it in coeffs.py and call it from `integrate`.",
			want: map[string]string{"alpha_I": "", "rho_Q": "", "transfer_matrix": "identifier", "integrate": "identifier", "coeffs.py": "path"}},
		{text: "Here:\nK = np.array([\n  [alpha_I, Stokes_Q],\n])\nprint(K)\nDoes NumPy do this?",
			want: map[string]string{"Stokes_Q": "", "NumPy": "name"}},
	} {
		got := map[string]Entity{}
		for _, e := range analyze(tc.text).Entities {
			got[e.Text] = e
		}
		for text, kind := range tc.want {
			if got[text].Kind != kind {
				t.Errorf("%q: %q is of kind %q, want %q (all: %v)", tc.text, text, got[text].Kind, kind, got)
			}
		}
		for _, name := range tc.addressed {
			if !got[name].SentenceStart {
				t.Errorf("%q: %q is addressed, but counts as a name at once", tc.text, name)
			}
		}
		for text, e := range got {
			if e.Listed != slices.Contains(tc.listed, text) {
				t.Errorf("%q: %q listed %v", tc.text, text, e.Listed)
			}
		}
		if e, ok := got["Ana"]; ok && e.SentenceStart {
			t.Errorf("%q: Ana is spoken of, not to, but waits as if addressed", tc.text)
		}
	}
}

// TestNamesSpokenTo: a name that speaks to the listener ("Wow Nate!",
// "That's great Tim!", "Thanks, Gina - really") is addressed, whatever
// greeting or praise comes before it; the listener's name used of them
// within a sentence, and another name after a greeting, are not.
func TestNamesSpokenTo(t *testing.T) {
	for _, tc := range []struct {
		text, listener string
		addressed      []string
		spokenOf       []string
	}{
		{"Wow Nate! Congrats on winning!", "Nate", []string{"Nate"}, nil},
		{"Wow Nate! Congrats on winning!", "", []string{"Nate"}, nil},
		{"Yeah Mel, let's spread love!", "Melanie", []string{"Mel"}, nil},
		{"That's great Tim! Books are fun.", "Tim", []string{"Tim"}, nil},
		{"Thanks, Gina - really appreciate it.", "Gina", []string{"Gina"}, nil},
		{"Sorry about your job Jon, but a business of your own sounds awesome!", "Jon", []string{"Jon"}, nil},
		{"Bye Joanna! Take care!", "Joanna", []string{"Joanna"}, nil},
		{"Woohoo Melanie! I passed the interviews!", "Melanie", []string{"Melanie"}, nil},
		{"No doubt, Jon you've got this.", "Jon", []string{"Jon"}, nil},
		{"I told Gina about Porto and she loved it.", "Gina", nil, []string{"Gina", "Porto"}},
		{"Wow John, Maria called me from Lisbon!", "John", []string{"John"}, []string{"Maria", "Lisbon"}},
		{"That's great Tim! I saw the Great Wall.", "Tim", []string{"Tim"}, []string{"Great Wall"}},
		{"I set it up in Assist, then redeployed.", "Assistant", nil, []string{"Assist"}},
	} {
		got := map[string]Entity{}
		for _, e := range an.Analyze(Turn{Text: tc.text, Role: "user", Listener: tc.listener}).Entities {
			got[e.Text] = e
		}
		for _, name := range tc.addressed {
			if e, ok := got[name]; !ok || !e.Addressed || !e.SentenceStart {
				t.Errorf("%q (to %q): %q speaks to them, but is %+v (all %v)", tc.text, tc.listener, name, e, got)
			}
		}
		for _, name := range tc.spokenOf {
			if e, ok := got[name]; !ok || e.Addressed {
				t.Errorf("%q (to %q): %q is spoken of, but is %+v (all %v)", tc.text, tc.listener, name, e, got)
			}
		}
	}
}

// TestSelfNames: the name a speaker gives themselves is marked; a state, a
// people, or someone else's name is not.
func TestSelfNames(t *testing.T) {
	for _, tc := range []struct {
		text string
		self []string
		not  []string
	}{
		{"I'm Christina, a colour technologist, and I use Figma.", []string{"Christina"}, []string{"Figma"}},
		{"Hi, my name is Ana Lima. I moved to Porto.", []string{"Ana Lima"}, []string{"Porto"}},
		{"Hello there! I am Dana and I build shops.", []string{"Dana"}, nil},
		{"I'm Korean. I met Bob, and I'm with Sarah at Google now.", nil, []string{"Bob", "Sarah", "Google"}},
		{"Yesterday I told Tim that I'm Jewish.", nil, []string{"Tim"}},
	} {
		got := map[string]Entity{}
		for _, e := range an.Analyze(Turn{Text: tc.text, Role: "user"}).Entities {
			got[e.Text] = e
		}
		for _, name := range tc.self {
			if !got[name].Self {
				t.Errorf("%q: %q is the speaker's own name (all %v)", tc.text, name, got)
			}
		}
		for _, name := range tc.not {
			if e, ok := got[name]; !ok || e.Self {
				t.Errorf("%q: %q is found and not the speaker's name: %+v", tc.text, name, e)
			}
		}
		if e, ok := got["Korean"]; ok && e.Self {
			t.Errorf("a people is not a name: %+v", e)
		}
	}
}
