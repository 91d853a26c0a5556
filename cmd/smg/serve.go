package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/serve"
)

const serveLong = `Serve serves the memories of a directory over HTTP, as JSON: create, list,
describe and delete memories, append turns (durably, and never twice the
same), assemble the context for a question, and call the model tools, for
chat clients written in any language; and the model tools of a memory to a
remote MCP client at /mcp/ID (streamable HTTP). The OpenAPI 3.1 document of
every endpoint is at /openapi.json, and every error is a JSON problem (RFC
9457).

Each memory is a file, DIR/TENANT/ID.smg, that the smg command reads and
changes too. Once the directory has API keys ('smg serve key add'), every
request needs one, "Authorization: Bearer KEY": its tenant is the
request's, and its scope (read, write or admin) and memories bound what it
may do. Without keys, the memories are one tenant's, "default", served to
anyone who can reach the server: it then listens on a loopback address
only.

  curl -s localhost:8080/v1/memories -H 'Content-Type: application/json' \
    -d '{"id": "dana"}'
  curl -s localhost:8080/v1/memories/dana/turns -H 'Content-Type: application/json' \
    -d '{"turns": [{"role": "user", "content": "We use PostgreSQL for the ledger."}]}'
  curl -s localhost:8080/v1/memories/dana/context -H 'Content-Type: application/json' \
    -d '{"question": "Which database do we use for the ledger?"}'

With --store postgres://USER:PASSWORD@HOST/DB the memories are kept in
PostgreSQL instead, and any number of servers may share the database: each
change is a transaction under the memory's row lock, and each server reads
a memory's new changes before it answers. The schema is brought up to date
at start; the keys are in the database ('smg serve key add --store URL').

A memory's full-text index is kept on disk, beside its file in DIR (in
DIR/TENANT/.ID.smg.cache), and written again with the file: a server that
opens the memory, after a restart or for another that failed, opens the
index in place rather than indexing every turn again, and updates a copy
of it as turns come in. With --store, --index-cache FOLDER keeps the
indexes there (FOLDER/TENANT/ID): a folder the servers of the database
share lets each open a memory's index in place; without it, a server
indexes each memory it opens. The indexes hold the memories' text.

It logs a line a request on stderr, serves Prometheus metrics at /metrics
(request times by operation and status, memories open, opens served from
memory or read from the store, the Go runtime's) and answers /healthz (it
runs) and /readyz (it can write its directory, or its database answers).
A caller past --rate is answered 429, with Retry-After; a request past
--timeout, or one its database could not be reached for, 503 with
Retry-After (a write that did not finish leaves the memory as it was:
send it again); a turn past --max-turn 413, and a file to import past
the 64 MiB a reader of the format takes 413, as soon as the request says
its length. An MCP request carries one message (a batch is refused), so
that each tool call counts against --rate and --timeout. A failure of the
server says what failed, not why: the why goes to the log. On SIGINT or
SIGTERM it stops taking requests, finishes those in flight (up to 30 s)
and closes the memories.

Two servers may share a directory: each change is made under the file's
lock, each read sees the other's changes, and a memory one deletes is gone
for the other too. Tenants and memory ids that differ only in case are
refused (they would be one folder or one file on macOS or Windows).`

// storeFlags say where a server's memories are: a directory, or a
// PostgreSQL database.
type storeFlags struct{ dir, url string }

// add adds --dir and --store, one or the other, to flags, cmd's own or
// those it passes on.
func (f *storeFlags) add(cmd *cobra.Command, flags *pflag.FlagSet) {
	flags.StringVar(&f.dir, "dir", "memories", "the `DIR`ectory of the memories (made when missing)")
	flags.StringVar(&f.url, "store", "", "a PostgreSQL database to keep the memories in instead (`URL`: postgres://USER:PASSWORD@HOST/DB)")
	cmd.MarkFlagsMutuallyExclusive("dir", "store")
}

// where names the store for people: the directory, or the database's
// address without its password.
func (f *storeFlags) where() string {
	if f.url == "" {
		return f.dir
	}
	if u, err := url.Parse(f.url); err == nil && u.Scheme != "" {
		return u.Redacted()
	}
	return "the PostgreSQL database"
}

// open opens the store the flags name.
func (f *storeFlags) open(ctx context.Context, maxOpen int, fileOpts smg.FileOptions) (serve.Store, error) {
	if f.url != "" {
		return serve.OpenPostgres(ctx, f.url, maxOpen, smg.StoredOptions{Open: fileOpts.Open})
	}
	return serve.NewDir(f.dir, maxOpen, fileOpts)
}

