package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/provider"
)

// errNothingToWrite ends an update that changed nothing (that embedded or
// summarized nothing): the file is not written.
var errNothingToWrite = errors.New("nothing to write")

// embedReport is what 'smg embed --json' prints.
type embedReport struct {
	File     string `json:"file"`
	Model    string `json:"model"`
	Embedded int    `json:"embedded"`
}

func (a *app) embedCommand() *cobra.Command {
	var asJSON, noProvider, showProgress bool
	cmd := &cobra.Command{
		Use:   "embed FILE",
		Short: "Embed the turns of a memory that have no vector, with the built-in encoder or a model provider",
		Long: `Embed stores in FILE a vector of each of its turns that has none of the
model's: the turns of a memory made with --no-vectors, or whose embedding
failed (see 'smg ingest --help'), or all of them after a change of model
(the vectors of the old one are dropped: those of a memory are of one
model). It prints how many it embedded; run again, it embeds none and
leaves the file as it is.

The model is the built-in sentence encoder (Universal Sentence Encoder
Lite, run offline on every core), unless the environment names a model
provider: SMG_PROVIDER_URL, the root of an OpenAI-compatible API (like
http://localhost:11434/v1 for Ollama), and/or SMG_EMBED_MODEL, the model;
SMG_API_KEY when the server wants a key. --no-provider uses the built-in
encoder all the same. Ingest, remember, context, search and mcp embed with
the same model, unless given --no-vectors: turns are stored with their
vectors and questions are embedded, so that the turns nearest a question
in meaning are found as well as those that share its words.

The file is written atomically, under the lock that other smg processes (an
MCP server) respect, and an encrypted file stays encrypted. When the
provider fails part of the way, what it embedded is saved, and embed fails
(exit status 1): run it again to embed the rest.

On a terminal, or with --progress, a line on stderr shows how many turns
are embedded.`,
		Args: exactFiles(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			var emb smg.Embedder
			var err error
			if !noProvider {
				if emb, err = a.embedder(); err != nil {
					return err
				}
			}
			if emb == nil {
				// Given, not left to the default: a file of another
				// model's vectors is embedded again.
				if emb, err = smg.BuiltinEmbedder(); err != nil {
					return err
				}
			}
			name := args[0]
			bar := a.embedBar(showProgress)
			defer bar.finish()
			f, err := a.fileMemory(name, nil, smg.OpenOptions{Embedder: emb, EmbedProgress: bar.embedded})
			if err != nil {
				return err
			}
			defer f.Close()
			ctx := cmdContext(cmd)
			var n int
			var embedErr error
			err = f.Update(ctx, func(m *smg.Memory) error {
				n, embedErr = m.EmbedMissing(ctx)
				switch {
				case n > 0:
					return nil // saved, even when the provider failed after
				case embedErr != nil:
					return embedErr
				}
				return errNothingToWrite
			})
			if err != nil && !errors.Is(err, errNothingToWrite) && !errors.Is(err, smg.ErrEmbedding) {
				return err // the file could not be read, or written
			}
			if asJSON {
				err = a.writeJSON(embedReport{File: name, Model: emb.Model(), Embedded: n})
			} else {
				_, err = fmt.Fprintf(a.stdout, "%s: %d turns embedded (%s)\n", name, n, emb.Model())
			}
			if embedErr != nil {
				return &embeddingError{files: []string{name}, err: fmt.Errorf("%s: %w", name, embedErr)}
			}
			return err
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the file, the model and how many turns were embedded as JSON")
	cmd.Flags().BoolVar(&showProgress, "progress", false, "show progress on stderr even when it is not a terminal")
	cmd.Flags().BoolVar(&noProvider, "no-provider", false, "embed with the built-in encoder, even when "+provider.EnvURL+" or "+provider.EnvEmbedModel+" is set")
	return cmd
}
