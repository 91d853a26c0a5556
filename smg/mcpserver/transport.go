package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxLineLength is the longest line a [LineTransport] reads when
// its MaxLineLength is zero: the SDK's own bound of a message.
const DefaultMaxLineLength = mcp.DefaultMaxLineLength

// LineTransport is the MCP stdio transport (newline-delimited JSON-RPC
// messages, one a line, over a reader and a writer such as stdin and
// stdout) that survives a bad line. A line that is not JSON is answered
// with a JSON-RPC parse error (code -32700, id null); JSON that is not one
// JSON-RPC 2.0 message (a number, an object without "jsonrpc": "2.0", a
// batch) or a line longer than MaxLineLength is answered with an invalid
// request error (-32600, with the line's id when it has a valid one, null
// otherwise). Either way the line is dropped and the next is read, as
// JSON-RPC 2.0 (§5) asks of a server. Blank lines are skipped.
//
// The SDK's [mcp.StdioTransport] and [mcp.IOTransport] (go-sdk v1.8.0)
// decode the stream with one json.Decoder and return its first error from
// the connection's Read, which ends the session: one malformed line from a
// client ended "smg mcp". None of their options changes that, so this
// transport sits in front of [mcp.IOTransport] and hands it only the lines
// that are JSON-RPC messages, one a line; the SDK does the rest (framing,
// writing, closing).
//
// Batches are refused because MCP dropped them in its revision 2025-06-18
// (and the SDK ends the session on one sent under a later revision); no
// MCP client over stdio sends them.
type LineTransport struct {
	// Reader is read a line at a time; closing the connection closes it.
	Reader io.ReadCloser
	// Writer gets the replies, each in one Write; it is not closed.
	Writer io.Writer
	// MaxLineLength bounds a line, its newline excluded; zero is
	// DefaultMaxLineLength.
	MaxLineLength int
	// Logger, when set, gets a warning for each line refused.
	Logger *slog.Logger
}

// Connect implements [mcp.Transport].
func (t *LineTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	w := &lockedWriter{w: t.Writer}
	f := &lineFilter{
		r:      bufio.NewReader(t.Reader),
		closer: t.Reader,
		w:      w,
		max:    t.MaxLineLength,
		logger: t.Logger,
	}
	if f.max <= 0 {
		f.max = DefaultMaxLineLength
	}
	// The filter bounds each line, so the SDK need not bound its frames.
	return (&mcp.IOTransport{Reader: f, Writer: w, MaxLineLength: -1}).Connect(ctx)
}

// lockedWriter serializes the writes of the SDK's replies and the filter's,
// so that no two interleave: each is one message and its newline.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (n int, err error) {
	l.mu.Lock()
	n, err = l.w.Write(p)
	l.mu.Unlock()
	return n, err
}

func (l *lockedWriter) Close() error { return nil }

// lineFilter is the reader the SDK's connection reads: the lines of r that
// are JSON-RPC messages, each trimmed and ended by a newline. It answers
// the others on w itself.
type lineFilter struct {
	r      *bufio.Reader
	closer io.Closer
	w      io.Writer
	max    int
	logger *slog.Logger

	line    []byte // the line being read
	pending []byte // what is left of the last good line to hand on
	n       int    // lines read
}

func (f *lineFilter) Close() error { return f.closer.Close() }

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, tooLong, err := f.readLine()
		if tooLong {
			if werr := f.refuse(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: a message of more than %d bytes", f.max)); werr != nil {
				return 0, werr
			}
		} else if line = bytes.TrimSpace(line); len(line) > 0 {
			if werr := f.check(line); werr != nil {
				return 0, werr
			}
		}
		if err != nil && len(f.pending) == 0 {
			return 0, err // else the last line goes on, and the next Read returns err
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// readLine reads the next line (without its newline). A line longer than
// f.max is read to its end and dropped: tooLong.
func (f *lineFilter) readLine() (line []byte, tooLong bool, err error) {
	f.line = f.line[:0]
	for {
		chunk, err := f.r.ReadSlice('\n')
		chunk = bytes.TrimSuffix(chunk, []byte("\n"))
		if !tooLong && len(f.line)+len(chunk) <= f.max {
			f.line = append(f.line, chunk...)
		} else {
			tooLong, f.line = true, f.line[:0]
		}
		if err != bufio.ErrBufferFull {
			f.n++
			return f.line, tooLong, err
		}
	}
}

// check hands line on when it is one JSON-RPC message, and answers it
// with an error otherwise. The tests are the SDK's own: its decoder's
// syntax, then jsonrpc.DecodeMessage.
func (f *lineFilter) check(line []byte) error {
	var raw json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return f.refuse(nil, jsonrpc.CodeParseError, "parse error: "+err.Error())
	}
	switch line[0] {
	case '[':
		return f.refuse(nil, jsonrpc.CodeInvalidRequest, "invalid request: a batch; MCP takes one message a line")
	case '{':
	default:
		return f.refuse(nil, jsonrpc.CodeInvalidRequest, "invalid request: a message is a JSON object")
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return f.refuse(idOf(line), jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
	}
	f.pending = append(append(f.pending[:0], line...), '\n')
	return nil
}

// idOf returns the id of a message that has a valid one (a string or a
// number), or nil.
func idOf(line []byte) json.RawMessage {
	var m struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || m.ID == nil {
		return nil
	}
	if id, err := jsonrpc.MakeID(m.ID); err != nil || !id.IsValid() {
		return nil
	}
	b, err := json.Marshal(m.ID)
	if err != nil {
		return nil
	}
	return b
}

// errorReply is a JSON-RPC error response; its id is null when it is nil.
type errorReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   jsonrpc.Error   `json:"error"`
}

// refuse answers a line with an error; only the write's error is returned.
func (f *lineFilter) refuse(id json.RawMessage, code int64, msg string) error {
	if f.logger != nil {
		f.logger.Warn("a line refused", "line", f.n, "code", code, "error", msg)
	}
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(errorReply{JSONRPC: "2.0", ID: id, Error: jsonrpc.Error{Code: code, Message: msg}})
	if err != nil {
		return err
	}
	_, err = f.w.Write(append(b, '\n'))
	return err
}
