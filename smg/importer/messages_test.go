package importer

import (
	"strings"
	"testing"
	"time"
)

// readOne reads a transcript of one message and returns its turn, or the
// reason it was skipped.
func readOne(t *testing.T, f Format, msg string) (turnText string, skipped string) {
	t.Helper()
	res, err := Read(strings.NewReader("["+msg+"]"), Options{Format: f})
	if err != nil {
		t.Fatalf("%s: %v", msg, err)
	}
	if len(res.Skipped) > 0 {
		return "", res.Skipped[0].Msg
	}
	if n := len(res.Conversations[0].Turns); n != 1 {
		return "", "" // left out
	}
	tu := res.Conversations[0].Turns[0]
	ts := ""
	if !tu.Timestamp.IsZero() {
		ts = tu.Timestamp.Format(time.RFC3339Nano)
	}
	return strings.Join([]string{tu.Role, tu.Speaker, tu.ExternalID, ts, tu.Content}, "|"), ""
}

func TestTimestamps(t *testing.T) {
	for _, c := range []struct{ ts, want, err string }{
		{`"2025-03-14T09:00:00Z"`, "2025-03-14T09:00:00Z", ""},
		{`"2025-03-14T09:00:00.123456789+05:30"`, "2025-03-14T09:00:00.123456789+05:30", ""},
		{`"2025-03-14T09:00:00-00:00"`, "2025-03-14T09:00:00Z", ""},
		{`"2025-03-14 09:00:00"`, "2025-03-14T09:00:00Z", ""},
		{`"2025-03-14 09:00:00.5"`, "2025-03-14T09:00:00.5Z", ""},
		{`"2025-03-14T09:00:00"`, "2025-03-14T09:00:00Z", ""},
		{`"2025-03-14 09:00:00+02:00"`, "2025-03-14T09:00:00+02:00", ""},
		{`"2025-03-14"`, "2025-03-14T00:00:00Z", ""},
		{`" 2025-03-14T09:00:00Z "`, "2025-03-14T09:00:00Z", ""},
		{`1741942800`, "2025-03-14T09:00:00Z", ""},
		{`1741942800.25`, "2025-03-14T09:00:00.25Z", ""},
		{`1.7419428e9`, "2025-03-14T09:00:00Z", ""},
		{`"1741942800"`, "2025-03-14T09:00:00Z", ""},
		{`1741942800000`, "2025-03-14T09:00:00Z", ""},
		{`0`, "1970-01-01T00:00:00Z", ""},
		{`-86400`, "1969-12-31T00:00:00Z", ""},
		{`null`, "", ""},
		{`"yesterday"`, "", `timestamp: cannot read "yesterday" as a time`},
		{`""`, "", `timestamp: cannot read "" as a time`},
		{`"2025-13-01T00:00:00Z"`, "", `timestamp: cannot read "2025-13-01T00:00:00Z" as a time`},
		{`"2025-03-14T25:00:00"`, "", `timestamp: cannot read "2025-03-14T25:00:00" as a time`},
		{`"1.2.3"`, "", `timestamp: cannot read "1.2.3" as a time`},
		{`1e300`, "", "timestamp: Unix time 1e300 out of range"},
		{`999999999999999`, "", `timestamp: time "999999999999999" out of range`},
		{`true`, "", "timestamp: want a string or a number, not a boolean"},
		{`{"seconds": 1}`, "", "timestamp: want a string or a number, not an object"},
	} {
		got, skipped := readOne(t, Transcript, `{"role": "user", "content": "x", "timestamp": `+c.ts+`}`)
		if skipped != c.err {
			t.Errorf("%s: skipped %q, want %q", c.ts, skipped, c.err)
			continue
		}
		if c.err == "" {
			if want := "user|||" + c.want + "|x"; got != want {
				t.Errorf("%s: %q, want %q", c.ts, got, want)
			}
		}
	}
}

func TestRoles(t *testing.T) {
	for _, c := range []struct{ msg, want string }{
		{`"role": "user"`, "user|"},
		{`"role": "USER"`, "user|"},
		{`"role": "human"`, "user|"},
		{`"role": "assistant"`, "assistant|"},
		{`"role": "ai"`, "assistant|"},
		{`"role": "bot"`, "assistant|"},
		{`"role": "model"`, "assistant|"},
		{`"role": "system"`, "system|"},
		{`"role": "developer"`, "system|"},
		{`"role": "tool"`, "tool|"},
		{`"role": "function", "name": "get_weather"`, "tool|get_weather"},
		{`"role": "Melanie"`, "|Melanie"},
		{`"role": "moderator", "speaker": "Sam"`, "|Sam"},
		{`"role": "user", "speaker": "Dana"`, "user|Dana"},
		{`"role": "user", "speaker": "Dana", "name": "dana_k"`, "user|Dana"},
		{`"speaker": "Dana"`, "|Dana"},
		{`"role": "", "speaker": "Dana"`, "|Dana"},
		{`"role": null, "speaker": "  Dana  "`, "|Dana"},
	} {
		got, skipped := readOne(t, Transcript, `{`+c.msg+`, "content": "x"}`)
		if skipped != "" {
			t.Errorf("%s: skipped: %s", c.msg, skipped)
			continue
		}
		if got = strings.Join(strings.Split(got, "|")[:2], "|"); got != c.want {
			t.Errorf("%s: %q, want %q", c.msg, got, c.want)
		}
	}
	for _, msg := range []string{`{"content": "x"}`, `{"role": "", "content": "x"}`, `{"speaker": "", "content": "x"}`} {
		if _, skipped := readOne(t, Transcript, msg); skipped != "no role or speaker" {
			t.Errorf("%s: skipped %q", msg, skipped)
		}
	}
}

