package serve_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/serve"
	"github.com/smg-memory/smg/smg/smgtest"
)

// postgresEnv names the PostgreSQL server the tests run on, as a URL of
// a database on it that the tests may make databases from: .ci/run starts
// one (.ci/postgres) and runs the tests of this package a second time on
// it. Without it every test runs on a directory store.
const postgresEnv = "SMG_TEST_POSTGRES"

// testStore is one test's store: a directory, or a database of its own on
// the PostgreSQL server of $SMG_TEST_POSTGRES. The same tests run on both.
type testStore struct {
	serve.Store
	root  string // the directory's
	url   string // the database's
	admin string // of the server's database the test's is made from
	db    string // the database's name
}

func (s *testStore) postgres() bool { return s.url != "" }

func newStore(t *testing.T) *testStore {
	t.Helper()
	admin := os.Getenv(postgresEnv)
	if admin == "" {
		root := t.TempDir()
		d, err := serve.NewDir(root, 0, smg.FileOptions{Open: smg.OpenOptions{NoVectors: true}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return &testStore{Store: d, root: root}
	}
	var b [6]byte
	rand.Read(b[:])
	s := &testStore{admin: admin, db: "smg_test_" + hex.EncodeToString(b[:])}
	s.exec(t, "CREATE DATABASE "+s.db)
	t.Cleanup(func() { s.exec(t, "DROP DATABASE "+s.db+" WITH (FORCE)") })
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + s.db
	s.url = u.String()
	s.Store = s.another(t)
	return s
}

// exec runs sql on the server's admin database.
func (s *testStore) exec(t *testing.T, sql string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// execIn runs sql on the test's own database.
func (s *testStore) execIn(t *testing.T, sql string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// another is a second store of the same memories: another server's.
func (s *testStore) another(t *testing.T) serve.Store {
	t.Helper()
	return s.anotherWith(t, smg.OpenOptions{NoVectors: true})
}

// anotherWith is another, its memories opened with open.
func (s *testStore) anotherWith(t *testing.T, open smg.OpenOptions) serve.Store {
	t.Helper()
	var st serve.Store
	var err error
	if s.postgres() {
		st, err = serve.OpenPostgres(context.Background(), s.url, 0, smg.StoredOptions{Open: open})
	} else {
		st, err = serve.NewDir(s.root, 0, smg.FileOptions{Open: open})
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// addKey adds a key and returns it.
func (s *testStore) addKey(t *testing.T, tenant string, scope serve.Scope, memories ...string) string {
	t.Helper()
	secret, _, err := s.Keys().Add(context.Background(), serve.Key{Tenant: tenant, Scope: scope, Memories: memories})
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// turns is how many turns the memory id of the default tenant holds, read
// by another server; -1 when it cannot be read.
func (s *testStore) turns(t *testing.T, id string) int {
	t.Helper()
	m, err := s.memory(t, id)
	if err != nil {
		return -1
	}
	return m.Turns()
}

// memory is the memory id of the default tenant, read by another server.
func (s *testStore) memory(t *testing.T, id string) (*smg.Memory, error) {
	t.Helper()
	f, done, err := s.another(t).Open(context.Background(), serve.Tenant, id)
	if err != nil {
		return nil, err
	}
	defer done()
	return f.Memory(t.Context())
}

// takeAway makes the store unreachable: the directory removed, or the
// database closed to connections and its connections ended. back, when
// not nil, gives the database back.
func (s *testStore) takeAway(t *testing.T) (back func()) {
	t.Helper()
	if !s.postgres() {
		if err := os.RemoveAll(s.root); err != nil {
			t.Fatal(err)
		}
		return nil
	}
	s.exec(t, "ALTER DATABASE "+s.db+" ALLOW_CONNECTIONS false")
	s.exec(t, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"+s.db+"'")
	return func() { s.exec(t, "ALTER DATABASE "+s.db+" ALLOW_CONNECTIONS true") }
}

// serviceWith is a server on a store of its own, with options.
func serviceWith(t *testing.T, opts *serve.Options) (*httptest.Server, *testStore) {
	t.Helper()
	store := newStore(t)
	srv := httptest.NewServer(serve.New(store, opts))
	t.Cleanup(srv.Close)
	return srv, store
}

// A memory of a served directory that the store lets go of (out of its
// LRU, or the store closed) is written whole: its file alone, copied with
// nothing beside it, holds every turn acknowledged.
func TestDirLetGoWritesTheFile(t *testing.T) {
	root := t.TempDir()
	d, err := serve.NewDir(root, 1, smg.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(serve.New(d, nil))
	defer srv.Close()
	for _, id := range []string{"dana", "ben"} {
		if status, body, _ := call(t, srv, "POST", "/v1/memories", map[string]any{"id": id}); status != http.StatusCreated {
			t.Fatalf("create %s: %d %v", id, status, body)
		}
	}
	turns := func(id string, n int) {
		t.Helper()
		status, body, _ := call(t, srv, "POST", "/v1/memories/"+id+"/turns", map[string]any{"conversation": "c1", "turns": []map[string]any{
			{"role": "user", "content": fmt.Sprintf("Note %d: we ship from Antwerp now.", n), "time": "2026-03-01T10:00:00Z"},
		}})
		if status != http.StatusOK {
			t.Fatalf("append to %s: %d %v", id, status, body)
		}
	}
	turns("dana", 1)
	turns("dana", 2)
	turns("ben", 1) // one memory open at most: dana is let go of
	turns("ben", 2)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"dana", "ben"} {
		file := filepath.Join(root, serve.Tenant, id+".smg")
		if fi, err := os.Stat(file + ".journal"); err == nil && fi.Size() > 0 {
			t.Errorf("%s: a journal of %d bytes beside the file", id, fi.Size())
		}
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		copied := filepath.Join(t.TempDir(), id+".smg")
		if err := os.WriteFile(copied, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		if n := len(smgtest.FileTurns(t, copied)); n != 2 {
			t.Errorf("%s: a copy of the file alone holds %d turns, want 2", id, n)
		}
	}
}

// A memory of a served directory left idle, open in the store, is written
// whole too: its journal ended, its file alone holds every turn
// acknowledged, while the server runs.
func TestDirIdleWritesTheFile(t *testing.T) {
	root := t.TempDir()
	d, err := serve.NewDir(root, 4, smg.FileOptions{CompactIdle: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	srv := httptest.NewServer(serve.New(d, nil))
	defer srv.Close()
	if status, body, _ := call(t, srv, "POST", "/v1/memories", map[string]any{"id": "dana"}); status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, body)
	}
	for n := range 3 {
		status, body, _ := call(t, srv, "POST", "/v1/memories/dana/turns", map[string]any{"conversation": "c1", "turns": []map[string]any{
			{"role": "user", "content": fmt.Sprintf("Note %d: we ship from Antwerp now.", n), "time": "2026-03-01T10:00:00Z"},
		}})
		if status != http.StatusOK {
			t.Fatalf("append: %d %v", status, body)
		}
	}
	file := filepath.Join(root, serve.Tenant, "dana.smg")
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) && format.HasJournal(file) {
		time.Sleep(10 * time.Millisecond)
	}
	if format.HasJournal(file) {
		t.Fatal("left idle, the memory keeps its journal")
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), "dana.smg")
	if err := os.WriteFile(copied, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if n := len(smgtest.FileTurns(t, copied)); n != 3 {
		t.Errorf("left idle, a copy of the file alone holds %d turns, want 3", n)
	}
}
