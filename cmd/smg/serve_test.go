package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
)

// TestServe runs smg serve as a user would: it says where it listens,
// answers a chat client's loop (create, append, context), writes the
// memory as a file smg reads, and ends cleanly on SIGTERM.
func TestServe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "memories")
	url, cmd, stderr := startServe(t, "--dir", dir)
	post := poster(t, url, "")
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
	// The index, written with the file as the server stopped.
	if _, err := os.Stat(filepath.Join(format.IndexCacheDir(filepath.Join(dir, "default", "dana.smg")), "smg-key")); err != nil {
		t.Errorf("the memory's index was not kept: %v", err)
	}
	if r := run(t, nil, "serve", "--dir", dir, "--index-cache", t.TempDir()); r.status != 2 || !strings.Contains(r.stderr, "--store") {
		t.Errorf("--index-cache with --dir: %d %s", r.status, r.stderr)
	}
}

// startServe starts smg serve with args on a free loopback port, and
// returns its address once it says it serves.
func startServe(t *testing.T, args ...string) (url string, cmd *exec.Cmd, stderr *strings.Builder) {
	t.Helper()
	return startListening(t, append([]string{"serve", "--addr", "127.0.0.1:0", "--no-vectors"}, args...)...)
}

// startListening starts smg with args, a command that serves, and returns
// the address its first line says it serves on.
func startListening(t *testing.T, args ...string) (url string, cmd *exec.Cmd, stderr *strings.Builder) {
	t.Helper()
	cmd = exec.Command(smgBinary(t), args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr = &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	_, url, ok := strings.Cut(strings.TrimSpace(line), " on ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q", line)
	}
	if i := strings.Index(url[len("http://"):], "/"); i >= 0 {
		url = url[:len("http://")+i] // the address alone
	}
	return url, cmd, stderr
}

