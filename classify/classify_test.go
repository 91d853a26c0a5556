package classify

import (
	"slices"
	"strings"
	"testing"
	"time"
)

var an = New()

func analyze(text string) Signals {
	return an.Analyze(Turn{Text: text, Role: "user", Time: time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)})
}

func TestDecisions(t *testing.T) {
	for _, tc := range []struct {
		text, outcome, rationale, replaces string
		alts                               []string
	}{
		{"Let's go with Elements instead, because the designers want the payment form to match the rest of the site.", "Elements", "the designers want the payment form to match the rest of the site", "", nil},
		{"We switched from Redux to Zustand because the boilerplate was slowing us down.", "Zustand", "the boilerplate was slowing us down", "Redux", []string{"Redux"}},
		{"Agreed: Stripe Elements over Checkout, for the custom styling.", "Stripe Elements", "the custom styling", "", []string{"Checkout"}},
		{"We decided to move the cron job to a queue since it kept timing out.", "move the cron job to a queue", "it kept timing out", "", nil},
		{"I'll use Redis for caching.", "Redis", "", "", nil},
		{"I've already installed Flask-Argon2 v0.3.0, but I'm not sure how to configure it.", "Flask-Argon2 v0.3.0", "", "", nil},
		{"I'll use Google Lighthouse, GTmetrix, and WebPageTest to gather the data.", "Google Lighthouse, GTmetrix, and WebPageTest", "", "", nil},
		{"Let's replace Moment with date-fns to avoid the bundle size.", "date-fns", "the bundle size", "", []string{"Moment"}},
		{"We settled on PostgreSQL.", "PostgreSQL", "", "", nil},
		{"Replace them with proper ESM syntax.", "proper ESM syntax", "", "", nil},
		{"Let's use TypeScript. Because the codebase is getting big.", "TypeScript", "the codebase is getting big", "", nil},
		// What to do keeps its own "for"; a date says when, not what.
		{"Last week, I decided to run for office again - even though I haven't won before.", "run for office again", "", "", nil},
		{"So I switched from Microsoft Word to Scrivener on May 5.", "Scrivener", "", "Microsoft Word", []string{"Microsoft Word"}},
		{"I decided to replace 2 weak sources with 3 journal articles found on May 6.", "3 journal articles", "", "", []string{"2 weak sources"}},
		{"I chose to prioritize tone calibration over plot complexity.", "prioritize tone calibration", "", "", []string{"plot complexity"}},
		{"We've decided to use Docusaurus 3.1.0 for the docs.", "Docusaurus 3.1.0", "", "", nil},
	} {
		ds := analyze(tc.text).Decisions
		if len(ds) != 1 {
			t.Errorf("%q: %d decisions", tc.text, len(ds))
			continue
		}
		d := ds[0]
		if d.Outcome != tc.outcome || d.Rationale != tc.rationale || d.Replaces != tc.replaces || !slices.Equal(d.Alternatives, tc.alts) {
			t.Errorf("%q:\n got %q %q %q %q\nwant %q %q %q %q", tc.text, d.Outcome, d.Rationale, d.Replaces, d.Alternatives, tc.outcome, tc.rationale, tc.replaces, tc.alts)
		}
	}
	for _, text := range []string{
		"Should we use Stripe Checkout or Stripe Elements?",
		"I'd start with Stripe Checkout: it is a hosted page.",
		"I went with my sister to the market.",
		// An outcome that names nothing: a pronoun, a letter.
		"Let's go with that.",
		"Since the file content is exactly what's shown, I'll use that.",
		"We decided to use this approach for the parser.",
		"Let's use Y.",
		// Advice, hearsay, hedges, examples, quotes and pointers decide
		// nothing.
		"You can use dairy-free margarine instead of butter.",
		"I've heard that switching to Argon2 could help.",
		"I think we should switch to Vite.",
		"When we switch to the roster tab, it reloads.",
		"I agreed with Shannon to limit my late study sessions.",
		"Let's use a coin toss as an example.",
		"I decided to include this at the beginning.",
		"I'll go with option 3 for now.",
		`The original: "Although it was cold, I decided to go for a walk."`,
		"I prefer using lightweight solutions over heavy frameworks.",
		"Move the PDF URL from the request body to a query parameter.",
		"Replace the existing sidebar with the new component.",
		"We installed a new sink in the kitchen.",
		"- Replace Record<string, number> with UploadProgress",
	} {
		if ds := analyze(text).Decisions; len(ds) != 0 {
			t.Errorf("%q is not a decision: %+v", text, ds)
		}
	}
}

