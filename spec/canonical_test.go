package spec_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/smg-memory/smg/spec"
)

// sizeAgrees fails t unless CanonicalTurnSize(turn) is the length of
// MarshalCanonical(turn), or fails as it does.
func sizeAgrees(t *testing.T, turn spec.Turn) {
	t.Helper()
	js, err := spec.MarshalCanonical(turn)
	n, nerr := spec.CanonicalTurnSize(turn)
	if (err == nil) != (nerr == nil) || err == nil && n != len(js) {
		t.Fatalf("CanonicalTurnSize(%#v) = %d, %v; MarshalCanonical gives %d bytes, %v: %s", turn, n, nerr, len(js), err, js)
	}
}

// benchContents returns the texts of the turns of the bench data
// (../shared/bench): every "text" of BEAM's and LoCoMo's samples, and
// each aider history whole.
func benchContents(t *testing.T) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "text" {
					out = append(out, s)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	for _, name := range []string{"beam-dev.json", "locomo-dev.json"} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "shared", "bench", name))
		if err != nil {
			t.Log("not walked:", err)
			continue
		}
		var samples any
		if err := json.Unmarshal(raw, &samples); err != nil {
			t.Fatal(err)
		}
		walk(samples)
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "bench", "aider-dev", "*.md"))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(raw))
	}
	return out
}

// TestCanonicalTurnSize compares CanonicalTurnSize with the length of
// MarshalCanonical on every turn of the bench data, as a builder numbers
// and stamps them, and on turns with what must be escaped, characters
// beyond ASCII, each member set or not, and what it leaves to
// MarshalCanonical (references, unknown members, importance, numbers
// ECMAScript writes otherwise, times RFC 3339 cannot write).
func TestCanonicalTurnSize(t *testing.T) {
	at := time.Date(2024, 3, 5, 14, 7, 9, 120000000, time.UTC)
	t.Run("bench", func(t *testing.T) {
		texts := benchContents(t)
		if len(texts) == 0 {
			t.Skip("the bench data (../shared/bench) is absent")
		}
		t.Logf("%d texts of the bench data", len(texts))
		for i, text := range texts {
			role := spec.RoleUser
			if i%2 == 1 {
				role = spec.RoleAssistant
			}
			sizeAgrees(t, spec.Turn{Turn: i + 1, Role: role, Content: text})
			sizeAgrees(t, spec.Turn{Turn: i + 1, Role: role, Speaker: "Caroline", Content: text, Timestamp: at.Add(time.Duration(i) * time.Minute),
				ConversationID: "conv-1", ExternalID: fmt.Sprint(i)})
		}
	})
	zone := time.FixedZone("", -(3*3600 + 30*60))
	for _, turn := range []spec.Turn{
		{Turn: 1, Content: ""},
		{Turn: 0, Content: "x"},
		{Turn: -7, Content: "x", SameIDAs: -3},
		{Turn: 12, Content: "quote \" backslash \\ slash / tab \t nl \n cr \r ff \f bs \b nul \x00 us \x1f del \x7f", Speaker: "O\"Brien\\"},
		{Turn: 3, Content: "é ü 日本 🙂 \u2028 \u2029 \ufeff <>&", Role: "assistant", Speaker: "Zoë", ExternalID: "ид-1", ConversationID: "会話"},
		{Turn: 4, Content: "x", SameIDAs: 2, Timestamp: at},
		{Turn: 5, Content: "x", Timestamp: at.In(zone)},
		{Turn: 5, Content: "x", Timestamp: time.Date(2024, 1, 1, 0, 0, 0, 0, time.FixedZone("", 14*3600))},
		{Turn: 5, Content: "x", Timestamp: time.Date(2024, 1, 1, 0, 0, 0, 1, time.UTC)},
		{Turn: 5, Content: "x", Timestamp: time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Turn: 5, Content: "x", Timestamp: time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)},
		{Turn: 5, Content: "x", Timestamp: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Turn: 5, Content: "x", Timestamp: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Turn: 5, Content: "x", Timestamp: time.Date(2024, 1, 1, 0, 0, 0, 0, time.FixedZone("", 3600+7))},
		{Turn: 1 << 53, Content: "x"},
		{Turn: 1<<53 - 1, Content: "x", SameIDAs: -(1<<53 - 1)},
		{Turn: math.MaxInt64, Content: "x", SameIDAs: math.MinInt64},
		{Turn: 1, Content: "x", Importance: 0.3},
		{Turn: 1, Content: "x", Importance: 1e21},
		{Turn: 1, Content: "x", ContentRefs: []spec.ContentRef{{At: 1, Artifact: "a", V: 2, Length: 3}}},
		{Turn: 1, Content: "x", Extra: jsontext.Value(`{"zeta": 1.50, "alpha": [1, 2]}`)},
		{Turn: 1, Content: "x", ConversationID: "bad \xff"},
		{Turn: 1, Content: "bad \xc3", Role: "user"},
		{Turn: 1, Content: "x", Role: "user\x01"},
	} {
		sizeAgrees(t, turn)
	}
}

// FuzzCanonicalTurnSize: CanonicalTurnSize and MarshalCanonical agree on
// any turn.
func FuzzCanonicalTurnSize(f *testing.F) {
	f.Add(1, "conv", "ext", 0, int64(1700000000), int32(0), 0, "user", "Ana", "hello \"world\"\n", 0.0)
	f.Add(-3, "", "", 7, int64(-62135596800), int32(3600+7), 999, "", "", "\x00\x1f\x7f é 日本 \u2028", 0.5)
	f.Add(1<<53, "\xff", "x", -1, int64(253402300800), int32(-1800), 1, "assistant", "\\", "\xc3", 0.0)
	f.Fuzz(func(t *testing.T, turn int, conv, ext string, same int, unix int64, offset int32, nanos int, role, speaker, content string, importance float64) {
		ts := time.Time{}
		if unix != 0 || nanos != 0 {
			ts = time.Unix(unix, int64(nanos)).In(time.FixedZone("", int(offset%(24*3600))))
		}
		sizeAgrees(t, spec.Turn{Turn: turn, ConversationID: conv, ExternalID: ext, SameIDAs: same, Timestamp: ts,
			Role: role, Speaker: speaker, Content: content, Importance: importance})
	})
}
