package classify

import (
	"regexp"
	"strings"
	"unicode"
)

// Fact is something a person says about themselves, in the third person.
type Fact struct {
	// Text is the fact in the third person, with the relative dates of
	// the sentence resolved: "Caroline went to a support group yesterday
	// (7 May 2023)."
	Text string
	// Subject is who the fact is about: the speaker's name, or "User".
	Subject string
	// Category is identity, preference, relationship, project or context.
	Category string
	// Kind is what else the fact is, when it is more than a fact:
	// KindInstruction, KindGoal or KindRequest; "" for a fact.
	Kind string
	// Remember: the person asked to remember it. Specific: it holds
	// names, numbers or dates. Vague: it is hedged or temporary.
	Remember, Specific, Vague bool
	// Sentence is the sentence as written.
	Sentence string
	// Dates are the relative dates of the sentence.
	Dates []Date
}

var (
	rememberCue = re(`^(?:please\s+)?(?:remember|note|keep in mind|don't forget|do not forget|for future reference|fyi)(?:\s+that)?\s*[,:]?\s+`)
	rememberAny = re(`\b(?:please remember|remember that|remember this|don't forget that|keep (?:that|this) in mind|for future reference)\b`)
	// rememberTail is a request to remember at the end of a sentence, which
	// the fact itself leaves out.
	byTheWay     = re(`[\s,]+(?:by the way|btw|anyway|lol|haha)[.!]*$`)
	rememberTail = re(`[\s,;:—–-]*(?:(?:so )?please |and )?(?:remember (?:that|this|it)|keep (?:that|this) in mind|don't forget (?:that|this|it))[.!]*$`)
	// requestTail is a request to the one addressed, or a question, that
	// a statement ends with ("I'm building a tracker, can you help me with
	// the schema"): the fact leaves it out.
	requestTail = re(`[\s]*[,;:—–-]\s*(?:and |so |but )?(?:(?:can|could|would|will) you\b|(?:how|what|which|where|when|why) (?:can|could|should|do|would|will) i\b|i (?:was|am|['’]m) wondering\b|i wonder\b).*$`)
	firstPerson = regexp.MustCompile(`^(?:I\b|I['’]m\b|I['’]ve\b|I['’]d\b|I['’]ll\b|i\s|i['’]m\b|[Mm]y\b|[Ww]e\b|[Ww]e['’](?:re|ve|ll)\b|[Oo]ur\b)`)
	vagueCue    = re(`\b(?:maybe|perhaps|probably|might|kind of|sort of|i guess|i think|not sure|for now|at the moment|right now|temporarily|this time|for a bit|for a while)\b`)
)

// The categories, each with the cues that make a first-person sentence a
// fact of it, checked in this order: preference first, so that "I'm a big
// fan of pottery" is a preference, not what someone is.
var factCategories = []struct {
	name string
	cue  *regexp.Regexp
}{
	{"preference", re(`^(?:i (?:really |also |just |absolutely |totally |still )?(?:prefer|like|love|enjoy|hate|dislike|adore|can['’]t stand|don['’]t like|do not like|am into|['’]m into)|my favou?rite|i['’]d rather|i(?: am|['’]m) (?:a )?(?:big |huge )?fan of|i always (?:use|want|prefer)|i never (?:use|want))\b`)},
	{"identity", re(`^(?:i['’]m allergic|i am allergic|i have (?:an? )?(?:[\w-]+ )?` + conditions + `|i['’]m (?:vegetarian|vegan|pescatarian|gluten|lactose|pregnant|left-handed|right-handed|colou?r ?blind|deaf|blind|diabetic|sober|autistic)|my name is|i['’]m called|call me|i(?: am|['’]m) (?:a|an)\s+\w|i work (?:as|at|for|in)|i['’]m from|i (?:come|am) from|i live (?:in|at|near)|i was born|i grew up|i identify as|my pronouns|i(?: am|['’]m) \d+|i study|i['’]m studying|i graduated|my job|my birthday|i['’]m a\b)`)},
	{"relationship", re(`\bmy (?:wife|husband|partner|girlfriend|boyfriend|fianc[ée]e?|son|daughter|sons|daughters|kids?|children|child|mom|mum|mother|dad|father|parents|brother|sister|siblings|grand(?:ma|pa|mother|father|parents|kids|children)|aunt|uncle|cousin|niece|nephew|friend|friends|best friend|bff|boss|manager|colleague|colleagues|coworkers?|co-workers?|family|dog|cat|pet|pets|puppy|kitten)\b|^i have (?:a|an|one|two|three|four|five|\d+) (?:kids?|children|sons?|daughters?|brothers?|sisters?|dogs?|cats?|pets?)\b|^i['’]m (?:married|single|engaged|divorced|dating)\b`)},
	{"project", re(`^(?:i['’]m (?:working on|building|writing|developing|making|creating)|i['’]ve been (?:working on|building|writing)|we['’]re (?:building|working on|developing|making)|my (?:project|app|startup|company|business|thesis|book|website|site|repo|codebase|team|product)|our (?:project|app|product|codebase|startup|company|team|site))\b`)},
	{"context", re(`^(?:i (?:\w+ly )?(?:went|visited|ran|started|finished|joined|took|got|bought|made|painted|read|saw|watched|attended|signed up|traveled|travelled|moved|adopted|volunteered|won|lost|learned|learnt|tried|had|met|gave|received|celebrated|decided|created|wrote|built|baked|cooked|hiked|camped|organized|organised|hosted|performed|played|completed|passed|failed|applied|quit|left|returned|came|spent|used to)|i['’]ve (?:been|started|joined|finished|got|gotten|decided|made|taken|learned)|i['’]m (?:going|planning|thinking|trying|learning|taking|starting|looking|hoping|getting|feeling|doing|currently|still|now)|i just|i recently|i['’]ll be|i will be|we (?:went|visited|had|took|made|are going|['’]re going|got|adopted|moved|celebrated|spent))\b`)},
}

