package tools_test

import (
	"context"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/smg-memory/smg/smg/tools"
)

// FuzzCall feeds tool calls whatever input: a reply or an error, never a
// panic; a reply is a success, a duplicate, or says what is wrong.
func FuzzCall(f *testing.F) {
	for _, s := range []string{
		`{"content":"User prefers dark mode in editors","category":"preference","reasoning":"said so"}`,
		`{"content":"The crawler retries three times","category":"project","reasoning":"x","scope":"workspace:crawler"}`,
		`{"id":"fact-user-prefers-dark-mode-in-editors"}`,
		`{"query":"dark mode","limit":3,"category":"preference","memory":"user"}`,
		`{"query":"what does the user prefer?","budget":300}`,
		`{"content":null}`, `[]`, `{}`, `{"budget":1e309}`, `{"query":"\u0000"}`, "{\"content\":\"\xff\xfe\"}", `nul`,
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	h := tools.NewHandler(open(f, dir, "me.smg"), open(f, dir, "ws.smg"), nil)
	names := []string{tools.SaveMemory, tools.RemoveMemory, tools.SearchMemory, tools.GetContext, tools.RecordTurns}
	f.Fuzz(func(t *testing.T, input string) {
		for _, name := range names {
			r, err := h.Call(context.Background(), name, json.RawMessage(input))
			if err != nil {
				t.Fatalf("%s %q: %v", name, input, err)
			}
			if r.Success && r.IsError() || !r.Success && !r.IsError() && !r.Duplicate {
				t.Fatalf("%s %q: success %v, duplicate %v and error %q", name, input, r.Success, r.Duplicate, r.Error)
			}
			if !utf8.ValidString(r.Error) {
				t.Fatalf("%s %q: the error is not UTF-8: %q", name, input, r.Error)
			}
		}
	})
}
