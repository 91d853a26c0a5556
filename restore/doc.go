// Package restore opens a memory for reading: it builds a full-text index
// of its nodes, block summaries and turns (Bleve), and assembles the
// context for a question inside a token budget, with the provenance of
// everything it includes (DESIGN.md, "Retrieval: graph-guided context
// injection").
package restore
