package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
)

// A PostgreSQL store keeps each memory as a row, its base (the bytes of a
// .smg file), and the changes made since, rows of their own (journal
// entries, spec §9.7), numbered by versions drawn from one sequence, so
// that a memory made again under an old id is never mistaken for the old
// one. Every change is a transaction that holds the memory's row lock:
// several servers on one database change a memory one at a time, each on
// top of the others' changes. Each server keeps the memories it used last
// open, with their indexes, and reads a memory's new changes (one query,
// which finds none when there are none) before each read, so that no
// context is built from a memory another server changed. A memory's
// changes past smg.DefaultJournalLimit are folded into a new base.

// ErrUnavailable is the error of a store that cannot be reached: the
// request may be tried again.
var ErrUnavailable = errors.New("the store is unavailable")

// migrations are the database's schema, one step a version, applied in
// order at start; a database at a later version than this smg knows is
// refused.
var migrations = []string{
	// 1: memories, their changes, keys.
	`CREATE SEQUENCE smg_versions;
CREATE TABLE smg_memories (
	tenant text NOT NULL,
	id text NOT NULL,
	version bigint NOT NULL,
	base_version bigint NOT NULL,
	base bytea NOT NULL,
	created timestamptz NOT NULL DEFAULT now(),
	modified timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (tenant, id)
);
CREATE TABLE smg_changes (
	tenant text NOT NULL,
	id text NOT NULL,
	version bigint NOT NULL,
	entry bytea NOT NULL,
	PRIMARY KEY (tenant, id, version),
	FOREIGN KEY (tenant, id) REFERENCES smg_memories ON DELETE CASCADE
);
CREATE TABLE smg_keys (
	id text PRIMARY KEY,
	hash text NOT NULL UNIQUE,
	tenant text NOT NULL,
	scope text NOT NULL,
	memories text[] NOT NULL DEFAULT '{}',
	label text NOT NULL DEFAULT '',
	created timestamptz NOT NULL,
	revoked timestamptz
);`,
	// 2: keys that expire.
	`ALTER TABLE smg_keys ADD COLUMN expires timestamptz;`,
}

// migrateLock is the advisory lock servers starting together take to
// migrate one at a time.
const migrateLock = 0x736d67 // "smg"

var _ Store = (*Postgres)(nil)

// Postgres is the store of the memories a PostgreSQL database keeps. It
// is safe for concurrent use.
type Postgres struct {
	pool *pgxpool.Pool
	opts smg.StoredOptions
	open *openSet
	keys *pgKeys
	// writing are the memories being let go of.
	writing sync.WaitGroup
	// cacheMu orders the putting of memories' index caches in place
	// (cacheGuard) and their removal (Delete).
	cacheMu sync.Mutex
}

// OpenPostgres connects to the database of url (postgres://…, or the
// key=value form libpq takes), brings its schema to this smg's version,
// and returns its store, which keeps up to maxOpen memories open
// (DefaultOpen when 0). opts read the memories (Name is set for each);
// opts.Open.IndexCache, when set, is the folder of their index caches,
// each memory's in TENANT/ID: a server that opens a memory whose cache
// another server sharing the folder wrote, or it wrote itself before a
// restart, opens its index in place.
func OpenPostgres(ctx context.Context, url string, maxOpen int, opts smg.StoredOptions) (*Postgres, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("the database's address: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, unavailable(err)
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	p := &Postgres{pool: pool, opts: opts, open: newOpenSet(maxOpen)}
	p.keys = &pgKeys{pool: pool}
	if opts.Open.IndexCache != "" {
		// A memory let go of (out of the LRU, or the store closed) is
		// rebased first, so that its index cache is of the whole memory.
		// On its own goroutine: the set's lock is held when it lets go.
		p.open.close = func(k smg.Kept) error {
			p.writing.Go(func() {
				if s, ok := k.(*smg.StoredMemory); ok {
					ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
					_ = s.Compact(ctx)
					cancel()
				}
				_ = closeKept(k)
			})
			return nil
		}
	}
	return p, nil
}

// migrate applies the migrations the database lacks.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrateLock); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS smg_schema (version int PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now())`); err != nil {
			return err
		}
		var have int
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM smg_schema`).Scan(&have); err != nil {
			return err
		}
		if have > len(migrations) {
			return fmt.Errorf("the database's smg schema is at version %d, newer than this smg's %d: upgrade smg", have, len(migrations))
		}
		for v := have + 1; v <= len(migrations); v++ {
			if _, err := tx.Exec(ctx, migrations[v-1]); err != nil {
				return fmt.Errorf("migration %d: %w", v, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO smg_schema (version) VALUES ($1)`, v); err != nil {
				return err
			}
		}
		return nil
	})
	return unavailable(err)
}