// An assistant that edits nothing advises: it decides only what it
// reports done. An agent whose turn edits files decides what it says to
// change.
func TestAssistantDecisions(t *testing.T) {
	edit := "\n\nsrc/App.js\n```js\n<<<<<<< SEARCH\nold()\n=======\nnew()\n>>>>>>> REPLACE\n```\n"
	for _, tc := range []struct{ text, outcome string }{
		{"We'll use Flask-Migrate to manage these migrations.", ""},
		{"We'll use SQLAlchemy for database interactions.", ""},
		{"- **Replace Adverbs**: Consider replacing adverbs with stronger verbs.", ""},
		{"- Replace the old Bootstrap CDN links with the new ones.", ""},
		{"Switching from Word to Scrivener is a strategic move.", ""},
		{"I've replaced the old sidebar with the new Sidebar component.", "new Sidebar component"},
		{"We've replaced `assertion.actor_id` with `attribute.actor_id`.", ""},
		{"We use the `fill` method to set all values to 255 instead of the default 0." + edit, ""},
		{"Replace the old sidebar implementation with the new Sidebar component:" + edit, "new Sidebar component"},
		{"I'll refactor the code to use a Transform2D matrix instead of offsets." + edit, "Transform2D matrix"},
		{"Let's use the median length formula to find the medians." + edit, ""},
	} {
		ds := an.Analyze(Turn{Text: tc.text, Role: "assistant"}).Decisions
		got := ""
		if len(ds) > 0 {
			got = ds[0].Outcome
		}
		if got != tc.outcome {
			t.Errorf("%q: decision %q, want %q", tc.text, got, tc.outcome)
		}
	}
}

// A passing remark, a question being worked out, a failed attempt and a
// pointer at pasted code are no facts.
func TestPassingFacts(t *testing.T) {
	for _, text := range []string{
		"I just noticed something about the build.",
		"I just realized there might be a namespace conflict.",
		"I'm trying to understand why scalene triangles have no equal sides.",
		"I'm trying to verify if the Pythagorean triple holds for this triangle.",
		"I tried to add some css for the header but that didn't work.",
		"I've got the following code so far:",
	} {
		if fs := analyze(text).Facts; len(fs) != 0 {
			t.Errorf("%q is no fact: %+v", text, fs)
		}
	}
	if fs := analyze("I'm trying to keep my app lightweight, so I prefer simple, minimal dependencies.").Facts; len(fs) != 1 {
		t.Errorf("a preference while trying is a fact: %+v", fs)
	}
	if fs := analyze("I'm trying to optimize the API response time of my weather app.").Facts; len(fs) != 1 {
		t.Errorf("a project's aim is a fact: %+v", fs)
	}
}

// A heading in title case names nothing: its capitals are the heading's.
func TestTitleLineNames(t *testing.T) {
	s := analyze("## Highlight Your Key Achievements\n- **Stay Refreshed**: take breaks with Sarah.\nI met Tom in Lisbon.")
	var names []string
	for _, e := range s.Entities {
		if e.Kind == "name" {
			names = append(names, e.Text)
		}
	}
	if !slices.Equal(names, []string{"Sarah", "Tom", "Lisbon"}) {
		t.Errorf("names %q, want Sarah, Tom and Lisbon", names)
	}
}

func TestOptions(t *testing.T) {
	for text, want := range map[string][]string{
		"Should we use Stripe Checkout or Stripe Elements?": {"Stripe Checkout", "Stripe Elements"},
		"REST vs GraphQL for the public API":                {"REST", "GraphQL"},
		"We're choosing between Postgres and MySQL.":        {"Postgres", "MySQL"},
	} {
		if got := analyze(text).Options; !slices.Equal(got, want) {
			t.Errorf("%q: options %q, want %q", text, got, want)
		}
	}
}

// listenerOf is whom the facts test's sentences address: Nate, when they
// say "you".
func listenerOf(text string) string {
	if strings.Contains(strings.ToLower(text), "you") {
		return "Nate"
	}
	return ""
}

