package tools_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/smg/tools"
)

// TestRecordTurns: record_turns writes the turns to the user's memory
// before it replies; turns sent again are not stored twice; a message id
// used again with other text is kept and reported; bad input names the
// turn and changes nothing.
func TestRecordTurns(t *testing.T) {
	dir := t.TempDir()
	user := open(t, dir, "me.smg")
	now := time.Date(2025, 3, 14, 9, 30, 0, 0, time.UTC)
	h := tools.NewHandler(user, open(t, dir, "ws.smg"), &tools.Options{Now: func() time.Time { return now }})

	exchange := `{"conversation":"c-17","turns":[
		{"role":"user","content":"Which cache should we use?","id":"m1","time":"2025-03-14T09:00:00Z"},
		{"role":"assistant","content":"Redis, for its expiry.","id":"m2"},
		{"role":"user","content":"ok"}]}`
	r := call(t, h, "record_turns", exchange)
	if !r.Success || r.Added != 3 || r.Held != 0 || r.Memory != "user" || r.Message != "Recorded 3." {
		t.Fatalf("record: %+v", r)
	}
	turns := smgtest.FileTurns(t, user.Name())
	if len(turns) != 3 || turns[0].ConversationID != "c-17" || turns[1].ExternalID != "m2" ||
		!turns[0].Timestamp.Equal(time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC)) || !turns[1].Timestamp.Equal(now) {
		t.Fatalf("the file holds %+v", turns)
	}

	// Sent again after a timeout, at the same time: nothing is stored,
	// nothing written.
	before, _ := os.ReadFile(user.Name())
	if r := call(t, h, "record_turns", exchange); !r.Success || r.Added != 0 || r.Held != 3 ||
		r.Message != "The memory holds all 3 already: nothing recorded." {
		t.Errorf("again: %+v", r)
	}
	if after, _ := os.ReadFile(user.Name()); string(after) != string(before) {
		t.Error("recording held turns wrote the file")
	}

	// The reply edited in the chat: kept beside the old one, reported.
	r = call(t, h, "record_turns", `{"conversation":"c-17","turns":[{"role":"assistant","content":"Memcached, for its speed.","id":"m2"}]}`)
	if !r.Success || r.Added != 1 || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], `turns[0]: turn 4 has the id "c-17/m2" of turn 2`) {
		t.Errorf("edited: %+v", r)
	}
	if turns := smgtest.FileTurns(t, user.Name()); len(turns) != 4 || turns[3].SameIDAs != 2 {
		t.Errorf("the file holds %+v", turns)
	}

	// Bad input: the turn named, nothing recorded.
	before, _ = os.ReadFile(user.Name())
	for input, want := range map[string]string{
		`{"turns":[{"role":"user","content":"fine"},{"role":"user","content":"x","time":"yesterday"}]}`: `turns[1].time is "yesterday", not an RFC 3339 time`,
		`{"turns":[{"role":"user","content":"fine"},{"content":"who?"}]}`:                               "turns[1].role is missing",
		`{"turns":[{"role":"user","content":"fine"},{"role":"user","content":" "}]}`:                    "turns[1].content is empty",
		`{"turns":[{"role":"user","content":"fine","mood":"glad"}]}`:                                    `turns[0] is not a {role, content, time?, id?, speaker?} object: json: unknown field "mood"`,
		`{"turns":"hello"}`: "turns must be a list",
	} {
		if r := call(t, h, "record_turns", input); r.Success || !strings.HasPrefix(r.Error, want) {
			t.Errorf("%s: %+v, want an error %q", input, r, want)
		}
	}
	if after, _ := os.ReadFile(user.Name()); string(after) != string(before) {
		t.Error("bad input changed the file")
	}
}
