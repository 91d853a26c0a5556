package classify

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Decision is a choice a turn makes.
type Decision struct {
	// Sentence is the sentence that makes it.
	Sentence string
	// Outcome is what was chosen ("Stripe Elements", "move the cron job to
	// a queue").
	Outcome string
	// Rationale is why, when the turn says ("the designers want the form to
	// match the site").
	Rationale string
	// Alternatives are the options rejected in the same breath ("over X",
	// "instead of X", "rather than X", "from X").
	Alternatives []string
	// Replaces is what a switch or migration leaves ("switched from Redux
	// to Zustand": Redux).
	Replaces string
}

func re(p string) *regexp.Regexp { return regexp.MustCompile(`(?i)` + p) }

// decisionPatterns find a decision's outcome (obj), and what it replaces
// (old) or rejects (alt), most specific first. Each comes with the words a
// sentence must contain for it to match at all.
var decisionPatterns = []struct {
	words []string
	re    *regexp.Regexp
	// verbal: the outcome is what to do ("decided to move the job to a
	// queue"), not a thing chosen.
	verbal bool
}{
	{[]string{" from "}, re(`\b(?:switch(?:ed|ing)?|mov(?:e|ed|ing)|migrat(?:e|ed|ing)|port(?:ed|ing)?|chang(?:e|ed|ing))\s+(?:\w+\s+){0,3}?from\s+(?P<old>(?:[^.;!?\n]|\.[\w/])+?)\s+to\s+(?P<obj>(?:[^.;!?\n]|\.[\w/])+)`), false},
	{[]string{"replac"}, re(`\breplac(?:e|ed|ing)\s+(?P<alt>(?:[^.;!?\n]|\.[\w/])+?)\s+with\s+(?P<obj>(?:[^.;!?\n]|\.[\w/])+)`), false},
	{[]string{"agreed", "decision", "decided", "ok", "final", "so"}, re(`^(?:agreed|decision|decided|ok|okay|final|so)\s*[:,-]\s*(?P<obj>(?:[^.;!?\n]|\.[\w/])+?)\s+(?:over|instead of|rather than)\s+(?P<alt>(?:[^.;!?\n,]|\.[\w/])+)`), false},
	{[]string{" over ", "instead of", "rather than"}, re(`\b(?:chose|choose|picked|pick|went with|go with|going with|use|using)\s+(?P<obj>(?:[^.;!?\n]|\.[\w/])+?)\s+(?:over|instead of|rather than)\s+(?P<alt>(?:[^.;!?\n,]|\.[\w/])+)`), false},
	{[]string{"let", "we'll", "we will", "going to", "i'll", "i will", "shall"}, re(`\b(?:let'?s|let us|we(?:'ll| will| are going to|'re going to| shall)|i(?:'ll| will|'m going to| am going to))\s+(?:go with|use|pick|choose|adopt|switch to|stick with|opt for|settle on|move to|migrate to|go for|standardi[sz]e on|build (?:it )?(?:with|on))\s+(?P<obj>(?:[^.;!?\n]|\.[\w/])+)`), false},
	{[]string{"decided", "chose", "picked", "settled", "agreed", "opted", "committed"}, re(`\b(?:decided|chose|picked|settled|agreed|opted|committed)\s+(?:to use|to go with|to go for|to switch to|to stick with|on using|on|for|to adopt)\s+(?P<obj>(?:[^.;!?\n]|\.[\w/])+)`), false},
	{[]string{"decided", "agreed", "chose"}, re(`\b(?:we|i)\s+(?:have\s+)?(?:decided|agreed|chose)\s+to\s+(?P<obj>(?:[^.;!?\n]|\.[\w/])+)`), true},
	{[]string{"installed", "adopted", "integrated"}, re(`\b(?:installed|adopted|integrated)\s+(?P<obj>(?:[^.;!?\n]|\.[\w/])+)`), false},
	{[]string{"switch"}, re(`\bswitch(?:ed|ing)?\s+to\s+(?P<obj>(?:[^.;!?\n]|\.[\w/])+)`), false},
}

// cueWords are the words a decision cue holds; a sentence without any has
// no cue.
var cueWords = []string{"installed", "adopted", "integrated", "use", "go with", "decid", "chose", "choose", "pick", "switch", "instead", "rather", "over", "vs", "versus", "opt", "settled", "went with", "migrat", "replac"}

