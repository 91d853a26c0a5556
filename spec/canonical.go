package spec

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// MarshalCanonical returns v as canonical JSON (spec §9.2): the JSON
// Canonicalization Scheme of RFC 8785. Object members are sorted by their
// names' UTF-16 code units, numbers are written as ECMAScript writes them,
// strings escape only what JSON requires, and there is no white space.
// Lists keep the order v gives them.
func MarshalCanonical(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	js := jsontext.Value(b)
	if err := js.Canonicalize(); err != nil {
		return nil, err
	}
	return js, nil
}

// CanonicalTurnSize returns the length of MarshalCanonical(t), or its
// error, without building it when it can: for a turn with no references,
// no unknown members and no importance, whose numbers are integers
// ECMAScript writes as they are and whose timestamp RFC 3339 writes with
// its year of four digits and its offset in whole minutes, the length is
// that of each member's name and value, which it counts.
// TestCanonicalTurnSize and FuzzCanonicalTurnSize check it against
// MarshalCanonical.
func CanonicalTurnSize(t Turn) (int, error) {
	const maxExact = 1 << 53 // an integer ECMAScript writes as it is
	_, offset := t.Timestamp.Zone()
	if len(t.ContentRefs) > 0 || len(t.Extra) > 0 || t.Importance != 0 ||
		t.Turn <= -maxExact || t.Turn >= maxExact || t.SameIDAs <= -maxExact || t.SameIDAs >= maxExact ||
		!t.Timestamp.IsZero() && (t.Timestamp.Year() < 0 || t.Timestamp.Year() > 9999 || offset%60 != 0) {
		js, err := MarshalCanonical(t)
		return len(js), err
	}
	n := len(`{"turn":,"content":}`) + len(strconv.Itoa(t.Turn))
	size, ok := quotedSize(t.Content)
	n += size
	for _, m := range []struct{ name, value string }{
		{"conversationId", t.ConversationID}, {"externalId", t.ExternalID}, {"role", t.Role}, {"speaker", t.Speaker},
	} {
		if m.value != "" {
			size, valid := quotedSize(m.value)
			n += len(`,"":`) + len(m.name) + size
			ok = ok && valid
		}
	}
	if t.SameIDAs != 0 {
		n += len(`,"sameIdAs":`) + len(strconv.Itoa(t.SameIDAs))
	}
	if !t.Timestamp.IsZero() {
		n += len(`,"timestamp":""`) + len(t.Timestamp.Format(time.RFC3339Nano))
	}
	if !ok {
		js, err := MarshalCanonical(t)
		return len(js), err
	}
	return n, nil
}

// quotedSize is the length of s as a canonical JSON string (RFC 8785
// §3.2.2.2): quoted, with a backslash before a quote or a backslash, the
// control characters that have one as \b, \t, \n, \f or \r and the others
// as \u00XX, and every other character as it is. It reports false for s
// that is not valid UTF-8, which JSON cannot hold.
func quotedSize(s string) (int, bool) {
	if !utf8.ValidString(s) {
		return 0, false
	}
	n := len(s) + 2
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\b' || c == '\t' || c == '\n' || c == '\f' || c == '\r':
			n++
		case c < 0x20:
			n += 5
		}
	}
	return n, true
}
