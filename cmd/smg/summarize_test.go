package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
)

// chatServer is an OpenAI-compatible chat server that summarizes any text
// as "Zeppelin notes: " and its first line; fail, while set, makes it
// answer with that status.
func chatServer(t *testing.T, fail *atomic.Int32) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if st := fail.Load(); st != 0 {
			http.Error(w, `{"error":{"message":"no such model"}}`, int(st))
			return
		}
		var req struct {
			Model    string
			Messages []struct{ Role, Content string }
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/v1/chat/completions" || len(req.Messages) != 2 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		_, text, _ := strings.Cut(req.Messages[1].Content, "\n\n")
		first, _, _ := strings.Cut(text, "\n")
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": "Zeppelin notes: " + first}}},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// parcelsFile writes a memory of ten turns in blocks of four: two closed
// blocks and an open one.
func parcelsFile(t *testing.T) string {
	t.Helper()
	m := smg.New(&smg.Options{Config: smg.Config{BlockSize: 4}})
	for k := 1; k <= 10; k++ {
		if err := m.Ingest(context.Background(), smg.Turn{Role: "user", Speaker: "Dana", Content: fmt.Sprintf("We decided to send parcel %d from Rotterdam.", k)}); err != nil {
			t.Fatal(err)
		}
	}
	name := filepath.Join(t.TempDir(), "parcels.smg")
	if err := m.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestSummarizeCommand(t *testing.T) {
	var fail atomic.Int32
	srv := chatServer(t, &fail)
	env := map[string]string{"SMG_PROVIDER_URL": srv.URL + "/v1", "SMG_CHAT_MODEL": "summ-1"}
	name := parcelsFile(t)

	// No provider: a usage error that says what to set.
	unchanged := readOnly(t, name)
	r := run(t, nil, "summarize", name)
	if r.status != exitUsage || !strings.Contains(r.stderr, "SMG_PROVIDER_URL") || !strings.Contains(r.stderr, "SMG_CHAT_MODEL") {
		t.Errorf("summarize without a provider: status %d\n%s", r.status, r.stderr)
	}
	unchanged("summarize without a provider")

	// The model fails (a 4xx is not retried): the file as it was.
	fail.Store(http.StatusNotFound)
	r = run(t, env, "summarize", name)
	if r.status != exitFailure || !strings.Contains(r.stderr, "block-0001") || !strings.Contains(r.stdout, "0 blocks summarized by summ-1; 2 left") {
		t.Errorf("summarize with a failing model: status %d\n%s%s", r.status, r.stdout, r.stderr)
	}
	unchanged("summarize with a failing model")
	fail.Store(0)

	out := succeed(t, env, "summarize", name)
	for _, want := range []string{
		"block-0001  1-4  Zeppelin notes: Dana: We decided to send parcel 1 from Rotterdam.\n",
		"block-0002  5-8  Zeppelin notes: Dana: We decided to send parcel 5 from Rotterdam.\n",
		": 2 blocks summarized by summ-1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summarize lacks %q:\n%s", want, out)
		}
	}
	validate(t, nil, name)
	var blocks []format.BlockInfo
	if err := json.Unmarshal([]byte(succeed(t, nil, "archive", name, "--json")), &blocks); err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 3 || blocks[0].SummaryModel != "summ-1" || blocks[1].SummaryModel != "summ-1" || blocks[2].SummaryModel != "" {
		t.Errorf("archive --json: %+v", blocks)
	}
	if out := succeed(t, nil, "search", name, "zeppelin", "--no-index-cache"); !strings.Contains(out, "block-0001") {
		t.Errorf("search zeppelin:\n%s", out)
	}

	// A second run asks for nothing and writes nothing.
	unchanged = readOnly(t, name)
	var rep summaryReport
	if err := json.Unmarshal([]byte(succeed(t, env, "summarize", name, "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Model != "summ-1" || len(rep.Blocks) != 0 || len(rep.Left) != 0 {
		t.Errorf("a second run: %+v", rep)
	}
	unchanged("a second summarize")
}

// An encrypted memory is summarized and stays encrypted.
func TestSummarizeEncrypted(t *testing.T) {
	var fail atomic.Int32
	srv := chatServer(t, &fail)
	name := parcelsFile(t)
	if r := run(t, withPassword("pw"), "encrypt", name); r.status != exitOK {
		t.Fatalf("encrypt: %s", r.stderr)
	}
	env := map[string]string{passwordEnv: "pw", "SMG_PROVIDER_URL": srv.URL + "/v1"}
	var rep summaryReport
	if err := json.Unmarshal([]byte(succeed(t, env, "summarize", name, "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Model != "gpt-4o-mini" || len(rep.Blocks) != 2 || rep.Blocks[1].ID != "block-0002" || rep.Blocks[1].Turns != [2]int{5, 8} {
		t.Errorf("summarize --json: %+v", rep)
	}
	if r := run(t, nil, "archive", name); r.status != exitPassword {
		t.Errorf("the memory is no longer encrypted: status %d", r.status)
	}
	validate(t, withPassword("pw"), name)
}
