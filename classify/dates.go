package classify

import (
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"
)

// Granularity is how precise a resolved date is.
type Granularity uint8

const (
	Minute  Granularity = iota + 1 // "20 minutes ago", "half an hour ago"
	Hour                           // "three hours ago"
	Day                            // "yesterday", "last Friday"
	Week                           // "last week", "two weeks ago"
	Weekend                        // "this weekend", "two weekends ago"
	Month                          // "next month", "last May"
	Year                           // "last year", "10 years ago"
)

var dtGranularityNames = [...]string{
	Minute:  "minute",
	Hour:    "hour",
	Day:     "day",
	Week:    "week",
	Weekend: "weekend",
	Month:   "month",
	Year:    "year",
}

// String returns the lowercase name of g: "minute", "hour", "day", "week",
// "weekend", "month" or "year".
func (g Granularity) String() string {
	if g >= Minute && g <= Year {
		return dtGranularityNames[g]
	}
	return "Granularity(" + strconv.Itoa(int(g)) + ")"
}

// Date is a relative time expression found in a text, resolved.
type Date struct {
	Text       string // the expression as written, e.g. "last week"
	Start, End int    // its byte offsets in the text
	// From is the start of the period it names, in the location of the
	// reference time.
	From time.Time
	// Granularity is the period's length: From is a whole day for Day,
	// Monday 00:00 for Week, Saturday 00:00 for Weekend, the 1st for Month,
	// 1 January for Year; for Hour and Minute it is truncated to that unit.
	Granularity Granularity
	// Approximate is set for vague quantities and periods: "a few days
	// ago", "a couple of weeks ago", "about a year ago", "earlier this
	// month", "last summer".
	Approximate bool
}

// Format renders the date as a person would: "7 May 2023" for a day, "the
// week of 1 May 2023", "the weekend of 6 May 2023", "May 2023", "2023", "8
// May 2023 at 10:56" for an hour or a minute; with "around " before it when
// the date is approximate. The zero Date formats as "".
func (d Date) Format() string {
	var s string
	switch d.Granularity {
	case Minute, Hour:
		s = d.From.Format("2 January 2006 at 15:04")
	case Day:
		s = d.From.Format("2 January 2006")
	case Week:
		s = "the week of " + d.From.Format("2 January 2006")
	case Weekend:
		s = "the weekend of " + d.From.Format("2 January 2006")
	case Month:
		s = d.From.Format("January 2006")
	case Year:
		s = d.From.Format("2006")
	default:
		return ""
	}
	if d.Approximate {
		s = "around " + s
	}
	return s
}

