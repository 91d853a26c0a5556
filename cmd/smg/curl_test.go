package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCurlExamples runs the curl lines that send a body, of README.md and
// of smg serve --help, as a person would paste them, against smg serve:
// each is answered, and not with a problem, and the last finds the turn.
func TestCurlExamples(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed (.ci/run installs it): the examples were not run")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []struct{ name, text string }{{"README.md", string(readme)}, {"smg serve --help", serveLong}} {
		cmds := curlCommands(src.text)
		if len(cmds) != 3 {
			t.Fatalf("%s: %d curl lines with a body, want the chat loop's 3: %q", src.name, len(cmds), cmds)
		}
		// As a person runs it: with the built-in encoder, which finds the
		// turn that shares no word with the question.
		url, _, _ := startListening(t, "serve", "--addr", "127.0.0.1:0", "--dir", filepath.Join(t.TempDir(), "memories"))
		var last map[string]any
		for _, c := range cmds {
			c = strings.ReplaceAll(c, "localhost:8080", strings.TrimPrefix(url, "http://"))
			out, err := exec.Command("sh", "-c", c).Output()
			if err != nil {
				t.Fatalf("%s: %s: %v", src.name, c, err)
			}
			last = nil
			if err := json.Unmarshal(out, &last); err != nil {
				t.Fatalf("%s: %s: not JSON: %s", src.name, c, out)
			}
			if status, ok := last["status"].(float64); ok && status >= 400 {
				t.Errorf("%s: %s: %s", src.name, c, out)
			}
		}
		if text, _ := last["text"].(string); !strings.Contains(text, "PostgreSQL") {
			t.Errorf("%s: the context does not hold the turn appended: %v", src.name, last)
		}
	}
}

// curlCommands are the curl commands of text that send a body (-d), each
// with the lines that continue it: after a line that ends in a backslash,
// or inside a quote left open.
func curlCommands(text string) []string {
	var cmds []string
	var cur strings.Builder
	open := false // the command goes on
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\n")
		switch {
		case open:
			cur.WriteString("\n" + line)
		case strings.HasPrefix(strings.TrimSpace(line), "curl "):
			cur.Reset()
			cur.WriteString(strings.TrimSpace(line))
		default:
			continue
		}
		c := cur.String()
		open = strings.Count(c, "'")%2 == 1 || strings.HasSuffix(c, `\`)
		if !open && strings.Contains(c, " -d ") {
			cmds = append(cmds, c)
		}
	}
	return cmds
}
