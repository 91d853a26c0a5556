package classify

import (
	"regexp"
	"slices"
	"strings"
)

// What an agent says of the edits it makes, for the changes of a coding
// session: the words before its first edit, the sentence of them that
// says what it changes, whether it fixes something.

// maxWhy bounds what a change keeps of the agent's words before its edits.
const maxWhy = 600

// EditWhy is what an agent's turn says before its first edit: why, and
// what it changes, in its words, cut at a sentence to maxWhy bytes.
func EditWhy(content string, arts []Artifact) string {
	end := len(content)
	for _, a := range arts {
		if a.Edit != nil || a.Filename != "" {
			end = min(end, a.Start)
		}
	}
	prose := strings.Join(strings.Fields(content[:end]), " ")
	if len(prose) <= maxWhy {
		return prose
	}
	// Cut after the last sentence that ends within maxWhy: a mark and a
	// space, not the dot of a path ("module/main.tf").
	for i := maxWhy - 1; i > maxWhy/3; i-- {
		if strings.IndexByte(".!?", prose[i]) >= 0 && prose[i+1] == ' ' {
			return prose[:i+1]
		}
	}
	cut := prose[:maxWhy]
	return cut[:strings.LastIndexByte(cut, ' ')] + "…"
}

// maxWhyLabel bounds the agent's sentence a change's label gives; a label
// is clipped after its first words, which say what changed.
const maxWhyLabel = 160

// whySentences is how many of the agent's first sentences are read for
// the one that says what it changes.
const whySentences = 6

// ChangeSentence is the sentence of an agent's words before its edits that
// says what it changes, for a change's label: of its first sentences, the
// first that is whole within maxWhyLabel bytes and is no changePreamble (an
// apology, "Certainly", "Let me fix that failed block", "Now I can see the
// issue"), cause or guess alone ("The error is occurring because …"), nor a
// lead-in to what follows ("Here are the changes:", "Let's do this step by
// step: 1.", "Implement these changes."); "" when none is. An intent is
// said as an order: "I'll help fix the login error." is "Fix the login
// error.", "Let's fix this by moving the call into init()." is "Move the
// call into init()."
func ChangeSentence(why string) string {
	why = listNumber.ReplaceAllString(why, "\n") // each item of a list a sentence
	for i := 0; i < whySentences && why != ""; i++ {
		s := why
		if m := sentenceEnd.FindStringIndex(why); m != nil {
			s, why = why[:m[0]+1], strings.TrimSpace(why[m[1]:])
		} else {
			why = ""
		}
		s = strings.TrimSpace(s)
		if w, rest, _ := strings.Cut(s, " "); gerunds[strings.ToLower(w)] != "" && rest != "" {
			s = capitalize(gerunds[strings.ToLower(w)]) + " " + rest // an item of a list: "Moving …": Move …
		}
		if m := agentIntent.FindStringSubmatchIndex(s); m != nil {
			s = capitalize(s[m[2]:]) // "I'll help fix the login error.": Fix the login error.
		}
		if m := fixBy.FindStringSubmatchIndex(s); m != nil {
			if verb := gerunds[strings.ToLower(s[m[2]:m[3]])]; verb != "" {
				s = capitalize(verb) + s[m[3]:] // "Fix this by moving …": Move …
			}
		}
		if len(s) <= maxWhyLabel && len(strings.Fields(s)) >= 4 && !changePreamble.MatchString(s) && !pointsOut.MatchString(s) && !pronounSubject.MatchString(s) && !leadIn.MatchString(s) && !restated.MatchString(s) {
			if c, ok := strings.CutSuffix(s, ":"); ok {
				s = c + "." // "First, fix the types and drop the copy:": what it does
			}
			return s
		}
	}
	return ""
}

// gerunds are the orders an agent says it makes, by their gerund:
// "updating" is "update".
var gerunds = func() map[string]string {
	m := map[string]string{}
	for _, v := range strings.Fields(changeVerbs) {
		switch {
		case strings.HasSuffix(v, "e") && !strings.HasSuffix(v, "ee"):
			m[v[:len(v)-1]+"ing"] = v
		case strings.HasSuffix(v, "et") || strings.HasSuffix(v, "it") || strings.HasSuffix(v, "ap") || strings.HasSuffix(v, "op"):
			m[v+v[len(v)-1:]+"ing"] = v // setting, splitting, wrapping
		default:
			m[v+"ing"] = v
		}
	}
	return m
}()