func TestFacts(t *testing.T) {
	for _, tc := range []struct {
		speaker, text, fact, category string
		remember, vague               bool
	}{
		{"", "I prefer TypeScript for all projects.", "User prefers TypeScript for all projects.", "preference", false, false},
		{"Caroline", "I went to a LGBTQ support group yesterday and it was so powerful.", "Caroline went to a LGBTQ support group yesterday (7 May 2023) and it was so powerful.", "context", false, false},
		{"", "My name is Dana and I'm a backend developer.", "User's name is Dana and User is a backend developer.", "identity", false, false},
		{"Ben", "I have two kids and a dog.", "Ben has two kids and a dog.", "relationship", false, false},
		{"", "Please remember that I don't eat pork.", "User doesn't eat pork.", "context", true, false},
		{"", "I'm allergic to peanuts, please remember that.", "User is allergic to peanuts.", "identity", true, false},
		{"", "I'm working on a compiler for a tiny language.", "User is working on a compiler for a tiny language.", "project", false, false},
		// A request or a question that ends a statement is left out, and
		// a date stays where it was, whatever was cut after it.
		{"", "I moved to Lisbon last week, can you help me find a gym.", "User moved to Lisbon last week (the week of 1 May 2023).", "context", false, false},
		{"", "I'm learning Rust for my job, how can I speed it up.", "User is learning Rust for their job.", "context", false, false},
		{"", "Remember that I moved to Porto yesterday, so please remember that.", "User moved to Porto yesterday (7 May 2023).", "context", true, false},
		{"", "I need a reviewer, can you review my essay.", "", "", false, false},
		// A possessive after the subject is named is "their".
		{"", "I prefer TypeScript for all my projects.", "User prefers TypeScript for all their projects.", "preference", false, false},
		{"Ben", "My sister and I painted my kitchen last week.", "Ben's sister and Ben painted their kitchen last week (the week of 1 May 2023).", "relationship", false, false},
		{"", "Oh, I think I like hiking, maybe.", "User thinks User like hiking, maybe.", "", false, true},
		{"", "I love how Vite watches the files.", "User loves how Vite watches the files.", "preference", false, false},
		// What leans on a pronoun, is said to the listener, or is help
		// sought without a detail to keep, is no fact; marks that end a
		// sentence are not its words.
		{"Joanna", "I watched it too and it really spoke to me.", "", "", false, false},
		{"Nate", "I'm going to keep working hard on it and see what happens.", "", "", false, false},
		{"Joanna", "I'll be sure to keep you posted.", "", "", false, false},
		{"", "I'm trying to craft a standout cover letter.", "", "", false, false},
		{"", "I moved to Toronto on September 2 ->-> 5,4", "User moved to Toronto on September 2.", "context", false, false},
		{"Melanie", "I'm a big fan of pottery.", "Melanie is a big fan of pottery.", "preference", false, false},
		// A condition named whole is the fact; news under a label is news.
		{"Ana", "I have a peanut allergy.", "Ana has a peanut allergy.", "identity", false, false},
		{"Ana", "Big news: I started a new job at the clinic.", "Ana started a new job at the clinic.", "context", false, false},
		// Nothing past the cue: nothing to keep.
		{"Melanie", "I love it!", "", "", false, false},
		{"Melanie", "I went there.", "", "", false, false},
		// "you" is the listener; "their" is not what it could be taken for.
		{"Joanna", "I took your recommendation and watched \"The Lord of the Rings\" last night!", "Joanna took Nate's recommendation and watched \"The Lord of the Rings\" last night (7 May 2023)!", "context", false, false},
		{"Tim", "I saw that you had \"The Alchemist\" on there, one of my favorites.", "Tim saw that Nate had \"The Alchemist\" on there, one of Tim's favorites.", "context", false, false},
		{"John", "My family is my motivation and they keep me going.", "John's family is John's motivation and they keep John going.", "relationship", false, false},
		{"John", "I love talking to people about my sneaker collection.", "John loves talking to people about John's sneaker collection.", "preference", false, false},
	} {
		s := an.Analyze(Turn{Text: tc.text, Role: "user", Speaker: tc.speaker, Time: time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC), Listener: listenerOf(tc.text)})
		if tc.category == "" {
			if len(s.Facts) != 0 {
				t.Errorf("%q: no fact wanted, got %+v", tc.text, s.Facts)
			}
			continue
		}
		if len(s.Facts) != 1 {
			t.Errorf("%q: %d facts", tc.text, len(s.Facts))
			continue
		}
		f := s.Facts[0]
		if f.Text != tc.fact || f.Category != tc.category || f.Remember != tc.remember || f.Vague != tc.vague {
			t.Errorf("%q:\n got %q %s remember=%v vague=%v\nwant %q %s remember=%v vague=%v", tc.text, f.Text, f.Category, f.Remember, f.Vague, tc.fact, tc.category, tc.remember, tc.vague)
		}
	}
	// An assistant's first person is not the user's.
	if s := an.Analyze(Turn{Text: "I prefer tabs.", Role: "assistant"}); len(s.Facts) != 0 {
		t.Error("a fact from the assistant")
	}
}

// A problem is reported by whom it troubles: not an assistant's advice, a
// request to fix one, a feature that handles errors, a guess, code, or an
// agent's own tool lines.
func TestProblemsReported(t *testing.T) {
	for _, tc := range []struct {
		role, text string
		want       int
	}{
		{"user", "My laptop crashed last week and I lost all my work.", 1},
		{"user", "I'm getting this error: sqlite3.IntegrityError: UNIQUE constraint failed: transactions.id.", 1},
		{"assistant", "Handle any errors that occur during the fetch.", 0},
		{"assistant", "If the API call fails, it retries twice.", 0},
		{"user", "fix the errors in user.service.ts", 0},
		{"user", "I want to make sure the error boundary UI is handled properly.", 0},
		{"user", "Took some trial and error but I figured out a schedule.", 0},
		{"user", "[shares a photo of a car with a broken windshield]", 0},
		{"user", "This could cause compilation errors.", 0},
		{"user", "return NextResponse.json({ error: 'Failed to process request' });", 0},
		{"user", "Print PASS/FAIL for both checks.", 0},
		{"user", "I'm getting an error when I try to deploy my app to Render.com.", 1},
		{"user", "I've used UUID keys, but I'm still getting this error.", 0},
		{"user", "I'm trying to set up ESLint with the Airbnb style guide, but I keep getting errors.", 0},
		{"user", "The max relative error of p vs theory is under 0.5%.", 0},
		{"user", "#### 500 Internal Server Error", 0},
		{"user", "Error: Unsupported argument", 0},
		{"user", "Here are the contents of the failing build phase script.", 0},
		{"user", "The error vs the 2000-step answer must shrink by 16x.", 0},
		{"user", "I've tried adding `mode: 'cors'` to my fetch options, but it's still not working.", 0},
		{"user", "Actually, there's a subtle bug!", 0},
		{"user", "Error detected in pubspec.yaml:", 0},
		{"user", "ERROR in ./src/components/Heatmap.js 21:37-44", 0},
		{"user", "The file ends with what looks like a copy-paste error.", 0},
		{"tool", "ERROR: Could not install packages due to an OSError: [Errno 13] Permission denied", 0},
		{"tool", "lib/main.dart:58:62: Error: The method 'transform3' isn't defined for the class 'double'.", 1},
	} {
		got := an.Analyze(Turn{Text: tc.text, Role: tc.role}).Problems
		if len(got) != tc.want {
			t.Errorf("%s %q: problems %+v, want %d", tc.role, tc.text, got, tc.want)
		}
	}
}

