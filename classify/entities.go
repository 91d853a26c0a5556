package classify

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
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
	// Hint is what the words before it suggest: "person" (my friend, met,
	// told…) or "place" (visited, live in, moved to…), or "".
	Hint string
	// Tail is, for a name of several words that starts a sentence, the
	// name without its first word, which may be an ordinary word ("Take
	// Pico").
	Tail string
}

var (
	urlPattern   = regexp.MustCompile(`https?://[^\s)>\]"'` + "`" + `]+`)
	codeSpan     = regexp.MustCompile("`([^`\n]{2,80})`")
	errorPattern = regexp.MustCompile(`\b(?:E[A-Z]{3,}[A-Z0-9]*|[A-Z][A-Za-z]*(?:Error|Exception)|[A-Z]{1,3}\d{3,5})\b`)
	// The three kinds of errorPattern, each run only where it can match.
	errnoPattern     = regexp.MustCompile(`\bE[A-Z0-9_]{2,}\b`)
	errorNamePattern = regexp.MustCompile(`\b[A-Z][A-Za-z]*(?:Error|Exception)\b`)
	errorCodePattern = regexp.MustCompile(`\b[A-Z]{1,3}\d{3,5}\b`)
	httpStatus       = regexp.MustCompile(`(?i)\b(?:status|error|returns?|returned|returning|got|http|code)\s+(?:code\s+)?([45]\d\d)\b|\b([45]\d\d)\s+(?:error|unauthorized|forbidden|not found|bad request|internal server error|from)\b`)
)

// errnoNames are the error names of POSIX and Linux (errno.h) and the
// ones Node.js and npm add; an all-capitals word that starts with E is
// one of these or not an error ("EVERY", "ENTER"). Node's ERR_* codes are
// recognized by their prefix.
var errnoNames = set(
	"E2BIG", "EACCES", "EADDRINUSE", "EADDRNOTAVAIL", "EAFNOSUPPORT", "EAGAIN", "EALREADY", "EBADF", "EBADMSG",
	"EBUSY", "ECANCELED", "ECHILD", "ECONNABORTED", "ECONNREFUSED", "ECONNRESET", "EDEADLK", "EDESTADDRREQ",
	"EDOM", "EDQUOT", "EEXIST", "EFAULT", "EFBIG", "EHOSTDOWN", "EHOSTUNREACH", "EIDRM", "EILSEQ", "EINPROGRESS",
	"EINTR", "EINVAL", "EIO", "EISCONN", "EISDIR", "ELOOP", "EMFILE", "EMLINK", "EMSGSIZE", "EMULTIHOP",
	"ENAMETOOLONG", "ENETDOWN", "ENETRESET", "ENETUNREACH", "ENFILE", "ENOBUFS", "ENODATA", "ENODEV", "ENOENT",
	"ENOEXEC", "ENOLCK", "ENOLINK", "ENOMEM", "ENOMSG", "ENOPROTOOPT", "ENOSPC", "ENOSR", "ENOSTR", "ENOSYS",
	"ENOTBLK", "ENOTCONN", "ENOTDIR", "ENOTEMPTY", "ENOTRECOVERABLE", "ENOTSOCK", "ENOTSUP", "ENOTTY", "ENXIO",
	"EOPNOTSUPP", "EOVERFLOW", "EOWNERDEAD", "EPERM", "EPFNOSUPPORT", "EPIPE", "EPROTO", "EPROTONOSUPPORT",
	"EPROTOTYPE", "ERANGE", "EREMOTE", "EROFS", "ESHUTDOWN", "ESOCKTNOSUPPORT", "ESPIPE", "ESRCH", "ESTALE",
	"ETIME", "ETIMEDOUT", "ETOOMANYREFS", "ETXTBSY", "EUSERS", "EWOULDBLOCK", "EXDEV",
	// Node.js and npm
	"ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "ELIFECYCLE", "ERESOLVE", "EJSONPARSE", "EINTEGRITY", "EBADENGINE",
	"EBADPLATFORM", "ENOTSUP", "EPEERINVALID", "ENOAUDIT", "ENOLOCK", "E401", "E403", "E404", "E500",
)