// changeVerbs are the verbs an agent says its changes with.
const changeVerbs = `fix add update change remove create implement modify move rename replace refactor make use import declare define correct adjust set handle convert split extract install enable disable increase reduce limit prevent ensure wrap pass check initialize initialise include delete drop return call store load read write export register configure specify provide`

var (
	// pointsOut is a pronoun after a verb or a preposition that points
	// outside the sentence: "import it from …".
	pointsOut = regexp.MustCompile(`(?i)\b(?:import|use|add|fix|move|call|put|change|update|make|do|get|set|pass|wrap|remove|replace|handle|with|from|to|of)\s+(?:it|them|this|that|these|those)\b\s*(?:[.,;:!?]|$|from|to|in|into|with|for|on|and|so|properly|correctly|too|as well)`)
	// pronounSubject is a sentence whose subject is a pronoun that
	// points outside it: "This typically happens when …", "It's because
	// …".
	pronounSubject = regexp.MustCompile(`(?i)^(?:this|that|it)(?:['’]s\b|\s+(?:\w+ly\s+)?(?:is|was|happens|occurs|means|seems|looks|should|will|can|would|could|might|may)\b)`)
	// agentIntent is how an agent says what it will do, before the
	// verb that says it: "I'll help ", "Let's ", "We need to ".
	agentIntent = regexp.MustCompile(`(?i)^(?:(?:first|now|next|so|then|however|instead|also|additionally|finally|alternatively),?\s+|to (?:fix|resolve|solve|address|handle) (?:this|that|it|these|the (?:\w+ )?(?:errors?|issues?|problems?)),?\s+)?(?:i['’]ll|i will|let me|let['’]s|we(?:['’]ll| will| need to| should| must| can)|i need to|i['’]m going to|now,? (?:let['’]s|i['’]ll))\s+(?:help (?:you )?(?:to )?)?((?:` + strings.ReplaceAll(changeVerbs, " ", "|") + `)\b)`)
	// fixBy is an order to fix something by doing what its gerund says:
	// "Fix this by moving …".
	fixBy = regexp.MustCompile(`(?i)^(?:fix|resolve|solve|address|correct|handle)\b[^.:;]{0,60}?\bby\s+(\w+ing)\b`)
	// restated is an order to fix trouble named by its kind alone, which
	// says what went wrong, not what changes: "Fix the `cn` function
	// error."
	restated = regexp.MustCompile(`(?i)^(?:fix|resolve|address|correct|solve|handle)\s+(?:the|this|these|that|an?|all)?\s*(?:[\w\x60'".()-]+\s+){0,4}?(?:errors?|issues?|problems?|bugs?|warnings?)(?:\s+(?:in|of|on)\s+(?:the\s+)?[\w\x60./-]+(?:\s+(?:file|component|function))?)?\s*[.!]?$`)
	// leadIn is a sentence that leads to what follows, not what changes:
	// it ends at a colon or a list's first number, goes "step by step",
	// or orders changes it does not name.
	leadIn = regexp.MustCompile(`(?i)\b(?:by|follows|following|changes?|steps?|edits?|blocks?|fix|this|these|here|needed|are|is|below)\s*:$|^(?:first|now|next|then)?,?\s*(?:here|below)\b|\b(?:step by step|one by one|break (?:this|it) down)\b|^\w+\s+(?:these|those|the|all|both|my|your|the following|the (?:above|requested|suggested|proposed|needed|necessary|required))\s+(?:\w+\s+){0,2}?(?:changes|improvements|updates|modifications|fixes|steps|edits)\b[^.]{0,60}\.$`)
	// sentenceEnd ends a sentence: not the dot of a file's name; a colon
	// ends a lead-in; a line ends an item of a list.
	sentenceEnd = regexp.MustCompile(`[.!?:](?:\s|$)|\n`)
	// listNumber is the number of an item of a list in running words.
	listNumber = regexp.MustCompile(`(?:^|\s)\d{1,2}[.)]\s+`)
	// changePreamble is an agent's sentence that says nothing of the change:
	// an apology, an assent, an offer, a word on its own edit blocks, a
	// cause alone.
	changePreamble = regexp.MustCompile(`(?i)^(?:i apologi[sz]e|sorry|my apologies|i understand|i see\b|certainly|sure\b|of course|great\b|ok(?:ay)?\b|alright|you['’]re right|thanks|thank you|i['’]ll help|i will help|i can help|here(?:['’]s| is| are)\b|let me (?:fix|try|correct|redo|retry) (?:that|the|those|this) (?:failed|search|edit)|(?:the|this|that|these) (?:\w+ )?(?:error|issue|problem|bug|failure|exception)s? (?:is|are|was|were|occurs?|occurring|happens?|seems?|comes?)\b|(?:it|this) (?:seems|looks|appears)\b|(?:now )?i (?:can )?see\b|looking at\b|based on\b|to (?:fix|resolve|address) (?:this|that|these|the (?:\w+ )?(?:error|issue|problem)s?)\b[^.]{0,40}:)|\b(?:search/replace|search block|failed block|exactly match)|^since i (?:don['’]t|do not|can['’]t|cannot)\b|\bi['’]ll assume\b|^assuming\b|\b(?:implement|make|apply|do|with|of|for)\s+(?:this|that|these|those) changes?\b`)
)

