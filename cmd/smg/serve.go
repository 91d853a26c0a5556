package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/serve"
)

const serveLong = `Serve serves the memories of a directory over HTTP, as JSON: create, list,
describe and delete memories, append turns (durably, and never twice the
same), assemble the context for a question, and call the model tools, for
chat clients written in any language. The OpenAPI 3.1 document of every
endpoint is at /openapi.json, and every error is a JSON problem (RFC 9457).

Each memory is a file, DIR/default/ID.smg, that the smg command reads and
changes too. This is the service's first part: one tenant and no keys, so
it listens on the loopback interface unless --addr says otherwise.

  curl -s localhost:8080/v1/memories -d '{"id": "dana"}'
  curl -s localhost:8080/v1/memories/dana/turns \
    -d '{"turns": [{"role": "user", "content": "We use PostgreSQL for the ledger."}]}'
  curl -s localhost:8080/v1/memories/dana/context -d '{"question": "Which database?"}'

On SIGINT or SIGTERM it stops taking requests, finishes those in flight
(up to 30 s) and closes the memories.`

func (a *app) serveCommand() *cobra.Command {
	var dir, addr string
	var noProvider, noVectors bool
	var maxOpen int
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
			opts := smg.FileOptions{Open: vecs.open(smg.OpenOptions{}), Lock: *a.lockOptions()}
			store, err := serve.NewDir(dir, maxOpen, opts)
			if err != nil {
				return err
			}
			defer store.Close()
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return err
			}
			log := slog.New(slog.NewTextHandler(a.stderr, nil))
			srv := &http.Server{Handler: serve.New(store), ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
			fmt.Fprintf(a.stdout, "serving %s on http://%s\n", dir, ln.Addr())
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
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
		}),
	}
	cmd.Flags().StringVar(&dir, "dir", "memories", "the `DIR`ectory of the memories (made when missing)")
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "the `HOST:PORT` to listen on")
	cmd.Flags().IntVar(&maxOpen, "open", serve.DefaultOpen, "how many memories to keep open, with their indexes")
	ranged(cmd, "open", 1, 100000)
	vectorFlags(cmd, &noProvider, &noVectors)
	return cmd
}
