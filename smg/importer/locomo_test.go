package importer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// annotations returns every string of the annotations of a LoCoMo file
// (qa, observation, session_summary, event_summary), read with
// encoding/json, that is long enough to mean something; not the answers,
// which quote the conversation.
func annotations(t *testing.T, data []byte) []string {
	t.Helper()
	var samples []map[string]any
	if err := json.Unmarshal(data, &samples); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			if len(v) >= 40 {
				out = append(out, v)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				if k != "answer" && k != "adversarial_answer" {
					walk(e)
				}
			}
		}
	}
	for _, s := range samples {
		for _, k := range []string{"qa", "observation", "session_summary", "event_summary"} {
			walk(s[k])
		}
	}
	return out
}

func TestLoCoMoLeavesAnnotationsOut(t *testing.T) {
	res, err := ReadFile(filepath.Join("testdata", "locomo-sample.json"), Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	all := render(res)
	for _, secret := range []string{"SECRET", "example.com", "pottery studio\"", "re-download"} {
		if strings.Contains(all, secret) {
			t.Errorf("the output holds %q", secret)
		}
	}
}

// TestLoCoMoBench reads the LoCoMo development split: 5 conversations,
// 2,760 turns, their dia_ids in order, every turn dated by its session,
// photo captions appended, nothing of the annotations.
func TestLoCoMoBench(t *testing.T) {
	name := filepath.Join(benchDir, "locomo-dev.json")
	data, err := os.ReadFile(name)
	if err != nil {
		t.Skipf("no LoCoMo data: %v", err)
	}
	res, err := ReadFile(name, Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != LoCoMo || len(res.Skipped) != 0 {
		t.Fatalf("format %s, skipped %v", res.Format, res.Skipped)
	}

	// What the file says, read independently with encoding/json.
	var samples []struct {
		SampleID     string         `json:"sample_id"`
		Conversation map[string]any `json:"conversation"`
	}
	if err := json.Unmarshal(data, &samples); err != nil {
		t.Fatal(err)
	}
	if len(res.Conversations) != 5 || len(samples) != 5 {
		t.Fatalf("%d conversations, want 5", len(res.Conversations))
	}
	diaID := regexp.MustCompile(`^D(\d+):(\d+)$`)
	total, captions := 0, 0
	for ci, c := range res.Conversations {
		s := samples[ci]
		if c.ID != s.SampleID {
			t.Errorf("conversation %d: ID %q, want %q", ci, c.ID, s.SampleID)
		}
		if want := []string{s.Conversation["speaker_a"].(string), s.Conversation["speaker_b"].(string)}; fmt.Sprint(c.Speakers) != fmt.Sprint(want) {
			t.Errorf("%s: speakers %v, want %v", c.ID, c.Speakers, want)
		}
		session, index := 1, 0
		for _, turn := range c.Turns {
			m := diaID.FindStringSubmatch(turn.ExternalID)
			if m == nil {
				t.Fatalf("%s turn %d: dia_id %q", c.ID, turn.Turn, turn.ExternalID)
			}
			n, _ := strconv.Atoi(m[1])
			k, _ := strconv.Atoi(m[2])
			switch {
			case n == session && k == index+1:
			case n > session && k == 1:
				session = n
			default:
				t.Fatalf("%s: %s follows D%d:%d", c.ID, turn.ExternalID, session, index)
			}
			index = k

			src := s.Conversation["session_"+m[1]].([]any)[k-1].(map[string]any)
			when, err := time.Parse("3:04 pm on 2 January, 2006", s.Conversation["session_"+m[1]+"_date_time"].(string))
			if err != nil {
				t.Fatal(err)
			}
			if !turn.Timestamp.Equal(when) || turn.Timestamp.Location() != time.UTC {
				t.Errorf("%s %s: time %v, want %v", c.ID, turn.ExternalID, turn.Timestamp, when)
			}
			want := src["text"].(string)
			if caption, ok := src["blip_caption"].(string); ok {
				want += "\n[shares a photo: " + caption + "]"
				captions++
			}
			if turn.Content != want || turn.Speaker != src["speaker"] || turn.Role != "user" {
				t.Errorf("%s %s: %+v, want speaker %v, text %q", c.ID, turn.ExternalID, turn, src["speaker"], want)
			}
		}
		total += len(c.Turns)
	}
	if total != 2760 {
		t.Errorf("%d turns, want 2,760", total)
	}
	if captions == 0 {
		t.Error("no photo captions")
	}

	// Nothing of the annotations, and no image URL, is in any turn.
	all := render(res)
	if strings.Contains(all, "http") {
		t.Error("an image URL is in the output")
	}
	notes := annotations(t, data)
	if len(notes) < 1000 {
		t.Errorf("only %d annotations to look for", len(notes))
	}
	for _, a := range notes {
		if strings.Contains(all, a) {
			t.Errorf("an annotation is in the output: %q", a)
		}
	}
}

// A speaker named as an assistant is one; people, and the user, are
// users.
func TestLoCoMoAssistantSpeaker(t *testing.T) {
	const data = `[{"sample_id": "s", "conversation": {"speaker_a": "User", "speaker_b": "Assistant",
		"session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": [
		{"speaker": "User", "dia_id": "D1:1", "text": "Which database?"},
		{"speaker": "Assistant", "dia_id": "D1:2", "text": "PostgreSQL."},
		{"speaker": "Caroline", "dia_id": "D1:3", "text": "Hi!"},
		{"speaker": "ChatGPT", "dia_id": "D1:4", "text": "Hello."}]}}]`
	res, err := Read(strings.NewReader(data), Options{Format: LoCoMo, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"D1:1": "user", "D1:2": "assistant", "D1:3": "user", "D1:4": "assistant"}
	n := 0
	for _, c := range res.Conversations {
		for _, turn := range c.Turns {
			n++
			if turn.Role != want[turn.ExternalID] {
				t.Errorf("%s (%s): role %q, want %q", turn.ExternalID, turn.Speaker, turn.Role, want[turn.ExternalID])
			}
		}
	}
	if n != len(want) {
		t.Errorf("%d turns, want %d", n, len(want))
	}
}