// A change fixes something when the user asked to fix trouble
// (asksFix), or it says it fixes trouble (saysFix): an error, a bug,
// an issue, by name or in words.
var (
	asksFix = regexp.MustCompile(`(?i)^(?:please\s+)?(?:can you\s+)?(?:fix|debug|resolve|solve|repair)\b|\b(?:corrig|répar|düzelt|arregl|behebe|korrigier)|\b(?:errors?|bugs?|issues?|problems?|crash\w*|exceptions?|fail\w*|broken|not working|doesn['’]t work|isn['’]t working)\b|\w(?:Error|Exception)\b`)
	saysFix = regexp.MustCompile(`(?i)\b(?:fix|resolv|solv|understand|see|caus|correct|address)\w*\b.{0,60}?(?:\b(?:errors?|exceptions?|bugs?|crash\w*|issues?|problems?)\b|\w(?:Error|Exception)\b)`)
)

// fixesNothing is a change that fixes nothing, whatever it follows: one that
// adds logging or error handling, or looks for a cause, a retry of an edit
// block that failed.
var fixesNothing = regexp.MustCompile(`(?i)\b(?:add|adds|added|adding|more|debug|improve|improves|improved)\s+(?:\w+\s+){0,2}?(?:logging|logs|log statements|print statements|debug output|error handling)\b|\bto (?:investigate|diagnose|find out|track down)\b|\bhandle\s+(?:\w+\s+){0,2}?(?:errors|exceptions|failures)\b|\b(?:correct|fix|retry|redo)\w*\s+(?:the\s+|that\s+)?(?:search/replace|failed|search)\s+(?:block|edit)`)

// AsksFix reports whether a request asks to fix trouble: "fix …", an
// error, a bug, something broken.
func AsksFix(ask string) bool { return asksFix.MatchString(ask) }

// SaysFix reports whether an agent's words of a change say it fixes
// trouble ("I understand the error", "to fix the TypeError").
func SaysFix(said string) bool { return saysFix.MatchString(said) }

// FixesNothing reports a change that, by what it says, fixes nothing
// whatever it follows: added logging or error handling, a search for a
// cause, a retried edit block.
func FixesNothing(said string) bool { return fixesNothing.MatchString(said) }

// commitType is a conventional commit's type that says it adds or tidies
// and does not fix: "feat: …", "refactor(ui): …".
var commitType = regexp.MustCompile(`^(?i:feat|feature|refactor|style|chore|docs|test|tests|perf|build|ci)(?:\([^)]*\))?!?:`)

