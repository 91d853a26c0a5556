package main

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/importer"
)

// Exit statuses; main.go and the root command's help document them.
const (
	exitOK       = 0
	exitFailure  = 1 // I/O, a model provider that fails, and the unexpected
	exitUsage    = 2 // unknown command or flag, missing argument, bad flag value
	exitInvalid  = 3 // the input is not a valid smg file, or not in the state the command needs
	exitPassword = 4 // no password, a wrong one, or two entries that differ
)

// usageError is a command line the commands do not accept.
type usageError struct {
	err error
	// command is the command whose help to point at, like "smg info".
	command string
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// reportedError is an error a command has already reported on stderr:
// the process ends with its exit status, without printing it again.
type reportedError struct{ err error }

func (e *reportedError) Error() string { return e.err.Error() }
func (e *reportedError) Unwrap() error { return e.err }

// errNoTerminal: there is no terminal to ask for a password on.
var errNoTerminal = errors.New("no terminal to ask for a password")

// passwordError is a password that could not be had: none in the
// environment and no terminal, or two entries of a new one that differ.
type passwordError struct{ msg string }

func (e *passwordError) Error() string { return e.msg }

// invalidInput lists the library's errors for input that is not a valid
// smg file, or not in the state the command needs.
var invalidInput = []error{
	smg.ErrNotSMG,
	smg.ErrUnsupportedVersion,
	smg.ErrMalformed,
	smg.ErrTruncated,
	smg.ErrLimit,
	smg.ErrInvalid,
	smg.ErrTampered,
	format.ErrNotEncrypted,
	format.ErrAlreadyEncrypted,
	smg.ErrInvalidTurn,
	smg.ErrInvalidFact,
	smg.ErrNoNode,
	smg.ErrArtifactNode,
	importer.ErrUnknownFormat,
	importer.ErrNoTurns,
	format.ErrConflict,
	format.ErrMergeBase,
	format.ErrInvalidID,
	smg.ErrBadCollaborator,
	smg.ErrPrivateMemory,
	format.ErrNotDelta,
	format.ErrWrongBase,
}

// exitStatus maps an error to the exit status of the process and, where
// one helps, a one-line hint. It is the only place that does.
func exitStatus(err error) (status int, hint string) {
	if err == nil {
		return exitOK, ""
	}
	var ue *usageError
	var pe *passwordError
	var ee *embeddingError
	var nf *format.NotFoundError
	switch {
	case errors.As(err, &ue):
		return exitUsage, fmt.Sprintf("run '%s --help' for usage", cmp.Or(ue.command, "smg"))
	case errors.As(err, &pe):
		return exitPassword, ""
	case errors.As(err, &ee):
		return exitFailure, ee.hint()
	case errors.Is(err, smg.ErrWrongPassword) && errors.As(err, new(*smg.PrivateError)):
		return exitPassword, "check the password of the private part; " + privateEnv + ", when set, is used instead of asking"
	case errors.Is(err, smg.ErrSealedPart):
		return exitInvalid, "nothing was removed; --force removes the collaborator and destroys the part (its owner can first read it with 'smg facts FILE --private ID')"
	case errors.Is(err, smg.ErrNotCollaborator):
		return exitInvalid, "'smg collaborators FILE' lists them, 'smg collaborators add FILE ID' adds one"
	case errors.Is(err, smg.ErrWrongPassword):
		return exitPassword, "check the password; " + passwordEnv + ", when set, is used instead of asking"
	case errors.Is(err, smg.ErrPasswordRequired):
		return exitPassword, "set " + passwordEnv + " or run smg on a terminal to be asked for the password"
	case errors.Is(err, smg.ErrUnsupportedVersion):
		return exitInvalid, "a newer version of smg may read this file"
	case errors.Is(err, smg.ErrTampered):
		return exitInvalid, "the file was changed or damaged after it was encrypted; restore it from a copy"
	case errors.Is(err, smg.ErrNotSMG):
		return exitInvalid, "smg reads .smg files: Brotli-compressed or plain JSON, encrypted or not"
	case errors.Is(err, importer.ErrUnknownFormat):
		return exitInvalid, "name the format with --format " + importer.FormatNames()
	case errors.Is(err, importer.ErrNoTurns):
		return exitInvalid, "check the input's format: --format auto recognizes " + importer.FormatNames()
	case errors.Is(err, smg.ErrLocked):
		return exitFailure, "another smg (an MCP server, say) is changing the file; try again"
	case errors.As(err, &nf) && nf.Kind == "artifact":
		return exitInvalid, "'smg artifacts FILE' lists the artifacts; the id of an artifact's node, as 'smg nodes FILE' prints it, names it too"
	case errors.Is(err, smg.ErrArtifactNode):
		return exitInvalid, "an artifact's node stays as long as its artifact does"
	case errors.Is(err, smg.ErrNoNode):
		return exitInvalid, "'smg facts FILE' lists the ids of facts, 'smg nodes FILE' those of all nodes"
	case errors.Is(err, format.ErrConflict):
		return exitInvalid, "choose whose state to take with --prefer ours or --prefer theirs"
	case errors.Is(err, format.ErrMergeBase):
		return exitInvalid, "merge BASE OURS THEIRS needs the memory both come from; 'smg merge OURS THEIRS' merges unrelated memories"
	case errors.Is(err, format.ErrWrongBase):
		return exitInvalid, "a differential file applies only to the exact file it was made from ('smg info' shows a file's content hash)"
	case errors.As(err, new(*stdinError)):
		return exitInvalid, "each line is a {role|speaker, content|text, timestamp, id} object"
	case errors.Is(err, smg.ErrJournal):
		return exitInvalid, "the file alone is the memory before its journal's changes: move FILE.journal aside to read it"
	case errors.As(err, new(*importer.Error)):
		return exitInvalid, "without --strict, a malformed turn is skipped; a malformed file is not"
	}
	for _, e := range invalidInput {
		if errors.Is(err, e) {
			return exitInvalid, ""
		}
	}
	return exitFailure, ""
}
