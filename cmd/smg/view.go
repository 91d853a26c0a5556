package main

import (
	"fmt"
	"log/slog"
	"net"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/serve"
)

func (a *app) viewCommand() *cobra.Command {
	var addr string
	var noProvider, noVectors bool
	cmd := &cobra.Command{
		Use:         "view FILE [--addr 127.0.0.1:PORT]",
		Annotations: boundedMemory,
		Short:       "Look at a memory in a browser: its knowledge map, facts, timeline and contexts",
		Long: `View serves the memory of FILE, with smg's web interface, on a local
address, and prints it: open it in a browser. The interface draws the
knowledge map (the most important nodes, their neighbourhoods on demand, a
node's detail with the turns that mention it and its artifact's versions),
lists the facts to pin, edit and forget, shows decisions and facts over time
with their supersede chains, and asks contexts at a chosen budget, showing
what went in, why, and what did not fit. Changes are written to FILE as the
smg command writes them (atomically, under the file's lock). It serves on a
loopback address only (there are no keys); Ctrl-C stops it.`,
		Args: cobra.ExactArgs(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			vecs, err := a.vectors(noProvider, noVectors)
			if err != nil {
				return err
			}
			f, err := a.fileMemory(args[0], nil, vecs.open(smg.OpenOptions{IndexCache: format.IndexCacheDir(args[0])}))
			if err != nil {
				return err
			}
			store, err := serve.NewOneFile(args[0], f)
			if err != nil {
				f.Close()
				return err
			}
			defer store.Close()
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return err
			}
			if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
				ln.Close()
				return usageErrorf("smg view serves on a loopback address only (it has no keys), not %s: use smg serve with keys to share a memory", addr)
			}
			log := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			fmt.Fprintf(a.stdout, "viewing %s on http://%s/ui/#/map?m=%s\n", args[0], ln.Addr(), store.ID())
			return serveOn(cmd.Context(), ln, serve.New(store, &serve.Options{Log: log}), log)
		}),
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "the loopback `HOST:PORT` to listen on (port 0: any free one)")
	vectorFlags(cmd, &noProvider, &noVectors)
	return cmd
}
