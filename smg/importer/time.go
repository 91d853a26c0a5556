package importer

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Layouts of the timestamps of a transcript, after RFC 3339. Those without
// a zone are read as UTC; fractional seconds are accepted after the
// seconds of any of them.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04:05",
	"2006-01-02",
}

// msThreshold: a Unix time of this many seconds or more (the year 5138) is
// taken to be in milliseconds.
const msThreshold = 1e11

// parseTime reads the timestamp v, a string or a number, or returns why it
// cannot.
func parseTime(t *text, v jv) (time.Time, string) {
	var s string
	if v.kind == '0' {
		s = string(t.data[v.start:v.end])
	} else {
		s = strings.TrimSpace(t.str(v))
		for _, layout := range timeLayouts {
			if tm, err := time.Parse(layout, s); err == nil {
				return checkYear(tm, s)
			}
		}
		if s == "" || strings.Trim(s, "0123456789.") != "" && (s[0] != '-' || strings.Trim(s[1:], "0123456789.") != "") {
			return time.Time{}, "cannot read " + strconv.Quote(s) + " as a time"
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return time.Time{}, "cannot read " + strconv.Quote(s) + " as a time"
	}
	if math.IsInf(f, 0) || math.IsNaN(f) || math.Abs(f) >= 1e15 {
		return time.Time{}, "Unix time " + s + " out of range"
	}
	if math.Abs(f) >= msThreshold {
		f /= 1000
	}
	// A float64 holds a Unix time of today to a quarter of a microsecond:
	// the nanoseconds past the microsecond are noise of the binary fraction
	// (1718013611.123456 is 1718013611.12345600128…, and 1741942800123 ms
	// divided by 1000 is 1741942800.12299990654…), so the time is rounded
	// to the microsecond.
	sec, frac := math.Modf(f)
	return checkYear(time.Unix(int64(sec), int64(math.Round(frac*1e6))*1e3).UTC(), s)
}

// checkYear refuses times the .smg format cannot hold (spec §2.2).
func checkYear(tm time.Time, s string) (time.Time, string) {
	if y := tm.Year(); y < 0 || y > 9999 {
		return time.Time{}, "time " + strconv.Quote(s) + " out of range"
	}
	return tm, ""
}
