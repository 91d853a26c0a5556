package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/smg-memory/smg/smg"
)

// TestServe runs smg serve as a user would: it says where it listens,
// answers a chat client's loop (create, append, context), writes the
// memory as a file smg reads, and ends cleanly on SIGTERM.
func TestServe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "memories")
	cmd := exec.Command(smgBinary(t), "serve", "--dir", dir, "--addr", "127.0.0.1:0", "--no-vectors")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	_, url, ok := strings.Cut(strings.TrimSpace(line), " on ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q", line)
	}
	post := func(path, body string) map[string]any {
		t.Helper()
		resp, err := http.Post(url+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var v map[string]any
		if err := json.Unmarshal(raw, &v); err != nil || resp.StatusCode >= 300 {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, raw)
		}
		return v
	}
	post("/v1/memories", `{"id": "dana"}`)
	if got := post("/v1/memories/dana/turns", `{"turns": [{"role": "user", "content": "We use PostgreSQL for the ledger.", "id": "m1"}]}`); got["added"] != float64(1) {
		t.Errorf("append: %v", got)
	}
	if got := post("/v1/memories/dana/context", `{"question": "Which database for the ledger?"}`); !strings.Contains(got["text"].(string), "PostgreSQL") {
		t.Errorf("context: %v", got)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("after SIGTERM: %v\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("still serving 30 s after SIGTERM")
	}
	m, err := smg.Open(filepath.Join(dir, "default", "dana.smg"), &smg.OpenOptions{NoVectors: true})
	if err != nil || m.Turns() != 1 {
		t.Errorf("the memory's file: %v", err)
	}
}

// TestServeKeys: keys are added (shown once), listed without their hashes
// and revoked from the command line; a directory without keys is not
// served past the loopback interface.
func TestServeKeys(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "memories")
	r := run(t, nil, "serve", "key", "add", "--dir", dir, "--tenant", "acme", "--scope", "read", "--label", "the app")
	secret := strings.TrimSpace(r.stdout)
	if r.status != 0 || !strings.HasPrefix(secret, "smg_") || !strings.Contains(r.stderr, "not shown again") {
		t.Fatalf("add: %d %q %q", r.status, r.stdout, r.stderr)
	}
	r = run(t, nil, "serve", "key", "list", "--dir", dir, "--json")
	var keys []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &keys); err != nil || len(keys) != 1 || keys[0]["tenant"] != "acme" || keys[0]["scope"] != "read" {
		t.Fatalf("list: %v %s", err, r.stdout)
	}
	if strings.Contains(r.stdout, secret[len(secret)-20:]) || keys[0]["hash"] != nil {
		t.Errorf("the list shows the key or its hash: %s", r.stdout)
	}
	if r = run(t, nil, "serve", "key", "revoke", "--dir", dir, keys[0]["id"].(string)); r.status != 0 {
		t.Errorf("revoke: %d %s", r.status, r.stderr)
	}
	if r = run(t, nil, "serve", "key", "list", "--dir", dir); !strings.Contains(r.stdout, "revoked") {
		t.Errorf("list after revoke: %s", r.stdout)
	}
	for _, args := range [][]string{
		{"serve", "key", "revoke", "--dir", dir, "nope"},
		{"serve", "key", "add", "--dir", dir},
		{"serve", "key", "add", "--dir", dir, "--tenant", "acme", "--scope", "root"},
		{"serve", "key", "add", "--dir", dir, "--tenant", "../x"},
	} {
		if r = run(t, nil, args...); r.status != 2 || r.stderr == "" {
			t.Errorf("%q: %d %q", args, r.status, r.stderr)
		}
	}
	open := filepath.Join(t.TempDir(), "open")
	if r = run(t, nil, "serve", "--dir", open, "--addr", "0.0.0.0:0", "--no-vectors"); r.status != 2 || !strings.Contains(r.stderr, "no API keys") {
		t.Errorf("a directory without keys on every interface: %d %q", r.status, r.stderr)
	}
}
