package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/importer"
)

func (a *app) ingestCommand() *cobra.Command {
	var out, format, project string
	var strict, split, noProvider, noVectors, showProgress bool
	var only []string
	cmd := &cobra.Command{
		Use:         "ingest INPUT... -o FILE.smg",
		Annotations: boundedMemory,
		Short:       "Build a memory from conversations, or add them to one",
		Long: `Ingest reads conversations and builds the memory they make: the semantic
graph, working memory, the artifact vault and the deep archive. When FILE.smg
exists, the turns are added to it: turn numbers continue and the nodes they
mention are reactivated.

The inputs are read with --format: auto (the default) recognizes them all.

  transcript   a generic transcript: a JSON list or JSON Lines of
               {role|speaker, content|text, timestamp, id}
  openai       OpenAI chat messages, [{role, content}] or {"messages": [...]},
               or fine-tuning JSON Lines
  locomo       the conversations of the LoCoMo benchmark
  aider        aider's chat histories, .aider.chat.history.md
  chatgpt      conversations.json of ChatGPT's data export; of each
               conversation only the branch last shown is read, not those
               left behind by edited questions and regenerated answers
  claude       conversations.json of Claude.ai's data export
  claude-code  a Claude Code session, ~/.claude/projects/*/SESSION.jsonl
               (a sub-agent's side chains are not read)

An export or a session file can hold several conversations, each with an id.

A turn FILE.smg holds already is not added again: ingesting an export a
second time adds nothing and leaves the file as it was, and an updated
export adds only what is new. A turn is held when one of the memory has its
conversation, id and text or, without an id, its conversation, author, time
and text (spec §5.2). A turn with the id of a held one but other text (a
message edited since) is added, marked, and reported.

A malformed turn is reported with its file and position and skipped; with
--strict it fails the whole run. Either way FILE.smg is the old memory or the
complete new one, never a partial one. An input that gives no turn (an
empty one, or one read in a format it is not in) is an error (exit status
3), and nothing is written. With --split each conversation of the
inputs becomes its own memory, FILE-ID.smg. --conversation ID (again for
more) reads only the conversations of those ids: a LoCoMo file's
sample_id ("conv-26"), an export's conversation id; an id no input holds
is a usage error that lists the ids they hold.

Ingest embeds the turns of FILE.smg that have no vector, all at once before
it saves, on every core: those it adds, and those of a memory made
without vectors. It embeds with the built-in sentence encoder, offline, or
with a model provider of embeddings when the environment names one (see
'smg embed --help') unless --no-provider; --no-vectors embeds nothing, and
the memory is found by full text and its graph alone. A file that holds a
provider's vectors keeps them: without the provider, ingest embeds none of
its turns ('smg embed' embeds it again with the built-in encoder). When the
provider fails, the memory is saved all the same, with every turn, and
ingest fails (exit status 1): 'smg embed FILE.smg' embeds what lacks a
vector later.

On a terminal, or with --progress, a line on stderr shows how many turns
are read, then how many are embedded.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("missing INPUT")
			}
			return nil
		},
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			f, err := importer.ParseFormat(format)
			if err != nil {
				return usageErrorf("%v", err)
			}
			vecs, err := a.vectors(noProvider, noVectors)
			if err != nil {
				return err
			}
			// Each input is read twice, a conversation at a time: first
			// to check it and count its turns, before the output is
			// touched (with --strict, a malformed turn anywhere leaves
			// every output as it was), then to ingest it. A large export
			// is never held whole.
			wanted := func(id string) bool { return len(only) == 0 || slices.Contains(only, id) }
			read := func(name string, first bool, fn func(importer.Conversation) error) (*importer.Result, error) {
				// An input without turns is an error, before anything
				// is written. A long transcript comes in pieces, one
				// held at a time, but to --split, whose memories each
				// take a conversation whole.
				opts := importer.Options{Format: f, Strict: strict, RequireTurns: first}
				if !split {
					opts.PieceTurns = pieceTurns
				}
				return importer.StreamFile(name, opts, func(c importer.Conversation) error {
					if len(c.Turns) == 0 || !first && !wanted(c.ID) {
						return nil
					}
					return fn(c)
				})
			}
			total := 0
			var ids []string // of every conversation of the inputs
			found := map[string]bool{}
			for _, name := range args {
				res, err := read(name, true, func(c importer.Conversation) error {
					if c.Part == 0 {
						ids = append(ids, c.ID)
					}
					if wanted(c.ID) {
						found[c.ID] = true
						total += len(c.Turns)
					}
					return nil
				})
				if err != nil {
					return err
				}
				for _, skipped := range res.Skipped {
					fmt.Fprintf(a.stderr, "smg: warning: %v (skipped)\n", skipped)
				}
			}
			for _, id := range only {
				if !found[id] {
					listed, more := ids, ""
					if len(ids) > 20 {
						listed, more = ids[:20], fmt.Sprintf(" and %d more", len(ids)-20)
					}
					return usageErrorf("--conversation %q: no conversation of the inputs has that id (they have: %s%s)", id, strings.Join(listed, ", "), more)
				}
			}
			bar := a.progressBar(total, showProgress)
			defer bar.finish()
			if !split {
				return a.ingestInto(cmd.Context(), out, project, func(record func(string, importer.Conversation) error) error {
					for _, name := range args {
						if _, err := read(name, false, func(c importer.Conversation) error { return record(name, c) }); err != nil {
							return err
						}
					}
					return nil
				}, strict, bar, vecs)
			}
			// Once the provider fails, the memories after are saved
			// without vectors rather than making it fail again for each.
			var failed *embeddingError
			n := 0
			for _, name := range args {
				_, err := read(name, false, func(c importer.Conversation) error {
					n++
					file := splitName(out, c.ID, n)
					err := a.ingestInto(cmd.Context(), file, project, func(record func(string, importer.Conversation) error) error {
						return record(name, c)
					}, strict, bar, vecs)
					if e, ok := errors.AsType[*embeddingError](err); ok && failed == nil {
						failed, vecs = e, vectors{off: true}
					} else if err != nil {
						return err
					} else if failed != nil {
						failed.files = append(failed.files, file)
					}
					return nil
				})
				if err != nil {
					return err
				}
			}
			if failed != nil {
				return failed
			}
			return nil
		}),
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the memory file to write (added to when it exists)")
	cmd.Flags().StringVar(&format, "format", "auto", "the inputs' format: auto, "+importer.FormatNames())
	cmd.Flags().BoolVar(&strict, "strict", false, "fail on the first malformed turn instead of skipping it")
	cmd.Flags().BoolVar(&split, "split", false, "write one memory per conversation, FILE-ID.smg")
	cmd.Flags().StringArrayVar(&only, "conversation", nil, "read only the conversation of this id (again for more)")
	cmd.Flags().StringVar(&project, "project", "", "the project name of a new memory")
	vectorFlags(cmd, &noProvider, &noVectors)
	cmd.Flags().BoolVar(&showProgress, "progress", false, "show progress on stderr even when it is not a terminal")
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

// pieceTurns is how many turns of a long transcript ingest holds at once
// (see [importer.Options.PieceTurns]): a few megabytes of text.
const pieceTurns = 1000

// ingestInto adds conversations to the memory in the named file, or to a
// new one, and writes it, under the file's lock: feed gives each to
// record, with the name of its input. Unless vecs are off, it
// embeds the memory's turns that lack a vector before it writes; when that
// fails, it writes all the same and returns an *embeddingError.
func (a *app) ingestInto(ctx context.Context, name, project string, feed func(record func(file string, c importer.Conversation) error) error, strict bool, bar *progress, vecs vectors) error {
	if ctx == nil {
		ctx = context.Background()
	}
	// Under the file's lock, so that the turns are added on top of
	// whatever another process (an MCP server, say) wrote meanwhile.
	f, err := a.fileMemory(name, &smg.Options{ProjectName: project}, vecs.open(smg.OpenOptions{EmbedProgress: bar.embedded}))
	if err != nil {
		return err
	}
	defer f.Close()
	var m *smg.Memory
	var embedded int
	var embedErr error
	rec := smg.Recorded{}
	err = f.Update(ctx, func(fm *smg.Memory) error {
		m = fm
		read := 0
		err := feed(func(file string, c importer.Conversation) error {
			r, err := m.Record(ctx, c.Turns, &smg.RecordOptions{Deferred: true, SkipInvalid: !strict, Progress: bar.add})
			rec.Added, rec.Held, read = rec.Added+r.Added, rec.Held+r.Held, read+len(c.Turns)
			// A turn by its number in its conversation, which a piece's
			// index is not.
			for _, bad := range r.Invalid {
				fmt.Fprintf(a.stderr, "smg: warning: %s: turn %d: %v (skipped)\n", file, c.Turns[bad.Index].Turn, bad.Err)
			}
			for _, reused := range r.Reused {
				fmt.Fprintf(a.stderr, "smg: warning: %s: turn %d: %v\n", file, c.Turns[reused.Index].Turn, reused)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if rec.Added == 0 && rec.Held == 0 {
			// Nothing to write: a new memory is not made, an old one
			// stays as it was.
			return fmt.Errorf("%s: not written: none of the %d turns read could be ingested: %w", name, read, importer.ErrNoTurns)
		}
		// All the turns at once, before the one write: a few requests
		// to the provider, and what it embedded before failing is
		// written too.
		embedded, embedErr = m.EmbedMissing(ctx)
		if embedErr != nil && !errors.Is(embedErr, smg.ErrEmbedding) {
			return embedErr // not the provider's: the memory could not be read
		}
		if rec.Added == 0 && embedded == 0 && embedErr == nil {
			return smg.ErrNoChange // the memory holds every turn read
		}
		return nil
	})
	if err != nil {
		return err
	}
	doc := m.Document()
	fmt.Fprintf(a.stdout, "%s: %d turns (%d new", name, doc.Metadata.TotalExchanges, rec.Added)
	if rec.Held > 0 {
		fmt.Fprintf(a.stdout, ", %d held already", rec.Held)
	}
	fmt.Fprintf(a.stdout, "), %d nodes, %d edges, %d artifacts",
		len(doc.SemanticGraph.Nodes), len(doc.SemanticGraph.Edges), len(doc.ArtifactVault.Artifacts))
	if model := m.VectorModel(); model != "" {
		fmt.Fprintf(a.stdout, ", %d turns embedded (%s)", embedded, model)
	}
	fmt.Fprintln(a.stdout)
	if embedErr != nil {
		return &embeddingError{files: []string{name}, err: fmt.Errorf("%s: the turns are saved, but not all their vectors: %w", name, embedErr)}
	}
	return nil
}

// splitName is the file of the n-th conversation of a split ingest:
// FILE-ID.smg, or FILE-N.smg for a conversation without an id.
func splitName(out, id string, n int) string {
	ext := filepath.Ext(out)
	base := strings.TrimSuffix(out, ext)
	if ext == "" {
		ext = ".smg"
	}
	if id == "" {
		id = fmt.Sprint(n)
	}
	return base + "-" + safeName(id) + ext
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r == ' ' {
			return '_'
		}
		return r
	}, s)
}

// progress is a line on stderr, or nothing: the turns read, then the
// turns embedded.
type progress struct {
	bar       *progressbar.ProgressBar
	embedding bool
}

// progressBar shows progress on stderr when it is a terminal, or when
// forced (--progress): never otherwise when the output is piped.
func (a *app) progressBar(total int, force bool) *progress {
	if !a.showsProgress(force) || total == 0 {
		return &progress{}
	}
	return a.newProgress(total, "ingesting")
}

// newProgress is a line on stderr of total steps (-1: not known yet).
func (a *app) newProgress(total int, what string) *progress {
	return &progress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(a.stderr),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
}

// embedBar is a line on stderr for embedding alone, as progressBar shows
// it: its total is known from the first count the memory reports.
func (a *app) embedBar(force bool) *progress {
	if !a.showsProgress(force) {
		return &progress{}
	}
	return a.newProgress(-1, "embedding")
}

// showsProgress reports whether stderr shows progress: when it is a
// terminal, or when forced (--progress).
func (a *app) showsProgress(force bool) bool {
	if force {
		return true
	}
	f, ok := a.stderr.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func (p *progress) add() {
	if p.bar != nil {
		_ = p.bar.Add(1)
	}
}

// embedded shows that done of total turns are embedded.
func (p *progress) embedded(done, total int) {
	if p.bar == nil {
		return
	}
	if !p.embedding {
		p.embedding = true
		p.bar.Reset()
		p.bar.ChangeMax(total)
		p.bar.Describe("embedding")
		_ = p.bar.RenderBlank()
	}
	_ = p.bar.Set(done)
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