func TestContent(t *testing.T) {
	for _, c := range []struct {
		f        Format
		msg      string
		want     string // the content; "-" when the message is left out
		malforms string
	}{
		{Transcript, `"content": "plain"`, "plain", ""},
		{Transcript, `"text": "from text"`, "from text", ""},
		{Transcript, `"content": null, "text": "text wins over a null content"`, "text wins over a null content", ""},
		{Transcript, `"content": "content wins", "text": "over text"`, "content wins", ""},
		{Transcript, `"content": "escapes: \"\u00e9\" \ud83d\ude00 \n\t"`, "escapes: \"é\" 😀 \n\t", ""},
		{Transcript, `"content": ""`, "", ""},
		{Transcript, `"content": null`, "", "content is null"},
		{OpenAI, `"content": null`, "-", ""},
		{OpenAI, `"content": ""`, "-", ""},
		{OpenAI, `"content": []`, "-", ""},
		{OpenAI, `"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]`, "a\nb", ""},
		{OpenAI, `"content": [{"type": "input_text", "text": "a"}, {"type": "output_text", "text": "b"}, {"text": "c"}]`, "a\nb\nc", ""},
		{OpenAI, `"content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]`, "[image]", ""},
		{OpenAI, `"content": [{"type": "input_image", "image_url": "x"}, {"type": "input_audio"}, "a bare string"]`, "[image]\n[input_audio]\na bare string", ""},
		{OpenAI, `"content": [{"type": "refusal", "refusal": "No."}]`, "No.", ""},
		{OpenAI, `"content": [{"image_url": "x"}]`, "", "content[0]: a content part without a type"},
		{OpenAI, `"content": [{"type": 3}]`, "", "content[0].type: want a string, not a number"},
		{OpenAI, `"tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{\"a\":1}"}}]`, `[tool call: f({"a":1})]`, ""},
		{OpenAI, `"content": null, "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}, {"function": {"name": "g"}}]`, "[tool call: f({\"a\": 1})]\n[tool call: g()]", ""},
		{OpenAI, `"content": "Checking.", "tool_calls": [{"function": {"arguments": "{}"}}]`, "Checking.\n[tool call: ?({})]", ""},
		{OpenAI, `"content": null, "function_call": {"name": "f", "arguments": "{}"}`, "[tool call: f({})]", ""},
		{OpenAI, `"content": null, "function_call": {"name": "f", "arguments": {"a": "` + "\xff" + `"}}`, "[tool call: f({\"a\": \"\uFFFD\"})]", ""},
		{OpenAI, "\"content\": null, \"function_call\": {\"name\": \"f\", \"arguments\": {\n  \"a\": [1,\n 2]\n}}", `[tool call: f({"a":[1,2]})]`, ""},
		{OpenAI, `"content": null, "tool_calls": []`, "-", ""},
		{OpenAI, `"content": null, "tool_calls": [1]`, "", "tool_calls[0]: want an object, not a number"},
		{OpenAI, `"content": null, "function_call": "f"`, "", "function_call: want an object, not a string"},
		{OpenAI, `"name": "x"`, "", "no content"},
	} {
		got, skipped := readOne(t, c.f, `{"role": "assistant", `+c.msg+`}`)
		if skipped != c.malforms {
			t.Errorf("%s %s: skipped %q, want %q", c.f, c.msg, skipped, c.malforms)
			continue
		}
		if c.malforms != "" {
			continue
		}
		content := "-"
		if got != "" {
			content = strings.SplitN(got, "|", 5)[4]
		}
		if content != c.want {
			t.Errorf("%s %s: content %q, want %q", c.f, c.msg, content, c.want)
		}
	}
}

func TestIDs(t *testing.T) {
	for _, c := range []struct{ id, want string }{
		{`"msg-1"`, "msg-1"}, {`17`, "17"}, {`-1.5e3`, "-1.5e3"}, {`null`, ""},
	} {
		got, skipped := readOne(t, Transcript, `{"role": "user", "content": "x", "id": `+c.id+`}`)
		if skipped != "" {
			t.Errorf("%s: %s", c.id, skipped)
		} else if id := strings.Split(got, "|")[2]; id != c.want {
			t.Errorf("%s: %q, want %q", c.id, id, c.want)
		}
	}
}
