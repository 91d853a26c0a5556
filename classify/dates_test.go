package classify

import (
	"fmt"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // America/New_York, wherever the tests run
)

// Reference times: the turn's timestamp.
var (
	dateMon   = time.Date(2023, time.May, 8, 13, 56, 0, 0, time.UTC)    // Monday; LoCoMo's first session
	dateFri   = time.Date(2023, time.May, 12, 10, 0, 0, 0, time.UTC)    // Friday
	dateSun   = time.Date(2023, time.May, 14, 18, 30, 0, 0, time.UTC)   // Sunday
	dateJan31 = time.Date(2023, time.January, 31, 9, 0, 0, 0, time.UTC) // Tuesday
	dateMar1  = time.Date(2024, time.March, 1, 8, 0, 0, 0, time.UTC)    // Friday of a leap year
	dateDec31 = time.Date(2023, time.December, 31, 23, 30, 0, 0, time.UTC)
	dateIST   = time.Date(2023, time.May, 8, 2, 0, 0, 0, time.FixedZone("IST", 5*3600+1800)) // 7 May 20:30 UTC
	dateNY    = time.Date(2023, time.March, 12, 10, 15, 0, 0, dateLoad("America/New_York"))  // the day DST starts
)

func dateLoad(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// dateWant is one expected Date. from is "2006-01-02" or "2006-01-02
// 15:04" in the reference time's location; Approximate is expected exactly
// when format starts with "around ".
type dateWant struct {
	text   string
	from   string
	gran   Granularity
	format string
}

type dateCase struct {
	ref  time.Time
	text string
	want []dateWant
}

// dateOne is a case with one expected date, the whole of text unless the
// date's text is found in it.
func dateOne(ref time.Time, text string, w dateWant) dateCase {
	if w.text == "" {
		w.text = text
	}
	return dateCase{ref, text, []dateWant{w}}
}

func dateCheck(t *testing.T, c dateCase) {
	t.Helper()
	got := Dates(c.text, c.ref)
	if len(got) != len(c.want) {
		t.Errorf("Dates(%q, %s): got %d dates %v, want %d", c.text, c.ref.Format(time.RFC1123), len(got), dateTexts(got), len(c.want))
		return
	}
	prev := 0
	for i, w := range c.want {
		d := got[i]
		start := strings.Index(c.text[prev:], w.text)
		if start < 0 {
			t.Fatalf("bad case %q: %q not found", c.text, w.text)
		}
		start += prev
		prev = start + len(w.text)
		layout := "2006-01-02"
		if len(w.from) > len(layout) {
			layout = "2006-01-02 15:04"
		}
		from, err := time.ParseInLocation(layout, w.from, c.ref.Location())
		if err != nil {
			t.Fatalf("bad case %q: %v", c.text, err)
		}
		approx := strings.HasPrefix(w.format, "around ")
		if d.Text != w.text || d.Start != start || d.End != prev || !d.From.Equal(from) ||
			d.From.Location() != c.ref.Location() || d.Granularity != w.gran || d.Approximate != approx || d.Format() != w.format {
			t.Errorf("Dates(%q, %s)[%d]:\n got %q [%d:%d] %s %v approx=%v %q\nwant %q [%d:%d] %s %v approx=%v %q",
				c.text, c.ref.Format(time.RFC1123), i,
				d.Text, d.Start, d.End, d.From.Format("2006-01-02 15:04 MST"), d.Granularity, d.Approximate, d.Format(),
				w.text, start, prev, from.Format("2006-01-02 15:04 MST"), w.gran, approx, w.format)
		}
	}
}

func dateTexts(ds []Date) []string {
	var s []string
	for _, d := range ds {
		s = append(s, d.Text)
	}
	return s
}

func dateRun(t *testing.T, cases []dateCase) {
	t.Helper()
	for _, c := range cases {
		dateCheck(t, c)
	}
}

// TestDatesChat: sentences from real chats (LoCoMo, aider), resolved
// against the time of their turn.
func TestDatesChat(t *testing.T) {
	dateRun(t, []dateCase{
		dateOne(dateMon, "I went to a LGBTQ support group yesterday and it was so powerful.",
			dateWant{"yesterday", "2023-05-07", Day, "7 May 2023"}),
		dateOne(dateMon, "We're going camping next month!",
			dateWant{"next month", "2023-06-01", Month, "June 2023"}),
		dateOne(dateMon, "I painted that lake sunrise last year.",
			dateWant{"last year", "2022-01-01", Year, "2022"}),
		dateOne(dateMon, "The webhook started failing two days ago.",
			dateWant{"two days ago", "2023-05-06", Day, "6 May 2023"}),
		dateOne(dateMon, "I ran a charity race the sunday before last",
			dateWant{"the sunday before last", "2023-04-30", Day, "30 April 2023"}),
		dateOne(time.Date(2023, 5, 25, 13, 14, 0, 0, time.UTC), "I ran a charity race for mental health last Saturday – it was really rewarding.",
			dateWant{"last Saturday", "2023-05-20", Day, "20 May 2023"}),
		dateOne(time.Date(2023, 6, 9, 19, 55, 0, 0, time.UTC), "I wanted to tell you about my school event last week. It was awesome!",
			dateWant{"last week", "2023-05-29", Week, "the week of 29 May 2023"}),
		dateOne(time.Date(2023, 7, 17, 12, 0, 0, 0, time.UTC), "We went camping with my fam two weekends ago. It was great to unplug.",
			dateWant{"two weekends ago", "2023-07-08", Weekend, "the weekend of 8 July 2023"}),
		dateOne(time.Date(2023, 7, 20, 12, 0, 0, 0, time.UTC), "I just joined a new LGBTQ activist group last Tues. I'm meeting so many cool people!",
			dateWant{"last Tues.", "2023-07-18", Day, "18 July 2023"}),
		dateOne(time.Date(2023, 7, 15, 12, 0, 0, 0, time.UTC), "So much since we talked! Last Fri I finally took my kids to a pottery workshop.",
			dateWant{"Last Fri", "2023-07-14", Day, "14 July 2023"}),
		dateOne(time.Date(2023, 10, 20, 12, 0, 0, 0, time.UTC), "Hey Caroline, that roadtrip this past weekend was insane!",
			dateWant{"this past weekend", "2023-10-14", Weekend, "the weekend of 14 October 2023"}),
		dateOne(dateMon, "I started playing acoustic guitar about five years ago; it's been great.",
			dateWant{"about five years ago", "2018-01-01", Year, "around 2018"}),
		dateOne(dateMon, "Thanks! Got the tattoo a few years ago, it stands for freedom.",
			dateWant{"a few years ago", "2020-01-01", Year, "around 2020"}),
		dateOne(dateMon, "I first watched it around 3 years ago.",
			dateWant{"around 3 years ago", "2020-01-01", Year, "around 2020"}),
		{dateMon, "Hey Gina! We haven't talked in a few days. Been rehearsing hard.", nil},
		{dateMon, "Hey Nate! Haven’t talked in a few days. Crazy things happened.", nil},
		{dateMon, "Never saw this coming.", nil},
		{dateMon, "I read that book you recommended a while ago and painted a while back.", nil},
		{dateMon, "Rome wasn't built in a day so keep pushing on!", nil},
	})
}

// TestDatesSeveral: several dates in one text, in order.
func TestDatesSeveral(t *testing.T) {
	dateRun(t, []dateCase{
		{dateMon, "The 401 from the webhook started this morning; I'll fix it tomorrow.", []dateWant{
			{"this morning", "2023-05-08", Day, "8 May 2023"},
			{"tomorrow", "2023-05-09", Day, "9 May 2023"},
		}},
		{dateMon, "Yesterday I fixed the bug, today I'm testing, and next week we ship.", []dateWant{
			{"Yesterday", "2023-05-07", Day, "7 May 2023"},
			{"today", "2023-05-08", Day, "8 May 2023"},
			{"next week", "2023-05-15", Week, "the week of 15 May 2023"},
		}},
		{dateMon, "I moved here two years ago, started the job last month and we married last June.", []dateWant{
			{"two years ago", "2021-01-01", Year, "2021"},
			{"last month", "2023-04-01", Month, "April 2023"},
			{"last June", "2022-06-01", Month, "June 2022"},
		}},
		{dateMon, "a week ago yesterday", []dateWant{
			{"a week ago", "2023-05-01", Week, "the week of 1 May 2023"},
			{"yesterday", "2023-05-07", Day, "7 May 2023"},
		}},
		{dateMon, "Last week was rough, this week is better, and the week after next is the trip.", []dateWant{
			{"Last week", "2023-05-01", Week, "the week of 1 May 2023"},
			{"this week", "2023-05-08", Week, "the week of 8 May 2023"},
			{"the week after next", "2023-05-22", Week, "the week of 22 May 2023"},
		}},
	})
}

func TestDatesOffsets(t *testing.T) {
	text := "Yesterday I fixed the bug, today I'm testing, and next week we ship."
	got := Dates(text, dateMon)
	want := [][2]int{{0, 9}, {27, 32}, {50, 59}}
	if len(got) != len(want) {
		t.Fatalf("got %v", dateTexts(got))
	}
	for i, w := range want {
		if got[i].Start != w[0] || got[i].End != w[1] || got[i].Text != text[w[0]:w[1]] {
			t.Errorf("date %d: got %q [%d:%d], want [%d:%d]", i, got[i].Text, got[i].Start, got[i].End, w[0], w[1])
		}
	}
	// A period after an abbreviated weekday belongs to it.
	got = Dates("See you next Wed. Bring cake.", dateMon)
	if len(got) != 1 || got[0].Text != "next Wed." || got[0].Start != 8 || got[0].End != 17 {
		t.Errorf("next Wed.: got %+v", got)
	}
	// Multibyte text before the date.
	got = Dates("Ça va? Désolé… yesterday was busy", dateMon)
	if len(got) != 1 || got[0].Text != "yesterday" || got[0].Start != strings.Index("Ça va? Désolé… yesterday was busy", "yesterday") {
		t.Errorf("after multibyte text: got %+v", got)
	}
}

// TestDatesDays: the named days and the parts of a day.
func TestDatesDays(t *testing.T) {
	cases := []struct {
		text, from string
	}{
		{"today", "2023-05-08"},
		{"Today", "2023-05-08"},
		{"tonight", "2023-05-08"},
		{"TONIGHT", "2023-05-08"},
		{"this morning", "2023-05-08"},
		{"this afternoon", "2023-05-08"},
		{"this evening", "2023-05-08"},
		{"yesterday", "2023-05-07"},
		{"yesterday morning", "2023-05-07"},
		{"yesterday afternoon", "2023-05-07"},
		{"yesterday evening", "2023-05-07"},
		{"yesterday night", "2023-05-07"},
		{"last night", "2023-05-07"},
		{"the day before yesterday", "2023-05-06"},
		{"day before yesterday", "2023-05-06"},
		{"the night before last", "2023-05-06"},
		{"night before last", "2023-05-06"},
		{"tomorrow", "2023-05-09"},
		{"tomorrow morning", "2023-05-09"},
		{"tomorrow afternoon", "2023-05-09"},
		{"tomorrow evening", "2023-05-09"},
		{"tomorrow night", "2023-05-09"},
		{"the day after tomorrow", "2023-05-10"},
		{"day after tomorrow", "2023-05-10"},
	}
	for _, c := range cases {
		from, _ := time.Parse("2006-01-02", c.from)
		dateCheck(t, dateOne(dateMon, "We spoke "+c.text+", I think.", dateWant{c.text, c.from, Day, from.Format("2 January 2006")}))
	}
}

// TestDatesAmounts: N units ago, back, from now, in N units.
func TestDatesAmounts(t *testing.T) {
	dateRun(t, []dateCase{
		dateOne(dateMon, "two days ago", dateWant{"", "2023-05-06", Day, "6 May 2023"}),
		dateOne(dateMon, "3 weeks ago", dateWant{"", "2023-04-17", Week, "the week of 17 April 2023"}),
		dateOne(dateMon, "two weeks ago", dateWant{"", "2023-04-24", Week, "the week of 24 April 2023"}),
		dateOne(dateMon, "a week ago", dateWant{"", "2023-05-01", Week, "the week of 1 May 2023"}),
		dateOne(dateMon, "a month ago", dateWant{"", "2023-04-01", Month, "April 2023"}),
		dateOne(dateMon, "18 months ago", dateWant{"", "2021-11-01", Month, "November 2021"}),
		dateOne(dateMon, "a year ago", dateWant{"", "2022-01-01", Year, "2022"}),
		dateOne(dateMon, "10 years ago", dateWant{"", "2013-01-01", Year, "2013"}),
		dateOne(dateMon, "2 yrs ago", dateWant{"", "2021-01-01", Year, "2021"}),
		dateOne(dateMon, "1 yr ago", dateWant{"", "2022-01-01", Year, "2022"}),
		dateOne(dateMon, "an hour ago", dateWant{"", "2023-05-08 12:00", Hour, "8 May 2023 at 12:00"}),
		dateOne(dateMon, "three hours ago", dateWant{"", "2023-05-08 10:00", Hour, "8 May 2023 at 10:00"}),
		dateOne(dateMon, "3 hrs ago", dateWant{"", "2023-05-08 10:00", Hour, "8 May 2023 at 10:00"}),
		dateOne(dateMon, "1 hr ago", dateWant{"", "2023-05-08 12:00", Hour, "8 May 2023 at 12:00"}),
		dateOne(dateMon, "20 minutes ago", dateWant{"", "2023-05-08 13:36", Minute, "8 May 2023 at 13:36"}),
		dateOne(dateMon, "one minute ago", dateWant{"", "2023-05-08 13:55", Minute, "8 May 2023 at 13:55"}),
		dateOne(dateMon, "5 mins ago", dateWant{"", "2023-05-08 13:51", Minute, "8 May 2023 at 13:51"}),
		dateOne(dateMon, "1 min ago", dateWant{"", "2023-05-08 13:55", Minute, "8 May 2023 at 13:55"}),
		dateOne(dateMon, "half an hour ago", dateWant{"", "2023-05-08 13:26", Minute, "8 May 2023 at 13:26"}),
		dateOne(dateMon, "a half hour ago", dateWant{"", "2023-05-08 13:26", Minute, "8 May 2023 at 13:26"}),
		dateOne(dateMon, "two weekends ago", dateWant{"", "2023-04-29", Weekend, "the weekend of 29 April 2023"}),
		dateOne(dateMon, "a weekend ago", dateWant{"", "2023-05-06", Weekend, "the weekend of 6 May 2023"}),
		dateOne(dateMon, "two years back", dateWant{"", "2021-01-01", Year, "2021"}),
		dateOne(dateMon, "a few weeks back", dateWant{"", "2023-04-17", Week, "around the week of 17 April 2023"}),
		// vague counts
		dateOne(dateMon, "a couple of weeks ago", dateWant{"", "2023-04-24", Week, "around the week of 24 April 2023"}),
		dateOne(dateMon, "a couple weeks ago", dateWant{"", "2023-04-24", Week, "around the week of 24 April 2023"}),
		dateOne(dateMon, "couple of days ago", dateWant{"", "2023-05-06", Day, "around 6 May 2023"}),
		dateOne(dateMon, "couple days ago", dateWant{"", "2023-05-06", Day, "around 6 May 2023"}),
		dateOne(dateMon, "a few days ago", dateWant{"", "2023-05-05", Day, "around 5 May 2023"}),
		dateOne(dateMon, "few days ago", dateWant{"", "2023-05-05", Day, "around 5 May 2023"}),
		dateOne(dateMon, "several years ago", dateWant{"", "2020-01-01", Year, "around 2020"}),
		dateOne(dateMon, "a couple of hours ago", dateWant{"", "2023-05-08 11:00", Hour, "around 8 May 2023 at 11:00"}),
		dateOne(dateMon, "a few minutes ago", dateWant{"", "2023-05-08 13:53", Minute, "around 8 May 2023 at 13:53"}),
		// hedges
		dateOne(dateMon, "about a year ago", dateWant{"", "2022-01-01", Year, "around 2022"}),
		dateOne(dateMon, "around two weeks ago", dateWant{"", "2023-04-24", Week, "around the week of 24 April 2023"}),
		dateOne(dateMon, "roughly 6 months ago", dateWant{"", "2022-11-01", Month, "around November 2022"}),
		dateOne(dateMon, "approximately 3 days ago", dateWant{"", "2023-05-05", Day, "around 5 May 2023"}),
		dateOne(dateMon, "almost a month ago", dateWant{"", "2023-04-01", Month, "around April 2023"}),
		dateOne(dateMon, "nearly ten years ago", dateWant{"", "2013-01-01", Year, "around 2013"}),
		// forward
		dateOne(dateMon, "in two weeks", dateWant{"", "2023-05-22", Week, "the week of 22 May 2023"}),
		dateOne(dateMon, "in 3 days", dateWant{"", "2023-05-11", Day, "11 May 2023"}),
		dateOne(dateMon, "in a month", dateWant{"", "2023-06-01", Month, "June 2023"}),
		dateOne(dateMon, "in a year", dateWant{"", "2024-01-01", Year, "2024"}),
		dateOne(dateMon, "in an hour", dateWant{"", "2023-05-08 14:00", Hour, "8 May 2023 at 14:00"}),
		dateOne(dateMon, "in half an hour", dateWant{"", "2023-05-08 14:26", Minute, "8 May 2023 at 14:26"}),
		dateOne(dateMon, "in 10 mins", dateWant{"", "2023-05-08 14:06", Minute, "8 May 2023 at 14:06"}),
		dateOne(dateMon, "in a couple of hours", dateWant{"", "2023-05-08 15:00", Hour, "around 8 May 2023 at 15:00"}),
		dateOne(dateMon, "in a few days", dateWant{"", "2023-05-11", Day, "around 11 May 2023"}),
		dateOne(dateMon, "in about a year", dateWant{"", "2024-01-01", Year, "around 2024"}),
		dateOne(dateMon, "in two weekends", dateWant{"", "2023-05-20", Weekend, "the weekend of 20 May 2023"}),
		dateOne(dateSun, "in two weekends", dateWant{"", "2023-05-27", Weekend, "the weekend of 27 May 2023"}),
		dateOne(dateSun, "in a weekend", dateWant{"", "2023-05-20", Weekend, "the weekend of 20 May 2023"}),
		dateOne(dateSun, "a weekend ago", dateWant{"", "2023-05-06", Weekend, "the weekend of 6 May 2023"}),
		dateOne(dateMon, "two months from now", dateWant{"", "2023-07-01", Month, "July 2023"}),
		dateOne(dateMon, "a week from today", dateWant{"", "2023-05-15", Week, "the week of 15 May 2023"}),
		dateOne(dateMon, "about three days from now", dateWant{"", "2023-05-11", Day, "around 11 May 2023"}),
		dateOne(dateMon, "We ship in 2 weeks from now.", dateWant{"2 weeks from now", "2023-05-22", Week, "the week of 22 May 2023"}),
		// the start of a month, not the same day a month later
		dateOne(dateJan31, "a month ago", dateWant{"", "2022-12-01", Month, "December 2022"}),
		dateOne(dateJan31, "in a month", dateWant{"", "2023-02-01", Month, "February 2023"}),
		dateOne(dateJan31, "two weeks ago", dateWant{"", "2023-01-16", Week, "the week of 16 January 2023"}),
		dateOne(dateDec31, "in 2 hours", dateWant{"", "2024-01-01 01:00", Hour, "1 January 2024 at 01:00"}),
		dateOne(dateDec31, "30 minutes from now", dateWant{"", "2024-01-01 00:00", Minute, "1 January 2024 at 00:00"}),
		dateOne(dateMar1, "a year ago", dateWant{"", "2023-01-01", Year, "2023"}),
		dateOne(dateMar1, "two days ago", dateWant{"", "2024-02-28", Day, "28 February 2024"}),
	})
}

// TestDatesNumberWords: every number word, as a count of years.
func TestDatesNumberWords(t *testing.T) {
	words := []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}
	n := map[string]int{"thirty": 30, "forty": 40, "fifty": 50}
	for i, w := range words {
		n[w] = i + 1
	}
	for w, k := range n {
		year := fmt.Sprint(2023 - k)
		dateCheck(t, dateOne(dateMon, strings.ToUpper(w[:1])+w[1:]+" years ago", dateWant{"", year + "-01-01", Year, year}))
	}
}

