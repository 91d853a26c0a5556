package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
)

// What the service says of a failure is what its caller may know: a
// problem of the request (4xx) says what is wrong with it; a problem of
// the server (5xx) says what failed and whether to try again, never why
// (a file's path, the database's address, a library's message): that goes
// to the server's log, with the request.

// ProblemDamaged is the type of the problem of a memory the store holds in
// a form the server cannot read (500): the server's fault, not the
// request's.
const ProblemDamaged = "https://w3id.org/smg/v1/problems#damaged-memory"

// ErrBadFile is the error of a file given to import that is not a memory
// the service takes: the request's fault (422, or 413 past a limit).
var ErrBadFile = errors.New("the file is not a memory the service can import")

// failure is a problem of the server, and the error behind it, which goes
// to the log and never to the caller.
type failure struct {
	huma.ErrorModel
	cause error
}

func (f *failure) Unwrap() error { return f.cause }

// GetHeaders says when to try again a request the server could not answer
// for a while (503).
func (f *failure) GetHeaders() http.Header {
	if f.Status != http.StatusServiceUnavailable {
		return http.Header{}
	}
	return http.Header{"Retry-After": {"1"}}
}

// serverFailed is the failure of status, saying detail, because of cause.
func serverFailed(status int, detail string, cause error) *failure {
	return &failure{ErrorModel: huma.ErrorModel{Status: status, Title: http.StatusText(status), Detail: detail}, cause: cause}
}

// problem turns an error of the store or the library into the JSON problem
// of its status.
func problem(err error) error {
	var lim *format.LimitError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNotFound):
		return huma.Error404NotFound(err.Error())
	case errors.Is(err, fs.ErrNotExist):
		// A memory's file removed by another server.
		return huma.Error404NotFound(ErrNotFound.Error())
	case errors.Is(err, ErrExists):
		return huma.Error409Conflict(err.Error())
	case errors.Is(err, ErrOneFile):
		return huma.Error403Forbidden(err.Error())
	case errors.Is(err, ErrInvalidID), errors.Is(err, smg.ErrInvalidTurn):
		return huma.Error422UnprocessableEntity(err.Error())
	case errors.Is(err, ErrTurnTooLarge):
		return huma.Error413RequestEntityTooLarge(err.Error())
	case errors.Is(err, ErrBadFile) && (errors.As(err, &lim) || errors.Is(err, format.ErrLimit)):
		return huma.Error413RequestEntityTooLarge(err.Error())
	case errors.Is(err, ErrBadFile) && errors.Is(err, format.ErrPasswordRequired):
		return huma.Error422UnprocessableEntity(err.Error() + "; the service keeps memories in the clear: decrypt it first (smg decrypt)")
	case errors.Is(err, ErrBadFile):
		return huma.Error422UnprocessableEntity(err.Error())
	case damaged(err):
		f := serverFailed(http.StatusInternalServerError, "the memory is kept in a form the server cannot read: the fault is the server's, not the request's; its log says why", err)
		f.Type, f.Title = ProblemDamaged, "Damaged memory"
		return f
	case errors.Is(err, ErrUnavailable):
		return serverFailed(http.StatusServiceUnavailable, "the store cannot be reached now: the request may be sent again", err)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return serverFailed(http.StatusServiceUnavailable, "the request took longer than the server allows: it may be sent again", err)
	}
	return serverFailed(http.StatusInternalServerError, "the memory could not be read or written: the server's log says why", err)
}

// damaged reports whether err is that of a memory the store holds that
// cannot be read: a file or base that is not a memory, or one past the
// limits, or a journal that cannot be replayed.
func damaged(err error) bool {
	var lim *format.LimitError
	for _, e := range []error{format.ErrNotSMG, format.ErrMalformed, format.ErrTruncated, format.ErrInvalid,
		format.ErrUnsupportedVersion, format.ErrTampered, format.ErrPasswordRequired, format.ErrLimit, smg.ErrJournal} {
		if errors.Is(err, e) {
			return true
		}
	}
	return errors.As(err, &lim)
}

// keysUnread is the problem of keys that could not be read: 503 when the
// store is unavailable, 500 otherwise. Every request is refused then.
func keysUnread(err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return problem(err)
	}
	if errors.Is(err, ErrUnavailable) {
		return serverFailed(http.StatusServiceUnavailable, "the store's keys cannot be read now: the request may be sent again", err)
	}
	return serverFailed(http.StatusInternalServerError, "the store's keys cannot be read: every request is refused until they can be; the server's log says why", err)
}

// maxEcho is the most of a value a validation problem shows back to its
// caller: a value given wrongly is named, not echoed whole.
const maxEcho = 64

// tell is the transformer of every answer: a failure's cause goes to the
// request's log, and the problem alone to the caller; the values a
// validation problem shows back are cut to maxEcho bytes.
func tell(ctx huma.Context, _ string, v any) (any, error) {
	switch p := v.(type) {
	case *failure:
		if rec := recordOf(ctx.Context()); rec != nil {
			rec.cause = p.cause
		}
		return &p.ErrorModel, nil
	case *huma.ErrorModel:
		for _, d := range p.Errors {
			if d == nil || d.Value == nil {
				continue
			}
			if js, err := json.Marshal(d.Value); err != nil || len(js) > maxEcho {
				d.Value = nil
			}
		}
	}
	return v, nil
}

// asProblem is err as the problem the service answers, and its headers.
func asProblem(err error) (*huma.ErrorModel, http.Header) {
	h := http.Header{}
	var he huma.HeadersError
	if errors.As(err, &he) {
		h = he.GetHeaders()
	}
	var f *failure
	if errors.As(err, &f) {
		return &f.ErrorModel, h
	}
	var m *huma.ErrorModel
	if errors.As(err, &m) {
		return m, h
	}
	return &huma.ErrorModel{Status: http.StatusInternalServerError, Detail: fmt.Sprint("unexpected error: the server's log says why")}, h
}
