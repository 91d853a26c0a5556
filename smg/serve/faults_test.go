package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/serve"
)

// The tests of this file are the service under faults and abuse (issue
// 35): each repeats what a probe of smg serve did to it, on both stores.

// leftOf lists what the store keeps of the memory id of the default
// tenant: on a directory the names beside its file that are of it, in a
// database its rows.
func (s *testStore) leftOf(t *testing.T, id string) []string {
	t.Helper()
	if !s.postgres() {
		entries, err := os.ReadDir(filepath.Join(s.root, serve.Tenant))
		if err != nil {
			t.Fatal(err)
		}
		var left []string
		for _, e := range entries {
			if n := strings.TrimLeft(e.Name(), "."); strings.HasPrefix(n, id+".smg") {
				left = append(left, e.Name())
			}
		}
		return left
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var memories, changes int
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM smg_memories WHERE id = $1), (SELECT count(*) FROM smg_changes WHERE id = $1)`, id).Scan(&memories, &changes); err != nil {
		t.Fatal(err)
	}
	if memories+changes == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d memories, %d changes", memories, changes)}
}

// TestDeleteIsFinal deletes a memory that three clients append to, on two
// servers of one store, and checks that the delete is final: every request
// sent after it was acknowledged is answered 404, on either server, the
// memory is not made again, and nothing of it is left in the store.
func TestDeleteIsFinal(t *testing.T) {
	a, store := service(t)
	b := httptest.NewServer(serve.New(store.another(t), nil))
	t.Cleanup(b.Close)
	for trial := range 5 {
		id := fmt.Sprintf("doomed%d", trial)
		if status, body, _ := call(t, a, "POST", "/v1/memories", map[string]any{"id": id}); status != http.StatusCreated {
			t.Fatalf("create: %d %v", status, body)
		}
		var acked atomic.Int64 // when the delete was acknowledged, in ns since start
		start := time.Now()
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var mu sync.Mutex
		var before, after []int
		var failures []string
		for c, srv := range []*httptest.Server{a, a, b} {
			wg.Go(func() {
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					sent := time.Since(start).Nanoseconds()
					turn := map[string]any{"turns": []map[string]any{{"role": "user", "content": fmt.Sprintf("client %d says %d", c, i)}}}
					status, raw, _, err := send(srv.Client(), srv.URL+"/v1/memories/"+id+"/turns", "", "POST", turn)
					mu.Lock()
					switch ack := acked.Load(); {
					case err != nil:
						failures = append(failures, err.Error())
					case ack != 0 && sent > ack:
						after = append(after, status)
						if status != http.StatusNotFound {
							failures = append(failures, fmt.Sprintf("client %d, sent after the delete: %d %s", c, status, raw))
						}
					default:
						before = append(before, status)
					}
					mu.Unlock()
				}
			})
		}
		time.Sleep(150 * time.Millisecond)
		status, raw, _, err := send(a.Client(), a.URL+"/v1/memories/"+id, "", "DELETE", nil)
		if err != nil || status != http.StatusNoContent {
			t.Fatalf("delete: %d %s %v", status, raw, err)
		}
		acked.Store(time.Since(start).Nanoseconds())
		time.Sleep(300 * time.Millisecond)
		close(stop)
		wg.Wait()
		for _, f := range failures {
			t.Errorf("trial %d: %s", trial, f)
		}
		if len(before) == 0 || len(after) == 0 {
			t.Fatalf("trial %d: %d appends before the delete, %d after: the test proves nothing", trial, len(before), len(after))
		}
		for _, srv := range []*httptest.Server{a, b} {
			status, body, h := call(t, srv, "GET", "/v1/memories/"+id, nil)
			isProblem(t, "get deleted", status, body, h, http.StatusNotFound, "no such memory")
		}
		if left := store.leftOf(t, id); len(left) > 0 {
			t.Errorf("trial %d: the store keeps %v of the deleted memory", trial, left)
		}
	}
}

// freezer is a TCP proxy to a server that can stop passing bytes, as a
// server stopped by SIGSTOP does: connections are taken, and nothing is
// answered, until it thaws.
type freezer struct {
	ln       net.Listener
	upstream string
	mu       sync.Mutex
	frozen   bool
	thawed   *sync.Cond
	conns    []net.Conn
}

func newFreezer(t *testing.T, upstream string) *freezer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{ln: ln, upstream: upstream}
	f.thawed = sync.NewCond(&f.mu)
	go f.serve()
	t.Cleanup(func() {
		f.thaw()
		ln.Close()
		f.mu.Lock()
		for _, c := range f.conns {
			c.Close()
		}
		f.mu.Unlock()
	})
	return f
}

func (f *freezer) serve() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		go func() {
			f.wait()
			up, err := net.Dial("tcp", f.upstream)
			if err != nil {
				c.Close()
				return
			}
			f.mu.Lock()
			f.conns = append(f.conns, c, up)
			f.mu.Unlock()
			go f.pipe(up, c)
			f.pipe(c, up)
		}()
	}
}

// pipe copies from src to dst, holding what it read while frozen.
func (f *freezer) pipe(dst, src net.Conn) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			f.wait()
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (f *freezer) wait() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.frozen {
		f.thawed.Wait()
	}
}

func (f *freezer) freeze() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.frozen = true
}

func (f *freezer) thaw() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.frozen = false
	f.thawed.Broadcast()
}

// TestHungDatabase: with the database hung (reached through a proxy that
// stops passing bytes, as a PostgreSQL stopped by SIGSTOP), every request
// is answered 503 with Retry-After within the server's timeout, keyed or
// not, on the API and on MCP, naming nothing of the database; once it
// answers again, so does the service.
func TestHungDatabase(t *testing.T) {
	store := postgresOnly(t)
	u, err := url.Parse(store.url)
	if err != nil {
		t.Fatal(err)
	}
	db := u.Host
	proxy := newFreezer(t, db)
	u.Host = proxy.ln.Addr().String()
	through, err := serve.OpenPostgres(context.Background(), u.String(), 0, smg.StoredOptions{Open: smg.OpenOptions{NoVectors: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { through.Close() })
	srv := httptest.NewServer(serve.New(through, &serve.Options{Timeout: 500 * time.Millisecond}))
	t.Cleanup(srv.Close)
	key := store.addKey(t, "acme", serve.ScopeWrite)
	client := &http.Client{Timeout: 20 * time.Second} // far past the server's: a hang, not a slow answer
	turn := map[string]any{"turns": []map[string]any{{"role": "user", "content": "The ledger runs on PostgreSQL."}}}
	if status, raw, _, err := send(client, srv.URL+"/v1/memories", key, "POST", map[string]any{"id": "dana"}); err != nil || status != 201 {
		t.Fatalf("create: %d %s %v", status, raw, err)
	}

	// The store's own calls, past the keys: a memory held open, one to
	// open, the list.
	kept, done, err := through.Open(context.Background(), "acme", "dana")
	if err != nil {
		t.Fatal(err)
	}
	defer done()

	proxy.freeze()
	calls := map[string]func(context.Context) error{
		"read a memory held open": func(ctx context.Context) error { _, err := kept.Memory(ctx); return err },
		"append to it": func(ctx context.Context) error {
			_, err := kept.Record(ctx, []smg.Turn{{Role: "user", Content: "Hung."}}, nil)
			return err
		},
		"open another": func(ctx context.Context) error { _, _, err := through.Open(ctx, "acme", "other"); return err },
		"list":         func(ctx context.Context) error { _, err := through.List(ctx, "acme"); return err },
	}
	for what, call := range calls {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		got := make(chan error, 1)
		go func() { got <- call(ctx) }()
		select {
		case err := <-got:
			if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, serve.ErrUnavailable) {
				t.Errorf("%s, the database hung: %v, want the deadline's error", what, err)
			}
		case <-time.After(20 * time.Second):
			t.Errorf("%s, the database hung: no end 20 s after its deadline", what)
		}
		cancel()
	}

	requests := []struct {
		what, key, method, path string
		body                    any
	}{
		{"list", key, "GET", "/v1/memories", nil},
		{"describe", key, "GET", "/v1/memories/dana", nil},
		{"append", key, "POST", "/v1/memories/dana/turns", turn},
		{"context", key, "POST", "/v1/memories/dana/context", map[string]any{"question": "Which database?"}},
		{"a key that is none", "garbage", "GET", "/v1/memories", nil},
		{"mcp", key, "POST", "/mcp/dana", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}},
	}
	var wg sync.WaitGroup
	for _, r := range requests {
		wg.Go(func() {
			status, raw, h, err := send(client, srv.URL+r.path, r.key, r.method, r.body)
			switch {
			case err != nil:
				t.Errorf("%s, the database hung: no answer: %v", r.what, err)
			case status != http.StatusServiceUnavailable || h.Get("Retry-After") == "" || !bytes.Contains(raw, []byte("may be sent again")):
				t.Errorf("%s, the database hung: %d (Retry-After %q) %s, want 503 saying it may be sent again", r.what, status, h.Get("Retry-After"), raw)
			}
			// (The database is on the server's host: its port, user and
			// name tell it.)
			for _, secret := range []string{db, proxy.ln.Addr().String(), u.User.Username(), strings.TrimPrefix(u.Path, "/"), "postgres"} {
				if secret != "" && bytes.Contains(raw, []byte(secret)) {
					t.Errorf("%s, the database hung: the answer names %q of the database: %s", r.what, secret, raw)
				}
			}
		})
	}
	wg.Wait()

	proxy.thaw()
	if status, raw, _, err := send(client, srv.URL+"/v1/memories/dana/turns", key, "POST", turn); err != nil || status != 200 {
		t.Errorf("append once the database answers: %d %s %v", status, raw, err)
	}
	if status, raw, _, err := send(client, srv.URL+"/v1/memories/dana", key, "GET", nil); err != nil || status != 200 || !bytes.Contains(raw, []byte(`"turns":1`)) {
		t.Errorf("the memory once the database answers: %d %s %v", status, raw, err)
	}
}

// TestKeysFailClosed: a directory store that has had keys keeps asking
// for them: with keys.json removed, or unreadable, every request is
// refused, keyed or not, and so is a server started after; the keys come
// back with the file, and only the operator's reset serves without keys.
func TestKeysFailClosed(t *testing.T) {
	store := newStore(t)
	if store.postgres() {
		t.Skip("a directory store's keys file; a database's keys are rows, revoked, never removed")
	}
	srv := httptest.NewServer(serve.New(store, nil))
	t.Cleanup(srv.Close)
	key := store.addKey(t, serve.Tenant, serve.ScopeAdmin)
	if status, _, _ := callAs(t, srv, key, "POST", "/v1/memories", map[string]any{"id": "dana"}); status != 201 {
		t.Fatalf("create: %d", status)
	}
	keys := filepath.Join(store.root, "keys.json")
	saved, err := os.ReadFile(keys)
	if err != nil {
		t.Fatal(err)
	}
	refused := func(what string, srv *httptest.Server) {
		t.Helper()
		for _, k := range []string{"", key, "garbage"} {
			status, body, h := callAs(t, srv, k, "GET", "/v1/memories/dana", nil)
			isProblem(t, what+", key "+k, status, body, h, http.StatusInternalServerError, "keys cannot be read")
			if js, _ := json.Marshal(body); strings.Contains(string(js), store.root) {
				t.Errorf("%s: the answer names the server's folder: %s", what, js)
			}
		}
	}
	if err := os.Remove(keys); err != nil {
		t.Fatal(err)
	}
	refused("keys.json removed", srv)
	restarted := httptest.NewServer(serve.New(store.another(t), nil))
	t.Cleanup(restarted.Close)
	refused("keys.json removed, a server started after", restarted)
	if err := os.WriteFile(keys, []byte("[{"), 0o600); err != nil {
		t.Fatal(err)
	}
	refused("keys.json unreadable", srv)

	if err := os.WriteFile(keys, saved, 0o600); err != nil {
		t.Fatal(err)
	}
	if status, _, _ := callAs(t, srv, key, "GET", "/v1/memories/dana", nil); status != 200 {
		t.Errorf("keys.json back: %d", status)
	}
	if status, _, _ := callAs(t, srv, "", "GET", "/v1/memories/dana", nil); status != 401 {
		t.Errorf("keys.json back, no key: %d", status)
	}
	if err := serve.NewKeys(store.root).Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A running server that had keys keeps asking for them; one started
	// after the reset serves without (on a loopback address: smg serve's
	// rule).
	if status, _, _ := callAs(t, srv, "", "GET", "/v1/memories/dana", nil); status == 200 {
		t.Error("the running server served without a key after the reset")
	}
	fresh := httptest.NewServer(serve.New(store.another(t), nil))
	t.Cleanup(fresh.Close)
	if status, body, _ := callAs(t, fresh, "", "GET", "/v1/memories/dana", nil); status != 200 {
		t.Errorf("a server started after the reset, no key: %d %v", status, body)
	}
}

// mcpPost sends one raw MCP POST and returns its status and body.
func mcpPost(t *testing.T, srv *httptest.Server, key, id, body string) (int, []byte, http.Header) {
	t.Helper()
	req, err := http.NewRequest("POST", srv.URL+"/mcp/"+id, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	status, raw, h, err := do(srv.Client(), req, key)
	if err != nil {
		t.Fatal(err)
	}
	return status, raw, h
}

// TestMCPOneCallARequest: a batch of tool calls in one MCP request is
// refused (MCP 2025-06-18 dropped batches), so that each call is a
// request, counted against the caller's rate and held to the timeout.
func TestMCPOneCallARequest(t *testing.T) {
	srv, store := serviceWith(t, &serve.Options{Rate: 0.001, Burst: 2})
	reader := store.addKey(t, "acme", serve.ScopeRead)
	writer := store.addKey(t, "acme", serve.ScopeWrite)
	callAs(t, srv, writer, "POST", "/v1/memories", map[string]any{"id": "dana"})
	one := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_context","arguments":{"query":"Which database?"}}}`
	batch := "[" + fmt.Sprintf(one, 1) + "," + fmt.Sprintf(one, 2) + "," + fmt.Sprintf(one, 3) + "]"
	status, raw, h := mcpPost(t, srv, reader, "dana", "\n "+batch)
	if status != http.StatusBadRequest || h.Get("Content-Type") != "application/problem+json" || !bytes.Contains(raw, []byte("batch")) {
		t.Errorf("a batch of three calls: %d %s", status, raw)
	}
	if status, raw, _ := mcpPost(t, srv, reader, "dana", fmt.Sprintf(one, 4)); status != http.StatusOK || !bytes.Contains(raw, []byte(`"result"`)) {
		t.Errorf("one call: %d %s", status, raw)
	}
	// The burst of two is spent: the batch and the call above.
	if status, _, h := mcpPost(t, srv, reader, "dana", fmt.Sprintf(one, 5)); status != http.StatusTooManyRequests || h.Get("Retry-After") == "" {
		t.Errorf("a call past the rate: %d", status)
	}
	// (The writer's key has a call left of its burst.)
	if status, raw, _ := mcpPost(t, srv, writer, "dana", strings.Repeat(" ", serve.MaxBody+1)); status != http.StatusRequestEntityTooLarge {
		t.Errorf("a message past the limit: %d %s", status, raw)
	}

	// The whole request is held to the server's timeout.
	hurried := httptest.NewServer(serve.New(store.another(t), &serve.Options{Timeout: time.Nanosecond}))
	t.Cleanup(hurried.Close)
	status, raw, h = mcpPost(t, hurried, reader, "dana", fmt.Sprintf(one, 6))
	if status != http.StatusServiceUnavailable || h.Get("Retry-After") == "" {
		t.Errorf("a call past the timeout: %d %s", status, raw)
	}
}

