// Package classify turns text into signals: decisions, artifacts,
// concepts, problems and solutions, facts, filler. Its functions are pure:
// text in, signals out. It imports nothing else of this module.
//
// It is built in the issue "Turn conversations into memory"; until then
// the package holds only this comment.
package classify
