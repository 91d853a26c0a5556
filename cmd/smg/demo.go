package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/examples"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/importer"
)

// demoBudget is the budget of the demo's contexts: small, so that what
// the memory chooses shows.
const demoBudget = 400

// demoQuestions are asked of the demo's memory. Their answers are in the
// conversation, some turns before: why a decision was made, how a problem
// was solved, what the user prefers.
var demoQuestions = []string{
	"Why did we choose Stripe Elements instead of Stripe Checkout?",
	"How did we fix the webhook returning 401 in production?",
	"Which language does Dana prefer for backend work?",
}

func (a *app) demoCommand() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "demo [-o FILE]",
		Short: "Build a memory from a bundled conversation and ask it three questions",
		Long: `Demo shows what smg does, from any directory. It builds a memory from the
conversation bundled in the binary (a shop's Stripe checkout written with a
coding assistant, smg/examples/checkout.json: 20 turns), saves it
to FILE (by default shop.smg in smg's folder of the user's cache,
$XDG_CACHE_HOME/smg/demo or ~/.cache/smg/demo, replacing the last demo's),
prints its summary as
'smg info' does, and asks it three questions, each answered with a context
of at most 400 tokens (cl100k) and its provenance, as 'smg context' prints
them. FILE must not exist.`,
		Args: cobra.NoArgs,
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if out == "" {
				var err error
				if out, err = demoFile(); err != nil {
					return err
				}
			} else if _, err := os.Stat(out); err == nil {
				return fmt.Errorf("%s exists: the demo writes a new memory, give it another name: %w", out, fs.ErrExist)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return err
			}

			res, err := importer.Read(bytes.NewReader(examples.Checkout), importer.Options{Name: "checkout.json", Strict: true})
			if err != nil {
				return err
			}
			// Never a model provider, even when the environment names
			// one: the demo stays offline, with the built-in encoder, and
			// prints the same every time.
			m := smg.New(&smg.Options{ProjectName: "shop", NoVectors: a.noBuiltin})
			n := 0
			for _, c := range res.Conversations {
				k, err := m.IngestAll(ctx, c.Turns)
				if err != nil {
					return err
				}
				n += k
			}
			if err := a.locked(cmd, out, func() error { return m.Save(out, nil) }); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Built a memory from checkout.json, a coding conversation of %d turns about a shop's Stripe checkout,\nand saved it to %s:\n\n", n, out)

			info, err := format.InspectFileWith(out, a.decodeOptions(out), format.InspectOptions{})
			if err != nil {
				return err
			}
			if err := writeInfo(a.stdout, info); err != nil {
				return err
			}

			// Answer from the file, as smg context would: what the demo
			// shows is what was saved. Without a cache, so that the demo
			// leaves only the file it names.
			saved, damaged, err := a.openIndexed(ctx, out, true, vectors{off: a.noBuiltin})
			if err = errors.Join(damaged, err); err != nil {
				return err
			}
			defer saved.Close()
			tok, err := smg.NewTokenizer(smg.CL100K)
			if err != nil {
				return err
			}
			for i, q := range demoQuestions {
				r, err := saved.Context(ctx, q, &smg.ContextOptions{Budget: demoBudget, Tokenizer: tok, Wait: true})
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "\n==== Question %d of %d: %s\n(smg context %s %q --budget %d)\n\n", i+1, len(demoQuestions), q, out, q, demoBudget)
				if err := writeContext(a.stdout, r); err != nil {
					return err
				}
			}
			_, err = fmt.Fprintf(a.stdout, "\nThe memory is %s. Go on with:\n"+
				"  smg nodes %[1]s --type decision\n"+
				"  smg search %[1]s \"database is locked\"\n"+
				"  smg context %[1]s \"what is left to do?\"\n", out)
			return err
		}),
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the memory file to write (a new one; default: the demo's own, in the user's cache folder)")
	return cmd
}

// demoFile is where the demo writes without -o: shop.smg in smg's folder
// of the user's cache ($XDG_CACHE_HOME/smg/demo, ~/.cache/smg/demo), the
// memory of the last demo removed, so that demos do not pile up; in a new
// temporary folder when the user has no cache folder.
func demoFile() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		dir, err := os.MkdirTemp("", "smg-demo-")
		return filepath.Join(dir, "shop.smg"), err
	}
	dir := filepath.Join(cache, "smg", "demo")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	file := filepath.Join(dir, "shop.smg")
	if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return file, nil
}