// zeros is an endless reader of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestImportBounded: a file past the format's limit is refused, 413, as
// soon as the request says so, and at the limit when it does not say,
// having cost the server no more than about the limit in memory.
func TestImportBounded(t *testing.T) {
	srv, _ := service(t)

	// Said: refused before the body is read.
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "PUT /v1/memories/big/file HTTP/1.1\r\nHost: x\r\nContent-Type: application/vnd.smg\r\nContent-Length: %d\r\n\r\n", 300<<20)
	conn.Write(make([]byte, 4096))
	conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("a 300 MB file said: no answer before it was sent: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a 300 MB file said: %d", resp.StatusCode)
	}

	// Not said (chunked): refused at the limit.
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	req, err := http.NewRequest("PUT", srv.URL+"/v1/memories/big/file", io.LimitReader(zeros{}, 100<<20))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/vnd.smg")
	req.ContentLength = -1
	resp, err = srv.Client().Do(req)
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("a 100 MB file not said: %d", resp.StatusCode)
		}
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 3*serve.MaxFile {
		t.Errorf("a 100 MB file not said cost %d MiB of allocations, past three times the limit's %d MiB", got>>20, serve.MaxFile>>20)
	}
	if status, _, _ := call(t, srv, "GET", "/v1/memories/big", nil); status != 404 {
		t.Errorf("a refused import made a memory: %d", status)
	}
}