// openOne opens the store the flags name to move one memory in or out:
// nothing kept open, nothing embedded.
func (f *storeFlags) openOne(ctx context.Context) (serve.Store, error) {
	return f.open(ctx, 1, smg.FileOptions{Open: smg.OpenOptions{NoVectors: true}})
}

// keys opens the keys of the store the flags name; done closes them.
func (f *storeFlags) keys(ctx context.Context) (keys serve.KeyStore, done func(), err error) {
	if f.url == "" {
		return serve.NewKeys(f.dir), func() {}, nil
	}
	p, err := serve.OpenPostgres(ctx, f.url, 1, smg.StoredOptions{})
	if err != nil {
		return nil, nil, err
	}
	return p.Keys(), func() { p.Close() }, nil
}

func (a *app) serveCommand() *cobra.Command {
	var where storeFlags
	var addr string
	var indexCache string
	var noProvider, noVectors bool
	var maxOpen, burst, maxTurn int
	var rate float64
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:         "serve [--dir DIR] [--addr HOST:PORT]",
		Annotations: boundedMemory,
		Short:       "Serve memories over HTTP (JSON, OpenAPI at /openapi.json)",
		Long:        serveLong,
		Args:        cobra.NoArgs,
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			vecs, err := a.vectors(noProvider, noVectors)
			if err != nil {
				return err
			}
			// The tables of the default tokenizer (about 150 ms) and
			// the built-in encoder (about 130 ms) are loaded now rather
			// than at the first users' requests, which would all wait
			// for them.
			if _, err := smg.NewTokenizer(smg.CL100K); err != nil {
				return err
			}
			if !vecs.off && vecs.emb == nil {
				if _, err := smg.BuiltinEmbedder(); err != nil {
					return err
				}
			}
			if indexCache != "" && where.url == "" {
				return usageErrorf("--index-cache is for a --store database: the memories of a directory keep their indexes beside their files")
			}
			opts := smg.FileOptions{Open: vecs.open(smg.OpenOptions{IndexCache: indexCache}), Lock: *a.lockOptions()}
			store, err := where.open(cmd.Context(), maxOpen, opts)
			if err != nil {
				return err
			}
			defer store.Close()
			keyed, err := store.Keys().Enabled(cmd.Context())
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return err
			}
			if ip := ln.Addr().(*net.TCPAddr).IP; !keyed && !ip.IsLoopback() {
				ln.Close()
				return usageErrorf("%s has no API keys: it would be served to anyone who reaches %s; add one first (smg serve key add --tenant NAME, with the same --dir or --store), or listen on 127.0.0.1", where.where(), addr)
			}
			log := slog.New(slog.NewTextHandler(a.stderr, nil))
			fmt.Fprintf(a.stdout, "serving %s on http://%s\n", where.where(), ln.Addr())
			return serveOn(cmd.Context(), ln, serve.New(store, &serve.Options{Log: log, Rate: rate, Burst: burst, Timeout: timeout, MaxTurn: maxTurn}), log)
		}),
	}
	where.add(cmd, cmd.Flags())
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "the `HOST:PORT` to listen on")
	cmd.Flags().IntVar(&maxOpen, "open", serve.DefaultOpen, "how many memories to keep open, with their indexes")
	cmd.Flags().StringVar(&indexCache, "index-cache", "", "with --store, a `FOLDER` to keep the memories' indexes in, which the servers of the database may share")
	ranged(cmd, "open", 1, 100000)
	cmd.Flags().Float64Var(&rate, "rate", 50, "requests a second a key (or, without keys, an address) may make on average; 0: no limit")
	ranged(cmd, "rate", 0, 1e6)
	cmd.Flags().IntVar(&burst, "burst", 100, "requests a key may make at once, within --rate")
	ranged(cmd, "burst", 1, 1e6)
	cmd.Flags().DurationVar(&timeout, "timeout", serve.DefaultTimeout, "the most a request may take (503 past it, safe to retry)")
	ranged(cmd, "timeout", 0.001, 3600)
	cmd.Flags().IntVar(&maxTurn, "max-turn", serve.DefaultMaxTurn, "the most `BYTES` a turn's text may take (413 past it)")
	ranged(cmd, "max-turn", 1, serve.MaxBody)
	vectorFlags(cmd, &noProvider, &noVectors)
	cmd.AddCommand(a.keyCommand(), a.storeExportCommand(), a.storeImportCommand())
	return cmd
}

