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
		{text: "I usually play CS:GO, and Street Fighter at the local arcade.",
			want: map[string]string{"GO": "", "CS": "", "Street Fighter": "name"}},
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