func TestProblemsAndSolutions(t *testing.T) {
	s := analyze("The webhook returns 401 in production. It worked locally.")
	if len(s.Problems) != 1 || s.Problems[0].Code != "HTTP 401" {
		t.Errorf("problems %+v", s.Problems)
	}
	s = analyze("I ran it again:\n```\nTraceback (most recent call last):\n  File \"app.py\", line 3, in <module>\nKeyError: 'user_id'\n```")
	if len(s.Problems) != 1 || s.Problems[0].Kind != "trace" || !strings.HasPrefix(s.Problems[0].Summary, "KeyError: 'user_id'") || s.Problems[0].Code != "KeyError" {
		t.Errorf("a traceback: %+v", s.Problems)
	}
	s = analyze("That fixed it, the webhooks return 200 now.")
	if len(s.Solutions) != 1 || !s.Solutions[0].Confirmation || len(s.Problems) != 0 {
		t.Errorf("a confirmation: %+v, problems %+v", s.Solutions, s.Problems)
	}
	for _, text := range []string{
		"Next, failed payments: the handler should tell the customer.",
		"We switched from SQLite to PostgreSQL because of database is locked errors.",
	} {
		if ps := analyze(text).Problems; len(ps) != 0 {
			t.Errorf("%q is not a problem: %+v", text, ps)
		}
	}
}