// decisionWords are the words a sentence must hold, in lower case, for
// findDecisions to read it: a cue word, or a word of a decision pattern
// without one.
var decisionWords = newLiterals(append(slices.Clone(cueWords), "let", "we'll", "we will", "going to", "i'll", "i will", "shall", "agreed", "decision", " from ")...)

// patternWords are the words of each of decisionPatterns, as literals.
var patternWords = func() []*literals {
	out := make([]*literals, len(decisionPatterns))
	for i, dp := range decisionPatterns {
		out[i] = newLiterals(dp.words...)
	}
	return out
}()

// cuePattern counts decision cue phrases, for decision density.
var cuePattern = re(`\b(?:let'?s (?:use|go with|pick|choose|switch|stick|adopt)|we'll go with|we will use|go with|decided|decide to|chose|choose|settled on|switch(?:ed)? (?:to|from)|instead of|rather than|\bover\b|\bvs\.?\b|versus|opt(?:ed)? for|went with|migrat(?:e|ed) (?:to|from)|replac(?:e|ed) \w+ with)`)

// cueLiterals are words one of which, in lower case, every match of
// cuePattern holds but for "over" and "vs" (mayCue): each alternative's
// words up to where it may vary ("opt for", "opted for", not "opt",
// which "option" holds).
var cueLiterals = []string{"let's ", "lets ", "go with", "we will use", "decide", "chose", "choose", "settled on",
	"switch to", "switch from", "switched to", "switched from", "instead of", "rather than", "versus",
	"opt for", "opted for", "went with", "migrate to", "migrate from", "migrated to", "migrated from", "replace ", "replaced "}

var cueLiteralSet = newLiterals(cueLiterals...)

// mayCue reports whether text, whose lower case is lower, may hold a
// match of cuePattern: lower holds one of cueLiterals, or "over" or "vs"
// as a word of its own, or text a character that the expression, case-
// blind, reads as a letter of ASCII ("ſ" for s, "K", the Kelvin sign,
// for k) or that lower case makes one ("İ" is "i"), which ends a word in
// one and not in the other.
func mayCue(text, lower string) bool {
	return cueLiteralSet.in(lower) || wordIn(lower, "over") || wordIn(lower, "vs") ||
		strings.Contains(text, "ſ") || strings.Contains(text, "\u212a") || strings.Contains(text, "İ")
}

// wordIn reports whether s holds w between two \b of a regular
// expression: no letter, digit or underscore of ASCII just before or
// just after it.
func wordIn(s, w string) bool {
	for from := 0; ; {
		k := strings.Index(s[from:], w)
		if k < 0 {
			return false
		}
		k += from
		if (k == 0 || !asciiWord(s[k-1])) && (k+len(w) == len(s) || !asciiWord(s[k+len(w)])) {
			return true
		}
		from = k + 1
	}
}

// asciiWord reports a byte of \w: an ASCII letter or digit, or "_".
func asciiWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// countCues is the number of matches of cuePattern in text, whose lower
// case is lower: none when mayCue says it holds none, which is most
// sentences, without running the expression.
func countCues(text, lower string) int {
	if !mayCue(text, lower) {
		return 0
	}
	return len(cuePattern.FindAllStringIndex(text, -1))
}

// Boundaries end a decision's outcome.
var outcomeEnd = re(`\s*(?:,|\(|:|\s-\s|\s(?:because|since|as|so|so that|to avoid|for|over|instead|rather than|which|that|and then|but|in order|when|if|from now|going forward|too|here|now|then|for now)\b)`)

// rationalePattern finds why.
var rationalePattern = re(`\b(?:because|since|so that|so we|to avoid|due to|given that|as it|as they|as we|as the)\s+(?P<why>[^.;!?\n]+)|,\s*for\s+(?P<why2>(?:the|its|their|our)\s+[^.;!?\n]+)`)
var nextRationale = re(`^(?:because|that'?s because|the reason (?:is|was)(?: that)?|it'?s because)\s+(?P<why>[^.;!?\n]+)`)