// TestDatesPeriods: last, this and next with a period, earlier and later
// this, before last and after next.
func TestDatesPeriods(t *testing.T) {
	dateRun(t, []dateCase{
		dateOne(dateMon, "last week", dateWant{"", "2023-05-01", Week, "the week of 1 May 2023"}),
		dateOne(dateMon, "this week", dateWant{"", "2023-05-08", Week, "the week of 8 May 2023"}),
		dateOne(dateMon, "next week", dateWant{"", "2023-05-15", Week, "the week of 15 May 2023"}),
		dateOne(dateMon, "last weekend", dateWant{"", "2023-05-06", Weekend, "the weekend of 6 May 2023"}),
		dateOne(dateMon, "this weekend", dateWant{"", "2023-05-13", Weekend, "the weekend of 13 May 2023"}),
		dateOne(dateMon, "next weekend", dateWant{"", "2023-05-20", Weekend, "the weekend of 20 May 2023"}),
		dateOne(dateMon, "last month", dateWant{"", "2023-04-01", Month, "April 2023"}),
		dateOne(dateMon, "this month", dateWant{"", "2023-05-01", Month, "May 2023"}),
		dateOne(dateMon, "next month", dateWant{"", "2023-06-01", Month, "June 2023"}),
		dateOne(dateMon, "last year", dateWant{"", "2022-01-01", Year, "2022"}),
		dateOne(dateMon, "this year", dateWant{"", "2023-01-01", Year, "2023"}),
		dateOne(dateMon, "next year", dateWant{"", "2024-01-01", Year, "2024"}),
		dateOne(dateMon, "This year's budget", dateWant{"This year", "2023-01-01", Year, "2023"}),
		dateOne(dateMon, "last week's meeting", dateWant{"last week", "2023-05-01", Week, "the week of 1 May 2023"}),
		dateOne(dateMon, "this time last year", dateWant{"last year", "2022-01-01", Year, "2022"}),
		dateOne(dateMon, "this last weekend", dateWant{"last weekend", "2023-05-06", Weekend, "the weekend of 6 May 2023"}),
		dateOne(dateMon, "Incomprehensibly, last month was quiet.", dateWant{"last month", "2023-04-01", Month, "April 2023"}),
		dateOne(dateMon, "it was 2 days ago, 5 in all", dateWant{"2 days ago", "2023-05-06", Day, "6 May 2023"}),
		dateOne(dateMon, "LAST MONTH", dateWant{"", "2023-04-01", Month, "April 2023"}),
		dateOne(dateMon, "this\tweek", dateWant{"", "2023-05-08", Week, "the week of 8 May 2023"}),
		dateOne(dateMon, "I changed it last\nweek", dateWant{"last\nweek", "2023-05-01", Week, "the week of 1 May 2023"}),
		// this past, this coming
		dateOne(dateMon, "this past weekend", dateWant{"", "2023-05-06", Weekend, "the weekend of 6 May 2023"}),
		dateOne(dateMon, "this coming weekend", dateWant{"", "2023-05-13", Weekend, "the weekend of 13 May 2023"}),
		dateOne(dateMon, "this coming week", dateWant{"", "2023-05-15", Week, "the week of 15 May 2023"}),
		dateOne(dateMon, "this coming month", dateWant{"", "2023-06-01", Month, "June 2023"}),
		dateOne(dateMon, "this coming year", dateWant{"", "2024-01-01", Year, "2024"}),
		// earlier, later
		dateOne(dateMon, "earlier this week", dateWant{"", "2023-05-08", Week, "around the week of 8 May 2023"}),
		dateOne(dateMon, "earlier this month", dateWant{"", "2023-05-01", Month, "around May 2023"}),
		dateOne(dateMon, "earlier this year", dateWant{"", "2023-01-01", Year, "around 2023"}),
		dateOne(dateMon, "later this week", dateWant{"", "2023-05-08", Week, "around the week of 8 May 2023"}),
		dateOne(dateMon, "later this month", dateWant{"", "2023-05-01", Month, "around May 2023"}),
		dateOne(dateMon, "later this year", dateWant{"", "2023-01-01", Year, "around 2023"}),
		dateOne(dateMon, "earlier this morning", dateWant{"this morning", "2023-05-08", Day, "8 May 2023"}),
		// before last, after next
		dateOne(dateMon, "the week before last", dateWant{"", "2023-04-24", Week, "the week of 24 April 2023"}),
		dateOne(dateMon, "week before last", dateWant{"", "2023-04-24", Week, "the week of 24 April 2023"}),
		dateOne(dateMon, "the weekend before last", dateWant{"", "2023-04-29", Weekend, "the weekend of 29 April 2023"}),
		dateOne(dateMon, "the month before last", dateWant{"", "2023-03-01", Month, "March 2023"}),
		dateOne(dateMon, "the year before last", dateWant{"", "2021-01-01", Year, "2021"}),
		dateOne(dateMon, "the week after next", dateWant{"", "2023-05-22", Week, "the week of 22 May 2023"}),
		dateOne(dateMon, "the weekend after next", dateWant{"", "2023-05-27", Weekend, "the weekend of 27 May 2023"}),
		dateOne(dateMon, "the month after next", dateWant{"", "2023-07-01", Month, "July 2023"}),
		dateOne(dateMon, "the year after next", dateWant{"", "2025-01-01", Year, "2025"}),
		// on a Friday, a Sunday, at the ends of months and years
		dateOne(dateFri, "this weekend", dateWant{"", "2023-05-13", Weekend, "the weekend of 13 May 2023"}),
		dateOne(dateFri, "last weekend", dateWant{"", "2023-05-06", Weekend, "the weekend of 6 May 2023"}),
		dateOne(dateFri, "this coming weekend", dateWant{"", "2023-05-13", Weekend, "the weekend of 13 May 2023"}),
		dateOne(dateFri, "this past weekend", dateWant{"", "2023-05-06", Weekend, "the weekend of 6 May 2023"}),
		dateOne(dateFri, "yesterday", dateWant{"", "2023-05-11", Day, "11 May 2023"}),
		dateOne(dateSun, "this weekend", dateWant{"", "2023-05-13", Weekend, "the weekend of 13 May 2023"}),
		dateOne(dateSun, "next weekend", dateWant{"", "2023-05-20", Weekend, "the weekend of 20 May 2023"}),
		dateOne(dateSun, "last weekend", dateWant{"", "2023-05-06", Weekend, "the weekend of 6 May 2023"}),
		dateOne(dateSun, "this coming weekend", dateWant{"", "2023-05-20", Weekend, "the weekend of 20 May 2023"}),
		dateOne(dateSun, "this week", dateWant{"", "2023-05-08", Week, "the week of 8 May 2023"}),
		dateOne(dateSun, "next week", dateWant{"", "2023-05-15", Week, "the week of 15 May 2023"}),
		dateOne(dateSun, "tomorrow", dateWant{"", "2023-05-15", Day, "15 May 2023"}),
		dateOne(dateJan31, "next month", dateWant{"", "2023-02-01", Month, "February 2023"}),
		dateOne(dateJan31, "last month", dateWant{"", "2022-12-01", Month, "December 2022"}),
		dateOne(dateJan31, "last year", dateWant{"", "2022-01-01", Year, "2022"}),
		dateOne(dateJan31, "tomorrow", dateWant{"", "2023-02-01", Day, "1 February 2023"}),
		dateOne(dateJan31, "last week", dateWant{"", "2023-01-23", Week, "the week of 23 January 2023"}),
		dateOne(dateMar1, "yesterday", dateWant{"", "2024-02-29", Day, "29 February 2024"}),
		dateOne(dateMar1, "the day before yesterday", dateWant{"", "2024-02-28", Day, "28 February 2024"}),
		dateOne(dateMar1, "last month", dateWant{"", "2024-02-01", Month, "February 2024"}),
		dateOne(dateMar1, "last week", dateWant{"", "2024-02-19", Week, "the week of 19 February 2024"}),
		dateOne(dateMar1, "this weekend", dateWant{"", "2024-03-02", Weekend, "the weekend of 2 March 2024"}),
		dateOne(dateDec31, "tomorrow", dateWant{"", "2024-01-01", Day, "1 January 2024"}),
		dateOne(dateDec31, "next week", dateWant{"", "2024-01-01", Week, "the week of 1 January 2024"}),
		dateOne(dateDec31, "next month", dateWant{"", "2024-01-01", Month, "January 2024"}),
		dateOne(dateDec31, "next year", dateWant{"", "2024-01-01", Year, "2024"}),
		dateOne(dateDec31, "this weekend", dateWant{"", "2023-12-30", Weekend, "the weekend of 30 December 2023"}),
		dateOne(dateDec31, "this week", dateWant{"", "2023-12-25", Week, "the week of 25 December 2023"}),
	})
}