// notNames are capitalized words that are not names where they stand:
// pronouns, interjections and the like. Months and weekdays are dates.
var notNames = set(
	"I", "I'm", "I've", "I'd", "I'll", "Im", "Ive", "Id",
	"OK", "Ok", "Okay", "Yes", "No", "Yeah", "Hey", "Hi", "Hello", "Oh", "Wow", "Thanks", "Thank",
	"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
	"January", "February", "March", "April", "June", "July", "August", "September", "October", "November", "December",
)

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

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// findEntities finds the named things of prose, whose words are ws at offs;
// stop are the stop words.
func findEntities(p string, ws []string, offs []int, sents []sentence, stop map[string]bool) []Entity {
	var out []Entity
	taken := func(s, e int) bool {
		for _, x := range out {
			if s < x.End && e > x.Start {
				return true
			}
		}
		return false
	}
	var urls, spans, errs, statuses [][]int
	if strings.Contains(p, "http") {
		urls = urlPattern.FindAllStringIndex(p, -1)
	}
	if strings.Contains(p, "`") {
		spans = codeSpan.FindAllStringSubmatchIndex(p, -1)
	}
	if hasErrno(p) {
		for _, m := range errnoPattern.FindAllStringIndex(p, -1) {
			if w := p[m[0]:m[1]]; errnoNames[w] || strings.HasPrefix(w, "ERR_") && len(w) > 6 {
				errs = append(errs, m)
			}
		}
	}
	if hasAny(p, "Error", "Exception") {
		errs = append(errs, errorNamePattern.FindAllStringIndex(p, -1)...)
	}
	if hasCodeLike(p) {
		errs = append(errs, errorCodePattern.FindAllStringIndex(p, -1)...)
	}
	slices.SortFunc(errs, func(a, b []int) int { return a[0] - b[0] })
	if hasStatusLike(p) {
		statuses = httpStatus.FindAllStringSubmatchIndex(p, -1)
	}
	for _, m := range urls {
		out = append(out, Entity{Text: strings.TrimRight(p[m[0]:m[1]], ".,;:!?"), Kind: "url", Start: m[0], End: m[1]})
	}
	for _, m := range spans {
		if taken(m[0], m[1]) {
			continue
		}
		t := p[m[2]:m[3]]
		if strings.ContainsAny(t, " \t") {
			continue // a phrase or a line of code in backticks, not a name
		}
		kind := "identifier"
		if isPath(t, true) {
			kind = "path"
		}
		out = append(out, Entity{Text: t, Kind: kind, Start: m[2], End: m[3]})
	}
	for _, m := range errs {
		if !taken(m[0], m[1]) {
			out = append(out, Entity{Text: p[m[0]:m[1]], Kind: "error", Start: m[0], End: m[1]})
		}
	}
	for _, m := range statuses {
		s, e := m[2], m[3]
		if s < 0 {
			s, e = m[4], m[5]
		}
		if !taken(s, e) {
			out = append(out, Entity{Text: "HTTP " + p[s:e], Kind: "error", Start: s, End: e})
		}
	}
	starts := map[int]bool{}
	for _, s := range sents {
		starts[s.start] = true
	}
	for i := 0; i < len(ws); i++ {
		w, off := ws[i], offs[i]
		if taken(off, off+len(w)) {
			continue
		}
		switch {
		case pathToken(p, off, len(w)) != "":
			t := pathToken(p, off, len(w))
			out = append(out, Entity{Text: t, Kind: "path", Start: off, End: off + len(t)})
			for i+1 < len(ws) && offs[i+1] < off+len(t) {
				i++
			}
			continue
		case isIdentifier(w):
			out = append(out, Entity{Text: w, Kind: "identifier", Start: off, End: off + len(w)})
			continue
		case !capitalized(w) || notNames[w] || notNames[trimPossessive(w)]:
			continue
		}
		// A run of capitalized words, perhaps joined by connectors.
		j := i + 1
		for j < len(ws) && spaced(p, offs[j-1]+len(ws[j-1]), offs[j]) && !startsSentence(starts, p, offs[j]) && pathToken(p, offs[j], len(ws[j])) == "" {
			if capitalized(ws[j]) && !notNames[ws[j]] {
				j++
				continue
			}
			if connectors[ws[j]] && j+1 < len(ws) && capitalized(ws[j+1]) && spaced(p, offs[j]+len(ws[j]), offs[j+1]) {
				j += 2
				continue
			}
			break
		}
		atStart := startsSentence(starts, p, off)
		if j == i+1 && (utf8.RuneCountInString(w) < 2 || stop[strings.ToLower(w)] && (strings.ToUpper(w) != w || len(w) > 2)) {
			continue // "It", "There", "DOES", "C": a function word or a letter is no name ("US" and "IT" may be)
		}
		if atStart && j > i+1 && stop[strings.ToLower(w)] {
			// "With PostgreSQL", "The Lisbon office": a function word that
			// starts the sentence is not part of the name.
			i, off = i+1, offs[i+1]
			atStart = false
		}
		end := offs[j-1] + len(ws[j-1])
		text := trimPossessive(p[off:end])
		e := Entity{Text: text, Kind: "name", Start: off, End: off + len(text), SentenceStart: atStart}
		if atStart && j > i+1 {
			// "Take Pico": the run may be a sentence's first word and a
			// name; the graph knows whether the rest is one.
			e.Tail = trimPossessive(p[offs[i+1]:end])
		}
		if i > 0 {
			prev := strings.ToLower(ws[i-1])
			prev2 := ""
			if i > 1 {
				prev2 = strings.ToLower(ws[i-2])
			}
			switch {
			case personHints[prev]:
				e.Hint = "person"
			case placeHints[prev], (prev == "in" || prev == "to" || prev == "at" || prev == "from") && placeVerbs[prev2]:
				e.Hint = "place"
			}
		}
		out = append(out, e)
		i = j - 1
	}
	return out
}