// Dates finds the relative time expressions in text and resolves them
// against ref, the time the text was written. It returns them in order of
// appearance, without overlaps (the longest match wins). A zero ref
// resolves nothing and returns nil. Dates reads nothing but its arguments
// (never the clock) and is safe for concurrent use.
//
// The vocabulary is fixed and English, matched case-insensitively on whole
// words:
//
//   - today, tonight, this morning/afternoon/evening; yesterday, last
//     night, yesterday morning/afternoon/evening/night; tomorrow, tomorrow
//     morning/afternoon/evening/night; [the] day before yesterday, [the]
//     night before last, [the] day after tomorrow.
//   - N units ago (or back), N units from now (or from today), in N units:
//     N is a number (1 to 9999), a number word (one to twenty, thirty,
//     forty, fifty), a or an, and approximately a couple [of], a few, few,
//     several; units are minute(s), min(s), hour(s), hr(s), day(s),
//     week(s), weekend(s), month(s), year(s), yr(s); also half an hour, a
//     half hour. A hedge before N (about, around, roughly, approximately,
//     almost, nearly) makes the date approximate.
//   - last/this/next week, weekend, month, year; last/this/next Monday to
//     Sunday (and Mon, Tue, Tues, Wed, Thu, Thur, Thurs, Fri, Sat, Sun,
//     with or without a period; Sat and Sun only capitalised or with a
//     period, since "this sat on my desk" is not a date); last/next May
//     (month names; not "this May"); last/this/next spring, summer, fall,
//     autumn, winter (approximate, the season's first month).
//   - this past weekend/weekday (the last one), this coming week, weekend,
//     month, year, weekday (the next one); earlier/later this week, month,
//     year (approximate).
//   - [the] week, weekend, month, year or weekday before last (two back)
//     and after next (two ahead).
//
// Weeks start on Monday. "last Friday" is the latest Friday strictly before
// the reference day, "next Friday" the first strictly after it, "this
// Friday" the Friday of the reference week. Seasons are northern ones
// named by their first month (March, June, September, December): "this
// summer" is the June of the reference year, "last summer" the June of the
// year before, "next summer" the first June after the reference month;
// winter is named by its December, so "last winter" in January 2024 is
// December 2023, as is "this winter".
//
// What is left out on purpose: bare weekdays and "on Monday" (past or
// future is a guess), plural weekdays ("on Sundays" is a habit), "last" or
// "next" after a determiner ("the last week of the project", "my next
// year"), "in N units" after a negation or a frequency ("haven't talked in
// a few days", "twice in a week" are durations), vague words ("recently",
// "a while ago", "the other day"), seconds, and expressions joined to code
// ("datetime.today()", "last_week", "this-year"). "in N units" is still a
// duration sometimes ("I read it in two days"); telling the two apart needs
// the verb's tense, which this resolver does not read.
//
// We evaluated libraries first: github.com/olebedev/when misses "last
// week", "next month" and "last year", fails on "two days ago" and costs
// about 63 µs a parse; github.com/tj/go-naturaldate resolves an isolated
// expression but cannot find one in running text. So this is a small
// resolver of our own: a scan for time words (zero allocations when there
// is none, the common case), then a word-level matcher; no regular
// expressions.
func Dates(text string, ref time.Time) []Date {
	if ref.IsZero() || !dtHasTimeWord(text) {
		return nil
	}
	var buf [64]dtToken // on the stack, for a turn of up to 64 words
	p := dtParser{text: text, toks: dtTokenize(text, buf[:0])}
	var out []Date
	for i := range p.toks {
		m := p.match(i)
		if m.size == 0 {
			continue
		}
		last := p.toks[i+m.size-1]
		start, end := p.toks[i].start, last.end
		if last.abbr && end < len(text) && text[end] == '.' {
			end++
		}
		if !dtFree(text, start, end) {
			continue
		}
		d := Date{
			Text:        text[start:end],
			Start:       start,
			End:         end,
			From:        dtResolve(ref, m),
			Granularity: m.gran,
			Approximate: m.approx,
		}
		if k := len(out) - 1; k >= 0 && d.Start < out[k].End {
			if d.End-d.Start > out[k].End-out[k].Start {
				out[k] = d
			}
			continue
		}
		out = append(out, d)
	}
	return out
}

// dtKind is what a vocabulary word is.
type dtKind uint8

const (
	dtNone    dtKind = iota // not in the vocabulary
	dtWord                  // a keyword, compared by its text: ago, last, the…
	dtNum                   // a count: a digit string or a number word; val is the number
	dtUnit                  // minute … year; val is its Granularity
	dtWeekday               // val is its time.Weekday
	dtMonth                 // a month name; val is its time.Month
	dtSeason                // val is the season's first month
	dtPart                  // morning, afternoon, evening, night
)

// dtEntry is a word of the vocabulary.
type dtEntry struct {
	word   string // lowercase
	kind   dtKind
	val    int16
	anchor bool // every expression holds at least one anchor word
	abbr   bool // an abbreviated weekday, which may take a period
	strict bool // an abbreviation that is also a common word: Sat, Sun
}

// dtMaxWord is the length of the longest word of the vocabulary.
const dtMaxWord = len("approximately")

var dtVocab = dtBuildVocab()