// unavailable is err, said to be ErrUnavailable when the database could
// not be reached or went away: a connection refused or lost, a server
// shutting down or refusing connections.
func unavailable(err error) error {
	if err == nil || errors.Is(err, ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err // a request's time ran out: its own problem says so
	}
	var pgErr *pgconn.PgError
	var connErr *pgconn.ConnectError
	var netErr net.Error
	switch {
	case errors.As(err, &connErr):
		// Not connected, whatever the server said.
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	case errors.As(err, &pgErr):
		// Connection exceptions, the server shutting down or starting,
		// too many connections.
		if strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57P") || pgErr.Code == "53300" {
			return fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		return err
	case errors.As(err, &netErr), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		pgconn.SafeToRetry(err), strings.Contains(err.Error(), "conn closed"):
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return err
}

// Keys are the database's API keys (table smg_keys).
func (p *Postgres) Keys() KeyStore { return p.keys }

// Stats counts the memories the store keeps open and the opens served
// from them or read from the database.
func (p *Postgres) Stats() StoreStats { return p.open.stats() }

// Ready reports whether the database answers.
func (p *Postgres) Ready(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return unavailable(p.pool.Ping(ctx))
}

// Close closes every open memory and the connections.
func (p *Postgres) Close() error {
	p.open.closeAll()
	p.writing.Wait()
	p.pool.Close()
	return nil
}

// insert adds the memory id of tenant with its base, or ErrExists.
func (p *Postgres) insert(ctx context.Context, tenant, id string, base []byte) error {
	tag, err := p.pool.Exec(ctx, `INSERT INTO smg_memories (tenant, id, version, base_version, base)
		SELECT $1, $2, v, v, $3 FROM nextval('smg_versions') AS v ON CONFLICT DO NOTHING`, tenant, id, base)
	if err != nil {
		return unavailable(err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: %s", ErrExists, id)
	}
	return nil
}

// Create makes a new memory of opts (nil: the defaults), and keeps it.
// The caller calls done when it no longer uses the memory.
func (p *Postgres) Create(ctx context.Context, tenant, id string, opts *smg.Options) (smg.Kept, func(), error) {
	if err := errors.Join(CheckID("tenant", tenant), CheckID("memory", id)); err != nil {
		return nil, nil, err
	}
	o := newOptions(p.opts.Open, opts)
	m := smg.New(&o)
	base, err := m.Marshal(nil)
	m.Close()
	if err != nil {
		return nil, nil, err
	}
	if err := p.insert(ctx, tenant, id, base); err != nil {
		return nil, nil, err
	}
	return p.Open(ctx, tenant, id)
}

// Import makes the memory id of tenant from the bytes of a .smg file,
// which must decode within the format's limits, in the clear. The caller
// calls done when it no longer uses the memory.
func (p *Postgres) Import(ctx context.Context, tenant, id string, file []byte) (smg.Kept, func(), error) {
	if err := errors.Join(CheckID("tenant", tenant), CheckID("memory", id)); err != nil {
		return nil, nil, err
	}
	if _, err := format.Unmarshal(file, &format.DecodeOptions{}); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	if err := p.insert(ctx, tenant, id, file); err != nil {
		return nil, nil, err
	}
	return p.Open(ctx, tenant, id)
}

// Open returns the memory id of tenant. The caller calls done when it no
// longer uses the memory.
func (p *Postgres) Open(ctx context.Context, tenant, id string) (smg.Kept, func(), error) {
	if err := errors.Join(CheckID("tenant", tenant), CheckID("memory", id)); err != nil {
		return nil, nil, err
	}
	key := tenant + "/" + id
	if f, done, ok := p.open.get(key); ok {
		return f, done, nil
	}
	opts := p.opts
	opts.Name = "postgres:" + key
	if dir := p.cacheOf(tenant, id); dir != "" {
		opts.Open.IndexCache = filepath.Join(dir, "index")
		opts.CacheGuard = p.cacheGuard(tenant, id)
	}
	s, err := smg.OpenStoredMemory(ctx, &pgLog{pool: p.pool, tenant: tenant, id: id}, &opts)
	if err != nil {
		return nil, nil, err
	}
	kept, done := p.open.keep(key, s)
	return kept, done, nil
}

// List returns the ids of tenant's memories, sorted by their bytes.
func (p *Postgres) List(ctx context.Context, tenant string) ([]string, error) {
	if err := CheckID("tenant", tenant); err != nil {
		return nil, err
	}
	rows, err := p.pool.Query(ctx, `SELECT id FROM smg_memories WHERE tenant = $1 ORDER BY id COLLATE "C"`, tenant)
	if err != nil {
		return nil, unavailable(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if ids == nil {
		ids = []string{}
	}
	return ids, unavailable(err)
}

// Delete removes the memory id of tenant and its changes.
func (p *Postgres) Delete(ctx context.Context, tenant, id string) error {
	if err := errors.Join(CheckID("tenant", tenant), CheckID("memory", id)); err != nil {
		return err
	}
	p.open.forget(tenant + "/" + id)
	tag, err := p.pool.Exec(ctx, `DELETE FROM smg_memories WHERE tenant = $1 AND id = $2`, tenant, id)
	if err != nil {
		return unavailable(err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if dir := p.cacheOf(tenant, id); dir != "" {
		// The cache holds the memory's text. A process that writes it
		// (the memory let go of above, rebased; a request that used it
		// as it was deleted) puts it in place only while the memory
		// exists (cacheGuard).
		p.cacheMu.Lock()
		err := format.RemoveCacheDir(dir)
		p.cacheMu.Unlock()
		if err != nil {
			return fmt.Errorf("%s is deleted, but its index cache could not be removed: %w", id, err)
		}
	}
	return nil
}

// cacheGuard puts the index cache of the memory id of tenant in place
// while the database holds the memory, under p.cacheMu: Delete removes the
// cache under it once the memory is gone, so that no cache is put back.
func (p *Postgres) cacheGuard(tenant, id string) func(put func() error) error {
	return func(put func() error) error {
		p.cacheMu.Lock()
		defer p.cacheMu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
		defer cancel()
		var held bool
		err := p.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM smg_memories WHERE tenant = $1 AND id = $2)`, tenant, id).Scan(&held)
		switch {
		case err != nil:
			return unavailable(err)
		case !held:
			return fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		return put()
	}
}

// cacheOf is the folder of the index cache of the memory id of tenant,
// when the store keeps them.
func (p *Postgres) cacheOf(tenant, id string) string {
	if p.opts.Open.IndexCache == "" {
		return ""
	}
	return filepath.Join(p.opts.Open.IndexCache, tenant, id)
}

// pgLog is a memory of the database as a [smg.Log].
type pgLog struct {
	pool       *pgxpool.Pool
	tenant, id string
}

// readLog is what the database holds of a memory after the version have,
// in one statement, so that the base and the changes are of one moment.
const readLog = `SELECT m.version, m.base_version, CASE WHEN m.base_version > $3 THEN m.base END,
	ARRAY(SELECT c.entry FROM smg_changes c
		WHERE c.tenant = m.tenant AND c.id = m.id AND c.version > greatest($3, m.base_version) ORDER BY c.version)
	FROM smg_memories m WHERE m.tenant = $1 AND m.id = $2`

type queryRower interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func (l *pgLog) read(ctx context.Context, q queryRower, have int64) (smg.LogState, error) {
	var st smg.LogState
	err := q.QueryRow(ctx, readLog, l.tenant, l.id, have).Scan(&st.Version, &st.BaseVersion, &st.Base, &st.Changes)
	if errors.Is(err, pgx.ErrNoRows) {
		return smg.LogState{}, fmt.Errorf("%w: %s", ErrNotFound, l.id)
	}
	return st, unavailable(err)
}

func (l *pgLog) Read(ctx context.Context, have int64) (smg.LogState, error) {
	return l.read(ctx, l.pool, have)
}

// appendAfter adds a change to a memory that is still at the version
// read, in one statement: the row's update waits for a change that holds
// its lock, and then finds the version moved on.
const appendAfter = `WITH m AS (
	UPDATE smg_memories SET version = nextval('smg_versions'), modified = now()
	WHERE tenant = $1 AND id = $2 AND version = $3 RETURNING version)
	INSERT INTO smg_changes (tenant, id, version, entry) SELECT $1, $2, m.version, $4 FROM m RETURNING version`

// Append adds entry when the memory is still at the version have: a
// memory changed since, or deleted, is smg.ErrLogChanged (the read that
// follows tells which).
func (l *pgLog) Append(ctx context.Context, have int64, entry []byte) (int64, error) {
	var v int64
	err := l.pool.QueryRow(ctx, appendAfter, l.tenant, l.id, have, entry).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, smg.ErrLogChanged
	}
	return v, unavailable(err)
}

// Change runs fn in a transaction that holds the memory's row lock.
func (l *pgLog) Change(ctx context.Context, fn func(smg.LogTx) error) error {
	err := pgx.BeginFunc(ctx, l.pool, func(tx pgx.Tx) error {
		var v int64
		err := tx.QueryRow(ctx, `SELECT version FROM smg_memories WHERE tenant = $1 AND id = $2 FOR UPDATE`, l.tenant, l.id).Scan(&v)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w: %s", ErrNotFound, l.id)
		}
		if err != nil {
			return err
		}
		return fn(&pgTx{ctx: ctx, tx: tx, l: l})
	})
	return unavailable(err)
}

// pgTx is a change of a memory of the database.
type pgTx struct {
	ctx context.Context
	tx  pgx.Tx
	l   *pgLog
}

func (t *pgTx) Read(have int64) (smg.LogState, error) { return t.l.read(t.ctx, t.tx, have) }

func (t *pgTx) Append(entry []byte) (int64, error) {
	var v int64
	err := t.tx.QueryRow(t.ctx, `WITH c AS (
		INSERT INTO smg_changes (tenant, id, version, entry) VALUES ($1, $2, nextval('smg_versions'), $3) RETURNING version)
		UPDATE smg_memories m SET version = c.version, modified = now() FROM c WHERE m.tenant = $1 AND m.id = $2 RETURNING m.version`,
		t.l.tenant, t.l.id, entry).Scan(&v)
	return v, unavailable(err)
}

func (t *pgTx) Rebase(file []byte) (int64, error) {
	if _, err := t.tx.Exec(t.ctx, `DELETE FROM smg_changes WHERE tenant = $1 AND id = $2`, t.l.tenant, t.l.id); err != nil {
		return 0, unavailable(err)
	}
	var v int64
	err := t.tx.QueryRow(t.ctx, `UPDATE smg_memories SET base = $3, base_version = v, version = v, modified = now()
		FROM nextval('smg_versions') AS v WHERE tenant = $1 AND id = $2 RETURNING version`, t.l.tenant, t.l.id, file).Scan(&v)
	return v, unavailable(err)
}

// pgKeys are the API keys of a database.
type pgKeys struct {
	pool *pgxpool.Pool
	// keyed is set once the database has a key: keys are revoked, never
	// removed, so a keyed database stays keyed.
	keyed atomic.Bool
}

// Enabled reports whether the database has keys: then every request
// needs one.
func (k *pgKeys) Enabled(ctx context.Context) (bool, error) {
	if k.keyed.Load() {
		return true, nil
	}
	var on bool
	err := k.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM smg_keys)`).Scan(&on)
	if err != nil {
		return false, unavailable(err)
	}
	k.keyed.Store(on)
	return on, nil
}

const keyColumns = `id, hash, tenant, scope, memories, label, created, expires, revoked`

func scanKey(row pgx.Row) (Key, error) {
	var key Key
	var memories []string
	var expires, revoked *time.Time
	err := row.Scan(&key.ID, &key.Hash, &key.Tenant, &key.Scope, &memories, &key.Label, &key.Created, &expires, &revoked)
	if len(memories) > 0 {
		key.Memories = memories
	}
	key.Created = key.Created.UTC()
	if expires != nil {
		key.Expires = expires.UTC()
	}
	if revoked != nil {
		key.Revoked = revoked.UTC()
	}
	return key, err
}

// Check returns the key of a secret, or an error that wraps ErrKey.
func (k *pgKeys) Check(ctx context.Context, secret string) (*Key, error) {
	key, err := scanKey(k.pool.QueryRow(ctx, `SELECT `+keyColumns+` FROM smg_keys WHERE hash = $1`, hashKey(secret)))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, ErrKey
	case err != nil:
		return nil, unavailable(err)
	}
	if err := key.usable(time.Now()); err != nil {
		return nil, err
	}
	return &key, nil
}

// Add makes a new key of what nk says, keeps its hash, and returns the
// key, which is shown once.
func (k *pgKeys) Add(ctx context.Context, nk Key) (string, Key, error) {
	secret, key, err := newKey(nk)
	if err != nil {
		return "", Key{}, err
	}
	rows, err := k.pool.Query(ctx, `SELECT DISTINCT tenant FROM smg_keys WHERE lower(tenant) = lower($1)`, key.Tenant)
	if err != nil {
		return "", Key{}, unavailable(err)
	}
	tenants, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", Key{}, unavailable(err)
	}
	if err := caseClash(tenants, key.Tenant); err != nil {
		return "", Key{}, err
	}
	memories := key.Memories
	if memories == nil {
		memories = []string{}
	}
	var expires *time.Time
	if !key.Expires.IsZero() {
		expires = &key.Expires
	}
	_, err = k.pool.Exec(ctx, `INSERT INTO smg_keys (id, hash, tenant, scope, memories, label, created, expires) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		key.ID, key.Hash, key.Tenant, string(key.Scope), memories, key.Label, key.Created, expires)
	if err != nil {
		return "", Key{}, unavailable(err)
	}
	return secret, key, nil
}

// Revoke revokes the key id.
func (k *pgKeys) Revoke(ctx context.Context, id string) error {
	tag, err := k.pool.Exec(ctx, `UPDATE smg_keys SET revoked = coalesce(revoked, date_trunc('second', now())) WHERE id = $1`, id)
	if err != nil {
		return unavailable(err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: no key %q", ErrKey, id)
	}
	return nil
}

// Reset removes every key: the database serves without keys again, to
// servers started after (a running server that had keys keeps asking for
// them).
func (k *pgKeys) Reset(ctx context.Context) error {
	_, err := k.pool.Exec(ctx, `DELETE FROM smg_keys`)
	return unavailable(err)
}

// List returns the keys, without their hashes, oldest first.
func (k *pgKeys) List(ctx context.Context) ([]Key, error) {
	rows, err := k.pool.Query(ctx, `SELECT `+keyColumns+` FROM smg_keys ORDER BY created, id`)
	if err != nil {
		return nil, unavailable(err)
	}
	keys, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Key, error) { return scanKey(row) })
	for i := range keys {
		keys[i].Hash = ""
	}
	return keys, unavailable(err)
}
