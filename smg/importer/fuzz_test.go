package importer

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// seeds adds every fixture to a fuzz corpus, the start of the bench files
// when they are there, and seedInputs.
func seeds(f *testing.F, add func(data []byte)) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.*"))
	more, _ := filepath.Glob(filepath.Join(benchDir, "aider-dev", "0[5-9]_*.md"))
	for _, name := range append(files, append(more, filepath.Join(benchDir, "locomo-dev.json"))...) {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		add(data[:min(len(data), 16<<10)])
	}
	for _, s := range seedInputs {
		add([]byte(s))
	}
}

// seedInputs are small inputs of the tree-shaped and line formats, at the
// edges their readers must hold: links that loop or lead nowhere, members
// of the wrong kind, lines cut off.
var seedInputs = []string{
	`[{"id":"c","current_node":"a","mapping":{"a":{"parent":"a","message":{"author":{"role":"user"},"content":{"parts":["x"]}}}}}]`,
	`[{"current_node":"c","mapping":{"a":{"parent":"c"},"b":{"parent":"a"},"c":{"parent":"b"}}}]`,
	`[{"current_node":"b","mapping":{"a":{"parent":null,"message":null},"b":{"parent":"a","message":{"id":"m","author":{"role":"tool","name":"python"},"create_time":null,"content":{"content_type":"multimodal_text","parts":[{"content_type":"image_asset_pointer"},{"content_type":"audio_transcription","text":"hi"},"t",null]}}}},"create_time":1717236000.5}]`,
	`{"current_node":"x","mapping":{"x":{"parent":"gone"}}}`,
	`[{"uuid":"c","chat_messages":[{"uuid":"m","sender":"human","text":"t","content":[{"type":"text","text":""},{"type":"tool_use","name":"n","input":{"a":"` + "\xff" + `"}}],"attachments":[{"file_name":"f","extracted_content":"x"}],"files":[{"file_name":"g"}],"created_at":"2025-01-01T00:00:00Z"}]}]`,
	`{"uuid":"c","chat_messages":[7,{"sender":"assistant"}]}`,
	`{"type":"summary","leafUuid":"u"}` + "\n" + `{"type":"assistant","isSidechain":false,"sessionId":"s","uuid":"u","timestamp":"2025-07-14T08:02:11Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":{"c":"ls"}}]}}` + "\n" + `{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"a"}]}]}}` + "\n" + `{"type":"user","message":{"content":"cut`,
	`{"parentUuid":null,"isSidechain":true,"type":"user","message":{"content":"side"}}` + "\r\n" + `{"type":"user","isMeta":true,"message":{}}` + "\n[1]\n",
}

// FuzzRead reads arbitrary bytes in every format, strict or not: it never
// panics, and what it returns is well formed: an error and no result, or
// turns numbered from 1 with a role or a speaker, valid UTF-8, times the
// format can hold, and skipped turns only when not strict.
func FuzzRead(f *testing.F) {
	seeds(f, func(data []byte) {
		for k := range len(Formats) + 1 {
			f.Add(data, uint8(k), false)
		}
		f.Add(data, uint8(0), true)
	})
	f.Fuzz(func(t *testing.T, data []byte, k uint8, strict bool) {
		format := Auto
		if int(k)%(len(Formats)+1) > 0 {
			format = Formats[int(k)%(len(Formats)+1)-1]
		}
		res, err := Read(bytes.NewReader(data), Options{Format: format, Strict: strict, Name: "fuzz"})
		if err != nil {
			if res != nil || err.Error() == "" {
				t.Fatalf("error %q with a result %v", err, res)
			}
			return
		}
		if format == Auto {
			if d, err := Detect(data[:min(len(data), DetectSize)]); err != nil || d != res.Format {
				t.Fatalf("read as %s, detected as %s, %v", res.Format, d, err)
			}
		} else if res.Format != format {
			t.Fatalf("read as %s, not %s", res.Format, format)
		}
		if strict && len(res.Skipped) > 0 {
			t.Fatalf("strict, and skipped %v", res.Skipped)
		}
		for _, e := range res.Skipped {
			if e.Msg == "" || e.Line < 1 || e.Name != "fuzz" {
				t.Fatalf("skipped %#v", e)
			}
		}
		for _, c := range res.Conversations {
			for i, turn := range c.Turns {
				if turn.Turn != i+1 {
					t.Fatalf("turn %d numbered %d", i+1, turn.Turn)
				}
				switch turn.Role {
				case "user", "assistant", "system", "tool":
				case "":
					if strings.TrimSpace(turn.Speaker) == "" {
						t.Fatalf("turn %d: no role, no speaker", i+1)
					}
				default:
					t.Fatalf("turn %d: role %q", i+1, turn.Role)
				}
				for _, s := range []string{turn.Content, turn.Speaker, turn.ExternalID} {
					if !utf8.ValidString(s) {
						t.Fatalf("turn %d: invalid UTF-8 %q", i+1, s)
					}
				}
				if y := turn.Timestamp.Year(); y < 0 || y > 9999 {
					t.Fatalf("turn %d: time %v", i+1, turn.Timestamp)
				}
			}
		}
	})
}