// findFacts finds the facts a person states about themselves; stop are the
// stop words.
func findFacts(sents []sentence, subject, listener string, dates []Date, stop map[string]bool) []Fact {
	var out []Fact
	for _, s := range sents {
		text := strings.TrimSpace(s.text)
		if strings.HasSuffix(text, "?") {
			continue
		}
		f := Fact{Subject: subject, Sentence: text}
		body := stripLead(text)
		if m := newsLabel.FindStringIndex(body); m != nil {
			body = body[m[1]:] // "Big news: I moved to Lisbon"
		}
		remembering := hasAny(s.lower, "remember", "forget", "keep ", "note", "future", "fyi")
		if remembering {
			if loc := rememberCue.FindStringIndex(body); loc != nil {
				f.Remember, body = true, body[loc[1]:]
			}
		}
		if !firstPerson.MatchString(body) || countWords(body) < 3 {
			continue
		}
		// Where body starts in the prose: what follows cuts its end only.
		at := s.start + len(text) - len(body)
		if loc := requestTail.FindStringIndex(body); loc != nil && loc[0] > 0 {
			body = strings.TrimRight(body[:loc[0]], " ,;:—–-") + "."
			if countWords(body) < 3 {
				continue
			}
		}
		if remembering {
			if rememberAny.MatchString(text) {
				f.Remember = true
			}
			if loc := rememberTail.FindStringIndex(body); loc != nil && loc[0] > 0 {
				body = strings.TrimRight(body[:loc[0]], " ,;:—–-") + "."
			}
		}
		lower := strings.ToLower(body)
		for _, c := range factCategories {
			if c.name == "relationship" && !hasAny(lower, "my ", "i have ", "i'm ", "i’m ") {
				continue
			}
			if loc := c.cue.FindStringIndex(lower); loc != nil {
				if c.name != "relationship" && !hasContent(lower[loc[1]:], stop) && !condition.MatchString(lower[loc[0]:loc[1]]) {
					break // "I love it", "I went there": says nothing to keep
				}
				f.Category = c.name
				break
			}
		}
		if f.Category == "" && f.Remember {
			f.Category = "context" // asked to remember: kept, whatever it is
		}
		if f.Category == "" || passing(body) {
			continue
		}
		for _, d := range dates {
			if d.Start >= s.start && d.End <= s.start+len(s.text) {
				f.Dates = append(f.Dates, d)
			}
		}
		if loc := byTheWay.FindStringIndex(body); loc != nil && loc[0] > 0 {
			body = body[:loc[0]] + "."
		}
		if loc := trailingMarks.FindStringIndex(body); loc != nil && loc[0] > 0 {
			body = strings.TrimRight(body[:loc[0]], " ,;") + "."
		}
		f.Specific = specific(body) || len(f.Dates) > 0
		if unresolved(body) || !f.Specific && (toListener(body) || strings.Contains(strings.ToLower(body), "trying to") && !lasting.MatchString(strings.ToLower(body))) {
			continue // "I watched it too", "I'll keep you posted", "I'm trying to craft a cover letter"
		}
		if loc := showTail.FindStringIndex(body); loc != nil && loc[0] > 0 {
			body = strings.TrimRight(body[:loc[0]], " ,;:—–-") + "."
		}
		if t := strings.TrimRight(body, ".!? "); listener != "" && strings.HasSuffix(t, ", "+listener) {
			body = strings.TrimSuffix(t, ", "+listener) + "." // "…, Jon!": the listener spoken to
		}
		if !readsAlone(strings.ToLower(body)) {
			continue // "I'm a huge fan of it", "I will definitely."
		}
		f.Vague = vagueCue.MatchString(body)
		f.Text = thirdPerson(withDates(body, at, f.Dates), subject, listener)
		out = append(out, f)
	}
	return out
}