// poster posts JSON to the server at url with the API key ("": none) and
// returns the answer, failing the test on an error status.
func poster(t *testing.T, url, key string) func(path, body string) map[string]any {
	return func(path, body string) map[string]any {
		t.Helper()
		req, err := http.NewRequest("POST", url+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
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
}

// TestServePostgres runs smg serve --store on a PostgreSQL database
// ($SMG_TEST_POSTGRES, which .ci/run starts), with a key added by smg
// serve key add --store: a turn appended through one server process is in
// the context of another started after the first was killed.
func TestServePostgres(t *testing.T) {
	admin := os.Getenv("SMG_TEST_POSTGRES")
	if admin == "" {
		t.Skip("no PostgreSQL server: set SMG_TEST_POSTGRES (.ci/run does)")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	db := fmt.Sprintf("smg_cmd_%d", time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+db); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(ctx, "DROP DATABASE "+db+" WITH (FORCE)")
	u, _ := neturl.Parse(admin)
	u.Path = "/" + db
	store := u.String()

	r := run(t, nil, "serve", "key", "add", "--store", store, "--tenant", "acme", "--scope", "write")
	key := strings.TrimSpace(r.stdout)
	if r.status != 0 || !strings.HasPrefix(key, "smg_") {
		t.Fatalf("key add: %d %s %s", r.status, r.stdout, r.stderr)
	}
	if r := run(t, nil, "serve", "key", "list", "--store", store); !strings.Contains(r.stdout, "acme") || strings.Contains(r.stdout, key) {
		t.Errorf("key list: %s", r.stdout)
	}
	url, first, _ := startServe(t, "--store", store)
	post := poster(t, url, key)
	post("/v1/memories", `{"id": "dana"}`)
	if got := post("/v1/memories/dana/turns", `{"turns": [{"role": "user", "content": "We use PostgreSQL for the ledger.", "id": "m1"}]}`); got["added"] != float64(1) {
		t.Errorf("append: %v", got)
	}
	first.Process.Kill() // acknowledged: kept, however the server ends
	first.Wait()
	caches := t.TempDir()
	url, second, _ := startServe(t, "--store", store, "--index-cache", caches)
	if got := poster(t, url, key)("/v1/memories/dana/context", `{"question": "Which database for the ledger?"}`); !strings.Contains(got["text"].(string), "PostgreSQL") {
		t.Errorf("the second server's context: %v", got)
	}
	second.Process.Signal(syscall.SIGTERM)
	second.Wait()
	if _, err := os.Stat(filepath.Join(caches, "acme", "dana", "index", "smg-key")); err != nil {
		t.Errorf("the second server kept no index of the memory: %v", err)
	}
	if r := run(t, nil, "serve", "--store", store, "--dir", "x"); r.status != 2 {
		t.Errorf("--store with --dir: %d %s", r.status, r.stderr)
	}

	// One file imported into both stores exports as the same bytes.
	dir := t.TempDir()
	file := filepath.Join(dir, "shop.smg")
	if r := run(t, nil, "ingest", "../../smg/examples/checkout.json", "-o", file, "--no-vectors"); r.status != 0 {
		t.Fatal(r.stderr)
	}
	var exports [][]byte
	for _, where := range [][]string{{"--dir", filepath.Join(dir, "memories")}, {"--store", store}} {
		if r := run(t, nil, append([]string{"serve", "import", file, "--tenant", "acme"}, where...)...); r.status != 0 || !strings.Contains(r.stdout, "acme/shop: 20 turns") {
			t.Fatalf("import %v: %d %s %s", where, r.status, r.stdout, r.stderr)
		}
		out := filepath.Join(dir, fmt.Sprint(len(exports), ".smg"))
		if r := run(t, nil, append([]string{"serve", "export", "shop", "--tenant", "acme", "-o", out}, where...)...); r.status != 0 {
			t.Fatalf("export %v: %s", where, r.stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		exports = append(exports, b)
	}
	if !bytes.Equal(exports[0], exports[1]) {
		t.Errorf("the directory's export (%d bytes) and PostgreSQL's (%d) differ", len(exports[0]), len(exports[1]))
	}
}

// TestServeImportExport: a .smg file goes into a directory store and
// comes out as a file smg reads, with the same turns; a memory is not
// imported twice, and an unknown one is not exported.
func TestServeImportExport(t *testing.T) {
	dir := t.TempDir()
	memories := filepath.Join(dir, "memories")
	file := filepath.Join(dir, "dana.smg")
	if r := run(t, nil, "ingest", "../../smg/examples/checkout.json", "-o", file, "--no-vectors"); r.status != 0 {
		t.Fatal(r.stderr)
	}
	if r := run(t, nil, "serve", "import", file, "--dir", memories); r.status != 0 || !strings.Contains(r.stdout, "default/dana: 20 turns") {
		t.Fatalf("import: %d %s %s", r.status, r.stdout, r.stderr)
	}
	if r := run(t, nil, "serve", "import", file, "--dir", memories); r.status != 2 || !strings.Contains(r.stderr, "exists") {
		t.Errorf("imported twice: %d %s", r.status, r.stderr)
	}
	out := filepath.Join(dir, "out.smg")
	if r := run(t, nil, "serve", "export", "dana", "--dir", memories, "-o", out); r.status != 0 {
		t.Fatal(r.stderr)
	}
	m, err := smg.Open(out, &smg.OpenOptions{NoVectors: true})
	if err != nil || m.Turns() != 20 {
		t.Errorf("the export: %v", err)
	}
	if r := run(t, nil, "serve", "export", "nobody", "--dir", memories, "-o", out); r.status != 2 || !strings.Contains(r.stderr, "no such memory") {
		t.Errorf("an unknown memory: %d %s", r.status, r.stderr)
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
	if r = run(t, nil, "serve", "key", "add", "--dir", dir, "--tenant", "acme", "--expires", "2099-01-31"); r.status != 0 || !strings.Contains(r.stderr, "until 2099-01-31T00:00:00Z") {
		t.Errorf("add with an expiry: %d %s", r.status, r.stderr)
	}
	if r = run(t, nil, "serve", "key", "list", "--dir", dir); !strings.Contains(r.stdout, "active until 2099-01-31T00:00:00Z") {
		t.Errorf("list of a key that expires: %s", r.stdout)
	}
	for _, args := range [][]string{
		{"serve", "key", "add", "--dir", dir, "--tenant", "acme", "--expires", "-1h"},
		{"serve", "key", "add", "--dir", dir, "--tenant", "acme", "--expires", "2001-01-01"},
		{"serve", "key", "add", "--dir", dir, "--tenant", "acme", "--expires", "next week"},
		{"serve", "key", "revoke", "--dir", dir, "nope"},
		{"serve", "key", "add", "--dir", dir},
		{"serve", "key", "add", "--dir", dir, "--tenant", "acme", "--scope", "root"},
		{"serve", "key", "add", "--dir", dir, "--tenant", "../x"},
		{"serve", "key", "add", "--dir", dir, "--tenant", "ACME"},
		{"serve", "key", "reset", "--dir", dir},
	} {
		if r = run(t, nil, args...); r.status != 2 || r.stderr == "" {
			t.Errorf("%q: %d %q", args, r.status, r.stderr)
		}
	}
	open := filepath.Join(t.TempDir(), "open")
	if r = run(t, nil, "serve", "--dir", open, "--addr", "0.0.0.0:0", "--no-vectors"); r.status != 2 || !strings.Contains(r.stderr, "no API keys") {
		t.Errorf("a directory without keys on every interface: %d %q", r.status, r.stderr)
	}

	// keys.json removed: the directory had keys, and no server serves it
	// until they are back or reset.
	if err := os.Remove(filepath.Join(dir, "keys.json")); err != nil {
		t.Fatal(err)
	}
	if r = run(t, nil, "serve", "--dir", dir, "--addr", "127.0.0.1:0", "--no-vectors"); r.status == 0 || !strings.Contains(r.stderr, "key reset") {
		t.Errorf("a directory that had keys, without keys.json: %d %q", r.status, r.stderr)
	}
	if r = run(t, nil, "serve", "key", "reset", "--dir", dir, "--yes"); r.status != 0 {
		t.Errorf("reset: %d %q", r.status, r.stderr)
	}
	url, _, _ := startServe(t, "--dir", dir)
	if resp, err := http.Get(url + "/v1/memories"); err != nil || resp.StatusCode != 200 {
		t.Errorf("after the reset, without a key: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
}

// TestWebView runs smg view FILE as a user would: it prints an address on
// the loopback interface where the web interface and the file's memory
// are served; a fact pinned through it is pinned in the file; it makes no
// other memory; it refuses an address others could reach.
func TestWebView(t *testing.T) {
	file := filepath.Join(t.TempDir(), "shop.smg")
	if r := run(t, nil, "ingest", "../../smg/examples/checkout.json", "-o", file, "--no-vectors"); r.status != 0 {
		t.Fatalf("ingest: %s", r.stderr)
	}
	if r := run(t, nil, "view", file, "--addr", "0.0.0.0:0", "--no-vectors"); r.status != 2 || !strings.Contains(r.stderr, "loopback") {
		t.Errorf("view on 0.0.0.0: status %d, %s", r.status, r.stderr)
	}
	url, cmd, stderr := startListening(t, "view", file, "--no-vectors")
	resp, err := http.Get(url + "/ui/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), "<script") {
		t.Fatalf("/ui/: %d %.200s", resp.StatusCode, page)
	}
	resp, err = http.Get(url + "/v1/memories")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Memories []string }
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list.Memories) != 1 || list.Memories[0] != "shop" {
		t.Fatalf("memories: %+v", list)
	}
	req, _ := http.NewRequest("PATCH", url+"/v1/memories/shop/facts/fact-dana-is-working-on-the-shop-with-their", strings.NewReader(`{"pinned": true}`))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("pin: %v %v", err, resp.Status)
	}
	resp, err = http.Post(url+"/v1/memories", "application/json", strings.NewReader(`{"id": "other"}`))
	if err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a memory made through smg view: %v %v", err, resp.Status)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v\n%s", err, stderr.String())
	}
	m, err := smg.Open(file, &smg.OpenOptions{NoVectors: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	pinned := false
	for _, f := range m.Facts(smg.FactFilter{Pinned: true}) {
		pinned = pinned || f.ID == "fact-dana-is-working-on-the-shop-with-their"
	}
	if !pinned {
		t.Error("the fact pinned through smg view is not pinned in the file")
	}
}
