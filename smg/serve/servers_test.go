package serve_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/serve"
)

// TestTwoServers: two servers on one store (behind a load balancer) each
// answer from what the other wrote: turns, facts, a memory deleted and
// made again under its id; appends made on both at once are all kept.
func TestTwoServers(t *testing.T) {
	a, store := service(t)
	b := httptest.NewServer(serve.New(store.another(t), nil))
	defer b.Close()
	call(t, a, "POST", "/v1/memories", map[string]any{"id": "dana"})
	// b opens the memory before a changes it: b must not answer from
	// what it holds.
	if _, body, _ := call(t, b, "GET", "/v1/memories/dana", nil); body["turns"] != float64(0) {
		t.Fatalf("b: %v", body)
	}
	call(t, a, "POST", "/v1/memories/dana/turns", map[string]any{"conversation": "c1", "turns": []map[string]any{
		{"role": "user", "content": "Which queue should the invoices use?", "id": "m1"},
		{"role": "assistant", "content": "Use RabbitMQ with a dead-letter exchange for the invoices.", "id": "m2"}}})
	_, body, _ := call(t, b, "POST", "/v1/memories/dana/context", map[string]any{"question": "Which queue do invoices use?", "budget": 400})
	if text, _ := body["text"].(string); !strings.Contains(text, "RabbitMQ") {
		t.Errorf("b's context misses a's turns: %v", body)
	}
	// Sent again to b: held.
	if _, body, _ := call(t, b, "POST", "/v1/memories/dana/turns", map[string]any{"conversation": "c1", "turns": []map[string]any{
		{"role": "user", "content": "Which queue should the invoices use?", "id": "m1"}}}); body["held"] != float64(1) {
		t.Errorf("b appended a turn a had: %v", body)
	}
	call(t, b, "POST", "/v1/memories/dana/facts", map[string]any{"content": "I prefer dark mode"})
	if _, body, _ := call(t, a, "GET", "/v1/memories/dana/facts", nil); len(facts(t, body)) != 1 {
		t.Errorf("a does not list b's fact: %v", body)
	}

	// Both at once, four writers each: every turn is kept, once.
	var wg sync.WaitGroup
	for w := range 8 {
		srv := a
		if w%2 == 1 {
			srv = b
		}
		wg.Go(func() {
			for i := range 5 {
				status, body, _ := call(t, srv, "POST", "/v1/memories/dana/turns", map[string]any{"conversation": "c2", "turns": []map[string]any{
					{"role": "user", "content": fmt.Sprintf("Writer %d says %d: the parcel goes to depot %d.", w, i, w*10+i), "id": fmt.Sprintf("w%d-%d", w, i)}}})
				if status != 200 || body["added"] != float64(1) {
					t.Errorf("writer %d, turn %d: %d %v", w, i, status, body)
				}
			}
		})
	}
	wg.Wait()
	for name, srv := range map[string]*httptest.Server{"a": a, "b": b} {
		if _, body, _ := call(t, srv, "GET", "/v1/memories/dana", nil); body["turns"] != float64(42) {
			t.Errorf("%s after the writers: %v turns, want 42", name, body["turns"])
		}
	}
	if n := store.turns(t, "dana"); n != 42 {
		t.Errorf("a third server reads %d turns, want 42", n)
	}

	// Deleted on a, made again on a: b answers from the new one.
	call(t, a, "DELETE", "/v1/memories/dana", nil)
	status, body, h := call(t, b, "GET", "/v1/memories/dana", nil)
	isProblem(t, "deleted on the other server", status, body, h, http.StatusNotFound, "no such memory")
	call(t, a, "POST", "/v1/memories", map[string]any{"id": "dana"})
	if _, body, _ := call(t, b, "GET", "/v1/memories/dana", nil); body["turns"] != float64(0) {
		t.Errorf("b answers from the deleted memory: %v", body)
	}
}

// postgresOnly skips a test when the tests run on directories.
func postgresOnly(t *testing.T) *testStore {
	t.Helper()
	if os.Getenv(postgresEnv) == "" {
		t.Skip("no PostgreSQL server: set " + postgresEnv + " (.ci/run does)")
	}
	return newStore(t)
}

