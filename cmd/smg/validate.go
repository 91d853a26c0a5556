package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json"
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

With --json it prints one JSON object per line and file:
{"file", "valid", "problems": [{"path", "rule", "message"}], "error"}.

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
	return r
}

func writeValidateText(w io.Writer, r *validateResult) error {
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