// findDecisions finds the decisions of prose sentences and counts the cue
// phrases. A decision is a choice someone makes, not advice or an
// example: its verb has a committed subject ("we switched", "I'll use",
// "let's go with", "we decided") or, said by the user or by an agent
// whose turn edits files, is an instruction ("Replace X with Y"); an
// assistant's "let's use X to count…" is a step of a worked example.
func findDecisions(sents []sentence, role string, agent bool) ([]Decision, int) {
	var out []Decision
	cues := 0
	for i, s := range sents {
		lower := s.lower
		if !decisionWords.in(lower) {
			continue
		}
		cues += countCues(s.text, lower)
		if strings.HasSuffix(s.text, "?") {
			continue // a question weighs options; it decides nothing
		}
		if hasAny(lower, "example", "e.g.", "for instance", "for simplicity") {
			continue // what an example uses is chosen for the example
		}
		text := stripLead(stripListMark(s.text))
		for k, dp := range decisionPatterns {
			if !patternWords[k].in(lower) {
				continue
			}
			p := dp.re
			m := p.FindStringSubmatchIndex(text)
			if m == nil {
				continue
			}
			if quoted(text[:m[0]]) {
				continue // someone else's words, quoted
			}
			if k == 0 && movedThing.MatchString(text[m[0]:firstGroup(m)]) {
				continue // "move the URL from the body to the query": a place, not a choice
			}
			if k != headerPattern && !committed(text[:m[0]], text[m[0]:firstGroup(m)], role, agent) {
				continue
			}
			d := Decision{Sentence: s.text}
			get := func(name string) (string, int) {
				k := p.SubexpIndex(name)
				if k < 0 || m[2*k] < 0 {
					return "", -1
				}
				return text[m[2*k]:m[2*k+1]], m[2*k+1]
			}
			obj, objEnd := get("obj")
			var forWhat bool
			d.Outcome, forWhat = outcomePhrase(obj, dp.verbal)
			if d.Outcome == "" || personal(d.Outcome) || unnamed(d.Outcome) || vague(d.Outcome) {
				continue
			}
			if slices.Contains(dp.words, "installed") && !nameLike(d.Outcome) {
				continue // "I've installed a new sink": a tool is chosen by its name
			}
			if forWhat && role == "assistant" && hasAny(strings.ToLower(text[m[0]:firstGroup(m)]), "let", "we'll", "we will") {
				continue // "let's use the formula to find…": a step, not a choice
			}
			// What it replaces or rejects, when named ("replace them
			// with…" names only what was chosen).
			if old, _ := get("old"); old != "" && !unnamed(phrase(old)) {
				d.Replaces = phrase(old)
				d.Alternatives = append(d.Alternatives, d.Replaces)
			}
			if alt, _ := get("alt"); strings.ContainsAny(alt, "<>{}") {
				continue // one type annotation for another ("Record<string, number>"): too small to recall
			}
			if alt, _ := get("alt"); alt != "" && !unnamed(phrase(alt)) {
				d.Alternatives = append(d.Alternatives, phrase(alt))
			}
			rest := text[min(objEnd, len(text)):]
			if objEnd < 0 {
				rest = text
			}
			// The outcome's own words end at a boundary; an "instead of" or
			// "over" after it names an alternative.
			if alt := alternativeAfter(obj); alt != "" && !contains(d.Alternatives, alt) && !unnamed(alt) {
				d.Alternatives = append(d.Alternatives, alt)
			}
			d.Rationale = rationale(obj + rest)
			if d.Rationale == "" && i+1 < len(sents) {
				if m := nextRationale.FindStringSubmatch(stripLead(sents[i+1].text)); m != nil {
					d.Rationale = strings.TrimSpace(m[1])
				}
			}
			out = append(out, d)
			break
		}
	}
	return out, cues
}

// movedThing is a move of something named between the verb and "from".
var movedThing = re(`^(?:mov|port)\w*\s+\S+.*\s+from\s+$`)

// headerPattern is the index of the pattern of "Agreed: X over Y", a
// decision by its form.
const headerPattern = 2

// committer is the subject of a decision made: "I", "we", "let's", with
// what may come between it and the verb ("we have now", "I'm going to
// refactor the code to").
var committer = re(`(?:^|[\s,;:(])(?:i|we|let'?s|let us)(?:'ll|'ve|'m|'re|'d)?(?:\s+[\w'’-]+){0,6}\s*$`)

