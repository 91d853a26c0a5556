package classify

import (
	"regexp"
	"strings"
)

// What an agent says of the edits it makes, for the changes of a coding
// session: the words before its first edit, the sentence of them that
// says what it changes, whether it fixes something.

// maxWhy bounds what a change keeps of the agent's words before its edits.
const maxWhy = 300

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
	cut := prose[:maxWhy]
	if i := strings.LastIndexAny(cut, ".!?"); i > maxWhy/3 {
		return cut[:i+1]
	}
	return cut[:strings.LastIndexByte(cut, ' ')] + "…"
}

// maxWhyLabel bounds the agent's sentence a change's label gives, so that
// the label holds it whole.
const maxWhyLabel = 80

// ChangeSentence is the sentence of an agent's words before its edits that
// says what it changes, for a change's label: of its first sentences, the
// first that is whole within maxWhyLabel bytes and is no changePreamble (an
// apology, "Certainly", "Let me fix that failed block") or cause alone
// ("The error is occurring because …"); "" when none is.
func ChangeSentence(why string) string {
	for i := 0; i < 3 && why != ""; i++ {
		s := why
		if m := sentenceEnd.FindStringIndex(why); m != nil {
			s, why = why[:m[0]+1], strings.TrimSpace(why[m[1]:])
		} else {
			why = ""
		}
		s = strings.TrimSpace(s)
		if m := agentIntent.FindStringSubmatchIndex(s); m != nil {
			s = capitalize(s[m[2]:]) // "I'll help fix the login error.": Fix the login error.
		}
		if len(s) <= maxWhyLabel && len(strings.Fields(s)) >= 4 && !changePreamble.MatchString(s) && !pointsOut.MatchString(s) && !strings.HasSuffix(s, ":") {
			return s
		}
	}
	return ""
}

var (
	// pointsOut is a pronoun after a verb or a preposition that points
	// outside the sentence: "import it from …".
	pointsOut = regexp.MustCompile(`(?i)\b(?:import|use|add|fix|move|call|put|change|update|make|do|get|set|pass|wrap|remove|replace|with|from|to|of)\s+(?:it|them|this|that|these|those)\b\s*(?:[.,;:!?]|$|from|to|in|into|with|for|on|and|so)`)
	// agentIntent is how an agent says what it will do, before the
	// verb that says it: "I'll help ", "Let's ", "We need to ".
	agentIntent = regexp.MustCompile(`(?i)^(?:i['’]ll|i will|let me|let['’]s|we(?:['’]ll| will| need to| should| must)|i need to|i['’]m going to|now,? (?:let['’]s|i['’]ll))\s+(?:help (?:you )?(?:to )?)?((?:fix|add|update|change|remove|create|implement|modify|move|rename|replace|refactor|make|use|import|declare|define|correct|adjust|set|handle|convert|split|extract|install|enable|disable|increase|reduce|limit|prevent|ensure)\b)`)
	// sentenceEnd ends a sentence: not the dot of a file's name.
	sentenceEnd = regexp.MustCompile(`[.!?](?:\s|$)`)
	// changePreamble is an agent's sentence that says nothing of the change:
	// an apology, an assent, an offer, a word on its own edit blocks, a
	// cause alone.
	changePreamble = regexp.MustCompile(`(?i)^(?:i apologi[sz]e|sorry|my apologies|i understand|i see\b|certainly|sure\b|of course|great\b|ok(?:ay)?\b|alright|you['’]re right|thanks|thank you|i['’]ll help|i will help|i can help|here(?:['’]s| is| are)\b|let me (?:fix|try|correct|redo|retry) (?:that|the|those|this) (?:failed|search|edit)|the (?:error|issue|problem|bug|failure)s? (?:is|are|was|were|occurs?|happens?|seems?|comes?)\b)|\b(?:search/replace|search block|failed block|exactly match)`)
)

// A change fixes something when the user asked to fix trouble
// (asksFix), or it says it fixes trouble (saysFix): an error, a bug,
// an issue, by name or in words.
var (
	asksFix = regexp.MustCompile(`(?i)^(?:please\s+)?(?:can you\s+)?(?:fix|debug|resolve|solve|repair)\b|\b(?:corrig|répar|düzelt|arregl|behebe|korrigier)|\b(?:errors?|bugs?|issues?|problems?|crash\w*|exceptions?|fail\w*|broken|not working|doesn['’]t work|isn['’]t working)\b|\w(?:Error|Exception)\b`)
	saysFix = regexp.MustCompile(`(?i)\b(?:fix|resolv|solv|understand|see|caus|correct|address)\w*\b.{0,60}?(?:\b(?:errors?|exceptions?|bugs?|crash\w*|issues?|problems?)\b|\w(?:Error|Exception)\b)`)
)

// fixesNothing is a change that fixes nothing, whatever it follows: one that
// adds logging to find a cause, a retry of an edit block that failed.
var fixesNothing = regexp.MustCompile(`(?i)\b(?:add|adds|added|adding|more|debug)\s+(?:\w+\s+){0,2}?(?:logging|logs|log statements|print statements|debug output)\b|\b(?:correct|fix|retry|redo)\w*\s+(?:the\s+|that\s+)?(?:search/replace|failed|search)\s+(?:block|edit)`)

// AsksFix reports whether a request asks to fix trouble: "fix …", an
// error, a bug, something broken.
func AsksFix(ask string) bool { return asksFix.MatchString(ask) }

// SaysFix reports whether an agent's words of a change say it fixes
// trouble ("I understand the error", "to fix the TypeError").
func SaysFix(said string) bool { return saysFix.MatchString(said) }

// FixesNothing reports a change that, by what it says, fixes nothing
// whatever it follows: added logging, a retried edit block.
func FixesNothing(said string) bool { return fixesNothing.MatchString(said) }
