package restore

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// A question may name a date ("on 9 November, 2022", "in July 2023", "in
// June"); the turns said on it are likely what it asks about, whether or
// not they share a word with it. Dates are read in English, the language
// of the index's analysis.

// span is a stretch of time a question names: [from, to).
type span struct{ from, to time.Time }

// months are the month names a date may give, capitalized as in a date
// (the verb "may" is not a month), and their abbreviations.
var months = map[string]time.Month{
	"January": time.January, "Jan": time.January,
	"February": time.February, "Feb": time.February,
	"March": time.March, "Mar": time.March,
	"April": time.April, "Apr": time.April,
	"May":  time.May,
	"June": time.June, "Jun": time.June,
	"July": time.July, "Jul": time.July,
	"August": time.August, "Aug": time.August,
	"September": time.September, "Sep": time.September, "Sept": time.September,
	"October": time.October, "Oct": time.October,
	"November": time.November, "Nov": time.November,
	"December": time.December, "Dec": time.December,
}

// dateRe finds a month name with a day before it ("7 July", "8th
// December") or after it ("July 7"), and a year after both ("7 July,
// 2023", "July 7, 2023", "July 2023"); all but the month are optional.
var dateRe = func() *regexp.Regexp {
	names := make([]string, 0, len(months))
	for m := range months {
		names = append(names, m)
	}
	// Longest first, so that "Sept" is not read as "Sep".
	slices.SortFunc(names, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	day := `(\d{1,2})(?:st|nd|rd|th)?`
	return regexp.MustCompile(`(?:\b` + day + `\s+)?\b(` + strings.Join(names, "|") + `)\b\.?(?:\s+` + day + `\b)?(?:,?\s*(\d{4})\b)?`)
}()

// questionSpans returns the days and months that q names. A date without
// a year is taken in each of years. A month name alone is a date only
// when written in full and not "May" (which begins questions); with a day
// or a year, abbreviations count too.
func questionSpans(q string, years []int) []span {
	var out []span
	for _, m := range dateRe.FindAllStringSubmatch(q, -1) {
		name, day, year := m[2], m[1], m[4]
		if day == "" {
			day = m[3]
		}
		if day == "" && year == "" && (len(name) < 4 || name == "May") {
			continue
		}
		ys := years
		if year != "" {
			y, _ := strconv.Atoi(year)
			ys = []int{y}
		}
		for _, y := range ys {
			if day == "" {
				from := time.Date(y, months[name], 1, 0, 0, 0, 0, time.UTC)
				out = append(out, span{from, from.AddDate(0, 1, 0)})
				continue
			}
			d, _ := strconv.Atoi(day)
			if d < 1 || d > 31 {
				continue
			}
			from := time.Date(y, months[name], d, 0, 0, 0, 0, time.UTC)
			out = append(out, span{from, from.AddDate(0, 0, 1)})
		}
	}
	return out
}

// maxDatedTurns bounds the turns the dates of a question bring in: a
// month of a busy memory has more turns than any context holds.
const maxDatedTurns = 200

// maxYears bounds the years a date without one is looked for in.
const maxYears = 10

// datedTurns returns the turns said on a date that query names, at most
// maxDatedTurns of them. Turns are numbered in the order they were said,
// so their dates are sorted and each date is found by bisection, asking
// for few turns.
func (e *Engine) datedTurns(query string) []int {
	if !dateRe.MatchString(query) {
		return nil
	}
	count := e.turns.n
	if count == 0 {
		return nil
	}
	// The years of the memory, for a date given without one.
	var years []int
	first, _ := e.turn(1)
	last, _ := e.turn(count)
	if !first.Timestamp.IsZero() && !last.Timestamp.IsZero() {
		for y := first.Timestamp.UTC().Year(); y <= last.Timestamp.UTC().Year() && len(years) < maxYears; y++ {
			years = append(years, y)
		}
	}
	var out []int
	for _, sp := range questionSpans(query, years) {
		n := sort.Search(count, func(i int) bool {
			t, _ := e.turn(i + 1)
			return !t.Timestamp.Before(sp.from)
		}) + 1
		for ; n <= count && len(out) < maxDatedTurns; n++ {
			t, _ := e.turn(n)
			if !t.Timestamp.Before(sp.to) {
				break
			}
			out = append(out, n)
		}
	}
	return out
}