// TestDatesWeekdays: last, this, next, before last and after next with a
// weekday, written out or abbreviated.
func TestDatesWeekdays(t *testing.T) {
	day := func(ref time.Time, text, from string) dateCase {
		f, _ := time.Parse("2006-01-02", from)
		return dateOne(ref, text, dateWant{"", from, Day, f.Format("2 January 2006")})
	}
	dateRun(t, []dateCase{
		// on a Monday
		day(dateMon, "last Friday", "2023-05-05"),
		day(dateMon, "next Friday", "2023-05-12"),
		day(dateMon, "this Friday", "2023-05-12"),
		day(dateMon, "last Monday", "2023-05-01"),
		day(dateMon, "this Monday", "2023-05-08"),
		day(dateMon, "next Monday", "2023-05-15"),
		day(dateMon, "last Sunday", "2023-05-07"),
		day(dateMon, "this Sunday", "2023-05-14"),
		day(dateMon, "next Sunday", "2023-05-14"),
		day(dateMon, "last Tuesday", "2023-05-02"),
		day(dateMon, "next Wednesday", "2023-05-10"),
		day(dateMon, "this Thursday", "2023-05-11"),
		day(dateMon, "last saturday", "2023-05-06"),
		day(dateMon, "the Friday before last", "2023-04-28"),
		day(dateMon, "Friday before last", "2023-04-28"),
		day(dateMon, "the Friday after next", "2023-05-19"),
		day(dateMon, "this past Friday", "2023-05-05"),
		day(dateMon, "this coming Friday", "2023-05-12"),
		// abbreviations, with or without a period
		day(dateMon, "last Mon", "2023-05-01"),
		day(dateMon, "last Tue", "2023-05-02"),
		day(dateMon, "last Tues", "2023-05-02"),
		day(dateMon, "next Wed.", "2023-05-10"),
		day(dateMon, "this Thu", "2023-05-11"),
		day(dateMon, "next thur", "2023-05-11"),
		day(dateMon, "last Thurs.", "2023-05-04"),
		day(dateMon, "last Fri", "2023-05-05"),
		day(dateMon, "last fri.", "2023-05-05"),
		day(dateMon, "last Sat", "2023-05-06"),
		day(dateMon, "last sat.", "2023-05-06"),
		day(dateMon, "next Sun", "2023-05-14"),
		day(dateMon, "this tue", "2023-05-09"),
		// on a Friday: "last Friday" is a week ago, "next Friday" a week on
		day(dateFri, "last Friday", "2023-05-05"),
		day(dateFri, "next Friday", "2023-05-19"),
		day(dateFri, "this Friday", "2023-05-12"),
		day(dateFri, "last Monday", "2023-05-08"),
		day(dateFri, "this Monday", "2023-05-08"),
		day(dateFri, "next Monday", "2023-05-15"),
		day(dateFri, "this past Friday", "2023-05-05"),
		day(dateFri, "this coming Friday", "2023-05-19"),
		// on a Sunday: the week is Monday's
		day(dateSun, "this Sunday", "2023-05-14"),
		day(dateSun, "last Sunday", "2023-05-07"),
		day(dateSun, "next Sunday", "2023-05-21"),
		day(dateSun, "this Monday", "2023-05-08"),
		day(dateSun, "the sunday before last", "2023-04-30"),
		day(dateSun, "the Saturday before last", "2023-05-06"),
		// across a month and a year
		day(dateMar1, "last Friday", "2024-02-23"),
		day(dateMar1, "last Thursday", "2024-02-29"),
		day(dateDec31, "next Monday", "2024-01-01"),
	})
}