// uncommitted are the words that make a first person's words advice or
// a wish: "I'd recommend using", "we could switch", "I think you should".
var uncommitted = set("i'd", "we'd", "would", "could", "should", "might", "may", "can", "recommend", "suggest", "think", "guess",
	"you", "your", "he", "she", "they", "if", "when", "whether", "not", "don't", "didn't", "won't", "never", "want", "wanted", "like", "try", "trying", "consider", "considering", "need", "needed",
	"that", "heard", "hope", "hoping", "wonder", "wondering", "maybe", "perhaps", "about", "example",
	"prefer", "prefers", "love", "enjoy")

// committed reports whether the verb of a decision (verb), after pre in
// its sentence, is a choice made: by a committed subject (I, we, let's,
// unhedged), or, at the sentence's start, an instruction of the user or
// an editing agent ("Replace X with Y") or an agent's report of a change
// ("Replaced X with Y").
func committed(pre, verb, role string, agent bool) bool {
	lower := strings.ToLower(pre)
	clause := lower[strings.LastIndexAny(lower, ",;:(")+1:]
	if !clean(clause) {
		return false
	}
	if role == "assistant" && !agent {
		// An assistant that edits nothing advises; it decides only
		// what it reports done ("I've replaced X with Y").
		return reported(clause + strings.ToLower(verb))
	}
	if startsSubject(verb) {
		return clean(strings.ToLower(verb))
	}
	if strings.TrimSpace(pre) == "" {
		w, _, _ := strings.Cut(strings.ToLower(verb), " ")
		return role == "user" || agent || strings.HasSuffix(w, "ed")
	}
	if role == "assistant" && bareSubject.MatchString(clause) {
		// "We use the fill method to set…": an agent explaining its code
		// in the present, not choosing.
		w, _, _ := strings.Cut(strings.ToLower(verb), " ")
		if !strings.HasSuffix(w, "ed") {
			return false
		}
	}
	return committer.MatchString(clause)
}

// bareSubject is a first person just before the verb, with no auxiliary.
var bareSubject = re(`(?:^|\s)(?:i|we)\s*$`)

// quoted reports whether what follows pre is inside quotation marks.
func quoted(pre string) bool {
	return strings.Count(pre, `"`)%2 == 1 || strings.Count(pre, "“") > strings.Count(pre, "”")
}

// reportedChange is a change reported done: "I've replaced", "we
// switched", "Replaced".
var reportedChange = re(`(?:^\s*|\b(?:i|we)(?:'ve| have)?\s+(?:now\s+|just\s+|already\s+)?)(?:replaced|switched|moved|migrated|changed|went with|chose|picked|settled on|decided)\b`)

func reported(s string) bool { return reportedChange.MatchString(s) }

// nameLike reports whether s starts as a name does: a capital, code, or
// a digit in it ("Flask-Argon2 v0.3.0", "`lazysizes`").
func nameLike(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r) || r == '`' || strings.IndexFunc(s, unicode.IsDigit) >= 0
}

// firstGroup is where the first group of a match starts: the match's
// words before it are its verb.
func firstGroup(m []int) int {
	for k := 2; k < len(m); k += 2 {
		if m[k] >= 0 {
			return m[k]
		}
	}
	return m[1]
}

// startsSubject reports whether a pattern's match starts with its own
// subject ("we'll go with", "let's use").
func startsSubject(s string) bool {
	w, _, _ := strings.Cut(strings.ToLower(s), " ")
	switch strings.TrimRight(w, "'") {
	case "i", "we", "let's", "lets", "let", "i'll", "we'll", "i'm", "we're", "i've", "we've":
		return true
	}
	return false
}

// clean reports a committed subject's words without a hedge.
func clean(s string) bool {
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
		if uncommitted[w] {
			return false
		}
	}
	return true
}

// verbalEnd ends an outcome that is what to do ("run for office again -
// even though…"): its own "for" and "to" belong to it.
var verbalEnd = re(`\s*(?:,|\(|:|\s-\s|\s(?:because|since|so that|to avoid|instead of|rather than|which|and then|but|in order|when|if|even though|although|as it|as they)\b)`)

