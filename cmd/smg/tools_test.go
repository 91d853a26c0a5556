package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg/tools"
)

func TestToolsCommand(t *testing.T) {
	for _, format := range []string{"openai", "anthropic", "mcp"} {
		r := run(t, nil, "tools", "--format", format)
		if r.status != exitOK || r.stderr != "" {
			t.Fatalf("tools --format %s: status %d: %s", format, r.status, r.stderr)
		}
		if !json.Valid([]byte(r.stdout)) {
			t.Errorf("tools --format %s: not JSON:\n%s", format, r.stdout)
		}
		// What the library formats, and nothing else.
		b, _ := tools.Format(tools.Definitions(), format)
		if r.stdout != string(b)+"\n" {
			t.Errorf("tools --format %s differs from tools.Format", format)
		}
		golden(t, "tools-"+format+".json", r.stdout)
	}
	if r := run(t, nil, "tools"); r.status != exitOK || !strings.HasPrefix(r.stdout, `[
  {
    "type": "function",`) {
		t.Errorf("tools: status %d, want the openai format:\n%.200s", r.status, r.stdout)
	}

	r := run(t, nil, "tools", "--guidance")
	if r.status != exitOK || r.stdout != tools.Guidance+"\n" {
		t.Errorf("tools --guidance: status %d:\n%s", r.status, r.stdout)
	}
	golden(t, "tools-guidance.txt", r.stdout)

	for _, args := range [][]string{{"tools", "--format", "gemini"}, {"tools", "save_memory"}} {
		if r := run(t, nil, args...); r.status != exitUsage || r.stdout != "" {
			t.Errorf("%q: status %d, stdout %q", args, r.status, r.stdout)
		}
	}
}