func TestArtifacts(t *testing.T) {
	for _, tc := range []struct {
		text, lang, file, content, kind string
		edit                            bool
	}{
		{"Here:\n```go checkout/webhook.go\npackage checkout\n```\n", "go", "checkout/webhook.go", "package checkout\n", "code", false},
		{"In `src/app.ts`:\n```ts\nexport const x = 1\n```", "ts", "", "export const x = 1\n", "code", false},
		{"src/app.ts\n```typescript\nexport const x = 1\n```", "typescript", "src/app.ts", "export const x = 1\n", "code", false},
		{"```\n# config/settings.py\nDEBUG = True\n```", "python", "config/settings.py", "# config/settings.py\nDEBUG = True\n", "code", false},
		{"```json\n{\"a\": 1}\n```", "json", "", "{\"a\": 1}\n", "data", false},
		{"app.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```", "python", "app.py", "x = 2", "code", true},
		{"```python\napp.py\n<<<<<<< SEARCH\n=======\nprint('new')\n>>>>>>> REPLACE\n```", "python", "app.py", "print('new')", "code", true},
	} {
		as := analyze(tc.text).Artifacts
		if len(as) != 1 {
			t.Errorf("%q: %d artifacts", tc.text, len(as))
			continue
		}
		a := as[0]
		if a.Language != tc.lang || a.Filename != tc.file || a.Content != tc.content || a.Kind != tc.kind || (a.Edit != nil) != tc.edit {
			t.Errorf("%q:\n got %q %q %q %s edit=%v", tc.text, a.Language, a.Filename, a.Content, a.Kind, a.Edit != nil)
		}
		if tc.text[a.Start:a.End] == "" || !strings.Contains(tc.text[a.Start:a.End], "```") {
			t.Errorf("%q: offsets %d..%d do not cover the block", tc.text, a.Start, a.End)
		}
	}
	// An answer formatted with lists and tables is a turn, not an
	// artifact; a JSON value on its own in prose is data.
	long := "Steps:\n" + strings.Repeat("- a step of the plan that is long enough to count\n", 6) +
		"\n| option | cost |\n| --- | --- |\n" + strings.Repeat("| a row of the table that is long | 10 |\n", 6)
	if as := analyze(long).Artifacts; len(as) != 0 {
		t.Errorf("a long list and a table: %+v", as)
	}
	data := `{"name": "checkout", "version": "1.0.0", "dependencies": {"stripe": "^12.0.0", "express": "^4.18.2", "dotenv": "^16.0.3"}, "scripts": {"start": "node server.js", "test": "jest --runInBand"}, "engines": {"node": ">=18"}}`
	if as := analyze(data).Artifacts; len(as) != 1 || as[0].Kind != "data" {
		t.Errorf("a JSON value in prose: %+v", as)
	}
	// A block the turn introduces as a file is that file: under a heading
	// that is its path, or after an order to create it; after "In x, add"
	// it is a piece of it, unnamed.
	for _, c := range []struct{ text, file string }{
		{"#### `app/__init__.py`\n\nThis file initializes the app.\n\n```python\nfrom flask import Flask\n```", "app/__init__.py"},
		{"#### 1. Setup\n\nCreate `models.py` to define your models:\n\n```python\nclass User: pass\n```", "models.py"},
		{"In `app.py`, register the blueprint:\n\n```python\napp.register_blueprint(bp)\n```", ""},
		{"### Running it\n\nCreate a virtual environment first:\n\n```bash\npython -m venv .venv\n```", ""},
		{"Here's my current `config.py` file:\n```python\nDEBUG = True\n```", "config.py"},
		{"#### Custom CSS (`styles.css`)\n```css\nbody { margin: 0; }\n```", "styles.css"},
		{"Ensure you have a `.env` file in your project root with your key:\n```plaintext\nKEY=abc\n```", ".env"},
		{"Define the models in `app/models.py`:\n```python\nclass User: pass\n```", "app/models.py"},
		{"### `models.py`\n\nDefine your `User` model.\n\n```python\nclass User: pass\n```", "models.py"},
		{"### `__init__.py`\n\nInitialize the app.\n\n```python\napp = Flask(__name__)\n```", "__init__.py"},
		{"**`app.py`**:\n```python\napp = Flask(__name__)\n```", "app.py"},
		{"Here's my current `.prettierrc` file:\n```javascript\nmodule.exports = { tabWidth: 2 };\n```", ".prettierrc"},
		{"1. **netlify.toml**:\n   ```toml\n   [build]\n   command = \"npm run build\"\n   ```", "netlify.toml"},
		{"In `app.py`, add the route:\n```python\n@app.get('/')\ndef home(): pass\n```", ""},
		{"Update `app/routes.py` to include the login route:\n```python\n@app.get('/login')\ndef login(): pass\n```", "app/routes.py"},
		{"Write unit tests in `tests/test_routes.py`:\n```python\nimport unittest\n```", "tests/test_routes.py"},
		{"Here's my `index.html` and `app.js`:\n```javascript\nlet x = 1\n```", ""},
		{"Here's the call to `chat.completions.create`:\n```javascript\nawait openai.chat.completions.create({})\n```", ""},
		{"Here's my current `styles.css` file:\n```python\nx = 1\n```", ""},
	} {
		if as := analyze(c.text).Artifacts; len(as) != 1 || as[0].Filename != c.file {
			t.Errorf("%q: %+v, want one artifact of file %q", c.text, as, c.file)
		}
	}
	// What an answer shows in a fence without writing anything to keep:
	// the output of its example, comments alone, a table, a figure, a few
	// lines of prose; code, and a long document, are kept.
	for _, c := range []struct {
		text string
		kept bool
	}{
		{"### Output\n\n```\nHashed password: pbkdf2:sha256:260000$zL6y\n```", false},
		{"If it works, the response will look like this:\n```json\n{\"message\": \"created\", \"id\": 1}\n```", false},
		{"```python\n# Go to the dashboard and set up an alert rule\n# for errors above 5 percent.\n```", false},
		{"```\n| Date | Time | Feeling |\n|------|------|---------|\n| 5/1 | 7 PM | calm |\n```", false},
		{"```\n      Start\n        |\n        v\n     /     \\\n   -->   <--\n```", false},
		{"Example:\n```sh\nfeat(budget): Add a feature for tracking expenses\n\nThis feature lets users track their daily expenses and see where the money goes.\n```", false},
		{"Here is the loop that prints the total:\n```python\nfor x in items:\n    print(total(x))\n```", true},
		{"You should receive a text response:\n```\nSynchronous route works\n```", false},
		{"For example:\n```markdown\n\"Her projects consistently exceed expectations, and her team trusts her judgement.\"\n```", false},
		{"**Example Testimonial:**\n```\n\"Crystal's work on the series raised retention to 85% and engagement to 30%.\"\n- John Doe, CEO of XYZ Media\n```", false},
		{"```yaml\nauthors:\n  - Jane Doe\n  - John Roe\n```", true},
		{"```markdown\n# Setup\n\nInstall the tool and run it once to create the config file.\n```", true},
		{"```plaintext\n" + strings.Repeat("Dear hiring manager, I am writing to apply for the role of producer at your studio.\n", 14) + "```", true},
	} {
		if got := len(analyze(c.text).Artifacts) == 1; got != c.kept {
			t.Errorf("%q: kept %v, want %v", c.text, got, c.kept)
		}
	}
	// "####" and ">" lines inside a fence are code.
	if as := analyze("```md\n#### not a heading\n> not a quote\n```"); len(as.Artifacts) != 1 {
		t.Error("a fence with markdown inside")
	}
}