// showTail is a sentence's end that shows what it is about: a photo, a
// link ("…, here's something I just finished", "- check out this pic").
var showTail = re(`[\s,;:—–-]+(?:and\s+)?(?:here(?:['’]s| is| are)|check (?:it|this|that) out|check out)\b.*$`)

// condition is a lasting condition of health that an identity cue names
// whole ("I have a peanut allergy"): the cue is the fact.
var condition = re(conditions)

// conditions are the lasting conditions of health a person has.
const conditions = `(?:allergy|allergies|allergic|intolerance|diabetes|asthma|celiac|adhd|dyslexia|epilepsy|migraines)`

// newsLabel is the label a sentence's news comes under: "Big news:",
// "Quick update:", "Good news —".
var newsLabel = re(`^(?:(?:big|good|great|some|exciting|quick|small|little|sad|bad)\s+)?(?:news|update|updates)\s*[:—–-]\s+`)

// passingCue is a first person's sentence that says nothing lasting: a
// thing just noticed, a question being worked out ("I'm trying to
// understand why…"), an attempt that failed ("I tried to … but…").
var passingCue = re(`^(?:i (?:just )?(?:noticed|realized|realised)\b|i(?:['’]m| am) trying to (?:understand|verify|figure out|check|see|know|work out|wrap my head around)\s+(?:why|if|whether|what|the difference|the concept)\b|i tried to\b.*\b(?:but|didn['’]t work|doesn['’]t work)\b)`)

// passing reports a fact's sentence that says nothing lasting, or points
// at what follows it ("I've got the following code so far:").
func passing(body string) bool {
	return strings.HasSuffix(strings.TrimSpace(body), ":") || passingCue.MatchString(strings.ToLower(body))
}

// lasting is a clause that says something lasting of the one trying:
// "…, so I prefer minimal dependencies".
var lasting = re(`\bi (?:really |always |strongly )?(?:prefer|like|love|hate|always|never|usually)\b`)

// trailingMarks are marks a sentence ends with that are not words: arrows
// and the numbers after them ("… on May 5 ->-> 5,4").
var trailingMarks = regexp.MustCompile(`\s*(?:-+>+\s*)+[\d\s,.;:]*$`)

// leadPronoun is a pronoun among a first person's first words: what it
// stands for is in another sentence ("I watched it too", "I love that
// it…", "I've been dreaming of this"); and one that ends the sentence.
var (
	leadPronoun = re(`^\S+(?:\s+\S+){0,3}?\s+(?:it|this|that it|how it|them)\b`)
	endPronoun  = re(`\b(?:on|of|with|about|at|for|from|to|into|in)\s+(?:it|this|that|them)(?:\s+(?:now|too|again|anymore|yet))?(?:\s+and\s+see\s+what\s+happens)?[.!]*$`)
	listener    = re(`\b(?:you|your|yours|we|us)\b`)
)

// unresolved reports a fact whose words lean on a pronoun whose
// referent is in another sentence.
func unresolved(body string) bool {
	lower := strings.ToLower(body)
	return leadPronoun.MatchString(lower) || endPronoun.MatchString(lower)
}

// toListener reports a fact that is said to the listener or of the two
// of them ("I'll keep you posted", "I love your ice cream", "since we
// talked").
func toListener(body string) bool {
	f := strings.Fields(body)
	return len(f) > 1 && listener.MatchString(strings.ToLower(strings.Join(f[1:], " ")))
}

