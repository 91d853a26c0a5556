// Package importance scores nodes and models their decay and reactivation,
// as pure functions of plain inputs. It imports nothing else of this
// module.
//
// It is built in the issue "Turn conversations into memory"; until then
// the package holds only this comment.
package importance
