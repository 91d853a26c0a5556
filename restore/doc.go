// Package restore loads a memory, builds its search indexes and assembles
// the context for a question inside a token budget, with the provenance of
// everything it includes.
//
// It is built in the issue "Restore and graph-guided context injection";
// until then the package holds only this comment.
package restore