// TestDatesMonthsSeasons: last and next with a month name; last, this and
// next with a season.
func TestDatesMonthsSeasons(t *testing.T) {
	month := func(ref time.Time, text, from, format string) dateCase {
		return dateOne(ref, text, dateWant{"", from, Month, format})
	}
	dateRun(t, []dateCase{
		month(dateMon, "last May", "2022-05-01", "May 2022"),
		month(dateMon, "next May", "2024-05-01", "May 2024"),
		month(dateMon, "last March", "2023-03-01", "March 2023"),
		month(dateMon, "next June", "2023-06-01", "June 2023"),
		month(dateMon, "last December", "2022-12-01", "December 2022"),
		month(dateJan31, "last January", "2022-01-01", "January 2022"),
		month(dateJan31, "next January", "2024-01-01", "January 2024"),
		month(dateJan31, "next February", "2023-02-01", "February 2023"),
		month(dateMon, "last april", "2023-04-01", "April 2023"),
		month(dateMon, "next July", "2023-07-01", "July 2023"),
		month(dateMon, "next August", "2023-08-01", "August 2023"),
		month(dateMon, "last September", "2022-09-01", "September 2022"),
		month(dateMon, "next October", "2023-10-01", "October 2023"),
		month(dateMon, "last November", "2022-11-01", "November 2022"),
		// seasons: approximate, by their first month
		month(dateMon, "last summer", "2022-06-01", "around June 2022"),
		month(dateMon, "this summer", "2023-06-01", "around June 2023"),
		month(dateMon, "next summer", "2023-06-01", "around June 2023"),
		month(dateMon, "last winter", "2022-12-01", "around December 2022"),
		month(dateMon, "this winter", "2023-12-01", "around December 2023"),
		month(dateMon, "next winter", "2023-12-01", "around December 2023"),
		month(dateMon, "last spring", "2022-03-01", "around March 2022"),
		month(dateMon, "this spring", "2023-03-01", "around March 2023"),
		month(dateMon, "next spring", "2024-03-01", "around March 2024"),
		month(dateMon, "last fall", "2022-09-01", "around September 2022"),
		month(dateMon, "this fall", "2023-09-01", "around September 2023"),
		month(dateMon, "this autumn", "2023-09-01", "around September 2023"),
		month(dateMon, "next autumn", "2023-09-01", "around September 2023"),
		month(dateMon, "last autumn", "2022-09-01", "around September 2022"),
		month(time.Date(2023, 10, 20, 0, 0, 0, 0, time.UTC), "this summer", "2023-06-01", "around June 2023"),
		month(time.Date(2023, 7, 20, 0, 0, 0, 0, time.UTC), "next summer", "2024-06-01", "around June 2024"),
		month(dateJan31, "last winter", "2022-12-01", "around December 2022"),
		month(dateJan31, "this winter", "2022-12-01", "around December 2022"),
		month(dateJan31, "next winter", "2023-12-01", "around December 2023"),
		month(dateJan31, "last summer", "2022-06-01", "around June 2022"),
		month(dateJan31, "next summer", "2023-06-01", "around June 2023"),
		month(dateMar1, "last winter", "2023-12-01", "around December 2023"),
		month(dateMar1, "this winter", "2024-12-01", "around December 2024"),
		month(dateMar1, "this spring", "2024-03-01", "around March 2024"),
		month(dateDec31, "this winter", "2023-12-01", "around December 2023"),
		month(dateDec31, "next winter", "2024-12-01", "around December 2024"),
		dateOne(dateMon, "This fall we move.", dateWant{"This fall", "2023-09-01", Month, "around September 2023"}),
	})
}