// TestDatabaseGoesAway: while the database cannot be reached, every
// request that needs it is answered 503, saying that it may be sent again,
// and changes nothing; sent again once the database is back, it is done,
// once.
func TestDatabaseGoesAway(t *testing.T) {
	store := postgresOnly(t)
	srv := httptest.NewServer(serve.New(store, nil))
	defer srv.Close()
	call(t, srv, "POST", "/v1/memories", map[string]any{"id": "dana"})
	turns := map[string]any{"conversation": "c1", "turns": []map[string]any{{"role": "user", "content": "The ledger runs on PostgreSQL.", "id": "m1"}}}
	back := store.takeAway(t)
	for _, c := range []struct{ method, path string }{
		{"POST", "/v1/memories/dana/turns"}, {"GET", "/v1/memories/dana"}, {"GET", "/v1/memories"},
		{"POST", "/v1/memories/dana/context"}, {"POST", "/v1/memories/dana/facts"}, {"DELETE", "/v1/memories/dana"},
	} {
		var body any
		switch c.path {
		case "/v1/memories/dana/turns":
			body = turns
		case "/v1/memories/dana/context":
			body = map[string]any{"question": "Which database?"}
		case "/v1/memories/dana/facts":
			body = map[string]any{"content": "I prefer dark mode"}
		}
		status, answer, h := call(t, srv, c.method, c.path, body)
		isProblem(t, c.method+" "+c.path+" without the database", status, answer, h, http.StatusServiceUnavailable, "may be sent again")
	}
	back()
	status, body, _ := call(t, srv, "POST", "/v1/memories/dana/turns", turns)
	if status != 200 || body["added"] != float64(1) {
		t.Errorf("sent again: %d %v", status, body)
	}
	if _, body, _ := call(t, srv, "GET", "/v1/memories/dana", nil); body["turns"] != float64(1) {
		t.Errorf("after the database came back: %v", body)
	}
	if _, body, _ := call(t, srv, "GET", "/v1/memories/dana/facts", nil); len(facts(t, body)) != 0 {
		t.Errorf("a fact sent while the database was away was kept: %v", body)
	}
}