// purposeEnd is a thing's purpose clause ("the formula to find the
// medians"): what a worked example uses the thing for.
var purposeEnd = re(`\s+to\s+([a-z]+)`)

// determiners start a noun phrase: "a call to the service" goes to
// something, it has no purpose clause.
var determiners = set("the", "a", "an", "my", "your", "our", "their", "its", "his", "her", "this", "that", "these", "those", "all", "each", "every", "some", "any")

// listOutcome is an outcome that is a list of things ("Lighthouse,
// GTmetrix, and WebPageTest"), up to where the sentence goes on.
var listOutcome = re(`^((?:[^,;]{1,40},\s*){1,5}(?:and|or)\s+[^,;]{1,40}?)(?:\s+(?:to|for|because|since|so|which|as|in|on|at|instead|over|rather)\s|[,.;:]|$)`)

// shortItems reports whether every item of a list is a name's length.
func shortItems(list string) bool {
	for _, it := range strings.Split(list, ",") {
		it = strings.TrimSpace(it)
		it = strings.TrimPrefix(strings.TrimPrefix(it, "and "), "or ")
		if n := len(strings.Fields(it)); n == 0 || n > 3 {
			return false
		}
	}
	return true
}

// maxOutcome is the most words an outcome has: a longer one is a clause
// cut short, not a name.
const maxOutcome = 8

// outcomePhrase is a decision's outcome from what its pattern captured:
// a thing chosen ends at a boundary or at its purpose clause (forWhat
// then), what to do at a clause's boundary. It is "" when it is too long
// to be a name, or ends in a word that needs more ("the", "of", "how I").
func outcomePhrase(s string, verbal bool) (out string, forWhat bool) {
	if verbal {
		if loc := verbalEnd.FindStringIndex(s); loc != nil {
			s = s[:loc[0]]
		}
	} else if m := listOutcome.FindStringSubmatch(s); m != nil && shortItems(m[1]) {
		s = m[1] // "Flask, Flask-Login, and Flask-Caching": all of them
	} else {
		if loc := outcomeEnd.FindStringIndex(s); loc != nil {
			s = s[:loc[0]]
		}
		for _, m := range purposeEnd.FindAllStringSubmatchIndex(s, -1) {
			if !determiners[strings.ToLower(s[m[2]:m[3]])] {
				s, forWhat = s[:m[0]], true
				break
			}
		}
	}
	if loc := outcomeDate.FindStringIndex(s); loc != nil {
		s = s[:loc[0]]
		// "articles found on May 6": the participle goes with its date.
		if f := strings.Fields(s); len(f) > 1 && participle(f[len(f)-1]) {
			s = strings.Join(f[:len(f)-1], " ")
		}
	}
	s = strings.TrimSpace(strings.Trim(s, " \"'`*"))
	if len(s) > 3 && strings.EqualFold(s[:3], "to ") {
		s, verbal = s[3:], true // "chose to prioritize tone over plot"
	}
	for _, a := range []string{"use ", "using ", "with ", "the ", "a ", "an "} {
		if !verbal && len(s) > len(a) && strings.EqualFold(s[:len(a)], a) {
			s = s[len(a):]
		}
	}
	s = strings.TrimRight(s, " ,")
	f := strings.Fields(s)
	if len(f) == 0 || len(f) > maxOutcome || dangling[strings.ToLower(f[len(f)-1])] {
		return "", forWhat
	}
	return s, forWhat
}

// identifier is an outcome that is one name of code: a method, a field
// or a variable ("debugPrint", "attribute.actor_id", "_transform").
var identifier = regexp.MustCompile(`^\x60?(?:[a-z_$][\w$]*[A-Z_.][\w$.]*|_\w+|[\w$]+\.[a-z_][\w$.]*)(?:\(\))?\x60?$`)

// genericWords are the words of an outcome that name a kind, not a thing.
var genericWords = set("new", "old", "existing", "different", "proper", "other", "better", "simpler", "simple", "same", "main",
	"component", "components", "call", "file", "files", "method", "function", "approach", "version", "one", "ones", "option",
	"solution", "code", "implementation", "service", "thing", "way", "tool", "tools", "setup", "config", "configuration",
	"parameters", "parameter", "values", "value", "constants", "constant", "to", "the", "a", "an", "of", "or", "and", "with",
	"three", "two", "four", "five", "several", "some", "few")

