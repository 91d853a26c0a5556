// Package graph builds and maintains the semantic graph of a memory from
// the turns of a conversation: nodes, typed and weighted edges, decay and
// reactivation, working memory (spec/smg-v1.md §5, §6). It composes
// classify, importance, artifacts and archive.
//
// It is built in the issue "Turn conversations into memory"; until then
// the package holds only this comment, so that the layout of the module is
// the one DESIGN.md gives.
package graph
