package classify

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// notNames are capitalized words that are not names where they stand:
// pronouns, interjections and the like. Months and weekdays are dates.
var notNames = set(
	"I", "I'm", "I've", "I'd", "I'll", "Im", "Ive", "Id",
	"OK", "Ok", "Okay", "Yes", "No", "Yeah", "Hey", "Hi", "Hello", "Oh", "Wow", "Thanks", "Thank",
	"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
	"January", "February", "March", "April", "June", "July", "August", "September", "October", "November", "December",
	// Their short forms, the hours of the clock, and the abbreviations of
	// chat.
	"Mon", "Tue", "Tues", "Wed", "Thu", "Thur", "Thurs", "Fri", "Sat", "Sun", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug",
	"Sep", "Sept", "Oct", "Nov", "Dec", "AM", "PM", "BTW", "Btw", "LOL", "Lol", "OMG", "Omg", "IMO", "IMHO", "TBH", "FYI",
	"ASAP", "IDK", "BRB", "TBD", "AKA", "NGL", "TTYL", "LMAO", "ROFL",
	// The markers of an agent's edit blocks.
	"SEARCH", "REPLACE",
)

// timeWords end a name that is a date, not a name ("Time Anchor of March").
var timeWords = set("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
	"November", "December", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

// demonyms are the adjectives of nations, peoples and languages: before
// a noun ("an Irish pub") they describe it and name nothing to look up.
var demonyms = set("American", "British", "English", "Irish", "Scottish", "Welsh", "Canadian", "Mexican", "Brazilian",
	"Argentinian", "Chilean", "Peruvian", "Colombian", "Cuban", "French", "German", "Italian", "Spanish", "Portuguese",
	"Dutch", "Belgian", "Swiss", "Austrian", "Swedish", "Norwegian", "Danish", "Finnish", "Icelandic", "Polish", "Czech",
	"Hungarian", "Romanian", "Greek", "Turkish", "Russian", "Ukrainian", "European", "African", "Asian", "Arab", "Arabic",
	"Chinese", "Japanese", "Korean", "Indian", "Pakistani", "Thai", "Vietnamese", "Filipino", "Indonesian", "Australian",
	"Egyptian", "Moroccan", "Nigerian", "Kenyan", "Ethiopian", "Israeli", "Iranian", "Persian", "Latin", "Hispanic",
	"Nordic", "Scandinavian", "Mediterranean", "Caribbean", "Western", "Eastern", "Northern", "Southern", "Hawaiian",
	"Midwestern", "Northeastern", "Northwestern", "Southeastern", "Southwestern")

// greetings are the words a name is addressed after: "Hey Mel!",
// "Thanks, Jon!".
var greetings = set("hey", "hi", "hello", "thanks", "thank", "you", "bye", "congrats", "congratulations", "morning",
	"evening", "night", "welcome", "dear", "yo", "sorry", "cheers", "wow", "yeah", "yep", "yes", "oh", "aw", "aww",
	"ah", "ok", "okay", "whoa", "haha", "omg", "ooh")

// addressed reports whether the name of words i to j speaks to someone
// rather than of them: after a greeting and before a mark ("Hey Maria!",
// "Thanks, Mell."), after a comma and before an exclamation or a
// question mark ("Go for it, Jon!"), or the listener's name set off by
// marks ("Yep, Caroline."). Like a sentence's first word, such a name
// counts once it shows up elsewhere.
func addressed(s *entityScan, i, j int) bool {
	end := s.offs[j-1] + len(s.ws[j-1])
	rest := s.p[end:]
	before := strings.TrimRight(s.p[:s.offs[i]], " ")
	if j == i+1 && listens(s.listener, s.ws[i]) && (rest == "" || strings.ContainsRune(",!?.", rune(rest[0])) ||
		strings.HasPrefix(rest, " -") || strings.HasPrefix(rest, " –") || strings.HasPrefix(rest, " —") || strings.HasSuffix(before, ",")) {
		// The listener's name before a mark or after a comma: "Wow,
		// Tim, that's great", "That's great Tim!", "Thanks, Gina -
		// really", "No doubt, Jon you've got this".
		return true
	}
	if rest != "" && !strings.ContainsRune(",!?.", rune(rest[0])) {
		return false
	}
	switch {
	case i > 0 && greetings[strings.ToLower(s.ws[i-1])] && s.offs[i-1]+len(s.ws[i-1]) == len(strings.TrimRight(before, ",")):
		return true
	case strings.HasSuffix(before, ","):
		return end < len(s.p) && (s.p[end] == '!' || s.p[end] == '?')
	}
	return false
}

// listens reports whether word is the name of the listener, in lower
// case, or the start of it ("Mel" of "melanie"). A role ("user", "the
// assistant") is no name one calls someone by.
func listens(listener, word string) bool {
	if listener == "" || len(word) < 3 || roles[listener] {
		return false
	}
	first, _, _ := strings.Cut(listener, " ")
	return strings.HasPrefix(first, strings.ToLower(word))
}

// roles are the names of the parts of a chat, not of people.
var roles = set("user", "assistant", "the assistant", "system", "tool", "human", "ai")

// datePart reports whether word i is part of a date: a month's short
// name before a number ("Jan 15"), or an era after one ("500 BC", "the
// 6th century BCE").
func datePart(s *entityScan, i int) bool {
	w := s.ws[i]
	switch {
	case shortMonths[w]:
		return i+1 < len(s.ws) && s.ws[i+1][0] >= '0' && s.ws[i+1][0] <= '9'
	case eras[w]:
		return i > 0 && (s.ws[i-1][0] >= '0' && s.ws[i-1][0] <= '9' || strings.EqualFold(s.ws[i-1], "century") || strings.EqualFold(s.ws[i-1], "centuries"))
	}
	return false
}

// shortMonths are the short names of months that may be names ("Jan",
// "May"); eras are the marks of years before or after Christ.
var (
	shortMonths = set("Jan", "May")
	eras        = set("BC", "BCE", "AD", "CE")
)

// allFrequent reports whether every word of ws is a frequent English word
// (Frequent): capitals of shouting, not of an acronym.
func allFrequent(ws []string) bool {
	for _, w := range ws {
		if !Frequent(w) {
			return false
		}
	}
	return true
}

// connectors may stand inside a multiword name: "Bank of America".
var connectors = set("of", "de", "da", "del", "van", "von", "la", "le", "&")

// personHints and placeHints are words that, just before a name, say what
// it names. Words as common as "with" and "and" say nothing.
var personHints = set("met", "told", "asked", "called", "texted", "friend", "friends", "named", "dear", "meet", "invited", "mom", "dad", "sister", "brother", "cousin", "aunt", "uncle", "husband", "wife", "partner", "boyfriend", "girlfriend", "son", "daughter", "colleague", "boss", "mentor")
var placeHints = set("visited", "visiting", "near", "across", "toward", "towards", "outside", "downtown")

// placeVerbs before "in", "to" or "at" make what follows a place: "live in
// Lisbon", "moved to Porto", "a trip to Cádiz".
var placeVerbs = set("live", "lives", "living", "lived", "based", "born", "up", "moved", "move", "moving", "trip", "went", "go", "going",
	"flew", "fly", "flying", "travel", "traveled", "travelled", "traveling", "travelling", "back", "stay", "stayed", "staying",
	"vacation", "holiday", "weekend", "apartment", "house", "home", "drove", "drive", "driving", "walk", "walked", "arrived", "visit", "visits")

// adjectiveCompound is a name joined to a word that makes it an
// adjective: "CPU-bound", "AI-driven", "ATS-friendly", "UK-based".
var adjectiveCompound = regexp.MustCompile(`^[\w.]+-(?:based|powered|driven|bound|friendly|ready|only|specific|like|heavy|intensive|compatible|related|aware|first|native|style|enabled|centric|generated|free|safe|focused|oriented|level|wide|side|facing|inspired|themed|certified|approved|backed|owned|born|made)$`)

// nameAt is the wordFinder of names: it finds the name that starts at
// word i, a run of capitalized words perhaps joined by connectors ("Lake
// Louise", "Bank of America"), if one does, with what the words before it
// hint it names.
func nameAt(s *entityScan, i int) (int, bool) {
	w, off := s.ws[i], s.offs[i]
	if !capitalized(w) || notNames[w] || notNames[trimPossessive(w)] || glued(s.p, off, off+len(w)) {
		return i, false
	}
	if slashPair(s.p, off, off+len(w)) || afterSlashPair.MatchString(s.p[max(0, off-12):off]) {
		// "CI/CD", "TCP/IP": a pair of acronyms, no name alone, nor
		// with the words after it ("CI/CD Pipelines").
		return s.nameEnd(i) - 1, false
	}
	j := s.nameEnd(i)
	if j == i+1 && noLoneName(w, s.stop) || s.titleLine(off) {
		return i, false
	}
	if timeWords[s.ws[j-1]] {
		return j - 1, false // a date: "the Time Anchor of March"
	}
	if j == i+1 && datePart(s, i) {
		return i, false // "Jan 15", "the 6th century BCE"
	}
	if j-i >= 3 && allCaps(s.ws[i:j]) || j-i >= 2 && allCaps(s.ws[i:j]) && allFrequent(s.ws[i:j]) {
		return j - 1, false // a banner, "EXCEPTION CAUGHT BY RENDERING LIBRARY", or a shout, "DOING IT"
	}
	if j == i+1 && demonyms[w] && j < len(s.ws) && s.offs[j] == off+len(w)+1 && s.p[off+len(w)] == ' ' && !capitalized(s.ws[j]) {
		return i, false // "an Irish pub", "our European trip": an adjective
	}
	atStart := startsSentence(s.sents, s.p, off)
	if lw := strings.ToLower(w); atStart && j > i+1 && len(lw) > 4 && (strings.HasSuffix(lw, "ed") || strings.HasSuffix(lw, "ing")) {
		// "Integrated GitHub Actions": a verb that starts the sentence
		// is not part of the name.
		i, off = i+1, s.offs[i+1]
		w = s.ws[i]
		atStart = false
	}
	if atStart && j > i+1 && (s.stop[strings.ToLower(w)] || greetings[strings.ToLower(w)] || j == i+2 && listens(s.listener, s.ws[i+1])) {
		// "With PostgreSQL", "The Lisbon office", "Wow John!",
		// "Woohoo Melanie!" to Melanie: a function word or a greeting
		// that starts the sentence is not part of the name.
		i, off = i+1, s.offs[i+1]
		atStart = false
	}
	if j == i+1 && adjectiveCompound.MatchString(trimPossessive(s.ws[i])) {
		return i, false // "CPU-bound", "For UK-based", "ATS-friendly": a word of how, not a name
	}
	for i < j-1 && !capitalized(s.ws[i]) {
		// "Processing of the PDF": what is left after the verb starts
		// at its next capital.
		i++
		off = s.offs[i]
	}
	vocative := addressed(s, i, j)
	atStart = atStart || vocative
	end := s.offs[j-1] + len(s.ws[j-1])
	text := trimPossessive(s.p[off:end])
	e := Entity{Text: text, Kind: "name", Start: off, End: off + len(text), SentenceStart: atStart, Addressed: vocative, Hint: hintBefore(s.ws, i)}
	if atStart && j > i+1 {
		// "Take Pico": the run may be a sentence's first word and a
		// name; the graph knows whether the rest is one. The rest starts
		// at a capital ("URL of the PDF": "PDF", not "of the PDF").
		k := i + 1
		for k < j-1 && !capitalized(s.ws[k]) {
			k++
		}
		e.Tail = trimPossessive(s.p[s.offs[k]:end])
	}
	s.add(e)
	return j - 1, true
}

// glued reports whether the word from start to end of p is part of a token
// that a colon joins to letters ("CS:GO", "std::vector"): a piece of a
// token, not a name of its own.
func glued(p string, start, end int) bool {
	if start > 0 && p[start-1] == ':' {
		if r, _ := utf8.DecodeLastRuneInString(strings.TrimRight(p[:start], ":")); unicode.IsLetter(r) {
			return true
		}
	}
	if end < len(p) && p[end] == ':' {
		if r, _ := utf8.DecodeRuneInString(strings.TrimLeft(p[end:], ":")); unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// nameEnd returns the index of the word after the run of capitalized
// words, perhaps joined by connectors, that starts at word i. The run
// stays within a sentence, its words one space apart, and stops before a
// path. Its words need not be free: a name may cover an error ("Python
// TypeError").
func (s *entityScan) nameEnd(i int) int {
	p, ws, offs := s.p, s.ws, s.offs
	j := i + 1
	for j < len(ws) && (spaced(p, offs[j-1]+len(ws[j-1]), offs[j]) || initial(p, ws[j-1], offs[j-1], offs[j]) && !s.stop[strings.ToLower(ws[j])] ||
		pluralPossessive(p, ws[j-1], offs[j-1]+len(ws[j-1]), offs[j]) && capitalized(ws[j])) &&
		!startsSentence(s.sents, p, offs[j]) && pathToken(p, offs[j], len(ws[j])) == "" {
		if capitalized(ws[j]) && !notNames[ws[j]] {
			j++
			continue
		}
		if connectors[ws[j]] && j+1 < len(ws) && capitalized(ws[j+1]) && spaced(p, offs[j]+len(ws[j]), offs[j+1]) {
			j += 2
			continue
		}
		if connectors[ws[j]] && j+2 < len(ws) && ws[j+1] == "the" && capitalized(ws[j+2]) &&
			spaced(p, offs[j]+len(ws[j]), offs[j+1]) && spaced(p, offs[j+1]+3, offs[j+2]) {
			j += 3 // "Lord of the Rings"
			continue
		}
		break
	}
	return j
}

// initial reports whether the word w at off is an initial of a name, its
// next word at next one period and a space away: "George R. R. Martin".
func initial(p, w string, off, next int) bool {
	return len(w) == 1 && w[0] >= 'A' && w[0] <= 'Z' && next == off+3 && p[off+1] == '.' && p[off+2] == ' '
}

// noLoneName reports whether the capitalized word w, alone, is no name:
// "It", "There", "DOES", "C", a function word or a letter ("US" and "IT"
// may be names).
func noLoneName(w string, stop map[string]bool) bool {
	return utf8.RuneCountInString(w) < 2 || stop[strings.ToLower(w)] && (strings.ToUpper(w) != w || len(w) > 2)
}

// hintBefore returns what the words before word i of ws suggest a name
// there names: "person" (my friend, met, told…), "place" (visited, live
// in, moved to…) or "".
func hintBefore(ws []string, i int) string {
	if i == 0 {
		return ""
	}
	prev := strings.ToLower(ws[i-1])
	prev2 := ""
	if i > 1 {
		prev2 = strings.ToLower(ws[i-2])
	}
	switch {
	case personHints[prev]:
		return "person"
	case placeHints[prev], (prev == "in" || prev == "to" || prev == "at" || prev == "from") && placeVerbs[prev2]:
		return "place"
	}
	return ""
}

// startsSentence reports whether the word at off starts a sentence or a
// line, behind at most a few characters of quotes, brackets, list markers,
// checkboxes, heading marks or emphasis ("- **Since** …", "### Overview",
// "2) Do …", "[        ] Try …"),
// or follows a colon ("Task: Create …"). sents are the sentences of p,
// in order.
func startsSentence(sents []sentence, p string, off int) bool {
	// The last sentence to start at or before off is the first one the
	// walk back from off can meet.
	last := -1
	if i, _ := slices.BinarySearchFunc(sents, off+1, func(s sentence, at int) int { return s.start - at }); i > 0 {
		last = sents[i-1].start
	}
	for k := off; k >= 0 && off-k <= 24; k-- {
		if k == last || k == 0 {
			return true
		}
		c := p[k-1]
		if c == '\n' || (c == ':' || c == '|') && k < off {
			return true // a line's start, a capital after a colon, a table's cell
		}
		if k >= 3 && p[k-3:k] == "•" {
			k -= 2 // a bullet, read back as one mark
			continue
		}
		if !strings.ContainsRune(lineMarks, rune(c)) {
			return false
		}
	}
	return false
}

// lineMarks are what may stand before the first word of a sentence or a
// line: quotes, brackets, list markers and numbers, Markdown marks.
const lineMarks = " \t\"'(*-_#>+|.)`[]0123456789"

// spaced reports whether the words that end at from and start at to stand
// one space apart, as the words of a name do ("Lake Louise", not
// "Assets/Scripts").
// afterSlashPair is the end of the text before a word that follows a pair
// of acronyms: "CI/CD " before "Pipelines".
var afterSlashPair = regexp.MustCompile(`\b[A-Z]{1,5}/[A-Z]{1,5} $`)

// slashPair reports whether the word from start to end of p is an acronym
// a slash joins to another: "CD" of "CI/CD".
func slashPair(p string, start, end int) bool {
	return acronym(p[start:end]) && (start > 1 && p[start-1] == '/' && acronym(p[start-2:start-1]) || end+1 < len(p) && p[end] == '/' && acronym(p[end+1:end+2]))
}

// acronym reports whether w is capital letters alone.
func acronym(w string) bool {
	return w != "" && strings.IndexFunc(w, func(r rune) bool { return r < 'A' || r > 'Z' }) < 0
}

// pluralPossessive reports whether a plural's apostrophe and a space part
// word w, ending at from, and the word at to: "Writers’ Guild", a name
// that goes on.
func pluralPossessive(p, w string, from, to int) bool {
	return strings.HasSuffix(w, "s") && (p[from:to] == "’ " || p[from:to] == "' ")
}

func spaced(p string, from, to int) bool {
	return to == from+1 && p[from] == ' '
}

// allCaps reports words all in capitals, three letters or more each but
// for connectors.
func allCaps(ws []string) bool {
	for _, w := range ws {
		if strings.ToUpper(w) != w || len(w) < 2 && !connectors[strings.ToLower(w)] {
			return false
		}
	}
	return true
}

func capitalized(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

func trimPossessive(w string) string {
	for _, s := range []string{"'s", "’s", "'", "’"} {
		if strings.HasSuffix(w, s) && len(w) > len(s)+1 {
			return w[:len(w)-len(s)]
		}
	}
	return w
}