// genericOutcome reports an outcome made of generic words only.
func genericOutcome(outcome string) bool {
	for _, w := range strings.Fields(outcome) {
		if !genericWords[strings.Trim(w, ".,")] {
			return false
		}
	}
	return true
}

// optionName is an option by its number or letter ("option 3"), which
// says what was chosen only to who read the list.
var optionName = re(`^(?:(?:option|choice|approach|solution|method)\s+\w{1,2}|(?:the\s+)?next\s+(?:task|step|one|section|part|item|thing))$`)

// outcomeDate is a date that ends an outcome ("Scrivener on May 5"): when
// it was chosen, not what.
var outcomeDate = re(`\s+(?:on|in|by|since|from|until)\s+(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d|\d{1,4}\b|(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b)`)

// participle reports a past participle that needs what follows it.
func participle(w string) bool {
	w = strings.ToLower(w)
	switch w {
	case "found", "made", "given", "seen", "done", "bought", "built", "written", "taken", "chosen", "held", "set":
		return true
	}
	return len(w) > 4 && strings.HasSuffix(w, "ed")
}

// dangling are the words a phrase cannot end with.
var dangling = set("the", "a", "an", "of", "to", "for", "with", "and", "or", "in", "on", "at", "by", "from", "how", "i", "we", "my", "our", "your", "their", "is", "are", "be", "that", "which", "what", "into", "as", "some", "any")

// vague reports an outcome with a word that points elsewhere ("include
// this at the beginning", "your repo name") or a placeholder ("[Company
// Name]"): it names no choice on its own.
func vague(outcome string) bool {
	if strings.ContainsAny(outcome, "[]<>{}") {
		return true
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(outcome), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
		switch w {
		case "it", "this", "these", "those", "them", "that", "you", "your", "yours", "something", "stuff", "things", "following", "example":
			return true
		}
	}
	if genericOutcome(strings.ToLower(outcome)) {
		return true // "new component", "call to the service": which one is not said
	}
	if identifier.MatchString(outcome) {
		return true // a method or a field swapped for another: too small to recall
	}
	lower := strings.ToLower(outcome)
	return strings.Contains(lower, "your-") || hasAny(lower, "search/replace", "search block", "search section", "entire content") || optionName.MatchString(lower)
}

// listMark is a list item's marker and bold heading ("- **Replace
// Adverbs**: "), which stand before what the item says.
var listMark = re(`^(?:[-*+•]\s+|\d{1,3}[.)]\s+)?(?:\*\*[^*]{1,60}\*\*:?\s*)?`)

func stripListMark(s string) string {
	if m := listMark.FindStringIndex(s); m != nil && m[1] < len(s) {
		return s[m[1]:]
	}
	return s
}

// personal reports an outcome that is someone's ("my sister", "our
// kids"): what people do with their own is not a technical choice.
func personal(outcome string) bool {
	w, _, _ := strings.Cut(strings.ToLower(outcome), " ")
	switch w {
	case "my", "his", "her", "their", "our", "your", "me", "him", "them", "us":
		return true
	}
	return false
}

