package format

import (
	"errors"
	"fmt"
	"strings"

	"github.com/smg-memory/smg/smg/internal/envelope"
	"github.com/smg-memory/smg/smg/internal/listmsg"
)

// Errors that callers branch on. Decode, Validate and the file functions
// wrap them, with the detail, in the error types below; test with
// errors.Is.
var (
	// ErrNotSMG: the input is not a .smg file at all (not JSON, not
	// Brotli, or JSON of another kind).
	ErrNotSMG = errors.New("not an smg file")
	// ErrUnsupportedVersion: a major version this reader does not know.
	ErrUnsupportedVersion = errors.New("unsupported smg format version")
	// ErrMalformed: the file is an smg file but breaks the format's syntax
	// or types.
	ErrMalformed = errors.New("malformed smg file")
	// ErrTruncated: the file ends before its content does.
	ErrTruncated = errors.New("smg file is truncated")
	// ErrLimit: the file exceeds one of the reader's [Limits].
	ErrLimit = errors.New("smg file exceeds a limit")
	// ErrInvalid: the document decodes but breaks a rule of the spec. From
	// validation the error is a [*ValidationError] listing every problem;
	// from reading a part of a document, a [*BlockError] or the error of
	// an artifact version that does not reconstruct.
	ErrInvalid = errors.New("invalid smg document")

	// ErrPasswordRequired: the file is encrypted and no password was given.
	ErrPasswordRequired = errors.New("smg file is encrypted: a password is required")
	// ErrWrongPassword: the password does not open the file.
	ErrWrongPassword = envelope.ErrWrongPassword
	// ErrTampered: the password is right, but the encrypted file was
	// modified or damaged after it was written.
	ErrTampered = envelope.ErrTampered
	// ErrNotEncrypted: decrypting a file that is not encrypted.
	ErrNotEncrypted = errors.New("smg file is not encrypted")
	// ErrAlreadyEncrypted: encrypting a file that already is.
	ErrAlreadyEncrypted = errors.New("smg file is already encrypted")
)

// DecodeError reports where in the JSON text a file breaks the format.
type DecodeError struct {
	// Path is the JSON path of the offending value (like
	// $.semanticGraph.nodes[3].importance), or "$" when unknown.
	Path string
	// Offset is the byte offset in the JSON text, or -1 when unknown;
	// Line and Column (1-based) locate it in that text.
	Offset       int64
	Line, Column int
	Msg          string
	// Err is ErrMalformed, ErrTruncated or ErrNotSMG.
	Err error
}

func (e *DecodeError) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	if e.Path != "" {
		fmt.Fprintf(&b, " at %s", e.Path)
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, " (line %d, column %d)", e.Line, e.Column)
	}
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	return b.String()
}

func (e *DecodeError) Unwrap() error { return e.Err }

// LimitError reports the limit a file exceeds.
type LimitError struct {
	// Limit is the name of the field of [Limits], like "MaxEdges".
	Limit string
	// Max is the limit's value.
	Max int64
	// Path is where the limit was exceeded, when known.
	Path string
	// GrownFor is the size of the file the limit grew with (spec §9.4),
	// 0 when it is the value of DefaultLimits or one that was set.
	GrownFor int64
}

func (e *LimitError) Error() string {
	s := fmt.Sprintf("%v: %s is %d", ErrLimit, e.Limit, e.Max)
	if e.GrownFor > 0 {
		s += fmt.Sprintf(", grown with the file's %d bytes", e.GrownFor)
	}
	if e.Path != "" {
		s += " (at " + e.Path + ")"
	}
	return s
}

func (e *LimitError) Unwrap() error { return ErrLimit }

// ValidationError lists every problem [Validate] found.
type ValidationError struct {
	Problems []Problem
}

// Problem is one rule a document breaks.
type Problem struct {
	// Path is the JSON path of the offending value.
	Path string `json:"path"`
	// Rule says which check found it: "schema" (the JSON Schema),
	// "jsonld" (JSON-LD expansion) or "semantic" (spec §11).
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

func (p Problem) String() string { return p.Path + ": " + p.Message }

func (e *ValidationError) Error() string { return listmsg.Of(ErrInvalid, "problem", e.Problems, 5) }

func (e *ValidationError) Unwrap() error { return ErrInvalid }

// PrivateError is a failure to reach a collaborator's private part.
type PrivateError struct {
	Owner string
	Err   error
}

func (e *PrivateError) Error() string {
	return fmt.Sprintf("the private part of %q: %v", e.Owner, e.Err)
}

func (e *PrivateError) Unwrap() error { return e.Err }
