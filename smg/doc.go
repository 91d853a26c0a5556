// Package smg is the memory of a chat client: it turns a conversation into
// a semantic memory graph kept in one portable .smg file, and assembles,
// for each new question, the context a model needs within a token budget.
//
// # A memory
//
// [New] starts an empty [Memory]; [Open] reads one from a file and [Load]
// from a document already read. [Memory.Ingest] and [Memory.IngestAll] take
// the turns of the conversation as they come (a [Turn] is one message);
// [Memory.Context] answers a question with the context to give the model:
// its text, within [ContextOptions.Budget] tokens as a [Tokenizer] counts
// them ([NewTokenizer]), and what went in and why ([ContextResult]).
// [Memory.Search] finds nodes, turns and archive blocks by their words;
// [ParseQuery] reads the query language ("FIND decisions WHERE CURRENT").
// [Memory.Save] writes the file atomically; [Memory.Marshal] returns its
// bytes, encrypted under a password if [EncodeOptions] say so.
//
// A memory shared with other processes is a [FileMemory]
// ([OpenFileMemory]): each change is read, made and written under the
// file's lock, so that two writers never lose each other's work.
//
// # Facts
//
// [Memory.Remember] keeps a fact about the user or a workspace,
// [Memory.Forget] drops one, [Memory.Facts] lists them ([FactFilter]); the
// facts about the user of the always-loaded categories go into every
// context, facts about others when a question finds them. A fact that
// contradicts an older one supersedes it, and a context that includes
// the older one, or the turn that stated it, says by what
// (Found.SupersededBy).
//
// # Several memories, and collaborators
//
// [Compose] answers from several memories at once (a user's and a
// workspace's). [Memory.Private] is a collaborator's private part of a
// shared memory, sealed under their own password if they wish, and
// [Memory.ContextFor] answers for one collaborator without another's
// notes. [Fork] branches a memory and [Merge] joins two branches again.
// [Memory.Maintain] prunes what went stale, merges duplicates, decays and
// rebases.
//
// # Vectors
//
// A memory finds turns by meaning as well as by their words: it embeds
// each turn with a built-in sentence encoder ([BuiltinEmbedder]: offline,
// in pure Go, on every core), or with an [Embedder] given in [Options]
// (a model provider's, package smg/provider), and keeps the vectors in
// its file. [Options.NoVectors] turns them off. [Memory.Ingest] returns
// once the turn is in and embeds it in the background; a context asked
// before the vectors are ready says how many turns wait, and
// [Memory.WaitVectors] waits for them. [Memory.IngestAll] embeds many
// turns at once before it returns, and reports its progress
// ([Options.EmbedProgress]).
//
// Model providers are optional: an [Embedder] replaces the built-in
// encoder, and a [Summarizer] writes the summaries of archive blocks
// ([Memory.SummarizeBlocks]).
//
// # The file
//
// Package [github.com/smg-memory/smg/smg/format] holds the document-level
// machinery this package builds on: the codec (canonical JSON, Brotli, the
// encrypted envelope), the limits against hostile files, validation
// against the specification (spec/smg-v1.md), differential files, diffs,
// exports (JSON-LD, N-Quads, Markdown, DOT, Cytoscape.js), and views of
// the archive and the artifact vault. Use it to read or check a file
// without making a memory of it.
//
// # Errors
//
// Errors wrap the sentinels of this package (ErrNotSMG, ErrInvalid,
// ErrPasswordRequired, ErrWrongPassword, ErrLocked, ErrNotFound, ErrNoNode,
// ErrInvalidTurn, ErrInvalidFact…); test for them with errors.Is. The error
// types of package format say where a file breaks the format.
//
// A Memory is safe for concurrent use.
package smg
