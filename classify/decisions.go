package classify

import (
	"regexp"
	"strings"
	"unicode"
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
}{
	{[]string{" from "}, re(`\b(?:switch(?:ed|ing)?|mov(?:e|ed|ing)|migrat(?:e|ed|ing)|port(?:ed|ing)?|chang(?:e|ed|ing))\s+(?:\w+\s+){0,3}?from\s+(?P<old>[^.;!?\n]+?)\s+to\s+(?P<obj>[^.;!?\n]+)`)},
	{[]string{"replac"}, re(`\breplac(?:e|ed|ing)\s+(?P<old>[^.;!?\n]+?)\s+with\s+(?P<obj>[^.;!?\n]+)`)},
	{[]string{"agreed", "decision", "decided", "ok", "final", "so"}, re(`^(?:agreed|decision|decided|ok|okay|final|so)\s*[:,-]\s*(?P<obj>[^.;!?\n]+?)\s+(?:over|instead of|rather than)\s+(?P<alt>[^.;!?\n,]+)`)},
	{[]string{" over ", "instead of", "rather than"}, re(`\b(?:prefer|chose|choose|picked|pick|went with|go with|going with|use|using)\s+(?P<obj>[^.;!?\n]+?)\s+(?:over|instead of|rather than)\s+(?P<alt>[^.;!?\n,]+)`)},
	{[]string{"let", "we'll", "we will", "going to", "i'll", "i will", "shall"}, re(`\b(?:let'?s|let us|we(?:'ll| will| are going to|'re going to| shall)|i(?:'ll| will|'m going to| am going to))\s+(?:go with|use|pick|choose|adopt|switch to|stick with|opt for|settle on|move to|migrate to|go for|standardi[sz]e on|build (?:it )?(?:with|on))\s+(?P<obj>[^.;!?\n]+)`)},
	{[]string{"decided", "chose", "picked", "settled", "agreed", "opted", "committed"}, re(`\b(?:decided|chose|picked|settled|agreed|opted|committed)\s+(?:to use|to go with|to go for|to switch to|to stick with|on using|on|with|for|to adopt)\s+(?P<obj>[^.;!?\n]+)`)},
	{[]string{"decided", "agreed", "chose"}, re(`\b(?:we|i)\s+(?:have\s+)?(?:decided|agreed|chose)\s+to\s+(?P<obj>[^.;!?\n]+)`)},
	{[]string{"switch"}, re(`\bswitch(?:ed|ing)?\s+to\s+(?P<obj>[^.;!?\n]+)`)},
}

// cueWords are the words a decision cue holds; a sentence without any has
// no cue.
var cueWords = []string{"use", "go with", "decid", "chose", "choose", "pick", "switch", "instead", "rather", "over", "vs", "versus", "opt", "settled", "went with", "migrat", "replac"}

// cuePattern counts decision cue phrases, for decision density.
var cuePattern = re(`\b(?:let'?s (?:use|go with|pick|choose|switch|stick|adopt)|we'll go with|we will use|go with|decided|decide to|chose|choose|settled on|switch(?:ed)? (?:to|from)|instead of|rather than|\bover\b|\bvs\.?\b|versus|opt(?:ed)? for|went with|migrat(?:e|ed) (?:to|from)|replac(?:e|ed) \w+ with)`)

// Boundaries end a decision's outcome.
var outcomeEnd = re(`\s*(?:,|\(|:|\s-\s|\s(?:because|since|as|so|so that|to avoid|for|over|instead|rather than|which|that|and then|but|in order|when|if|from now|going forward|too|here|now|then|for now)\b)`)

// rationalePattern finds why.
var rationalePattern = re(`\b(?:because|since|so that|so we|to avoid|due to|given that|as it|as they|as we|as the)\s+(?P<why>[^.;!?\n]+)|,\s*for\s+(?P<why2>(?:the|its|their|our)\s+[^.;!?\n]+)`)
var nextRationale = re(`^(?:because|that'?s because|the reason (?:is|was)(?: that)?|it'?s because)\s+(?P<why>[^.;!?\n]+)`)

// findDecisions finds the decisions of prose sentences and counts the cue
// phrases.
func findDecisions(sents []sentence) ([]Decision, int) {
	var out []Decision
	cues := 0
	for i, s := range sents {
		lower := s.lower
		if !hasAny(lower, cueWords...) && !hasAny(lower, "let", "we'll", "we will", "going to", "i'll", "i will", "shall", "agreed", "decision", " from ") {
			continue
		}
		cues += len(cuePattern.FindAllStringIndex(s.text, -1))
		if strings.HasSuffix(s.text, "?") {
			continue // a question weighs options; it decides nothing
		}
		text := stripLead(s.text)
		for _, dp := range decisionPatterns {
			if !hasAny(lower, dp.words...) {
				continue
			}
			p := dp.re
			m := p.FindStringSubmatchIndex(text)
			if m == nil {
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
			d.Outcome = phrase(obj)
			if d.Outcome == "" || personal(d.Outcome) || unnamed(d.Outcome) {
				continue
			}
			// What it replaces or rejects, when named ("replace them
			// with…" names only what was chosen).
			if old, _ := get("old"); old != "" && !unnamed(phrase(old)) {
				d.Replaces = phrase(old)
				d.Alternatives = append(d.Alternatives, d.Replaces)
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
			if alt := alternativeAfter(obj); alt != "" && !contains(d.Alternatives, alt) {
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
	if m := alternativeMarker.FindStringSubmatch(s); m != nil {
		return phrase(m[1])
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
