// Package restore opens a memory for reading: it builds a full-text index
// of its nodes, block summaries and turns (Bleve), and assembles the
// context for a question inside a token budget, with the provenance of
// everything it includes (DESIGN.md, "Retrieval: graph-guided context
// injection"). Given an [Embedder] (Config.Embedder), it also compares
// each question with the turn vectors of the memory's vectorIndex (spec
// §8.3), so that a context finds the turns that share the question's
// meaning and none of its words.
package restore