// serveOn serves h on ln until it fails, or until SIGINT or SIGTERM, then
// finishes the requests in flight (30 s at most) and returns.
func serveOn(ctx context.Context, ln net.Listener, h http.Handler, log *slog.Logger) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("stopping: finishing the requests in flight")
	end, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(end); err != nil {
		return err
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func (a *app) storeExportCommand() *cobra.Command {
	var where storeFlags
	var tenant, out string
	cmd := &cobra.Command{
		Use:   "export ID [--tenant NAME] [--dir DIR | --store URL] -o FILE",
		Short: "Write a memory of a store as a .smg file",
		Long: `Export writes the memory ID of a store, with every change it holds, as a
.smg file (Brotli-compressed, as the smg command writes them): the same
bytes from a directory or from PostgreSQL, and the same bytes GET
/v1/memories/ID/file answers. Every smg command reads it.`,
		Args: cobra.ExactArgs(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			store, err := where.openOne(cmd.Context())
			if err != nil {
				return err
			}
			defer store.Close()
			kept, done, err := store.Open(cmd.Context(), tenant, args[0])
			if errors.Is(err, serve.ErrNotFound) || errors.Is(err, serve.ErrInvalidID) {
				return usageErrorf("%v in %s", err, where.where())
			} else if err != nil {
				return err
			}
			defer done()
			m, err := kept.Memory(cmd.Context())
			if err != nil {
				return err
			}
			b, err := m.Marshal(nil)
			if err != nil {
				return err
			}
			return format.WriteBytes(out, b, false)
		}),
	}
	where.add(cmd, cmd.Flags())
	cmd.Flags().StringVar(&tenant, "tenant", serve.Tenant, "the tenant whose memory it is")
	cmd.Flags().StringVarP(&out, "output", "o", "", "the `FILE` to write (atomically)")
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

func (a *app) storeImportCommand() *cobra.Command {
	var where storeFlags
	var tenant, id string
	cmd := &cobra.Command{
		Use:   "import FILE [--tenant NAME] [--id ID] [--dir DIR | --store URL]",
		Short: "Add a .smg file to a store as a new memory",
		Long: `Import adds the memory of a .smg file (compressed or plain, not encrypted:
a store keeps memories in the clear) to a store as the memory ID of the
tenant (the file's name without .smg unless --id), checked within the
format's limits; a memory of that id is not replaced. With it, the
memories of a directory move to PostgreSQL one file at a time.`,
		Args: exactFiles(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			if id == "" {
				id = strings.TrimSuffix(filepath.Base(args[0]), ".smg")
			}
			raw, err := format.ReadBytes(args[0], format.Limits{})
			if err != nil {
				return err
			}
			store, err := where.openOne(cmd.Context())
			if err != nil {
				return err
			}
			defer store.Close()
			kept, done, err := store.Import(cmd.Context(), tenant, id, raw)
			switch {
			case errors.Is(err, serve.ErrExists), errors.Is(err, serve.ErrInvalidID):
				return usageErrorf("%v in %s", err, where.where())
			case err != nil:
				return inFile(args[0], err)
			}
			defer done()
			m, err := kept.Memory(cmd.Context())
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s/%s: %d turns, in %s\n", tenant, id, m.Turns(), where.where())
			return nil
		}),
	}
	where.add(cmd, cmd.Flags())
	cmd.Flags().StringVar(&tenant, "tenant", serve.Tenant, "the tenant whose memory it becomes")
	cmd.Flags().StringVar(&id, "id", "", "the memory's id (default: the file's name without .smg)")
	return cmd
}

// parseExpiry reads when a key expires: a duration from now, a date (at
// its start, UTC) or an RFC 3339 time.
func parseExpiry(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d <= 0 {
			return time.Time{}, fmt.Errorf("%q: want a time to come", s)
		}
		return now.Add(d), nil
	}
	for _, layout := range []string{time.DateOnly, time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q: want a duration (720h), a date (2027-01-31) or an RFC 3339 time", s)
}