// FuzzDetect: Detect never panics, on any head, and fails only with
// ErrUnknownFormat.
func FuzzDetect(f *testing.F) {
	seeds(f, func(data []byte) {
		f.Add(data)
		f.Add(data[:len(data)/2])
	})
	f.Fuzz(func(t *testing.T, head []byte) {
		format, err := Detect(head)
		if err != nil {
			if e, ok := err.(*Error); !ok || e.Err != ErrUnknownFormat {
				t.Fatalf("%T %v", err, err)
			}
			return
		}
		if _, err := ParseFormat(string(format)); err != nil || format == Auto {
			t.Fatalf("detected %q", format)
		}
	})
}

// FuzzJSON checks the package's JSON reading (jsontext with its options,
// and the walk of a value's span) against encoding/json: it accepts what
// json.Valid accepts, and walking what it accepts gives what json.Unmarshal
// gives.
func FuzzJSON(f *testing.F) {
	seeds(f, func(data []byte) { f.Add(data) })
	for _, s := range []string{`{"a":[1,-2.5e3,true,false,null,"x\u00e9\ud83d\ude00"],"b":{}}`, `[]`, `""`, `0`, `-0.0E+1`, `[1,]`, `{"a" 1}`, `"\x"`, "\"\xff\"", `01`, `1.`, `{"a":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkJSON(t, data)
	})
}

func checkJSON(t *testing.T, data []byte) {
	t.Helper()
	tx := &text{data: data}
	v, err := tx.value(tx.ws(0))
	ok := err == nil && tx.ws(v.end) == len(data)
	if ok != json.Valid(data) {
		t.Fatalf("%q: accepted %v (%v), json.Valid %v", data, ok, err, !ok)
	}
	if err != nil && (err.off < 0 || err.off > len(data) || err.msg == "") {
		t.Fatalf("%q: error %+v", data, err)
	}
	if !ok {
		return
	}
	var want any
	if json.Unmarshal(data, &want) != nil {
		return // a number out of range
	}
	if got := walk(tx, v); !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: walked %#v, want %#v", data, got, want)
	}
}

// walk turns a checked value into what json.Unmarshal makes of it, with
// the package's walking functions.
func walk(t *text, v jv) any {
	switch v.kind {
	case '{':
		m := map[string]any{}
		t.members(v, func(k, val jv) bool {
			m[t.str(k)] = walk(t, val)
			return true
		})
		return m
	case '[':
		a := []any{}
		t.elems(v, func(_ int, e jv) bool {
			a = append(a, walk(t, e))
			return true
		})
		return a
	case '"':
		return t.str(v)
	case '0':
		f, _ := strconv.ParseFloat(string(t.data[v.start:v.end]), 64)
		return f
	case 't':
		return true
	case 'f':
		return false
	}
	return nil
}

func TestJSON(t *testing.T) {
	for _, s := range []string{
		`{"a":[1,-2.5e3,true,false,null,"x\u00e9\ud83d\ude00\"\\\/\b\f\n\r\t"],"b":{},"c":[[]],"d":""}`,
		` [ 1 , { "k" : "v" } ] `, `""`, `0`, `-0.0E+1`, `1e5`, "\"\xff\xfe\"", `"\ud800"`,
		`[1,]`, `{"a" 1}`, `"\x"`, `01`, `1.`, `.5`, `-`, `1e`, `tru`, `nul`, `{"a":1,}`, `{1:2}`, `[`, `"abc`,
		"\"a\x01b\"", `{"a":1}{}`, `"\ud800x"`, `"\ud800\u0041"`, `"\udc00\ud800"`, `"\ud83d\ude00\ud83d"`, `"\uD83D\uDE00"`,
		"\"\xff\"", "\"\xe2\x82\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"caf\xc3\xa9\\n\"", `[1 2]`, `{"a":{"b":[1,{"c":null}]}}`, `{"a":1,"a":2}`,
		strings.Repeat("[", 9999) + strings.Repeat("]", 9999),
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	} {
		checkJSON(t, []byte(s))
	}
}
