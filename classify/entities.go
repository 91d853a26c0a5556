package classify

import (
	"slices"
	"strings"
	"unicode"
)

// Entity is a named thing in a turn: a name (a person, a place, an
// organisation, a product, a library), a file path, a code identifier, an
// error code or a URL.
type Entity struct {
	// Text is the entity as written, a possessive 's removed.
	Text string
	// Kind is name, path, identifier, error or url.
	Kind string
	// Start and End are its byte offsets in the turn's prose.
	Start, End int
	// Sentence is the sentence of the prose it is in.
	Sentence string
	// SentenceStart marks a single capitalized word at the start of a
	// sentence: it may be an ordinary word ("Yesterday") rather than a
	// name, which only its other uses can tell.
	SentenceStart bool
	// Addressed marks a name that speaks to someone rather than of them
	// ("Hey Maria!", "Go for it, Jon!"): it counts as a sentence's first
	// word, and says who listens, not what the turn is about.
	Addressed bool
	// Self marks a name the speaker gives themselves ("I'm Christina, a
	// colour technologist", "my name is Ana"): it names who speaks.
	Self bool
	// Hint is what the words before it suggest: "person" (my friend, met,
	// told…) or "place" (visited, live in, moved to…), or "".
	Hint string
	// Listed marks a path or a name of code that its line lists with two
	// or more others: it mentions a thing named elsewhere, but names
	// nothing on its own.
	Listed bool
	// Tail is, for a name of several words that starts a sentence, the
	// name without its first word, which may be an ordinary word ("Take
	// Pico").
	Tail string
}

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// entityScan is what the finders of a turn's entities share: the prose p,
// its words ws at byte offsets offs, its sentences sents and the stop
// words stop, which the finders only read, and the entities found so far,
// out, which they append to.
type entityScan struct {
	p     string
	ws    []string
	offs  []int
	sents []sentence
	stop  map[string]bool
	// listener is whom the turn speaks to, in lower case, or "".
	listener string
	out      []Entity
	// claimed marks the bytes of p the entities of out cover (see add).
	claimed []bool
	// lines are where p's lines start.
	lines lineIndex
	// titles caches, by a line's start, where its heading in title case
	// ends (0: it has none).
	titles map[int]int
}

// add adds e to the entities found, and claims its bytes.
func (s *entityScan) add(e Entity) {
	s.out = append(s.out, e)
	if s.claimed == nil {
		s.claimed = make([]bool, len(s.p))
	}
	for i := max(e.Start, 0); i < min(e.End, len(s.p)); i++ {
		s.claimed[i] = true
	}
}

// titleLine reports whether off is in a heading in title case
// ("## Highlight Your Achievements", "- **Stay Refreshed**: take
// breaks"): its capitals mark a heading, not names.
func (s *entityScan) titleLine(off int) bool {
	if s.lines == nil {
		s.lines = newLineIndex(s.p)
	}
	start, lineEnd := s.lines.line(s.p, off)
	if end, ok := s.titles[start]; ok {
		return off < end
	}
	n := lineEnd - start
	text, at, bold := s.p[start:start+n], start, false
	if t := strings.TrimLeft(text, " -+•#>0123456789.)"); strings.HasPrefix(t, "**") {
		if k := strings.Index(t[2:], "**"); k > 0 {
			at = start + (len(text) - len(t)) + 2
			text, bold = t[2:2+k], true // the bold heading of a list item
		}
	}
	caps, words := 0, 0
	for w := range strings.FieldsSeq(text) {
		w = strings.Trim(w, "*_#-•>:.,!?()\"'`")
		if len(w) < 3 || s.stop[strings.ToLower(w)] || w[0] >= '0' && w[0] <= '9' {
			continue // a small word, or a number ("### 90-Day Plan Overview")
		}
		words++
		if !capitalized(w) || words > 8 {
			break // a word in lower case, or more than a heading's: caps < words, no heading
		}
		caps++
	}
	line := strings.TrimSpace(s.p[start : start+n])
	marked := line != "" && strings.ContainsRune("#*-•0123456789", rune(line[0]))
	end := 0
	if caps == words && words > 0 && (words >= 3 && words <= 8 || words == 2 && marked || bold && words <= 8 || words == 1 && line[0] == '#') {
		end = at + len(text)
	}
	if s.titles == nil {
		s.titles = map[int]int{}
	}
	s.titles[start] = end
	return off < end
}