func TestEntities(t *testing.T) {
	s := analyze("Caroline's painting of Lake Louise hangs in Vancouver. Open checkout/webhook.go and call webhook.ConstructEvent, or read https://stripe.com/docs. I got ENOENT and a TypeError.")
	got := map[string]string{}
	for _, e := range s.Entities {
		got[e.Text] = e.Kind
	}
	for text, kind := range map[string]string{
		"Caroline": "name", "Lake Louise": "name", "Vancouver": "name", "checkout/webhook.go": "path",
		"https://stripe.com/docs": "url", "ENOENT": "error", "TypeError": "error",
	} {
		if got[text] != kind {
			t.Errorf("%q: kind %q, want %q (all: %v)", text, got[text], kind, got)
		}
	}
	s = analyze("With PostgreSQL, also make it idempotent. Then useState and max_retries.")
	got = map[string]string{}
	for _, e := range s.Entities {
		got[e.Text] = e.Kind
	}
	if got["PostgreSQL"] != "name" || got["With PostgreSQL"] != "" || got["useState"] != "identifier" || got["max_retries"] != "identifier" {
		t.Errorf("entities %v", got)
	}

	// Technical chats: what is and is not a name, a path, an error.
	s = analyze("EVERY call failed with ECONNREFUSED and ERR_MODULE_NOT_FOUND.\n" +
		"Move `rb.position` to `src/components` and update `[SerializeField] private bool x = false;`.\n" +
		"Edit Assets/Scripts/Core/Ship.cs and docs/README.md, not phase/tasks or and/or.\n" +
		"- **Since** it is late, There we go.\n### Overview\nTask: Create the index. It works; DOES it?")
	got = map[string]string{}
	for _, e := range s.Entities {
		got[e.Text] = e.Kind
	}
	for text, kind := range map[string]string{
		"ECONNREFUSED": "error", "ERR_MODULE_NOT_FOUND": "error",
		"rb.position": "identifier", "src/components": "path", "[SerializeField] private bool x = false;": "",
		"Assets/Scripts/Core/Ship.cs": "path", "docs/README.md": "path", "phase/tasks": "", "and/or": "",
		"There": "", "It": "", "DOES": "", "Edit Assets": "",
	} {
		if got[text] != kind {
			t.Errorf("%q: kind %q, want %q (all: %v)", text, got[text], kind, got)
		}
	}
	for _, e := range s.Entities {
		if (e.Text == "Overview" || e.Text == "Create" || e.Text == "Since" || e.Text == "EVERY") && !e.SentenceStart {
			t.Errorf("%q starts a line or follows a colon, but is not marked so", e.Text)
		}
	}
}

func TestFillerAndGoals(t *testing.T) {
	for _, text := range []string{"thanks", "ok!", "lol", "Thank you so much!", "👍", "You're welcome."} {
		if !analyze(text).Filler {
			t.Errorf("%q is filler", text)
		}
	}
	for _, text := range []string{"thanks, that fixed the build", "ok, let's use Redis"} {
		if analyze(text).Filler {
			t.Errorf("%q is not filler", text)
		}
	}
	for text, want := range map[string][]string{
		// What a speaker sets out to do, read on its own.
		"I'm trying to optimize the dashboard API response time, which is 800ms.": {"optimize the dashboard API response time"},
		"My goal is to implement user registration with hashed passwords.":        {"implement user registration with hashed passwords"},
		"Next step: write the migration for the orders table.":                    {"write the migration for the orders table"},
		// Not a goal: a pronoun, a vague aim, a fragment, an assistant's
		// advice, talk.
		"We need to make it happen.":                   nil,
		"I want to make sure everything works.":        nil,
		"I need to understand why the proof fails.":    nil,
		"Let's move on to the next one.":               nil,
		"We should start with the basics.":             nil,
		"I want to add any additional configuration.":  nil,
		"We need to run the build command.":            nil,
		"I want to make a difference in our community": nil,
	} {
		if got := analyze(text).Goals; !slices.Equal(got, want) {
			t.Errorf("%q: goals %q, want %q", text, got, want)
		}
	}
	if got := an.Analyze(Turn{Role: "assistant", Text: "You should add rate limiting to the API. Let's add a check for the header."}).Goals; len(got) != 0 {
		t.Errorf("an assistant's advice and steps are goals %q", got)
	}
	s := analyze("TODO: add idempotency keys to the order creation. We still need to write the receipt template.")
	if !slices.Equal(s.Goals, []string{"add idempotency keys to the order creation", "write the receipt template"}) {
		t.Errorf("goals %q", s.Goals)
	}
}

// FuzzAnalyze: any text classifies without panicking, and every offset it
// gives is inside the text.
func FuzzAnalyze(f *testing.F) {
	f.Add("Let's go with Elements, because the designers want it.", "user")
	f.Add("```go a.go\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```", "assistant")
	f.Add("I went to Porto yesterday with my brother Tomás. The webhook returns 401.", "user")
	f.Fuzz(func(t *testing.T, text, role string) {
		s := an.Analyze(Turn{Text: text, Role: role, Speaker: "X", Time: time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)})
		for _, a := range s.Artifacts {
			if a.Start < 0 || a.End > len(text) || a.Start > a.End {
				t.Fatalf("artifact at %d..%d of %d", a.Start, a.End, len(text))
			}
		}
	})
}

