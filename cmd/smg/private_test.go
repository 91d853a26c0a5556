package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
)

func TestPrivateCommands(t *testing.T) {
	name := filepath.Join(t.TempDir(), "shop.smg")
	ingest(t, nil, filepath.Join(conversationsDir, "checkout.json"), "-o", name)
	alicePW := map[string]string{privateEnv: "alice's passphrase"}
	succeed(t, nil, "collaborators", "add", name, "alice", "--name", "Alice")
	succeed(t, nil, "collaborators", "add", name, "bob")
	succeed(t, alicePW, "remember", name, "Alice is negotiating the Zorbacorp checkout contract", "--private", "alice", "--seal", "--category", "project")
	succeed(t, nil, "remember", name, "Bob prefers answers in German", "--private", "bob", "--category", "preference")

	var rows []struct {
		ID, Name, Private string
	}
	if err := json.Unmarshal([]byte(succeed(t, nil, "collaborators", name, "--json")), &rows); err != nil || len(rows) != 2 ||
		rows[0].ID != "alice" || rows[0].Name != "Alice" || rows[0].Private != "sealed" || rows[1].ID != "bob" || rows[1].Private != "clear" {
		t.Errorf("collaborators: %v %+v", err, rows)
	}
	if r := run(t, nil, "remember", name, "Mallory was here all along", "--private", "mallory"); r.status != exitInvalid || !strings.Contains(r.stderr, "not a collaborator") {
		t.Errorf("a stranger's part: status %d: %s", r.status, r.stderr)
	}

	q := "what is the state of the Zorbacorp checkout contract?"
	if out := succeed(t, nil, "context", name, q, "--as", "bob", "--no-index-cache"); strings.Contains(strings.ToLower(out), "zorbacorp") || !strings.Contains(out, "German") {
		t.Errorf("bob's context:\n%s", out)
	}
	if out := succeed(t, alicePW, "context", name, q, "--as", "alice", "--no-index-cache"); !strings.Contains(out, "Zorbacorp") || strings.Contains(out, "German") {
		t.Errorf("alice's context:\n%s", out)
	}
	if r := run(t, nil, "context", name, q, "--as", "alice"); r.status != exitPassword || !strings.Contains(r.stderr, privateEnv) {
		t.Errorf("alice's context without her password: status %d: %s", r.status, r.stderr)
	}
	if r := run(t, map[string]string{privateEnv: "a guess"}, "facts", name, "--private", "alice"); r.status != exitPassword || !strings.Contains(r.stderr, privateEnv) {
		t.Errorf("a wrong password: status %d: %s", r.status, r.stderr)
	}
	if out := succeed(t, alicePW, "facts", name, "--private", "alice"); !strings.Contains(out, "Zorbacorp") {
		t.Errorf("alice's facts:\n%s", out)
	}

	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := format.Unmarshal(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := format.Marshal(doc, &smg.EncodeOptions{Plain: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(string(plain)), "zorbacorp") || !strings.Contains(string(plain), "Bob prefers answers in German") {
		t.Error("the file shows alice's sealed note, or not bob's note in the clear")
	}
	succeed(t, nil, "validate", name)

	if r := run(t, alicePW, "remember", name, "I like tea", "--seal"); r.status != exitUsage {
		t.Errorf("--seal without --private: status %d: %s", r.status, r.stderr)
	}
	if r := run(t, nil, "collaborators", "add", name, "not an id"); r.status != exitInvalid {
		t.Errorf("a bad collaborator id: status %d: %s", r.status, r.stderr)
	}
	// Alice's part is sealed: removing her destroys it, only with
	// --force; bob's is in the clear.
	unchanged := readOnly(t, name)
	r := run(t, nil, "collaborators", "remove", name, "alice")
	if r.status != exitInvalid || r.stdout != "" ||
		!strings.Contains(r.stderr, `smg: the private part of "alice": it is sealed: removing its owner destroys it, and no one else can read it`) ||
		!strings.Contains(r.stderr, "hint: nothing was removed; --force removes the collaborator and destroys the part") {
		t.Errorf("removing alice without --force: status %d, stdout %q, stderr %q", r.status, r.stdout, r.stderr)
	}
	unchanged("collaborators remove without --force")
	if out := succeed(t, nil, "collaborators", "remove", name, "alice", "--force"); out != "removed collaborator alice (Alice)\n  and destroyed their sealed private part\n" {
		t.Errorf("collaborators remove --force: %q", out)
	}
	if doc, err := format.ReadFile(name, nil); err != nil || len(doc.PrivateContexts) != 1 || doc.PrivateContexts[0].Owner != "bob" {
		t.Errorf("after removing alice, the private parts: %v %+v", err, doc)
	}
	if out := succeed(t, nil, "collaborators", name); strings.Contains(out, "alice") || !strings.Contains(out, "bob") {
		t.Errorf("after removing alice:\n%s", out)
	}
	if out := succeed(t, nil, "collaborators", "remove", name, "bob"); out != "removed collaborator bob\n  and their private part\n" {
		t.Errorf("collaborators remove bob: %q", out)
	}
}