// TestExportFromEitherStore: the same memory, kept in a directory or in
// PostgreSQL, exports as the same .smg file.
func TestExportFromEitherStore(t *testing.T) {
	pg := postgresOnly(t)
	dir, err := serve.NewDir(t.TempDir(), 0, smg.FileOptions{Open: smg.OpenOptions{NoVectors: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	seed := smg.New(&smg.Options{NoVectors: true})
	file, err := seed.Marshal(nil)
	if err != nil {
		t.Fatal(err)
	}
	var exports [][]byte
	for _, store := range []serve.Store{dir, pg} {
		srv := httptest.NewServer(serve.New(store, nil))
		if status, _, _ := raw(t, srv, "PUT", "/v1/memories/dana/file", file); status != http.StatusCreated {
			t.Fatalf("import: %d", status)
		}
		for i := range 3 {
			call(t, srv, "POST", "/v1/memories/dana/turns", map[string]any{"conversation": "c1", "turns": []map[string]any{
				{"role": "user", "content": fmt.Sprintf("Turn %d: the invoices go through RabbitMQ.", i), "id": fmt.Sprint("m", i), "time": fmt.Sprintf("2026-11-0%dT10:00:00Z", i+1)}}})
		}
		_, b, _ := raw(t, srv, "GET", "/v1/memories/dana/file", nil)
		exports = append(exports, b)
		srv.Close()
	}
	if !bytes.Equal(exports[0], exports[1]) {
		t.Errorf("the directory's export (%d bytes) and PostgreSQL's (%d bytes) differ", len(exports[0]), len(exports[1]))
	}
}

// TestMigrations: a database is brought to the schema once, however many
// servers start on it; one at a later version is refused.
func TestMigrations(t *testing.T) {
	store := postgresOnly(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			p, err := serve.OpenPostgres(ctx, store.url, 0, smg.StoredOptions{})
			if err != nil {
				t.Error(err)
				return
			}
			p.Close()
		})
	}
	wg.Wait()
	conn, err := pgx.Connect(ctx, store.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n, top int
	if err := conn.QueryRow(ctx, `SELECT count(*), max(version) FROM smg_schema`).Scan(&n, &top); err != nil || n != top {
		t.Fatalf("%d migrations applied, the last %d: %v", n, top, err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO smg_schema (version) VALUES ($1)`, top+1); err != nil {
		t.Fatal(err)
	}
	if _, err := serve.OpenPostgres(ctx, store.url, 0, smg.StoredOptions{}); err == nil || !strings.Contains(err.Error(), "newer than this smg's") {
		t.Errorf("a database of a later schema: %v", err)
	}
}

// TestNewMemoriesEmbedAsTheStore: a memory made through the service
// embeds as the store's memories do: a store without vectors (as smg
// serve --no-vectors makes) makes memories without them.
func TestNewMemoriesEmbedAsTheStore(t *testing.T) {
	srv, store := service(t)
	call(t, srv, "POST", "/v1/memories", map[string]any{"id": "dana"})
	call(t, srv, "POST", "/v1/memories/dana/turns", map[string]any{"turns": []map[string]any{{"role": "user", "content": "The ledger runs on PostgreSQL."}}})
	f, done, err := store.Open(context.Background(), serve.Tenant, "dana")
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	m, err := f.Memory(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if model, pending := m.VectorModel(), m.PendingVectors(); model != "" || pending != 0 {
		t.Errorf("a memory of a store without vectors embeds with %q, %d turns pending", model, pending)
	}
}

// TestPostgresAppendAfter: the database appends a change after the
// version read, and only then: after another change, one that waited for
// a change holding the memory's lock, or a delete, it keeps nothing and
// says the log changed.
func TestPostgresAppendAfter(t *testing.T) {
	store := postgresOnly(t)
	ctx := context.Background()
	p := store.Store.(*serve.Postgres)
	_, done, err := p.Create(ctx, serve.Tenant, "m", nil)
	if err != nil {
		t.Fatal(err)
	}
	done()
	log := serve.LogOf(p, serve.Tenant, "m")
	st, err := log.Read(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	v0 := st.Version
	v1, err := log.Append(ctx, v0, []byte(`"one"`))
	if err != nil || v1 <= v0 {
		t.Fatalf("an append after the last version: %d, %v", v1, err)
	}
	if _, err := log.Append(ctx, v0, []byte(`"two"`)); !errors.Is(err, smg.ErrLogChanged) {
		t.Errorf("an append after an old version: %v", err)
	}

	// A change holds the lock while an append after v1 waits for it.
	conn, err := pgx.Connect(ctx, store.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	waiting := make(chan error, 1)
	err = log.Change(ctx, func(tx smg.LogTx) error {
		if _, err := tx.Append([]byte(`"three"`)); err != nil {
			return err
		}
		go func() { _, err := log.Append(ctx, v1, []byte(`"four"`)); waiting <- err }()
		for range 500 {
			var n int
			if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			time.Sleep(10 * time.Millisecond)
		}
		return errors.New("the append did not wait for the change's lock")
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-waiting; !errors.Is(err, smg.ErrLogChanged) {
		t.Errorf("an append that waited for a change: %v", err)
	}
	st, err = log.Read(ctx, v0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range st.Changes {
		got = append(got, string(c))
	}
	if want := []string{`"one"`, `"three"`}; !slices.Equal(got, want) {
		t.Errorf("the log holds %v, want %v", got, want)
	}
	if err := p.Delete(ctx, serve.Tenant, "m"); err != nil {
		t.Fatal(err)
	}
	if _, err := log.Append(ctx, st.Version, []byte(`"five"`)); !errors.Is(err, smg.ErrLogChanged) {
		t.Errorf("an append to a memory deleted: %v", err)
	}
}