// hasContent reports whether text holds a word that is not a stop word.
func hasContent(text string, stop map[string]bool) bool {
	ws, _ := words(text)
	for _, w := range ws {
		if !stop[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

// withDates writes each date's resolution after its expression in body,
// which starts at off in the prose; a date past its end (cut off with a
// request or a tail) is left out.
func withDates(body string, off int, dates []Date) string {
	var b strings.Builder
	last := 0
	for _, d := range dates {
		e := d.End - off
		if e <= last || e > len(body) {
			continue
		}
		b.WriteString(body[last:e])
		b.WriteString(" (" + d.Format() + ")")
		last = e
	}
	b.WriteString(body[last:])
	return b.String()
}

// specific reports whether text holds a number or a name past its first
// word.
func specific(text string) bool {
	ws, _ := words(text)
	for i, w := range ws {
		if strings.IndexFunc(w, unicode.IsDigit) >= 0 {
			return true
		}
		if i > 0 && capitalized(w) && !notNames[w] {
			return true
		}
	}
	return false
}

// Rewriting in the third person.
var (
	adverbs = set("really", "also", "just", "always", "never", "still", "usually", "often", "sometimes", "actually",
		"definitely", "absolutely", "totally", "truly", "honestly", "finally", "recently", "now", "already", "even", "only",
		"mostly", "generally", "currently", "personally", "kind", "sort")
	auxiliaries   = set("do", "does", "did", "am", "are", "was", "were", "have", "had")
	modals        = set("can", "could", "will", "would", "should", "might", "must", "may", "shall", "used", "can't", "couldn't", "won't", "wouldn't", "shouldn't", "mustn't", "didn't")
	pastIrregular = set("went", "ran", "saw", "had", "made", "took", "got", "bought", "met", "felt", "thought", "told", "said",
		"came", "gave", "found", "left", "kept", "began", "wrote", "did", "was", "won", "lost", "paid", "sent", "spent", "built",
		"brought", "taught", "caught", "heard", "knew", "drew", "drove", "flew", "ate", "sat", "sang", "swam", "chose", "forgot",
		"wore", "sold", "slept", "spoke", "understood", "woke", "became", "grew", "threw", "fell", "held", "led", "meant",
		"stood", "hung", "read", "put", "set", "cut", "hit", "let", "quit", "shut", "learnt", "burnt", "dreamt", "were")
	contractions = map[string]string{
		"i'm": " is", "i’m": " is", "i've": " has", "i’ve": " has", "i'd": " would", "i’d": " would",
		"i'll": " will", "i’ll": " will",
		"we're": " is", "we’re": " is", "we've": " has", "we’ve": " has", "we'd": " would", "we’d": " would",
		"we'll": " will", "we’ll": " will",
	}
	// youContractions and youBe rewrite "you" as the listener.
	youContractions = map[string]string{"you're": " is", "you’re": " is", "you've": " has", "you’ve": " has",
		"you'll": " will", "you’ll": " will", "you'd": " would", "you’d": " would"}
	youBe = map[string]string{"are": "is", "were": "was"}
	// clauseStart are the words after which "you" is a clause's subject.
	clauseStart = set("that", "and", "but", "when", "if", "because", "since", "while", "as", "so", "how", "what")
	// pluralReferents are the words "their" could mean after them.
	pluralReferents = set("they", "them", "people", "family", "friends", "kids", "children", "parents", "others",
		"everyone", "everybody", "guys", "folks", "team", "fans", "students", "colleagues", "siblings")
	// presentEed are verbs whose present ends in "-ed", as a past tense
	// does: "I need" is "User needs".
	presentEed = set("need", "feed", "bleed", "breed", "speed", "proceed", "succeed", "exceed", "heed", "seed", "weed")
)

// thirdPerson rewrites a first-person sentence about subject: "I prefer
// TypeScript" becomes "User prefers TypeScript", "my kids" "Caroline's
// kids", and a possessive after the subject is named "their": "I prefer
// TypeScript for all my projects" becomes "User prefers TypeScript for
// all their projects", not "… all User's projects".
//
// The listener, when known, is who "you" is: "I took your advice" becomes
// "Joanna took Nate's advice". A possessive after a plural that "their"
// could mean is the subject's: "John loves talking to people about John's
// collection".
func thirdPerson(s, subject, listener string) string {
	return thirdPersonOf(s, subject, listener, false)
}

// thirdPersonThey is thirdPerson that names the subject once: "I" after
// is "they" ("User is worried they won't make the deadline").
func thirdPersonThey(s, subject string) string {
	return thirdPersonOf(s, subject, "", true)
}

// theyContractions and theyBe are "I"'s contractions and forms of "be"
// for "they".
var (
	theyContractions = map[string]string{"i'm": "they are", "i’m": "they are", "i've": "they have", "i’ve": "they have",
		"i'd": "they would", "i’d": "they would", "i'll": "they will", "i’ll": "they will"}
	theyBe = map[string]string{"am": "are", "was": "were"}
)

func thirdPersonOf(s, subject, listener string, they bool) string {
	ws, offs := words(s)
	var b strings.Builder
	last := 0
	conjugateNext := false
	named := false  // the subject is written: a possessive after is "their"
	plural := false // a plural since, that "their" could mean
	for i, w := range ws {
		lw := strings.ToLower(w)
		prev := ""
		if i > 0 {
			prev = strings.ToLower(ws[i-1])
		}
		repl := ""
		switch {
		case they && named && theyContractions[lw] != "":
			repl = theyContractions[lw]
		case they && named && lw == "i":
			repl = "they" // "am", "was" follow, or a verb that stays
		case they && named && theyBe[lw] != "" && prev == "i":
			repl = theyBe[lw]
		case they && named && lw == "me":
			repl = "them"
		case contractions[lw] != "":
			repl = subject + contractions[lw]
		case listener != "" && youContractions[lw] != "":
			repl = listener + youContractions[lw]
		case listener != "" && lw == "you" && i+1 < len(ws) && youBe[strings.ToLower(ws[i+1])] != "":
			repl = listener // "are", "were" follow
		case listener != "" && youBe[lw] != "" && prev == "you":
			repl = youBe[lw]
		case listener != "" && (lw == "you" || lw == "yourself"):
			repl = listener
			conjugateNext = i == 0 || clauseStart[prev]
		case listener != "" && (lw == "your" || lw == "yours"):
			repl = listener + "'s"
		case (lw == "my" || lw == "our") && named && plural:
			repl = subject + "'s"
		case lw == "i" && i+1 < len(ws) && strings.EqualFold(ws[i+1], "am"):
			repl = subject // "am" follows
		case lw == "am" && i > 0 && strings.EqualFold(ws[i-1], "i"):
			repl = "is"
		case lw == "i" && i+1 < len(ws) && strings.EqualFold(ws[i+1], "was"):
			repl = subject
		case lw == "i" || lw == "we" && i == 0:
			repl = subject
			// "can I make": the modal before it keeps the verb as it is.
			conjugateNext = i == 0 || !modals[strings.ToLower(ws[i-1])] && !auxiliaries[strings.ToLower(ws[i-1])]
		case (lw == "my" || lw == "our") && named:
			repl = "their"
		case (lw == "mine" || lw == "ours") && named:
			repl = "theirs"
		case lw == "my" || lw == "mine" || lw == "our" || lw == "ours":
			repl = subject + "'s"
		case lw == "me":
			repl = subject
		case lw == "myself":
			repl = "themselves"
		case lw == "us":
			repl = subject
		case conjugateNext && adverbs[lw]:
			// the verb comes after
		case conjugateNext:
			conjugateNext = false
			repl = thirdPersonVerb(w)
		}
		if repl != "" && repl != w {
			b.WriteString(s[last:offs[i]])
			b.WriteString(repl)
			last = offs[i] + len(w)
			named = named || strings.HasPrefix(repl, subject)
		}
		// "their" could mean a plural since, or the listener once named.
		plural = plural || named && pluralReferents[lw] || listener != "" && strings.HasPrefix(repl, listener)
	}
	b.WriteString(s[last:])
	out := b.String()
	if out != "" {
		r := []rune(out)
		r[0] = unicode.ToUpper(r[0])
		out = string(r)
	}
	return out
}

// thirdPersonVerb conjugates a verb that follows "I" for a third person:
// "prefer" → "prefers", "have" → "has", "don't" → "doesn't"; a past tense or
// a modal stays.
func thirdPersonVerb(w string) string {
	lw := strings.ToLower(w)
	switch {
	case lw == "have":
		return "has"
	case lw == "haven't":
		return "hasn't"
	case lw == "do":
		return "does"
	case lw == "don't" || lw == "don’t":
		return "doesn't"
	case lw == "go":
		return "goes"
	case modals[lw] || pastIrregular[lw] || strings.HasSuffix(lw, "ed") && !presentEed[lw] || !allLetters(lw) || w != lw:
		return w
	case strings.HasSuffix(lw, "s") || strings.HasSuffix(lw, "sh") || strings.HasSuffix(lw, "ch") ||
		strings.HasSuffix(lw, "x") || strings.HasSuffix(lw, "z") || strings.HasSuffix(lw, "o"):
		return w + "es"
	case len(lw) > 1 && strings.HasSuffix(lw, "y") && !strings.ContainsRune("aeiou", rune(lw[len(lw)-2])):
		return w[:len(w)-1] + "ies"
	}
	return w + "s"
}
