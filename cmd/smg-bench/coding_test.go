package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg"
)

// codingFixture writes aider-basic.md as a session of a data directory,
// and a questions file of qs (JSON lines); it returns both paths.
func codingFixture(t *testing.T, qs ...string) (dir, questions string) {
	t.Helper()
	log, err := os.ReadFile("../../smg/importer/testdata/aider-basic.md")
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "basic.md"), log, 0o644); err != nil {
		t.Fatal(err)
	}
	questions = filepath.Join(dir, "q.jsonl")
	if err := os.WriteFile(questions, []byte(strings.Join(qs, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, questions
}

// coding-recall asks each question of its session's memory: recall of the
// turns that answer it, the baselines beside it, and no chatter in the
// contexts. A turn whose content is not the one the question names is an
// error, not a wrong measure.
func TestCodingRecall(t *testing.T) {
	dir, _ := codingFixture(t)
	turns, err := sessionTurns(dir, "basic")
	if err != nil {
		t.Fatal(err)
	}
	var webhook, fix int
	for i, tu := range turns {
		switch {
		case strings.HasPrefix(tu.Content, "The Stripe webhook returns 401"):
			webhook = i + 1
		case strings.HasPrefix(tu.Content, "The handler verifies"):
			fix = i + 1
		}
	}
	if webhook == 0 || fix == 0 || turns[webhook-1].ExternalID != fmt.Sprint(webhook) {
		t.Fatalf("the log's turns: %+v", turns)
	}
	q := fmt.Sprintf(`{"session":"basic","question":"Why did the Stripe webhook return 401 in production?","evidence":[{"turn":%d,"content":%q},{"turn":%d,"content":%q}]}`,
		webhook, contentKey(turns[webhook-1].Content), fix, contentKey(turns[fix-1].Content))
	dir, questions := codingFixture(t, q)
	rep, err := measureCodingRecall(t.Context(), dir, questions, smg.CL100K, []int{1000})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Asked != 1 || rep.Sessions != 1 || rep.Recall[systemSMG][0] != 1 || len(rep.Recall[systemBM25]) != 1 || rep.Chatter[0] != 0 {
		t.Errorf("report %+v", rep)
	}

	bad := strings.Replace(q, contentKey(turns[fix-1].Content), "000000000000", 1)
	dir, questions = codingFixture(t, bad)
	if _, err := measureCodingRecall(t.Context(), dir, questions, smg.CL100K, []int{1000}); err == nil || !strings.Contains(err.Error(), "is not the turn") {
		t.Errorf("a question naming another turn's content: %v", err)
	}
	dir, questions = codingFixture(t, `{"session":"basic","question":"?"}`)
	if _, err := measureCodingRecall(t.Context(), dir, questions, smg.CL100K, []int{1000}); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a question without evidence: %v", err)
	}
}

// Chatter is counted by the line, the speaker left out.
func TestChatterTokens(t *testing.T) {
	tk, err := smg.NewTokenizer(smg.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	text := "user: /undo\ntool (excerpt): …Applied edit to a.go\nassistant: Commit is a word here.\nSee: the docs\n"
	want := tk.Count("user: /undo") + tk.Count("tool (excerpt): …Applied edit to a.go")
	if got := chatterTokens(text, tk); got != want {
		t.Errorf("chatterTokens = %d, want %d", got, want)
	}
}