// Tidies reports whether a commit's message types it as a feature or a
// tidying, not a fix.
func Tidies(message string) bool { return commitType.MatchString(message) }

// bundle is a commit's message that joins several pieces of work: a
// list, or two joined by "and" in the languages users of coding agents
// write most.
var bundle = regexp.MustCompile(`(?i),\s|\s(?:and|et|y|e|und|ve|ile|en|i|og|och|и)\s`)

// Bundles reports whether a commit's message, past its type, joins
// several pieces of work: "feat: add the palette, the clock and the
// logo".
func Bundles(message string) bool {
	return bundle.MatchString(commitPrefix.ReplaceAllString(message, ""))
}

// fixCommit is a commit's message that says it fixes by its verb, in
// English or another language, beyond its type: "fix: …" is also what an
// agent calls a change of behaviour it was asked for.
var fixCommit = regexp.MustCompile(`(?i)\b(?:fix|fixes|fixed|resolve[sd]?|repair(?:s|ed)?)\b|\b(?:corrig|répar|düzelt|arregl|behebe|korrigier|soluciona|risolv|corregg)|(?:^|\s)çöz`)

// CommitFixes reports whether a commit's message says it fixes something.
func CommitFixes(message string) bool {
	return fixCommit.MatchString(commitPrefix.ReplaceAllString(message, ""))
}

// commitPrefix is a conventional commit's type: "fix(ui)!: ".
var commitPrefix = regexp.MustCompile(`^\w+(?:\([^)]*\))?!?:\s*`)

// Edits of a turn that change nothing (each block's replacement is its
// search) are no change; a small edit is said by the lines it changes.
const (
	maxSaidLines = 2  // lines an edit is said by, removed or added
	maxSaidLine  = 60 // bytes of each
)

// NoEdit reports whether a turn's edit blocks, all of them, change
// nothing: it holds some, and each replaces its text with itself.
func NoEdit(arts []Artifact) bool {
	n := 0
	for _, a := range arts {
		if a.Edit == nil {
			continue
		}
		if a.Edit.Search != a.Edit.Replace {
			return false
		}
		n++
	}
	return n > 0
}

// EditSentence says what a turn's edits change when they change a line or
// two of files it had: "Changed `x := 1` to `x := 2`.", "Added `import os`.",
// "Removed `print(x)`."; "" for larger edits, new files, or none.
func EditSentence(arts []Artifact) string {
	var removed, added []string
	for _, a := range arts {
		if a.Edit == nil {
			continue
		}
		if strings.TrimSpace(a.Edit.Search) == "" {
			return "" // a new file
		}
		r, d := lineChanges(a.Edit.Search, a.Edit.Replace)
		removed, added = append(removed, r...), append(added, d...)
		if len(removed) > maxSaidLines || len(added) > maxSaidLines {
			return ""
		}
	}
	for _, l := range slices.Concat(removed, added) {
		if len(l) > maxSaidLine || strings.Contains(l, "`") {
			return ""
		}
	}
	quote := func(ls []string) string {
		return "`" + strings.Join(ls, "` and `") + "`"
	}
	switch {
	case len(removed) == 1 && len(added) == 1:
		return "Changed " + quote(removed) + " to " + quote(added) + "."
	case len(removed) == 0 && len(added) > 0:
		return "Added " + quote(added) + "."
	case len(added) == 0 && len(removed) > 0:
		return "Removed " + quote(removed) + "."
	}
	return ""
}

// lineChanges are the lines, trimmed, that b drops of a and adds to it,
// as multisets: a line moved is neither.
func lineChanges(a, b string) (removed, added []string) {
	count := map[string]int{}
	for l := range strings.Lines(a) {
		if l = strings.TrimSpace(l); l != "" {
			count[l]++
		}
	}
	for l := range strings.Lines(b) {
		if l = strings.TrimSpace(l); l != "" {
			if count[l] > 0 {
				count[l]--
			} else {
				added = append(added, l)
			}
		}
	}
	for l := range strings.Lines(a) {
		if l = strings.TrimSpace(l); l != "" && count[l] > 0 {
			count[l]--
			removed = append(removed, l)
		}
	}
	return removed, added
}