// An entityFinder finds the entities of one kind, or of a few kinds that
// must be found in one pass, in the prose of s. It reads s.p, s.ws,
// s.offs, s.sents, s.stop and s.out, and appends the entities it finds to
// s.out, in the order of the prose; it never removes or changes an entity
// found before. It adds no entity where one found before covers the text
// (s.taken; for a name, its first word), so order matters: the first
// finder to claim a span of text keeps it. Nothing is merged or sorted
// afterwards: the entities of a turn are in the order of the finders, and
// within a finder in the order of the prose, which setSentences relies on.
type entityFinder func(s *entityScan)

// entityFinders are run in this order: URLs, which may hold anything;
// code in backticks; error names and codes; HTTP statuses; titles in
// quotes; then, word by word, paths, identifiers and names.
var entityFinders = []entityFinder{
	findURLs,
	findCodeSpans,
	findErrors,
	findHTTPStatuses,
	findQuotedTitles,
	findWordEntities,
}

// findEntities finds the named things of prose, whose words are ws at offs;
// stop are the stop words, listener the name of whom the turn speaks to.
// It runs the entityFinders in order.
func findEntities(p string, ws []string, offs []int, sents []sentence, stop map[string]bool, listener string) []Entity {
	s := entityScan{p: p, ws: ws, offs: offs, sents: sents, stop: stop, listener: strings.ToLower(listener)}
	for _, find := range entityFinders {
		find(&s)
	}
	return s.out
}

// taken reports whether an entity found so far overlaps the bytes from
// start to end (an empty span: whether one covers the bytes on both sides
// of it).
func (s *entityScan) taken(start, end int) bool {
	if s.claimed == nil {
		return false
	}
	start, end = max(start, 0), min(end, len(s.p))
	if end <= start {
		return start > 0 && start < len(s.p) && s.claimed[start-1] && s.claimed[start]
	}
	for _, c := range s.claimed[start:end] {
		if c {
			return true
		}
	}
	return false
}

// lineIndex holds where the lines of a text start, so that the line of
// an offset is found in log time: a text of one long line (a paste,
// minified code) would be scanned back for each of its entities.
type lineIndex []int

func newLineIndex(p string) lineIndex {
	l := lineIndex{0}
	for i := 0; i < len(p); i++ {
		if p[i] == '\n' {
			l = append(l, i+1)
		}
	}
	return l
}

// line returns the start and end of the line of p that holds off, its
// '\n' left out: as span(p, off, off, "\n").
func (l lineIndex) line(p string, off int) (start, end int) {
	k, _ := slices.BinarySearch(l, off+1) // the first line starting after off
	start = l[k-1]
	if k < len(l) {
		return start, l[k] - 1
	}
	return start, len(p)
}

func allLetters(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) && r != '-' {
			return false
		}
	}
	return true
}

// fillerWords are the words of small talk.
var fillerWords = set(
	"thanks", "thank", "you", "thx", "ty", "ok", "okay", "k", "kk", "lol", "lmao", "haha", "hahaha", "hehe",
	"cool", "nice", "great", "awesome", "sure", "yes", "yeah", "yep", "yup", "no", "nope", "hi", "hello", "hey",
	"bye", "goodbye", "good", "night", "morning", "np", "welcome", "you're", "youre", "got", "it", "sounds", "perfect",
	"alright", "right", "mhm", "hmm", "wow", "oh", "ah", "omg", "cheers", "so", "much", "very", "indeed",
	"exactly", "agreed", "ok.", "fine", "done", "noted", "gotcha", "appreciate", "amazing", "a", "lot",
)

// isFiller reports whether prose of words ws is small talk only: at most
// six words, all of them filler, or no words at all (emoji, punctuation).
func isFiller(ws []string) bool {
	if len(ws) > 6 {
		return false
	}
	for _, w := range ws {
		if !fillerWords[strings.ToLower(w)] {
			return false
		}
	}
	return true
}

// setSentences gives each entity the sentence it is in. The entities are
// in the order of the prose within each kind, so the walk through the
// sentences restarts when an entity comes before the one it followed.
func setSentences(ents []Entity, sents []sentence) {
	j, prev := 0, 0
	for i := range ents {
		e := &ents[i]
		if e.Start < prev {
			j = 0
		}
		prev = e.Start
		for j < len(sents) && sents[j].start+len(sents[j].text) <= e.Start {
			j++
		}
		if j < len(sents) && sents[j].start <= e.Start {
			e.Sentence = sents[j].text
		}
	}
}

// SmallTalk reports whether text is small talk only ("thanks", "ok",
// "You're welcome."), as Signals.Filler says of a turn: at most six
// words, all of them filler. It reads no further than that.
func SmallTalk(text string) bool {
	if len(text) > 80 {
		return false // more than six words of filler would hold
	}
	ws, _ := words(text)
	return isFiller(ws)
}