func TestEditBlocks(t *testing.T) {
	tests := []struct {
		body string
		want []Edit
	}{
		{"<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n", []Edit{{Search: "x = 1", Replace: "x = 2"}}},
		{"<<<<<<< SEARCH\r\na\r\nb\r\n=======\r\nc\r\n>>>>>>> REPLACE\r\n", []Edit{{Search: "a\r\nb", Replace: "c"}}},
		{"<<<<<<< SEARCH\n=======\nnew file\n>>>>>>> REPLACE", []Edit{{Search: "", Replace: "new file"}}},
		{"<<<<<<< SEARCH\nold\n=======\n>>>>>>> REPLACE", []Edit{{Search: "old", Replace: ""}}},
		{"<<<<< SEARCH>\na\n=========\nb\n>>>>>>>>> REPLACE  \n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n",
			[]Edit{{Search: "a", Replace: "b"}, {Search: "c", Replace: "d"}}},
		// A divider inside a line, or of ten '=', is text.
		{"<<<<<<< SEARCH\nx = \"=======\"\n==========\n=======\ny\n>>>>>>> REPLACE", []Edit{{Search: "x = \"=======\"\n==========", Replace: "y"}}},
		// Never closed, or not markers at all: no edit.
		{"<<<<<<< SEARCH\na\n=======\nb\n", nil},
		{"<<<<<<< SEARCH\na\n=======\nb\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE", []Edit{{Search: "c", Replace: "d"}}},
		{"<<<<<<< SEARCH\na\n=======\nb <<<\n^^^ Expected `>>>>>>> REPLACE` or `=======`", nil},
		{"<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE", nil},
		{"see <<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE", nil},
	}
	for _, tt := range tests {
		if got := editBlocks(tt.body); !slices.Equal(got, tt.want) {
			t.Errorf("editBlocks(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestEntitySentences(t *testing.T) {
	s := New().Analyze(Turn{Text: "We met Priya at the café. Then we drove to Lisbon in the evening! See https://example.com/x for photos.", Role: "user"})
	want := map[string]string{
		"Priya":                 "We met Priya at the café.",
		"Lisbon":                "Then we drove to Lisbon in the evening!",
		"https://example.com/x": "See https://example.com/x for photos.",
	}
	for _, e := range s.Entities {
		if w, ok := want[e.Text]; ok {
			if e.Sentence != w {
				t.Errorf("%s: sentence %q, want %q", e.Text, e.Sentence, w)
			}
			delete(want, e.Text)
		}
	}
	for name := range want {
		t.Errorf("%s: not found as an entity", name)
	}
}

// thirdPerson rewrites the first person into the third: a verb after the
// subject agrees with it unless a modal or an auxiliary comes before
// ("can I make"), a present in "-ed" ("need") is no past tense, "we" at
// the start is the subject, and a possessive after the subject is named
// is "their".
func TestThirdPerson(t *testing.T) {
	for in, want := range map[string]string{
		"My flight is booked and I need to make sure I have everything ready.": "User's flight is booked and User needs to make sure User has everything ready.",
		"How can I make sure my resume passes the screening?":                  "How can User make sure their resume passes the screening?",
		"We celebrated my daughter's birthday with a concert.":                 "User celebrated their daughter's birthday with a concert.",
		"We're moving to Lisbon in May.":                                       "User is moving to Lisbon in May.",
		"I agreed to help, and I walked the dog.":                              "User agreed to help, and User walked the dog.",
		"That book is mine.":                                                   "That book is User's.",
		"I gave my book to my sister; it was mine.":                            "User gave their book to their sister; it was theirs.",
	} {
		if got := thirdPerson(in, "User", ""); got != want {
			t.Errorf("%q:\n got %q\nwant %q", in, got, want)
		}
	}
}

// SmallTalk says of a text what Analyze's Filler says of a turn without
// code.
func TestSmallTalk(t *testing.T) {
	for _, text := range []string{"thanks", "ok!", "Thank you so much!", "You're welcome.", "👍", "thanks, that fixed the build", "ok, let's use Redis",
		"I prefer Go for all backend work.", strings.Repeat("thanks ", 20)} {
		if got, want := SmallTalk(text), analyze(text).Filler; got != want {
			t.Errorf("%q: SmallTalk %v, Filler %v", text, got, want)
		}
	}
	if !SmallTalk("You're welcome.") || SmallTalk("thanks, that fixed the build") {
		t.Error("SmallTalk is wrong on the plain cases")
	}
}

// A machine's own address is no entity, in backticks or not.
func TestLocalAddressIsNoEntity(t *testing.T) {
	for _, text := range []string{"Visit `http://localhost:3000/blog` to test.", "Open http://127.0.0.1:5000/error now."} {
		for _, e := range analyze(text).Entities {
			if strings.Contains(e.Text, "localhost") || strings.Contains(e.Text, "127.0.0.1") {
				t.Errorf("%q: entity %+v", text, e)
			}
		}
	}
}

// Prose in another language gives no names: its capitals say less.
func TestForeignProseNames(t *testing.T) {
	fr := analyze("Contraintes respectées : aucun fichier modifié. Aucune logique de paiement touchée, et les ancres de la barre restent les mêmes.")
	en := analyze("Yesterday I met Jean at the pottery class in Galway and we talked about the games we like.")
	var frNames, enNames []string
	for _, e := range fr.Entities {
		if e.Kind == "name" {
			frNames = append(frNames, e.Text)
		}
	}
	for _, e := range en.Entities {
		if e.Kind == "name" {
			enNames = append(enNames, e.Text)
		}
	}
	if len(frNames) != 0 || !slices.Contains(enNames, "Jean") || !slices.Contains(enNames, "Galway") {
		t.Errorf("names in French %q, in English %q", frNames, enNames)
	}
}

// An empty code block or an edit that makes an empty file is no artifact:
// it holds nothing to keep. An edit that deletes text is one.
func TestEmptyArtifacts(t *testing.T) {
	for text, want := range map[string]int{
		"Here:\n```\n```\nok":       0,
		"Here:\n```python\n\n```\n": 0,
		"notes.md\n```\n<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE\n```\n":           0,
		"notes.md\n```\n<<<<<<< SEARCH\nold line\n=======\n>>>>>>> REPLACE\n```\n": 1,
		"Here:\n```go\nfunc main() {}\n```\n":                                      1,
	} {
		if got := len(analyze(text).Artifacts); got != want {
			t.Errorf("%q: %d artifacts, want %d", text, got, want)
		}
	}
}

// A banner in capitals is no name; an acronym is one.
func TestBannerIsNoName(t *testing.T) {
	for _, e := range analyze("The log shows EXCEPTION CAUGHT BY RENDERING LIBRARY after the NASA demo.").Entities {
		if strings.Contains(e.Text, "EXCEPTION") {
			t.Errorf("a banner is a name: %+v", e)
		}
	}
	found := false
	for _, e := range analyze("The log shows EXCEPTION CAUGHT BY RENDERING LIBRARY after the NASA demo.").Entities {
		found = found || e.Text == "NASA"
	}
	if !found {
		t.Error("NASA is no name")
	}
}

// Things named in bulk are not shown to matter: the files of an agent's
// command, a long list of names an error prints.
func TestNamesInBulk(t *testing.T) {
	s := analyze("/add lsfl/gui/canvas.py lsfl/gui/main_window.py\n> 4 | import * as DropdownMenuPrimitive from 'radix'\nexport 'Heatmap' was not found (possible exports: Area, AreaChart, Bar, BarChart, Brush, Cell, Cross, Curve, Dot, Label, LabelList, Layer, Legend)\nI use Recharts with Tailwind in src/App.tsx.")
	var got []string
	for _, e := range s.Entities {
		got = append(got, e.Text)
	}
	for _, bad := range []string{"lsfl/gui/canvas.py", "LabelList", "Legend", "DropdownMenuPrimitive"} {
		if slices.Contains(got, bad) {
			t.Errorf("entities %q hold %q", got, bad)
		}
	}
	for _, good := range []string{"Recharts", "Tailwind", "src/App.tsx"} {
		if !slices.Contains(got, good) {
			t.Errorf("entities %q lack %q", got, good)
		}
	}
}

// An abbreviation defined in place is the thing it stands for.
func TestDefinedAbbreviation(t *testing.T) {
	var names []string
	for _, e := range analyze("We track the First Meaningful Paint (FMP) and try Augmented Reality (AR) apps with NASA data.").Entities {
		names = append(names, e.Text)
	}
	if slices.Contains(names, "FMP") || slices.Contains(names, "AR") || !slices.Contains(names, "NASA") || !slices.Contains(names, "Augmented Reality") {
		t.Errorf("names %q", names)
	}
}

// A solution is a fix confirmed by whom it helped, or told done; not
// advice, a lead-in, "fixed" before a noun, or a doubtful "it works".
func TestSolutionsTold(t *testing.T) {
	for _, tc := range []struct {
		role, text string
		want       int
	}{
		{"user", "That fixed it, the webhooks return 200 now.", 1},
		{"assistant", "I've fixed the parser to skip blank lines.", 1},
		{"user", "The fix was to raise the pool size to 20.", 1},
		{"assistant", "To fix this, add the header to the request.", 0},
		{"assistant", "Here's the fix:", 0},
		{"assistant", "Therefore, the solution is to:", 0},
		{"user", "It works, but I'm not sure why.", 0},
		{"assistant", "Use a fixed width for the sidebar.", 0},
	} {
		if got := len(an.Analyze(Turn{Role: tc.role, Text: tc.text}).Solutions); got != tc.want {
			t.Errorf("%s %q: %d solutions, want %d", tc.role, tc.text, got, tc.want)
		}
	}
}
