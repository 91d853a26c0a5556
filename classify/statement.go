package classify

import (
	"slices"
	"strings"
)

// Statement is a fact given to be remembered ("I prefer dark mode", "User
// works at Acme"), as the analyzer reads it.
type Statement struct {
	// Text is the fact in the third person: "User prefers dark mode".
	Text string
	// Category is the category its cues suggest (identity, preference,
	// relationship, project, context), or "" when none does.
	Category string
	// Specific: it holds names, numbers or dates. Vague: it is hedged or
	// temporary.
	Specific, Vague bool
	// Terms are what the fact is about: its analyzed terms without the
	// subject, the verbs of liking and the words of negation, sorted and
	// unique. Two statements with the same terms say the same thing, or
	// its opposite (Negative).
	Terms []string
	// Keys are the terms of Terms that come from names and numbers
	// (words with a capital or a digit): statements that differ in them
	// are about different things, however many other terms they share.
	Keys []string
	// Negative: it denies or dislikes ("User doesn't like TypeScript",
	// "User hates meetings").
	Negative bool
}

// Statement reads a fact given to be remembered about subject ("User", or
// a person's name): it is rewritten in the third person when it is in the
// first, and its category, terms and polarity are read.
func (a *Analyzer) Statement(text, subject string) Statement {
	text = strings.TrimSpace(text)
	s := Statement{Text: text}
	first := firstPerson.MatchString(text)
	if first {
		s.Text = thirdPerson(text, subject, "")
	}
	// The category cues are written for the first person: a fact in the
	// third person is read back into it ("User prefers" → "i prefer").
	lower := strings.ToLower(text)
	if !first {
		lower = firstPersonOf(lower, strings.ToLower(subject))
	}
	for _, c := range factCategories {
		if c.cue.MatchString(lower) {
			s.Category = c.name
			break
		}
	}
	s.Specific = specific(s.Text)
	s.Vague = vagueCue.MatchString(lower)

	keyWords := map[string]bool{}
	orig, _ := words(s.Text)
	for _, w := range orig {
		if w != "I" && (strings.ContainsAny(w, "0123456789") || capitalized(w)) {
			keyWords[strings.ToLower(w)] = true
		}
	}
	ws, _ := words(strings.ToLower(s.Text))
	noLonger := false
	for i, w := range ws {
		if negations[w] || strings.HasSuffix(w, "n't") || strings.HasSuffix(w, "n’t") {
			s.Negative = true
		}
		noLonger = noLonger || w == "longer" && i > 0 && ws[i-1] == "no"
	}
	skip := map[string]bool{}
	for _, t := range a.Terms(subject) {
		skip[t] = true
	}
	seen := map[string]bool{}
	for _, t := range a.termsOf(s.Text) {
		switch {
		case skip[t.Term] || seen[t.Term] || liking[t.Term] || generic[t.Term] || noLonger && t.Term == "longer":
		case negations[t.Word] || dislikes[t.Term]:
			s.Negative = true
		default:
			seen[t.Term] = true
			s.Terms = append(s.Terms, t.Term)
			if keyWords[t.Word] {
				s.Keys = append(s.Keys, t.Term)
			}
		}
	}
	slices.Sort(s.Terms)
	slices.Sort(s.Keys)
	return s
}

// The words that say how a person stands towards what a fact is about,
// as analyzed terms: liking is left out of the terms, and so are
// disliking and negation, which make the statement negative.
var (
	liking   = set("like", "love", "prefer", "enjoi", "favor", "favour", "favorit", "favourit", "fan", "us", "want", "realli", "alwai", "usual", "gener", "mostli", "definit", "absolut", "especi")
	dislikes = set("dislik", "hate", "avoid", "detest", "loath", "stop", "quit")
	// generic are nouns that say nothing of what a fact is about: "for
	// all projects", "most of the time".
	generic   = set("project", "thing", "stuff", "time", "wai", "lot", "bit", "kind", "sort", "call", "name")
	negations = set("not", "no", "never", "nor", "neither", "without")
)

// Similarity is how much two statements say the same thing, in [0, 1]: the
// Dice coefficient of their terms, 2·|A∩B| / (|A|+|B|). Statements with no
// terms are similar only when their texts are the same but for case and
// punctuation. Polarity is not counted: a statement and its negation are
// similar, and [Statement.Negative] tells them apart.
func Similarity(a, b Statement) float64 {
	if len(a.Terms) == 0 || len(b.Terms) == 0 {
		if len(a.Terms) == 0 && len(b.Terms) == 0 && normalText(a.Text) == normalText(b.Text) {
			return 1
		}
		return 0
	}
	inB := make(map[string]bool, len(b.Terms))
	for _, t := range b.Terms {
		inB[t] = true
	}
	common := 0
	for _, t := range a.Terms {
		if inB[t] {
			common++
		}
	}
	return 2 * float64(common) / float64(len(a.Terms)+len(b.Terms))
}

func normalText(s string) string {
	ws, _ := words(strings.ToLower(s))
	return strings.Join(ws, " ")
}

// firstPersonOf reads a third-person sentence about subject back into the
// first person, enough for the category cues: "user prefers tabs" → "i
// prefer tabs", "user is vegan" → "i'm vegan", "user's wife" → "my wife".
func firstPersonOf(lower, subject string) string {
	if subject == "" {
		return lower
	}
	if rest, ok := strings.CutPrefix(lower, subject+"'s "); ok {
		return "my " + rest
	}
	rest, ok := strings.CutPrefix(lower, subject+" ")
	if !ok {
		return lower
	}
	verb, tail, _ := strings.Cut(rest, " ")
	switch verb {
	case "is":
		return "i'm " + tail
	case "has":
		verb = "have"
	case "does":
		verb = "do"
	case "doesn't", "doesn’t":
		verb = "don't"
	case "goes":
		verb = "go"
	default:
		switch {
		case adverbs[verb] && tail != "":
			return "i " + verb + " " + strings.TrimPrefix(firstPersonOf(subject+" "+tail, subject), "i ")
		case strings.HasSuffix(verb, "ies") && len(verb) > 4:
			verb = verb[:len(verb)-3] + "y"
		case strings.HasSuffix(verb, "sses"), strings.HasSuffix(verb, "shes"), strings.HasSuffix(verb, "ches"),
			strings.HasSuffix(verb, "xes"), strings.HasSuffix(verb, "zes"), strings.HasSuffix(verb, "oes"):
			verb = verb[:len(verb)-2]
		case strings.HasSuffix(verb, "s") && !strings.HasSuffix(verb, "ss"):
			verb = verb[:len(verb)-1]
		}
	}
	return strings.TrimSpace("i " + verb + " " + tail)
}