// hasErrno reports whether s may hold an errno name: "E" and two more
// capital letters or digits.
func hasErrno(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if s[i] == 'E' && (isUpper(s[i+1]) || isDigit(s[i+1])) && (isUpper(s[i+2]) || isDigit(s[i+2])) {
			return true
		}
	}
	return false
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// hasCodeLike reports whether s may hold an error code such as "E1234" or
// "TS2345": a capital letter and three digits.
func hasCodeLike(s string) bool {
	for i := 0; i+3 < len(s); i++ {
		if isUpper(s[i]) && isDigit(s[i+1]) && isDigit(s[i+2]) && isDigit(s[i+3]) {
			return true
		}
	}
	return false
}

// hasStatusLike reports whether s holds a number of three digits that
// starts with 4 or 5, on its own: a possible HTTP status.
func hasStatusLike(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if (s[i] == '4' || s[i] == '5') && isDigit(s[i+1]) && isDigit(s[i+2]) &&
			(i == 0 || !isDigit(s[i-1])) && (i+3 == len(s) || !isDigit(s[i+3])) {
			return true
		}
	}
	return false
}

// startsSentence reports whether the word at off starts a sentence or a
// line, behind at most a few characters of quotes, brackets, list markers,
// heading marks or emphasis ("- **Since** …", "### Overview", "2) Do …"),
// or follows a colon ("Task: Create …").
func startsSentence(starts map[int]bool, p string, off int) bool {
	for k := off; k >= 0 && off-k <= 8; k-- {
		if starts[k] || k == 0 {
			return true
		}
		c := p[k-1]
		if c == '\n' || c == ':' && k < off {
			return true // a line's start, or a capital after a colon
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
func spaced(p string, from, to int) bool {
	return to == from+1 && p[from] == ' '
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

// isIdentifier reports whether a word is code: lowerCamelCase or
// snake_case. PascalCase words ("PostgreSQL", "GitHub", "JavaScript") are
// taken for names.
func isIdentifier(w string) bool {
	if len(w) < 4 || strings.ContainsAny(w, "'’") {
		return false
	}
	if strings.Contains(strings.Trim(w, "_"), "_") {
		return true
	}
	first, _ := utf8.DecodeRuneInString(w)
	if !unicode.IsLower(first) {
		return false
	}
	for _, r := range w[1:] {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// pathToken returns the file path that starts at off in p, if one does.
func pathToken(p string, off, n int) string {
	end := off + n
	if end >= len(p) || p[end] != '/' && p[end] != '\\' && p[end] != '.' {
		return "" // words stop at these: a path goes on past its first word
	}
	for end < len(p) && (isPathByte(p[end])) {
		end++
	}
	t := strings.TrimRight(p[off:end], ".,:;")
	if !isPath(t, false) {
		return ""
	}
	return t
}

// isPath reports whether t names a file or a folder: a name with a known
// extension ("main.go", "docs/README.md"), or folders joined by slashes.
// In prose, one slash between two words is an alternative ("and/or",
// "phase/tasks"), not a path: a folder path needs two separators, or a
// leading or trailing one ("src/api/", "./build"); in backticks
// ("`src/components`") one will do. A dotted word without a known extension
// ("e.g", "rb.position", "3.14") is no path.
func isPath(t string, quoted bool) bool {
	if strings.Contains(t, "://") {
		return false
	}
	seps := strings.Count(t, "/") + strings.Count(t, "\\")
	switch {
	case languageOf(t) != "":
	case seps == 0:
		return false
	case seps >= 2 || quoted:
	case strings.HasPrefix(t, "/") || strings.HasPrefix(t, "./") || strings.HasPrefix(t, "~/") ||
		strings.HasSuffix(t, "/") || strings.HasSuffix(t, "\\"):
	default:
		return false
	}
	return pathLike.MatchString(t)
}

func isPathByte(c byte) bool {
	return c == '/' || c == '\\' || c == '.' || c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// phrases returns the runs of two or three content words of prose, whose
// words are ws at offs, lowercased: candidates for concepts that repeat
// ("support group", "payment form").
func (a *Analyzer) phrases(p string, ws []string, offs []int) []string {
	seen := map[string]bool{}
	var out []string
	content := func(i int) bool {
		w := strings.ToLower(ws[i])
		if len(w) < 3 || a.stop[w] || !allLetters(w) {
			return false
		}
		return true
	}
	for i := 0; i+1 < len(ws); i++ {
		if !content(i) || !content(i+1) || !adjacent(p, offs[i]+len(ws[i]), offs[i+1]) {
			continue
		}
		ph := strings.ToLower(ws[i] + " " + ws[i+1])
		if !seen[ph] {
			seen[ph] = true
			out = append(out, ph)
		}
		if i+2 < len(ws) && content(i+2) && adjacent(p, offs[i+1]+len(ws[i+1]), offs[i+2]) {
			ph3 := ph + " " + strings.ToLower(ws[i+2])
			if !seen[ph3] {
				seen[ph3] = true
				out = append(out, ph3)
			}
		}
	}
	return out
}

// adjacent reports whether only spaces separate two words.
func adjacent(p string, from, to int) bool {
	return to-from >= 1 && strings.TrimLeft(p[from:to], " ") == ""
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