func (a *app) keyCommand() *cobra.Command {
	var where storeFlags
	key := &cobra.Command{
		Use:   "key",
		Short: "Add, list and revoke the API keys of a store of memories",
		Long: `The keys of the memories of DIR (DIR/keys.json, which holds their
hashes, never the keys), or of the PostgreSQL database of --store (table
smg_keys). A running server takes a key added or revoked at its next
request. Keys are revoked, never removed: a store that had keys asks every
request for one, and a directory whose keys.json is removed or cannot be
read refuses every request, until it is restored or the keys are reset
('smg serve key reset --yes', the operator's way back to no keys).`,
	}
	where.add(key, key.PersistentFlags())
	var tenant, scope, label, expires string
	var memories []string
	add := &cobra.Command{
		Use:   "add --tenant NAME [--scope read|write|admin] [--memory ID]...",
		Short: "Make a new key and print it, once",
		Args:  cobra.NoArgs,
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			if tenant == "" {
				return usageErrorf("--tenant NAME is required: whose memories the key reaches")
			}
			keys, done, err := where.keys(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			var until time.Time
			if expires != "" {
				if until, err = parseExpiry(expires, time.Now()); err != nil {
					return usageErrorf("--expires: %v", err)
				}
			}
			secret, k, err := keys.Add(cmd.Context(), serve.Key{Tenant: tenant, Scope: serve.Scope(scope), Memories: memories, Label: label, Expires: until})
			if errors.Is(err, serve.ErrUnavailable) {
				return err
			} else if err != nil {
				return usageErrorf("%v", err)
			}
			fmt.Fprintln(a.stdout, secret)
			expiry := ""
			if !k.Expires.IsZero() {
				expiry = ", until " + k.Expires.Format(time.RFC3339)
			}
			fmt.Fprintf(a.stderr, "key %s for tenant %s (%s%s): keep it now, it is not shown again\n", k.ID, k.Tenant, k.Scope, expiry)
			return nil
		}),
	}
	add.Flags().StringVar(&tenant, "tenant", "", "the tenant whose memories the key reaches")
	add.Flags().StringVar(&scope, "scope", string(serve.ScopeWrite), "read, write (and read) or admin (and delete)")
	add.Flags().StringArrayVar(&memories, "memory", nil, "a memory the key reaches, and no other (repeat for more)")
	add.Flags().StringVar(&label, "label", "", "what the key is for")
	add.Flags().StringVar(&expires, "expires", "", "when the key stops working: a `TIME` from now (720h), a date (2027-01-31, at its start, UTC) or an RFC 3339 time")
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List the keys (never the keys themselves)",
		Args:  cobra.NoArgs,
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			store, done, err := where.keys(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			keys, err := store.List(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return a.writeJSON(keys)
			}
			for _, k := range keys {
				state := "active"
				switch {
				case !k.Revoked.IsZero():
					state = "revoked " + k.Revoked.Format(time.DateOnly)
				case !k.Expires.IsZero() && !time.Now().Before(k.Expires):
					state = "expired " + k.Expires.Format(time.DateOnly)
				case !k.Expires.IsZero():
					state = "active until " + k.Expires.Format(time.RFC3339)
				}
				fmt.Fprintf(a.stdout, "%s  %-10s %-6s %s  %s  %s\n", k.ID, k.Tenant, k.Scope, strings.Join(k.Memories, ","), state, k.Label)
			}
			return nil
		}),
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a key: the server refuses it from its next request",
		Args:  cobra.ExactArgs(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			keys, done, err := where.keys(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			if err := keys.Revoke(cmd.Context(), args[0]); errors.Is(err, serve.ErrKey) {
				return usageErrorf("%v", err)
			} else if err != nil {
				return err
			}
			return nil
		}),
	}
	var sure bool
	reset := &cobra.Command{
		Use:   "reset --yes",
		Short: "Remove every key: servers started after serve without keys",
		Long: `Reset removes every key of the store, revoked or not, and its mark of
having had keys: servers started after it serve without keys, one tenant,
"default", on a loopback address only. A running server that had keys
keeps asking for them until it is started again. It is the way back to a
store without keys: a directory whose keys.json is removed otherwise
refuses every request.`,
		Args: cobra.NoArgs,
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			if !sure {
				return usageErrorf("reset removes every key of %s: say --yes", where.where())
			}
			keys, done, err := where.keys(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			if err := keys.Reset(cmd.Context()); err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "%s has no keys: a server started now serves it without keys, on a loopback address only\n", where.where())
			return nil
		}),
	}
	reset.Flags().BoolVar(&sure, "yes", false, "remove every key")
	key.AddCommand(add, list, revoke, reset)
	return key
}
