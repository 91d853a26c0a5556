// Package graph builds and maintains the semantic graph of a memory from
// the turns of a conversation (spec/smg-v1.md §5, §6). It composes
// classify, importance, artifacts and archive.
//
// A [Builder] ([New]) takes turns one at a time ([Builder.Add]): it
// classifies each, adds or reinforces the nodes it names (concepts,
// decisions with their rationale and rejected alternatives, problems and
// solutions, goals, facts, artifacts) and the typed, weighted edges
// between them, stores code and documents in the artifact vault as diff
// chains, and archives the turns in Brotli-compressed blocks. Importance
// decays with time and comes back when a topic does. [Builder.Document]
// gives the memory as a [spec.Document]; [Load] continues one by
// replaying its archived turns. Facts are kept directly too
// ([Builder.Remember], [Builder.Forget], [Builder.Pin]), and
// [Builder.Maintain] prunes, merges duplicates, decays and rebases.
//
// [NewTurnReader] is the one reader of a document's archived turns: every
// path that reads them (a replay, restore's index, package smg's views
// and merges) reads with it, within the limits its options give.
package graph