// TestDatesLocation: dates are days of the reference time's location.
func TestDatesLocation(t *testing.T) {
	dateRun(t, []dateCase{
		// 2:00 on 8 May in India is 20:30 on 7 May in UTC.
		dateOne(dateIST, "today", dateWant{"", "2023-05-08", Day, "8 May 2023"}),
		dateOne(dateIST, "yesterday", dateWant{"", "2023-05-07", Day, "7 May 2023"}),
		dateOne(dateIST, "three hours ago", dateWant{"", "2023-05-07 23:00", Hour, "7 May 2023 at 23:00"}),
		dateOne(dateIST, "45 minutes ago", dateWant{"", "2023-05-08 01:15", Minute, "8 May 2023 at 01:15"}),
		dateOne(dateIST, "last week", dateWant{"", "2023-05-01", Week, "the week of 1 May 2023"}),
		// New York on the morning clocks go forward.
		dateOne(dateNY, "yesterday", dateWant{"", "2023-03-11", Day, "11 March 2023"}),
		dateOne(dateNY, "3 hours ago", dateWant{"", "2023-03-12 07:00", Hour, "12 March 2023 at 07:00"}),
		dateOne(dateNY, "12 hours ago", dateWant{"", "2023-03-11 21:00", Hour, "11 March 2023 at 21:00"}),
		dateOne(dateNY, "in a day", dateWant{"", "2023-03-13", Day, "13 March 2023"}),
		dateOne(dateNY, "this week", dateWant{"", "2023-03-06", Week, "the week of 6 March 2023"}),
	})
	d := Dates("yesterday", dateNY)[0]
	if _, off := d.From.Zone(); off != -5*3600 {
		t.Errorf("yesterday in New York: offset %d, want EST", off)
	}
}

