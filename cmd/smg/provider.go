package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/provider"
)

// vectorFlags adds --no-provider and --no-vectors to cmd, into
// noProvider and noVectors.
func vectorFlags(cmd *cobra.Command, noProvider, noVectors *bool) {
	cmd.Flags().BoolVar(noProvider, "no-provider", false, "embed with the built-in encoder, even when "+provider.EnvURL+" or "+provider.EnvEmbedModel+" is set")
	cmd.Flags().BoolVar(noVectors, "no-vectors", false, "embed nothing: no vectors, neither the built-in encoder's nor a provider's")
}

// vectors is how the memories a command opens or builds embed their turns
// and questions: with the provider's embedder, with the built-in encoder
// (emb nil), or not at all (off).
type vectors struct {
	emb smg.Embedder
	off bool
}

// open returns o with the embedder of v.
func (v vectors) open(o smg.OpenOptions) smg.OpenOptions {
	o.Embedder, o.NoVectors = v.emb, v.off
	return o
}

// vectors returns how the command's memories embed: not at all with
// --no-vectors (noVectors); with the model provider the environment names,
// unless --no-provider; otherwise with the built-in encoder.
func (a *app) vectors(noProvider, noVectors bool) (vectors, error) {
	if noVectors {
		return vectors{off: true}, nil
	}
	var emb smg.Embedder
	if !noProvider {
		var err error
		if emb, err = a.embedder(); err != nil {
			return vectors{}, err
		}
	}
	return vectors{emb: emb, off: emb == nil && a.noBuiltin}, nil
}

// embedder returns the embedder of the model provider the environment
// names (an OpenAI-compatible API, read by provider.ConfigFromEnv), or nil
// when it names none, neither SMG_PROVIDER_URL nor SMG_EMBED_MODEL being
// set (SMG_CHAT_MODEL alone asks for summaries, not embeddings). An
// environment that cannot be used, a URL that is not http or https, is a
// usage error.
func (a *app) embedder() (smg.Embedder, error) {
	c, err := a.providerClient(func(cfg provider.Config) bool { return cfg.BaseURL != "" || cfg.EmbedModel != "" })
	if c == nil {
		return nil, err // not a nil *provider.OpenAI in an interface
	}
	return c, nil
}

// summarizer returns the summarizer of the model provider the environment
// names, as embedder reads it; one that names neither SMG_PROVIDER_URL nor
// SMG_CHAT_MODEL is a usage error that says what to set.
func (a *app) summarizer() (*provider.OpenAI, error) {
	c, err := a.providerClient(func(cfg provider.Config) bool { return cfg.BaseURL != "" || cfg.ChatModel != "" })
	if c == nil && err == nil {
		return nil, usageErrorf("summarize needs a model: set %s (an OpenAI-compatible API's root, such as http://localhost:11434/v1) and %s (the model), and %s if the server wants a key",
			provider.EnvURL, provider.EnvChatModel, provider.EnvAPIKey)
	}
	return c, err
}

// providerClient returns the client of the model provider the environment
// names (through a.lookupEnv: tests give the command its environment), or
// nil when it names none or none that serves what the command needs.
func (a *app) providerClient(serves func(provider.Config) bool) (*provider.OpenAI, error) {
	cfg, err := provider.ConfigFromEnv(a.lookupEnv)
	if errors.Is(err, provider.ErrNotConfigured) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !serves(cfg) {
		return nil, nil
	}
	if a.tuneProvider != nil {
		a.tuneProvider(&cfg)
	}
	c, err := provider.NewOpenAI(cfg)
	if err != nil {
		return nil, &usageError{err: fmt.Errorf("%s: %w", provider.EnvURL, err)}
	}
	return c, nil
}

// embeddingError is a model provider that failed after the memory was
// saved: the named files hold every turn, some without a vector.
type embeddingError struct {
	files []string
	err   error
}

func (e *embeddingError) Error() string { return e.err.Error() }
func (e *embeddingError) Unwrap() error { return e.err }

// hint says how to embed later what the files lack.
func (e *embeddingError) hint() string {
	cmds := make([]string, len(e.files))
	for i, f := range e.files {
		cmds[i] = "'smg embed " + f + "'"
	}
	return "what was done is saved; once the provider works, " + strings.Join(cmds, ", ") + " embeds the turns still without vectors"
}