func dtBuildVocab() map[string]dtEntry {
	m := make(map[string]dtEntry, 192)
	add := func(e dtEntry, words ...string) {
		for _, w := range words {
			e.word = w
			m[w] = e
		}
	}
	nums := []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}
	for i, w := range nums {
		add(dtEntry{kind: dtNum, val: int16(i + 1)}, w)
	}
	add(dtEntry{kind: dtNum, val: 30}, "thirty")
	add(dtEntry{kind: dtNum, val: 40}, "forty")
	add(dtEntry{kind: dtNum, val: 50}, "fifty")

	add(dtEntry{kind: dtUnit, val: int16(Minute), anchor: true}, "minute", "minutes", "min", "mins")
	add(dtEntry{kind: dtUnit, val: int16(Hour), anchor: true}, "hour", "hours", "hr", "hrs")
	add(dtEntry{kind: dtUnit, val: int16(Day), anchor: true}, "day", "days")
	add(dtEntry{kind: dtUnit, val: int16(Week), anchor: true}, "week", "weeks")
	add(dtEntry{kind: dtUnit, val: int16(Weekend), anchor: true}, "weekend", "weekends")
	add(dtEntry{kind: dtUnit, val: int16(Month), anchor: true}, "month", "months")
	add(dtEntry{kind: dtUnit, val: int16(Year), anchor: true}, "year", "years", "yr", "yrs")

	for d := time.Sunday; d <= time.Saturday; d++ {
		add(dtEntry{kind: dtWeekday, val: int16(d), anchor: true}, dtLower(d.String()))
	}
	abbr := func(d time.Weekday, strict bool, words ...string) {
		add(dtEntry{kind: dtWeekday, val: int16(d), anchor: true, abbr: true, strict: strict}, words...)
	}
	abbr(time.Monday, false, "mon")
	abbr(time.Tuesday, false, "tue", "tues")
	abbr(time.Wednesday, false, "wed")
	abbr(time.Thursday, false, "thu", "thur", "thurs")
	abbr(time.Friday, false, "fri")
	abbr(time.Saturday, true, "sat")
	abbr(time.Sunday, true, "sun")

	for mo := time.January; mo <= time.December; mo++ {
		add(dtEntry{kind: dtMonth, val: int16(mo), anchor: true}, dtLower(mo.String()))
	}
	add(dtEntry{kind: dtSeason, val: int16(time.March), anchor: true}, "spring")
	add(dtEntry{kind: dtSeason, val: int16(time.June), anchor: true}, "summer")
	add(dtEntry{kind: dtSeason, val: int16(time.September), anchor: true}, "fall", "autumn")
	add(dtEntry{kind: dtSeason, val: int16(time.December), anchor: true}, "winter")
	add(dtEntry{kind: dtPart, anchor: true}, "morning", "afternoon", "evening", "night")
	add(dtEntry{kind: dtWord, anchor: true}, "today", "tonight", "yesterday", "tomorrow")

	add(dtEntry{kind: dtWord},
		"ago", "back", "from", "now", "in", "a", "an", "couple", "of", "few", "several", "half",
		"last", "next", "this", "past", "coming", "earlier", "later", "before", "after", "the",
		// hedges
		"about", "around", "roughly", "approximately", "almost", "nearly",
		// determiners: "the last week of the project" is not a date
		"my", "our", "his", "her", "their", "your", "its",
		// frequencies and negations: "twice in a week", "haven't talked in a few days"
		"once", "twice", "thrice", "times", "time", "per", "not", "never", "t", "nt",
		"havent", "hasnt", "hadnt", "didnt", "dont", "doesnt", "wasnt", "werent",
		// "this fall" is not a date in "don't let this fall apart"
		"apart", "down", "off", "over", "through", "behind", "asleep", "short", "flat")
	return m
}

func dtLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// dtLookup returns the vocabulary entry of the word w, matched without
// regard to ASCII case; a digit string of up to four digits (not 0) is a
// count.
func dtLookup(w string) dtEntry {
	if len(w) > dtMaxWord {
		return dtEntry{}
	}
	var buf [dtMaxWord]byte
	digits := true
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
			digits = false
		case '0' <= c && c <= '9':
		case c >= utf8.RuneSelf:
			return dtEntry{}
		default:
			digits = false
		}
		buf[i] = c
	}
	if digits {
		if len(w) > 4 {
			return dtEntry{}
		}
		n, _ := strconv.Atoi(w)
		if n == 0 {
			return dtEntry{}
		}
		return dtEntry{kind: dtNum, val: int16(n)}
	}
	return dtVocab[string(buf[:len(w)])]
}