// TestDatesOverlaps: the longest expression wins, and nothing is found
// twice.
func TestDatesOverlaps(t *testing.T) {
	dateRun(t, []dateCase{
		dateOne(dateMon, "the day before yesterday", dateWant{"", "2023-05-06", Day, "6 May 2023"}),
		dateOne(dateMon, "about two weeks ago", dateWant{"", "2023-04-24", Week, "around the week of 24 April 2023"}),
		dateOne(dateMon, "in a couple of weeks", dateWant{"", "2023-05-22", Week, "around the week of 22 May 2023"}),
		dateOne(dateMon, "earlier this week", dateWant{"", "2023-05-08", Week, "around the week of 8 May 2023"}),
		dateOne(dateMon, "this coming Friday", dateWant{"", "2023-05-12", Day, "12 May 2023"}),
		dateOne(dateMon, "yesterday morning", dateWant{"", "2023-05-07", Day, "7 May 2023"}),
		dateOne(dateMon, "last Friday night", dateWant{"last Friday", "2023-05-05", Day, "5 May 2023"}),
		dateOne(dateMon, "the week before last week", dateWant{"the week before last", "2023-04-24", Week, "the week of 24 April 2023"}),
		dateOne(dateMon, "the night before last night", dateWant{"the night before last", "2023-05-06", Day, "6 May 2023"}),
	})
}

