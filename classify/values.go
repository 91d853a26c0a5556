package classify

import (
	"regexp"
	"strings"
)

// Values and their changes: what an update says a value became ("the
// first sprint now targets completion by March 31", "adjusted the budget to
// $3,500"), read by the analyzer, which keeps such a sentence as a
// statement, and by the graph, which links it to the fact it updates.

// UpdateCue says that a value changed: "now", "new", "no longer", or
// a verb of change before the new value ("moved to", "rescheduling the
// session to", "has grown to", "was extended through").
var UpdateCue = regexp.MustCompile(`(?i)\b(?:now|new|no longer|` + valueChangeVerbs + `\s+(?:[\w’'$%,.:-]+\s+){0,8}?(?:to|from|by|through|until)\b)`)

// valueChangeVerbs are the verbs of a change of value.
const valueChangeVerbs = `(?:mov(?:ed|ing)|resched\w*|postpon\w*|push(?:ed|ing)|shift\w*|chang(?:ed|ing)|adjust(?:ed|ing)|updat(?:ed|ing)|extend(?:ed|ing)|increas(?:ed|ing)|decreas(?:ed|ing)|reduc(?:ed|ing)|rais(?:ed|ing)|lower(?:ed|ing)|upgrad(?:ed|ing)|downgrad(?:ed|ing)|expand(?:ed|ing)|grown|grew|growing|improv(?:ed|ing)|dropp(?:ed|ing)|revis(?:ed|ing)|bump(?:ed|ing)|delay(?:ed|ing)|switch(?:ed|ing)|risen|rose|rising|fallen|fell|falling|climb(?:ed|ing)|narrow(?:ed|ing)|reach(?:ed|ing)|shorten(?:ed|ing)|lengthen(?:ed|ing)|doubl(?:ed|ing)|tripl(?:ed|ing)|boost(?:ed|ing)|cut|trimm(?:ed|ing))`

// newValueSpan is how many bytes after an update's cue its new value may
// begin: "now targets completion by March 31", "has grown to 165".
const newValueSpan = 40

// NewValues is the part of an update's clause that gives the new values:
// from its cue to a few words after it. A value before the cue names the
// thing that changed ("the July 25 workshop was expanded to include a
// panel"), not its new value.
func NewValues(clause string) string {
	loc := UpdateCue.FindStringIndex(clause)
	if loc == nil {
		return ""
	}
	end := min(len(clause), loc[1]+newValueSpan)
	for end < len(clause) && clause[end] != ' ' {
		end++
	}
	return clause[loc[0]:end]
}

// A Quantity is a value a fact gives, with its kind: "date" (March 29),
// "time" (3 PM), "year", "percent", "money", a unit ("ms", "minute",
// "word"), "count" for a bare number, or "count:" and what it counts, its
// noun in the singular ("count:card" of "10 cards").
type Quantity struct{ Kind, Value string }

var quantityRe = regexp.MustCompile(`(?i)(\$\s?\d[\d,.]*)|(\d[\d,.]*\s?%)|(\d{1,2}(?::\d\d)?\s?[ap]\.?m\b\.?)|\b((?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?\b|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*)|\b((?:19|20)\d\d)\b|(\d[\d,.:]*)(?:\s?-?\s?([a-z]+))?`)

// units are the words after a number that make it a measure: their kind,
// by the word as written.
var units = func() map[string]string {
	m := map[string]string{}
	for kind, words := range map[string]string{
		"ms": "ms millisecond milliseconds", "second": "s sec secs second seconds", "minute": "min mins minute minutes",
		"hour": "h hr hrs hour hours", "day": "day days", "week": "week weeks", "month": "month months", "year": "year years",
		"byte": "kb mb gb tb bytes", "px": "px pixels", "length": "cm mm km m inch inches", "weight": "kg g lb lbs",
		"word": "word words", "page": "page pages", "line": "line lines", "star": "star stars",
	} {
		for _, w := range strings.Fields(words) {
			m[w] = kind
		}
	}
	return m
}()

// notCounted are words after a number that are not what it counts.
var notCounted = set("and", "the", "for", "with", "from", "into", "over", "more", "new", "out", "per", "times", "total", "extra", "additional", "other", "different", "key", "main", "major", "minor")

// SameKind tells whether two kinds of quantity measure alike: the same
// kind, or two counts (the word after a number is as often what describes
// what it counts as the thing: "12 conditional probability problems").
func SameKind(a, b string) bool {
	return a == b || strings.HasPrefix(a, "count") && strings.HasPrefix(b, "count")
}

// Quantities are the values of text, with their kinds.
func Quantities(text string) []Quantity {
	var out []Quantity
	for _, loc := range quantityRe.FindAllStringSubmatchIndex(text, -1) {
		// A number glued to a word is part of a name ("ES2021", "v0.3.0",
		// "Python3"), not a value.
		if loc[0] > 0 && isWordByte(text[loc[0]-1]) {
			continue
		}
		m := make([]string, len(loc)/2)
		for i := range m {
			if loc[2*i] >= 0 {
				m[i] = text[loc[2*i]:loc[2*i+1]]
			}
		}
		q := Quantity{Value: strings.ToLower(strings.Join(strings.Fields(m[0]), " "))}
		switch {
		case m[1] != "":
			q.Kind = "money"
		case m[2] != "":
			q.Kind = "percent"
		case m[3] != "":
			q.Kind = "time"
		case m[4] != "":
			q.Kind = "date"
		case m[5] != "":
			q.Kind = "year"
		default:
			q.Kind, q.Value = "count", m[6]
			if w := strings.ToLower(m[7]); units[w] != "" {
				q.Kind = units[w]
			} else if len(w) >= 3 && !notCounted[w] {
				q.Kind = "count:" + strings.TrimSuffix(w, "s")
			}
		}
		out = append(out, q)
	}
	return out
}