// prose is about n bytes of sentences a person might write.
func prose(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "On day %d we moved the ledger service %d to PostgreSQL, because the old queue dropped %d payments. ", i, i%97, i%13)
	}
	return b.String()
}

// TestTurnLimits: a turn past the server's limit is refused, 413, saying
// the limit, on the API and through the tools; an append whose time runs
// out before it is kept changes nothing and answers 503, and one that is
// answered otherwise was kept.
func TestTurnLimits(t *testing.T) {
	srv, store := serviceWith(t, &serve.Options{MaxTurn: 1000})
	call(t, srv, "POST", "/v1/memories", map[string]any{"id": "dana"})
	big := map[string]any{"turns": []map[string]any{{"role": "user", "content": "hello"}, {"role": "user", "content": prose(1001)}}}
	status, body, h := call(t, srv, "POST", "/v1/memories/dana/turns", big)
	isProblem(t, "a turn past the limit", status, body, h, http.StatusRequestEntityTooLarge, "a turn may take 1000")
	status, body, h = call(t, srv, "POST", "/v1/memories/dana/tools/record_turns", big)
	isProblem(t, "a turn past the limit, through the tools", status, body, h, http.StatusRequestEntityTooLarge, "a turn may take 1000")
	if n := store.turns(t, "dana"); n != 0 {
		t.Errorf("after the refused turns, the memory holds %d", n)
	}

	// A turn of the default limit's size, given too little time.
	hurried := httptest.NewServer(serve.New(store.another(t), &serve.Options{Timeout: 20 * time.Millisecond}))
	t.Cleanup(hurried.Close)
	status, body, h = call(t, hurried, "POST", "/v1/memories/dana/turns", map[string]any{"turns": []map[string]any{{"role": "user", "content": prose(serve.DefaultMaxTurn - 100)}}})
	t.Logf("an append of %d bytes given 20 ms: %d", serve.DefaultMaxTurn-100, status)
	switch n := store.turns(t, "dana"); {
	case status == http.StatusServiceUnavailable:
		if h.Get("Retry-After") == "" || n != 0 {
			t.Errorf("an append out of time: Retry-After %q, and the memory holds %d turns", h.Get("Retry-After"), n)
		}
	case status == http.StatusOK && store.postgres():
		// Kept before its time ran out: the database commits the turn,
		// then the memory works on it.
		if n != 1 {
			t.Errorf("an append answered 200 left %d turns", n)
		}
	default:
		t.Errorf("an append out of time: %d %v", status, body)
	}
}