// TestDatesNone: what is not a date, or not one we can place.
func TestDatesNone(t *testing.T) {
	for _, text := range []string{
		"",
		"I have 3 kids",
		"the last time we met",
		"the last week of the project was hard",
		"The last year has been a blur.",
		"My last year at school",
		"our next month together",
		"the next day we left",
		"the next Friday they came back",
		"on Sundays I rest",
		"Mondays are slow",
		"See you on Monday",
		"Monday was fun",
		"next to the station",
		"this is great",
		"in 2 seconds",
		"two seconds ago",
		"It took 3 days.",
		"every day",
		"one day I'll go",
		"to this day",
		"the next few days",
		"next time",
		"recently",
		"a while ago",
		"the other day",
		"years ago",
		"twice in a week",
		"three times in a month",
		"for the first time in two years",
		"I haven't seen her in years",
		"I did not hear from them in two weeks",
		"Call datetime.today() to get it",
		"use last_week and this_year",
		"lastWeek, thisYear",
		"a last-minute change",
		"a this-year thing",
		"this week-long event",
		"1.5 hours ago",
		"10,000 years ago",
		"1,500 years ago",
		"it was 2 days ago,5 in all",
		"print(yesterday.isoformat())",
		"earlier than every day",
		"this past year",
		"this past week",
		"this coming sat",
		"this coming day",
		"the day after next",
		"the night after next",
		"the sun before last",
		"twenty-five years ago",
		"0 days ago",
		"12345 days ago",
		"this may be fine",
		"this sat on my desk for weeks",
		"Don't let this fall apart.",
		"Watch this fall down",
		"under this sun",
		"last sun",
		"this weekends",
		"the last minute",
		"last minute",
		"this hour",
		"last morning",
		"this night",
		"the day before",
		"https://example.com/today",
		"#yesterday",
		"@tomorrow",
		"Sundays, Saturdays and holidays",
		"a week",
		"yesterdays",
		"todays",
	} {
		if got := Dates(text, dateMon); len(got) != 0 {
			t.Errorf("Dates(%q) = %v, want none", text, dateTexts(got))
		}
	}
}

