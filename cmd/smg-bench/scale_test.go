package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg/format"
)

// TestMeasureScale: scale makes one conversation of the chats repeated,
// ingests it with the smg binary, and measures every step, what sits
// beside the file, the warm contexts and recall per chat and in one
// memory.
func TestMeasureScale(t *testing.T) {
	if testing.Short() {
		t.Skip("builds smg")
	}
	bin := filepath.Join(t.TempDir(), "smg")
	if out, err := exec.Command("go", "build", "-o", bin, "../smg").CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	dir := t.TempDir()
	o := scaleOptions{data: writeTiny(t), repeat: 3, smg: bin, dir: dir, question: "Where was the violin made?", budget: 200, tokenizer: "estimate", recall: true}
	rep, err := measureScale(context.Background(), o, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Turns != 3*len(tinyTurns(t)) || rep.InputMB <= 0 {
		t.Errorf("%d turns, %.3f MB", rep.Turns, rep.InputMB)
	}
	doc, err := format.ReadFile(filepath.Join(dir, "scale.smg"), nil)
	if err != nil || doc.Metadata.TotalExchanges != rep.Turns {
		t.Fatalf("the memory: %v", err)
	}
	if len(rep.Steps) != 6 {
		t.Fatalf("%d steps", len(rep.Steps))
	}
	for _, s := range rep.Steps {
		if s.Seconds <= 0 || s.PeakMB <= 0 || !strings.HasPrefix(s.Command, "smg ") {
			t.Errorf("%+v", s)
		}
	}
	if rep.FileMB <= 0 || rep.StateMB <= 0 || rep.IndexCacheMB <= 0 {
		t.Errorf("file %.3f, state %.3f, index cache %.3f MB", rep.FileMB, rep.StateMB, rep.IndexCacheMB)
	}
	if rep.Warm.Calls != 8 || rep.Warm.P99 < rep.Warm.P50 {
		t.Errorf("warm contexts %+v", rep.Warm)
	}
	if rep.PerChat == nil || rep.OneMemory == nil || !rep.OneMemory.One || rep.PerChat.One {
		t.Fatalf("recall %+v %+v", rep.PerChat, rep.OneMemory)
	}
	var out bytes.Buffer
	if err := writeScale(&out, rep); err != nil || !strings.Contains(out.String(), "context with the index cache") || !strings.Contains(out.String(), "one memory") {
		t.Errorf("%v\n%s", err, out.String())
	}
}