// unnamed reports an outcome that does not name what was chosen: it
// points back at something ("that", "it", "this approach", "them"), or it
// is a letter or two of a broken phrase ("Y", "Side \\").
func unnamed(outcome string) bool {
	w, _, _ := strings.Cut(strings.ToLower(outcome), " ")
	switch w {
	case "it", "this", "that", "these", "those", "them", "one", "something", "anything", "everything", "same":
		return true
	}
	letters := 0
	for _, r := range outcome {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters < 2 || strings.HasSuffix(outcome, "\\")
}

// phrase trims a captured outcome to its noun phrase: up to the first
// boundary, without a leading article, at most eight words.
func phrase(s string) string {
	if loc := outcomeEnd.FindStringIndex(s); loc != nil {
		s = s[:loc[0]]
	}
	s = strings.TrimSpace(strings.Trim(s, " \"'`*"))
	for _, a := range []string{"use ", "using ", "with ", "the ", "a ", "an "} {
		if len(s) > len(a) && strings.EqualFold(s[:len(a)], a) {
			s = s[len(a):]
		}
	}
	if f := strings.Fields(s); len(f) > 8 {
		s = strings.Join(f[:8], " ")
	}
	return strings.TrimRight(s, " ,")
}

var alternativeMarker = re(`\b(?:instead of|rather than|over|not)\s+(?P<alt>[^.;!?\n,]+)`)

func alternativeAfter(s string) string {
	if m := alternativeMarker.FindStringSubmatchIndex(s); m != nil {
		alt := phrase(s[m[2]:m[3]])
		if strings.EqualFold(strings.Fields(s[m[0]:])[0], "not") && !nameLike(alt) {
			return "" // "not sure how…" rejects nothing; "not Redux" does
		}
		return alt
	}
	return ""
}

func rationale(s string) string {
	m := rationalePattern.FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	why := m[1]
	if why == "" {
		why = m[2]
	}
	return strings.TrimSpace(strings.TrimRight(why, " ,"))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// leadWords are what a sentence may start with before what it says:
// "Oh, well, by the way, I…".
var leadWords = set("oh", "well", "yeah", "yes", "yep", "so", "also", "and", "but", "btw", "actually", "honestly",
	"ok", "okay", "alright", "great", "cool", "sure", "right", "hmm", "haha", "lol", "wow", "hey", "omg", "anyway",
	"ah", "nice", "good", "perfect", "thanks")

// leadPhrases are the lead-ins of more than one word.
var leadPhrases = []string{"by the way", "fun fact", "guess what", "thank you"}

// stripLead removes the lead-in words of a sentence.
func stripLead(s string) string {
	for {
		rest := s
		lower := strings.ToLower(s)
		matched := false
		for _, ph := range leadPhrases {
			if strings.HasPrefix(lower, ph) && (len(lower) == len(ph) || !isWordByte(lower[len(ph)])) {
				rest, matched = s[len(ph):], true
				break
			}
		}
		if !matched {
			end := 0
			for end < len(lower) && isWordByte(lower[end]) {
				end++
			}
			if end == 0 || end == len(lower) || !leadWords[lower[:end]] {
				return s
			}
			rest = s[end:]
		}
		trimmed := strings.TrimLeft(rest, ",!.:")
		if trimmed == rest && !strings.HasPrefix(rest, " ") {
			return s // a word that only starts like a lead-in
		}
		rest = strings.TrimLeft(trimmed, " ")
		if rest == "" || rest == s {
			return s
		}
		s = rest
	}
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '\''
}

// Options: "A or B?", "A vs B", "between A and B".
var (
	orQuestion = re(`\b(?:(?:should|shall|do|would|could|can) (?:we|i|you) )?(?:use|go with|choose|pick|prefer|try|go for|between|either|recommend|is it)\s+(?P<a>[^,?.;]{2,60}?)\s+or\s+(?P<b>[^,?.;]{2,60}?)\s*\?`)
	versus     = re(`(?P<a>[\w./-]+(?:\s+[A-Z][\w./-]*)?)\s+(?:vs\.?|versus)\s+(?P<b>[\w./-]+(?:\s+[A-Z][\w./-]*)?)`)
	between    = re(`\bbetween\s+(?P<a>[^,.;?]{2,40}?)\s+and\s+(?P<b>[^,.;?]{2,40}?)\b(?:[,.;?]|$)`)
)

// findOptions finds the options that questions and comparisons weigh.
func findOptions(sents []sentence) []string {
	var out []string
	add := func(p *regexp.Regexp, m []string) {
		for _, name := range []string{"a", "b"} {
			if o := phrase(m[p.SubexpIndex(name)]); o != "" && !contains(out, o) {
				out = append(out, o)
			}
		}
	}
	for _, s := range sents {
		lower := s.lower
		var ps []*regexp.Regexp
		if strings.Contains(lower, " or ") && strings.HasSuffix(lower, "?") {
			ps = append(ps, orQuestion)
		}
		if hasAny(lower, " vs", "versus") {
			ps = append(ps, versus)
		}
		if strings.Contains(lower, "between ") {
			ps = append(ps, between)
		}
		for _, p := range ps {
			for _, m := range p.FindAllStringSubmatch(s.text, -1) {
				add(p, m)
			}
		}
	}
	return out
}