// dtWordChar reports the size of the character at text[i] and whether it
// belongs to a word: letters, digits, marks and the underscore, so that
// "Sundays", "last_week" and "lastWeek" are single words.
func dtWordChar(text string, i int) (size int, word bool) {
	c := text[i]
	if c < utf8.RuneSelf {
		return 1, 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
	}
	r, size := utf8.DecodeRuneInString(text[i:])
	return size, unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// dtNextWord returns the byte offsets of the first word of text at or
// after i; start == end when there is none.
func dtNextWord(text string, i int) (start, end int) {
	for i < len(text) {
		size, word := dtWordChar(text, i)
		if word {
			break
		}
		i += size
	}
	start = i
	for i < len(text) {
		size, word := dtWordChar(text, i)
		if !word {
			break
		}
		i += size
	}
	return start, i
}

// dtHasTimeWord is the cheap pre-check: does text hold any anchor word at
// all (a unit, a weekday, a month, a season, a part of the day, today,
// tonight, yesterday, tomorrow)? It allocates nothing.
func dtHasTimeWord(text string) bool {
	for i := 0; i < len(text); {
		s, e := dtNextWord(text, i)
		if s == e {
			return false
		}
		if e-s >= 2 && e-s <= dtMaxWord && dtLookup(text[s:e]).anchor {
			return true
		}
		i = e
	}
	return false
}

// dtToken is a word of the text.
type dtToken struct {
	dtEntry
	start, end int
	joined     bool // only white space separates it from the word before
}

func dtTokenize(text string, toks []dtToken) []dtToken {
	prev := -1
	for i := 0; i < len(text); {
		s, e := dtNextWord(text, i)
		if s == e {
			break
		}
		t := dtToken{dtEntry: dtLookup(text[s:e]), start: s, end: e}
		t.joined = prev >= 0 && dtBlank(text[prev:s])
		toks = append(toks, t)
		prev, i = e, e
	}
	return toks
}

func dtBlank(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
		default:
			return false
		}
	}
	return true
}

// dtParser finds what expressions say; dtResolve places them in time.
type dtParser struct {
	text string
	toks []dtToken
}

// dtOp is how an expression is placed relative to the reference time.
type dtOp uint8

const (
	dtOnDays    dtOp = iota + 1 // n days after the reference day
	dtOnShift                   // n units (gran) after the reference time: "two days ago", "in an hour"
	dtOnPeriod                  // the week, weekend, month or year (gran) n after the reference one
	dtOnWeekday                 // weekday val; n is -1 last, 0 this, 1 next, -2 before last, 2 after next
	dtOnMonth                   // month val; n is -1 last, 1 next
	dtOnSeason                  // the season that starts in month val; n is -1 last, 0 this, 1 next
	dtOnComing                  // this coming weekend
)

// dtMatch is an expression found at a token: its length in tokens and
// what it means.
type dtMatch struct {
	size   int // in tokens; 0 when nothing matched
	op     dtOp
	n, val int
	gran   Granularity
	approx bool
}

// cont returns token j if it continues an expression, that is, if it
// exists and only white space separates it from token j-1; otherwise a
// blank token.
func (p *dtParser) cont(j int) dtToken {
	if j < len(p.toks) && p.toks[j].joined {
		return p.toks[j]
	}
	return dtToken{}
}

// before returns the word before token i if only white space separates
// them, or "".
func (p *dtParser) before(i int) string {
	if i > 0 && p.toks[i].joined {
		return p.toks[i-1].word
	}
	return ""
}

// match returns the longest expression that starts at token i.
func (p *dtParser) match(i int) dtMatch {
	if p.toks[i].kind == dtNone {
		return dtMatch{}
	}
	best := p.amount(i)
	if m := p.named(i); m.size > best.size {
		best = m
	}
	if m := p.relative(i); m.size > best.size {
		best = m
	}
	return best
}

// dtFree reports whether text[start:end] stands as prose, not as part of
// an identifier, a path, a call or a decimal number.
func dtFree(text string, start, end int) bool {
	if start > 0 {
		switch c := text[start-1]; c {
		case '-', '/', '\\', '@', '#', '$':
			return false
		case '.', ',':
			if start > 1 {
				if _, word := dtWordChar(text, start-2); word && (c == '.' || dtDigit(text[start-2])) {
					return false
				}
			}
		}
	}
	if end < len(text) {
		switch c := text[end]; c {
		case '-', '/', '\\', '@', '(':
			return false
		case '.', ',':
			if end+1 < len(text) {
				if _, word := dtWordChar(text, end+1); word && (c == '.' || dtDigit(text[end+1])) {
					return false
				}
			}
		}
	}
	return true
}

func dtDigit(c byte) bool { return '0' <= c && c <= '9' }

