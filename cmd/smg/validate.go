package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json"
	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/spf13/cobra"
)

// validateResult is one file's outcome; --json prints it.
type validateResult struct {
	File     string           `json:"file"`
	Valid    bool             `json:"valid"`
	Problems []format.Problem `json:"problems"`
	// Error is why the file could not be read or decoded.
	Error string `json:"error,omitempty"`
	// Journal is the outcome of the memory with the changes of the
	// journal beside the file (spec §9.7), when it has one.
	Journal *validateResult `json:"journal,omitempty"`

	err error
}

// validateFailure reports the files that failed. Its exit status is that
// of the first of them.
type validateFailure struct {
	failed, total int
	first         error
}

func (e *validateFailure) Error() string {
	return fmt.Sprintf("%d of %d %s failed validation", e.failed, e.total, plural(e.total, "file", "files"))
}

func (e *validateFailure) Unwrap() error { return e.first }

func (a *app) validateCommand() *cobra.Command {
	var asJSON, skipJSONLD bool
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check files against the whole specification",
		Long: `Validate decodes each file and checks it against the whole specification:
the JSON Schema, JSON-LD expansion with the embedded context, and the
semantic rules (ids unique, edges resolve, artifact chains apply, archive
blocks decompress, references resolve). It prints "FILE: ok", or every
problem as "FILE: PATH: MESSAGE" and then their count.

A file with a journal beside it (FILE.journal, the changes 'smg add', 'smg
watch' and the MCP tools append) is checked twice: the file as it is, then
the memory every reader reads, the file with the journal's changes, as
"FILE.journal: ok" or its problems. A journal that cannot be read fails.

With --json it prints one JSON object per line and file:
{"file", "valid", "problems": [{"path", "rule", "message"}], "error"},
and "journal", an object of the same form, for a file with a journal.

The exit status is that of the first file that fails.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("missing FILE")
			}
			return nil
		},
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			opts := &format.ValidateOptions{SkipJSONLD: skipJSONLD, Limits: a.limits}
			fail := &validateFailure{total: len(args)}
			for _, name := range args {
				r := a.validateFile(name, opts)
				var err error
				if asJSON {
					err = writeJSONLine(a.stdout, r)
				} else {
					err = writeValidateText(a.stdout, r)
				}
				if err != nil {
					return err
				}
				if r.err != nil {
					fail.failed++
					if fail.first == nil {
						fail.first = r.err
					}
				}
			}
			if fail.failed > 0 {
				return fail
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per file")
	cmd.Flags().BoolVar(&skipJSONLD, "skip-jsonld", false, "leave out JSON-LD expansion, the slowest check")
	return cmd
}

func (a *app) validateFile(name string, opts *format.ValidateOptions) *validateResult {
	r := &validateResult{File: name, Problems: []format.Problem{}}
	o := *opts
	o.PasswordFunc = a.passwordFunc(name)
	_, r.err = format.ValidateFile(name, &o)
	if ve, ok := errors.AsType[*format.ValidationError](r.err); ok {
		r.Problems = ve.Problems
	} else if r.err != nil {
		r.Error = r.err.Error()
	}
	r.Valid = r.err == nil
	if r.Valid && format.HasJournal(name) {
		r.Journal = a.validateJournal(name, &o)
		r.Valid, r.err = r.Journal.Valid, r.Journal.err
	}
	return r
}

// validateJournal checks the memory of the named file with the changes of
// its journal, as every reader reads it.
func (a *app) validateJournal(name string, opts *format.ValidateOptions) *validateResult {
	r := &validateResult{File: format.JournalName(name), Problems: []format.Problem{}}
	doc, err := smg.ReadDocument(name, &smg.DecodeOptions{Password: opts.Password, PasswordFunc: opts.PasswordFunc, Limits: opts.Limits})
	if err == nil {
		err = format.Validate(doc, opts)
	}
	r.err = err
	if ve, ok := errors.AsType[*format.ValidationError](err); ok {
		r.Problems = ve.Problems
	} else if err != nil {
		r.Error = err.Error()
	}
	r.Valid = err == nil
	return r
}

func writeValidateText(w io.Writer, r *validateResult) error {
	if r.Journal != nil {
		file := *r
		file.Journal, file.Valid, file.Error, file.Problems = nil, true, "", nil
		if err := writeValidateText(w, &file); err != nil {
			return err
		}
		return writeValidateText(w, r.Journal)
	}
	var err error
	put := func(format string, args ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, args...)
		}
	}
	switch {
	case r.Valid:
		put("%s: ok\n", r.File)
	case r.Error != "":
		// The library's errors about a file name it.
		put("%s\n", r.Error)
	default:
		for _, p := range r.Problems {
			put("%s: %s: %s\n", r.File, p.Path, p.Message)
		}
		put("%s: %d %s\n", r.File, len(r.Problems), plural(len(r.Problems), "problem", "problems"))
	}
	return err
}

func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
