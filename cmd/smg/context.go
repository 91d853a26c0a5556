package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

const contextLong = `Context assembles what a model needs to answer QUESTION from the memory in
FILE, inside a budget of tokens: working memory and the facts always loaded,
what full-text search finds, the graph around it, the artifacts of the nodes
chosen and the turns they came from. It prints the context, then where each
item of it comes from (its section, its kind, the node, turn and external
id, or artifact version, its score and its tokens), then its size.

Tokens are counted with --tokenizer: cl100k (GPT-4), o200k (GPT-4o) or
estimate (no model; a margin of the budget is then kept unused).

The full-text index of the memory is kept between runs in the file's cache
folder, .FILE.cache/index, for the file's exact bytes; the next run reopens
it instead of indexing again. It is never kept for an
encrypted file, since it holds the memory's text. --no-index-cache neither
reads nor writes it.

--with composes the context from other memories too, a workspace's beside
a user's say: each is searched, its items weighted by its scope (a file's
1.5x, a team's 1.3x), and all share the budget; facts go under "About This
User" and "About This Workspace", and take at most --fact-budget tokens.
--scope keeps only the facts of the scopes named ("user", "user:dana",
"workspace:crawler"…; a scope holds those within it). --as adds a
collaborator's private part of FILE, asking for its password when it is
sealed (or reading it from ` + privateEnv + `), and no one else's.

The question is embedded, with the built-in sentence encoder or a model
provider of embeddings (see 'smg embed --help'), and the turns nearest it
in meaning are found too, when the file holds vectors of that model;
--no-vectors does without. A provider that fails costs the vectors, never
the context: a warning says so, as it says how many turns of the file are
still to be embedded.`

func (a *app) contextCommand() *cobra.Command {
	var budget, factBudget int
	var tokenizer string
	var with, scopes []string
	var as, at string
	var asJSON, noCache, noProvider, noVectors bool
	cmd := &cobra.Command{
		Use:   "context FILE QUESTION",
		Short: "Assemble the context for a question inside a token budget, with its provenance",
		Long:  contextLong,
		Args:  fileAndText("QUESTION", "a question, like 'why did we choose Stripe Elements?'"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			// The tokenizer's tables load (a tenth of a second) while the
			// memory opens.
			type loaded struct {
				tok smg.Tokenizer
				err error
			}
			tokenized := make(chan loaded, 1)
			go func() {
				tok, err := smg.NewTokenizer(tokenizer)
				tokenized <- loaded{tok, err}
			}()
			tokenizerOf := func() (smg.Tokenizer, error) {
				l := <-tokenized
				if l.err != nil || tokenizer == "" {
					return nil, usageErrorf("--tokenizer: want cl100k, o200k or estimate, not %q", tokenizer)
				}
				return l.tok, nil
			}
			for _, s := range scopes {
				if err := spec.CheckFactScope(s); err != nil {
					return usageErrorf("--scope: %v", err)
				}
			}
			asOf, err := parseAsOf(at)
			if err != nil {
				return usageErrorf("--at %s", err)
			}
			vecs, err := a.vectors(noProvider, noVectors)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			var memories []*smg.Memory
			var damaged []error
			for _, name := range append([]string{args[0]}, with...) {
				m, d, err := a.openIndexed(ctx, name, noCache, vecs)
				if err != nil {
					return err
				}
				defer m.Close()
				memories, damaged = append(memories, m), append(damaged, d)
			}
			if as != "" {
				p, err := a.private(memories[0], as, false)
				if err != nil {
					return err
				}
				defer p.Close()
				memories = append(memories, p)
			}
			tok, err := tokenizerOf()
			if err != nil {
				return err
			}
			opts := smg.ContextOptions{Budget: budget, Tokenizer: tok, Wait: true, Scopes: scopes, FactBudget: factBudget, At: asOf}
			res, err := smg.Compose(ctx, args[1], &smg.ComposeOptions{ContextOptions: opts}, memories...)
			if err != nil {
				return err
			}
			for _, w := range res.Warnings {
				fmt.Fprintf(a.stderr, "smg: warning: %s\n", w)
			}
			if asJSON {
				err = a.writeJSON(res)
			} else {
				err = writeContext(a.stdout, res)
			}
			return errors.Join(append(damaged, err)...)
		}),
	}
	cmd.Flags().IntVar(&budget, "budget", smg.DefaultBudget, "the most tokens the context may take")
	ranged(cmd, "budget", 1, unbounded)
	cmd.Flags().StringVar(&tokenizer, "tokenizer", smg.CL100K, "what counts tokens: cl100k, o200k or estimate")
	cmd.Flags().StringSliceVar(&with, "with", nil, "compose with the memory of this file too (repeatable)")
	cmd.Flags().StringSliceVar(&scopes, "scope", nil, "only the facts of this scope, or within it (repeatable)")
	cmd.Flags().IntVar(&factBudget, "fact-budget", smg.DefaultFactBudget, "the most tokens facts may take")
	ranged(cmd, "fact-budget", 1, unbounded)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the context and its provenance as JSON")
	cmd.Flags().StringVar(&at, "at", "", "answer from what the memory held then: a date (2024-04-01, to its end) or an RFC 3339 time")
	cmd.Flags().StringVar(&as, "as", "", "compose FILE's memory with this collaborator's private part (see 'smg collaborators')")
	cmd.Flags().BoolVar(&noCache, "no-index-cache", false, "neither read nor write the index cache beside FILE")
	vectorFlags(cmd, &noProvider, &noVectors)
	return cmd
}