// amount matches a count of units: "two days ago", "a few weeks back",
// "about a year ago", "in 3 weeks", "two months from now", "half an hour
// ago".
func (p *dtParser) amount(i int) dtMatch {
	var m dtMatch
	j, t, dir := i, p.toks[i], 0
	if t.word == "in" {
		if p.duration(i) {
			return m
		}
		dir = 1
		j++
		t = p.cont(j)
	}
	if dtHedge(t.word) {
		m.approx = true
		j++
		t = p.cont(j)
	}
	n, g, k, approx := p.quantity(j, t)
	if k == 0 {
		return dtMatch{}
	}
	j += k
	m.approx = m.approx || approx
	if dir == 0 {
		switch p.cont(j).word {
		case "ago", "back":
			dir = -1
			j++
		case "from":
			if w := p.cont(j + 1).word; w == "now" || w == "today" {
				dir = 1
				j += 2
			}
		}
		if dir == 0 {
			return dtMatch{}
		}
	}
	m.size, m.op, m.n, m.gran = j-i, dtOnShift, dir*n, g
	return m
}

// duration reports whether "in" at token i starts a duration rather than
// a time ahead: after a frequency ("twice in a week", "for the first time
// in years") or a negation close before ("haven't talked in a few days").
func (p *dtParser) duration(i int) bool {
	switch p.before(i) {
	case "once", "twice", "thrice", "times", "time", "per":
		return true
	}
	for j := i - 1; j >= 0 && j >= i-4; j-- {
		if !dtBlank(p.text[p.toks[j].end:p.toks[j+1].start]) && p.toks[j+1].word != "t" {
			break // another clause or sentence; the apostrophe of "haven't" is fine
		}
		switch p.toks[j].word {
		case "not", "never", "t", "nt", "havent", "hasnt", "hadnt", "didnt", "dont", "doesnt", "wasnt", "werent":
			return true
		}
	}
	return false
}

func dtHedge(w string) bool {
	switch w {
	case "about", "around", "roughly", "approximately", "almost", "nearly":
		return true
	}
	return false
}

// quantity matches a count and its unit starting at token j (which is t):
// it returns the count, the unit, the number of tokens and whether the
// count is vague; k is 0 when there is none.
func (p *dtParser) quantity(j int, t dtToken) (n int, g Granularity, k int, approx bool) {
	switch {
	case t.kind == dtNum:
		n, k = int(t.val), 1
	case t.word == "a" || t.word == "an":
		n, k = 1, 1
		switch p.cont(j + 1).word {
		case "couple":
			n, k, approx = 2, 2, true
			if p.cont(j+2).word == "of" {
				k = 3
			}
		case "few":
			n, k, approx = 3, 2, true
		case "half":
			if p.cont(j+2).word == "hour" { // "a half hour"
				return 30, Minute, 3, false
			}
		}
	case t.word == "couple":
		n, k, approx = 2, 1, true
		if p.cont(j+1).word == "of" {
			k = 2
		}
	case t.word == "few" || t.word == "several":
		n, k, approx = 3, 1, true
	case t.word == "half":
		if p.cont(j+1).word == "an" && p.cont(j+2).word == "hour" {
			return 30, Minute, 3, false
		}
		return 0, 0, 0, false
	default:
		return 0, 0, 0, false
	}
	u := p.cont(j + k)
	if u.kind != dtUnit {
		return 0, 0, 0, false
	}
	return n, Granularity(u.val), k + 1, approx
}

// named matches today, tonight, yesterday, tomorrow and the day before
// yesterday or after tomorrow.
func (p *dtParser) named(i int) dtMatch {
	t := p.toks[i]
	switch t.word {
	case "today", "tonight":
		return dtMatch{size: 1, op: dtOnDays, gran: Day}
	case "yesterday", "tomorrow":
		off := -1
		if t.word == "tomorrow" {
			off = 1
		}
		size := 1
		if p.cont(i+1).kind == dtPart {
			size = 2 // "yesterday morning", "tomorrow night"
		}
		return dtMatch{size: size, op: dtOnDays, n: off, gran: Day}
	}
	j := i
	if t.word == "the" {
		j++
		t = p.cont(j)
	}
	if t.word != "day" {
		return dtMatch{}
	}
	switch w1, w2 := p.cont(j+1).word, p.cont(j+2).word; {
	case w1 == "before" && w2 == "yesterday":
		return dtMatch{size: j + 3 - i, op: dtOnDays, n: -2, gran: Day}
	case w1 == "after" && w2 == "tomorrow":
		return dtMatch{size: j + 3 - i, op: dtOnDays, n: 2, gran: Day}
	}
	return dtMatch{}
}