// TestSaysWhatTheCallerMayKnow: a validation problem names a value given
// wrongly without echoing it, and a problem of the server says what
// failed, never the server's folders.
func TestSaysWhatTheCallerMayKnow(t *testing.T) {
	srv, _ := service(t)
	call(t, srv, "POST", "/v1/memories", map[string]any{"id": "dana"})
	long := strings.Repeat("z", 1<<20)
	status, raw, _, err := send(srv.Client(), srv.URL+"/v1/memories/dana/turns", "", "POST", map[string]any{"turns": long})
	if err != nil || status != http.StatusUnprocessableEntity || len(raw) > 4096 || bytes.Contains(raw, []byte("zzzz")) {
		t.Errorf("a body of the wrong shape: %d, %d bytes: %.300s", status, len(raw), raw)
	}
	status, raw, _, _ = send(srv.Client(), srv.URL+"/v1/memories/dana/context", "", "POST", map[string]any{"question": "Which database?", "budget": 1e12})
	if status != http.StatusUnprocessableEntity || !bytes.Contains(raw, []byte("200000")) {
		t.Errorf("a budget past the range: %d %s", status, raw)
	}
}

// TestDamagedMemory: a memory the store holds in a form the server cannot
// read is the server's fault: 500 with the problem type that says so, on
// the API and on MCP alike, naming nothing of where it is kept.
func TestDamagedMemory(t *testing.T) {
	store := newStore(t)
	first := httptest.NewServer(serve.New(store, nil))
	t.Cleanup(first.Close)
	call(t, first, "POST", "/v1/memories", map[string]any{"id": "dana"})
	if store.postgres() {
		store.execIn(t, `UPDATE smg_memories SET base = 'not a memory' WHERE id = 'dana'`)
	} else if err := os.WriteFile(filepath.Join(store.root, serve.Tenant, "dana.smg"), []byte("not a memory"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(serve.New(store.another(t), nil))
	t.Cleanup(srv.Close)
	status, body, h := call(t, srv, "GET", "/v1/memories/dana", nil)
	isProblem(t, "a damaged memory", status, body, h, http.StatusInternalServerError, "the server's")
	if body["type"] != serve.ProblemDamaged {
		t.Errorf("a damaged memory: type %v, want %s", body["type"], serve.ProblemDamaged)
	}
	status, raw, h := mcpPost(t, srv, "", "dana", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var p map[string]any
	json.Unmarshal(raw, &p)
	if status != http.StatusInternalServerError || p["type"] != serve.ProblemDamaged || h.Get("Content-Type") != "application/problem+json" {
		t.Errorf("a damaged memory on MCP: %d %s", status, raw)
	}
	for _, answer := range [][]byte{raw, must(json.Marshal(body))} {
		if store.root != "" && bytes.Contains(answer, []byte(store.root)) {
			t.Errorf("the answer names the server's folder: %s", answer)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestTenantsDifferMoreThanInCase: on every store, a key's tenant that
// differs only in case from another's is refused: a directory store's
// tenants are folders, one on file systems that fold case, and memories
// move between stores.
func TestTenantsDifferMoreThanInCase(t *testing.T) {
	store := newStore(t)
	ctx := context.Background()
	if _, _, err := store.Keys().Add(ctx, serve.Key{Tenant: "acme", Scope: serve.ScopeRead}); err != nil {
		t.Fatal(err)
	}
	for _, tenant := range []string{"ACME", "Acme", "DEFAULT"} {
		if _, _, err := store.Keys().Add(ctx, serve.Key{Tenant: tenant, Scope: serve.ScopeRead}); !errors.Is(err, serve.ErrInvalidID) {
			t.Errorf("a key of %s: %v", tenant, err)
		}
	}
	if _, _, err := store.Keys().Add(ctx, serve.Key{Tenant: "acme", Scope: serve.ScopeWrite}); err != nil {
		t.Errorf("a second key of acme: %v", err)
	}
}
