package smg

import (
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// The file: how a memory is encoded, decoded and locked. Package
// [format] holds the rest of the document-level machinery (validation,
// differential files, diffs, exports, the archive and vault views).
type (
	// EncodeOptions say how a memory's file is written: see
	// [format.EncodeOptions].
	EncodeOptions = format.EncodeOptions
	// DecodeOptions say how a file is read: its password and the
	// [Limits] against hostile files.
	DecodeOptions = format.DecodeOptions
	// Limits bound what a reader accepts (spec §9.4).
	Limits = format.Limits
	// KDF is the key derivation of an encrypted file.
	KDF = format.KDF
	// LockOptions say how long a writer waits for the lock of a memory
	// file, and what it says while it waits.
	LockOptions = format.LockOptions
	// PrivateError is a failure to reach a collaborator's private part.
	PrivateError = format.PrivateError
)

// DefaultLockTimeout is how long a write waits for another process's
// write of the same file.
const DefaultLockTimeout = format.DefaultLockTimeout

// Errors of reading and writing a memory's file; test for them with
// errors.Is. The error types of package [format] ([*format.DecodeError],
// [*format.LimitError], [*format.ValidationError], [*format.BlockError])
// say where.
var (
	ErrNotSMG             = format.ErrNotSMG
	ErrUnsupportedVersion = format.ErrUnsupportedVersion
	ErrMalformed          = format.ErrMalformed
	ErrTruncated          = format.ErrTruncated
	ErrLimit              = format.ErrLimit
	ErrInvalid            = format.ErrInvalid
	ErrPasswordRequired   = format.ErrPasswordRequired
	ErrWrongPassword      = format.ErrWrongPassword
	ErrTampered           = format.ErrTampered
	ErrLocked             = format.ErrLocked
	ErrNotFound           = format.ErrNotFound
)

// Branches of a memory: [Fork] starts one, [Merge] joins two again.
type (
	// ForkOptions name the fork and say when it was made.
	ForkOptions = format.ForkOptions
	// MergeOptions say how a merge resolves what both sides changed.
	MergeOptions = format.MergeOptions
	// MergeReport tells what a merge took from each side, and the
	// conflicts it resolved or could not.
	MergeReport = format.MergeReport
)

// ErrConflict: a merge met a change of both sides that its options do not
// resolve; the error is a [*format.ConflictError] that lists them.
var ErrConflict = format.ErrConflict

// Fork returns a copy of doc that is a new memory, a branch of it: see
// [format.Fork].
func Fork(doc *spec.Document, opts ForkOptions) (*spec.Document, error) {
	return format.Fork(doc, opts)
}

// Merge joins ours and theirs, two branches of base, into one memory: see
// [format.Merge].
func Merge(base, ours, theirs *spec.Document, opts MergeOptions) (*spec.Document, *MergeReport, error) {
	return format.Merge(base, ours, theirs, opts)
}