// relative matches last, this and next with a period, a weekday, a month
// or a season; earlier and later this week, month or year; and a period
// or a weekday before last or after next.
func (p *dtParser) relative(i int) dtMatch {
	t := p.toks[i]
	switch t.word {
	case "earlier", "later":
		if p.cont(i+1).word != "this" {
			return dtMatch{}
		}
		switch w := p.cont(i + 2).word; w {
		case "week", "month", "year":
			return dtMatch{size: 3, op: dtOnPeriod, gran: dtPeriodOf(w), approx: true}
		}
		return dtMatch{}
	case "last", "next":
		switch p.before(i) {
		case "the", "my", "our", "his", "her", "their", "your", "its":
			return dtMatch{}
		}
		dir := -1
		if t.word == "next" {
			dir = 1
		}
		m := p.target(i+1, dir)
		if m.size > 0 {
			m.size++
		}
		return m
	case "this":
		x := p.cont(i + 1)
		switch x.word {
		case "past":
			// "this past weekend", "this past Friday": the last one.
			if y := p.cont(i + 2); y.word == "weekend" || y.kind == dtWeekday {
				if m := p.target(i+2, -1); m.size > 0 {
					m.size += 2
					return m
				}
			}
			return dtMatch{}
		case "coming":
			// "this coming week", "this coming Friday": the next one,
			// but "this coming weekend" is the first one after today.
			y := p.cont(i + 2)
			if y.word == "weekend" {
				return dtMatch{size: 3, op: dtOnComing, gran: Weekend}
			}
			if y.kind == dtWeekday || y.word == "week" || y.word == "month" || y.word == "year" {
				if m := p.target(i+2, 1); m.size > 0 {
					m.size += 2
					return m
				}
			}
			return dtMatch{}
		}
		m := p.target(i+1, 0)
		if m.size > 0 {
			m.size++
		}
		return m
	}
	// [the] X before last, [the] X after next
	j := i
	if t.word == "the" {
		j++
		t = p.cont(j)
	}
	dir := 0
	switch w1, w2 := p.cont(j+1).word, p.cont(j+2).word; {
	case w1 == "before" && w2 == "last":
		dir = -2
	case w1 == "after" && w2 == "next":
		dir = 2
	default:
		return dtMatch{}
	}
	m := dtMatch{size: j + 3 - i, n: dir}
	switch {
	case dtPeriodOf(t.word) != 0:
		m.op, m.gran = dtOnPeriod, dtPeriodOf(t.word)
	case t.kind == dtWeekday && p.weekdayOK(j):
		m.op, m.val, m.gran = dtOnWeekday, int(t.val), Day
	case t.word == "night" && dir == -2:
		m.op, m.gran = dtOnDays, Day
	default:
		return dtMatch{}
	}
	return m
}

// target matches the word after last (dir -1), this (0) or next (1): a
// period, a weekday, a month, a season or a part of the day. Its size is
// 1 when it matches.
func (p *dtParser) target(j int, dir int) dtMatch {
	x := p.cont(j)
	m := dtMatch{size: 1, n: dir, val: int(x.val)}
	switch {
	case dtPeriodOf(x.word) != 0:
		m.op, m.gran = dtOnPeriod, dtPeriodOf(x.word)
	case x.kind == dtWeekday:
		if !p.weekdayOK(j) {
			return dtMatch{}
		}
		m.op, m.gran = dtOnWeekday, Day
	case x.kind == dtMonth && dir != 0: // "this may" is a verb
		m.op, m.gran = dtOnMonth, Month
	case x.kind == dtSeason:
		if x.word == "fall" {
			switch p.cont(j + 1).word {
			case "apart", "down", "off", "over", "through", "behind", "asleep", "short", "flat":
				return dtMatch{}
			}
		}
		m.op, m.gran, m.approx = dtOnSeason, Month, true
	case x.kind == dtPart:
		switch {
		case dir == 0 && x.word != "night": // this morning, afternoon, evening
			m.op, m.gran = dtOnDays, Day
		case dir == -1 && x.word == "night": // last night
			m.op, m.gran = dtOnDays, Day
		default:
			return dtMatch{}
		}
	default:
		return dtMatch{}
	}
	return m
}