func TestDatesZeroRef(t *testing.T) {
	if got := Dates("yesterday", time.Time{}); got != nil {
		t.Errorf("zero ref: got %v", got)
	}
}

func TestDatesGranularityString(t *testing.T) {
	want := []string{"Granularity(0)", "minute", "hour", "day", "week", "weekend", "month", "year", "Granularity(8)"}
	for g, w := range want {
		if got := Granularity(g).String(); got != w {
			t.Errorf("Granularity(%d).String() = %q, want %q", g, got, w)
		}
	}
	if got := (Date{}).Format(); got != "" {
		t.Errorf("zero Date formats as %q", got)
	}
}

// TestDatesNoAllocations: a turn without a time word costs no allocation.
func TestDatesNoAllocations(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { Dates(dateTurnNone, dateMon) }); n != 0 {
		t.Errorf("%v allocations for a turn without a date", n)
	}
}

func ExampleDates() {
	ref := time.Date(2023, time.May, 8, 13, 56, 0, 0, time.UTC)
	for _, d := range Dates("I went to a support group yesterday, and we're going camping next month!", ref) {
		fmt.Printf("%q at %d: %s (%s)\n", d.Text, d.Start, d.Format(), d.Granularity)
	}
	// Output:
	// "yesterday" at 26: 7 May 2023 (day)
	// "next month" at 61: June 2023 (month)
}

func ExampleDate_Format() {
	ref := time.Date(2023, time.May, 8, 13, 56, 0, 0, time.UTC)
	for _, d := range Dates("Two days ago, last week, a few weeks back, three hours ago, this weekend, last summer.", ref) {
		fmt.Println(d.Format())
	}
	// Output:
	// 6 May 2023
	// the week of 1 May 2023
	// around the week of 17 April 2023
	// 8 May 2023 at 10:00
	// the weekend of 13 May 2023
	// around June 2022
}

func FuzzDates(f *testing.F) {
	for _, s := range []string{
		"I went to a LGBTQ support group yesterday and it was so powerful.",
		"the day before yesterday, about two weeks ago, in a couple of weeks",
		"this past weekend; this coming Fri. the Sunday before last",
		"haven't talked in a few days. last Sat. next sun. this sat",
		"1.5 hours ago, 10,000 years ago, datetime.today()",
		"Ça va? Désolé… yesterday was busy",
		dateTurnThree,
	} {
		f.Add(s, int64(0))
	}
	f.Fuzz(func(t *testing.T, text string, sec int64) {
		ref := dateMon.Add(time.Duration(sec%(1<<40)) * time.Second)
		end := 0
		for _, d := range Dates(text, ref) {
			if d.Start < end || d.End <= d.Start || d.End > len(text) {
				t.Fatalf("%q: date %q at [%d:%d] after %d", text, d.Text, d.Start, d.End, end)
			}
			if d.Text != text[d.Start:d.End] {
				t.Fatalf("%q: Text %q != text[%d:%d]", text, d.Text, d.Start, d.End)
			}
			if d.Granularity < Minute || d.Granularity > Year || d.From.IsZero() || d.From.Location() != ref.Location() || d.Format() == "" {
				t.Fatalf("%q: bad date %+v", text, d)
			}
			end = d.End
		}
	})
}

const (
	dateTurnNone = "Thanks for sharing that! I think the design looks good overall, but I would move the checkout " +
		"button above the fold and make the font a bit larger so it is easier to read on a phone screen."
	dateTurnOne = "Thanks for sharing that! I went to the support group yesterday and I think the design looks good, " +
		"but I would move the checkout button above the fold and make the font a bit larger for phones."
	dateTurnThree = "Thanks! I went to the support group yesterday, and the design looks good, but I'd move the " +
		"checkout button up before next week and make the font larger; we shipped two days ago."
)

func BenchmarkDatesNone(b *testing.B) {
	b.SetBytes(int64(len(dateTurnNone)))
	for b.Loop() {
		Dates(dateTurnNone, dateMon)
	}
}

func BenchmarkDatesOne(b *testing.B) {
	b.SetBytes(int64(len(dateTurnOne)))
	for b.Loop() {
		Dates(dateTurnOne, dateMon)
	}
}

func BenchmarkDatesThree(b *testing.B) {
	b.SetBytes(int64(len(dateTurnThree)))
	for b.Loop() {
		Dates(dateTurnThree, dateMon)
	}
}