// fileAndText checks the arguments of a command that takes a file and one
// text, and says what the text is when it is missing.
func fileAndText(what, example string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch len(args) {
		case 0:
			return usageErrorf("missing FILE and %s", what)
		case 1:
			return usageErrorf("missing %s, %s", what, example)
		case 2:
			return nil
		}
		return usageErrorf("want FILE and %s, got %d arguments (quote the %s)", what, len(args), strings.ToLower(what))
	}
}

// openIndexed opens the named memory and waits until its index holds every
// turn: a command run once should give the whole answer, and the cache it
// leaves (unless noCache) makes the next run fast; it is read once (the
// blocks indexing decodes are not kept), with the heap growing slowly
// (app.growSlowly), and from then on the heap is bounded (app.bound).
// vecs embed the questions asked of it. Archive blocks that cannot be
// read fail alone: the memory is returned with damaged, which names them,
// for the command to report once it has answered from the rest.
func (a *app) openIndexed(ctx context.Context, name string, noCache bool, vecs vectors) (m *smg.Memory, damaged, err error) {
	o := vecs.open(smg.OpenOptions{Decode: *a.decodeOptions(name), ReadOnce: true})
	opts := &o
	if !noCache {
		opts.IndexCache = format.IndexCacheDir(name)
	}
	grown := a.growSlowly()
	if m, err = smg.Open(name, opts); err != nil {
		grown()
		return nil, nil, err
	}
	err = m.WaitIndex(ctx)
	grown()
	a.bound()
	switch {
	case errors.Is(err, smg.ErrIndexCache):
		// The index is complete; only the next run will index again.
		fmt.Fprintf(a.stderr, "smg: warning: %v (the index is not cached; --no-index-cache does without)\n", err)
	case errors.As(err, new(*format.BlockError)):
		return m, fmt.Errorf("%s: %w", name, err), nil
	case err != nil:
		m.Close()
		return nil, nil, err
	}
	return m, nil, nil
}

// writeContext prints a context's text, then its provenance, one line an
// item, then its size.
func writeContext(w io.Writer, res *smg.ContextResult) error {
	text := res.Text
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if _, err := io.WriteString(w, text+"\n"); err != nil {
		return err
	}
	if err := writeProvenance(w, res.Items); err != nil {
		return err
	}
	footer := fmt.Sprintf("%d of %d tokens (%s)", res.Tokens, res.Budget, res.Tokenizer)
	if res.Partial {
		// Only when the indexing failed: the commands wait for it.
		footer += ", partial: not every turn was indexed"
	}
	_, err := fmt.Fprintf(w, "\n%s\n", footer)
	return err
}

// writeProvenance prints the items of a context as a table: each one's
// section and kind, the node or artifact version it is, the turn it is or
// was said in, its score and its tokens.
func writeProvenance(w io.Writer, items []smg.Found) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	composed := slices.ContainsFunc(items, func(it smg.Found) bool { return it.Memory != "" })
	if composed {
		fmt.Fprint(tw, "MEMORY\t")
	}
	fmt.Fprintln(tw, "SECTION\tKIND\tID\tTURN\tSCORE\tTOKENS")
	for _, it := range items {
		if composed {
			fmt.Fprintf(tw, "%s\t", dash(it.Memory))
		}
		id := it.NodeID
		if it.ArtifactID != "" {
			id = fmt.Sprintf("%s@v%d", it.ArtifactID, it.Version)
		}
		turn := ""
		if it.Turn > 0 {
			turn = strings.TrimPrefix(turnName(it), "turn ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.4g\t%d\n", it.Section, it.Kind, dash(id), dash(turn), it.Score, it.Tokens)
	}
	return tw.Flush()
}

// turnName names the turn of an item: "turn 7 (msg-007)", with its
// external id when it has one.
func turnName(it smg.Found) string {
	if it.ExternalID == "" {
		return fmt.Sprintf("turn %d", it.Turn)
	}
	return fmt.Sprintf("turn %d (%s)", it.Turn, it.ExternalID)
}

// parseAsOf reads --at: a date, which stands for its end (what was said
// that day counts), or an RFC 3339 time; "" is now.
func parseAsOf(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return d.Add(24*time.Hour - time.Nanosecond), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q: use a date (2024-04-01) or a timestamp (2024-04-01T12:00:00Z)", s)
	}
	return t, nil
}