// weekdayOK reports whether the weekday at token j is one: Sat and Sun
// only when capitalised or followed by a period.
func (p *dtParser) weekdayOK(j int) bool {
	t := p.toks[j]
	if !t.strict {
		return true
	}
	if c := p.text[t.start]; 'A' <= c && c <= 'Z' {
		return true
	}
	return t.end < len(p.text) && p.text[t.end] == '.'
}

// dtPeriodOf returns the granularity of a period word after last, this,
// next, or before before last and after next; 0 for any other word.
func dtPeriodOf(w string) Granularity {
	switch w {
	case "week":
		return Week
	case "weekend":
		return Weekend
	case "month":
		return Month
	case "year":
		return Year
	}
	return 0
}

// dtResolve places a match in time: it returns the start of the period
// the expression names, in ref's location.
func dtResolve(ref time.Time, m dtMatch) time.Time {
	day := dtDay(ref, 0)
	y, mo, loc := day.Year(), day.Month(), day.Location()
	wd := ref.Weekday()
	weekend := wd == time.Saturday || wd == time.Sunday
	switch m.op {
	case dtOnDays:
		return dtDay(day, m.n)
	case dtOnShift:
		switch m.gran {
		case Minute:
			t := ref.Add(time.Duration(m.n) * time.Minute)
			return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), 0, 0, loc)
		case Hour:
			t := ref.Add(time.Duration(m.n) * time.Hour)
			return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), 0, 0, 0, loc)
		case Day:
			return dtDay(day, m.n)
		case Week:
			return dtMonday(dtDay(day, 7*m.n))
		case Weekend:
			// Counting ahead from a weekday, this week's Saturday is the
			// first weekend: "in a weekend" on a Monday is 5 days on.
			n := m.n
			if n > 0 && !weekend {
				n--
			}
			return dtDay(dtMonday(day), 5+7*n)
		}
		// Months and years count whole periods, as below.
	case dtOnComing:
		if weekend {
			return dtDay(dtMonday(day), 12)
		}
		return dtDay(dtMonday(day), 5)
	case dtOnWeekday:
		switch m.n {
		case -1, -2: // the latest one strictly before today; -2 a week earlier
			back := (int(wd) - m.val + 7) % 7
			if back == 0 {
				back = 7
			}
			if m.n == -2 {
				back += 7
			}
			return dtDay(day, -back)
		case 1, 2: // the first one strictly after today; 2 a week later
			ahead := (m.val - int(wd) + 7) % 7
			if ahead == 0 {
				ahead = 7
			}
			if m.n == 2 {
				ahead += 7
			}
			return dtDay(day, ahead)
		default: // the one of this week (Monday to Sunday)
			return dtDay(dtMonday(day), (m.val+6)%7)
		}
	case dtOnMonth:
		// "last May" is the latest May strictly before this month, "next
		// May" the first one strictly after it.
		month := time.Month(m.val)
		if m.n < 0 && month >= mo {
			y--
		}
		if m.n > 0 && month <= mo {
			y++
		}
		return time.Date(y, month, 1, 0, 0, 0, 0, loc)
	case dtOnSeason:
		// "this summer" is the June of this year ("this winter" in
		// January or February is the December before), "last summer" the
		// June of last year, "next summer" the first June after this
		// month.
		first := time.Month(m.val)
		switch {
		case m.n < 0:
			y--
		case m.n == 0:
			if first == time.December && mo <= time.February {
				y--
			}
		case first <= mo:
			y++
		}
		return time.Date(y, first, 1, 0, 0, 0, 0, loc)
	}
	// dtOnPeriod, and dtOnShift by months or years.
	switch m.gran {
	case Week:
		return dtDay(dtMonday(day), 7*m.n)
	case Weekend:
		return dtDay(dtMonday(day), 5+7*m.n)
	case Month:
		return time.Date(y, mo+time.Month(m.n), 1, 0, 0, 0, 0, loc)
	default:
		return time.Date(y+m.n, time.January, 1, 0, 0, 0, 0, loc)
	}
}

// dtDay returns the day n days after t's day, at 00:00 in t's location.
func dtDay(t time.Time, n int) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day()+n, 0, 0, 0, 0, t.Location())
}

// dtMonday returns the Monday of t's week, at 00:00.
func dtMonday(t time.Time) time.Time {
	return dtDay(t, -(int(t.Weekday())+6)%7)
}
