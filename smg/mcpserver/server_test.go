package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/mcpserver"
	"github.com/smg-memory/smg/smg/tools"
)

// handler returns a handler of a new memory in a temporary directory.
func handler(t testing.TB) *tools.Handler {
	t.Helper()
	f, err := smg.OpenFileMemory(filepath.Join(t.TempDir(), "me.smg"), &smg.FileOptions{Create: &smg.Options{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return tools.NewHandler(f, nil, nil)
}

// lines is a server on a LineTransport that a test writes lines to and
// reads the replies of, one a line.
type lines struct {
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func serveLines(t *testing.T, server *mcp.Server, maxLine int) *lines {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	l := &lines{in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() {
		l.done <- server.Run(context.Background(), &mcpserver.LineTransport{Reader: inR, Writer: outW, MaxLineLength: maxLine})
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close() })
	return l
}

func (l *lines) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(l.in, line+"\n"); err != nil {
		t.Fatalf("writing %q: %v", line, err)
	}
}

// reply is a JSON-RPC response as the tests read it.
type reply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *jsonrpc.Error  `json:"error"`
}

// next reads the next reply.
func (l *lines) next(t *testing.T) reply {
	t.Helper()
	line, err := l.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("reading a reply: %v (%q)", err, line)
	}
	var r reply
	if err := json.Unmarshal(line, &r); err != nil || r.JSONRPC != "2.0" {
		t.Fatalf("a reply that is not JSON-RPC: %v\n%s", err, line)
	}
	return r
}

// expectError sends line and checks that the reply is an error of code
// with the id want ("null" when none).
func (l *lines) expectError(t *testing.T, line string, code int64, id string) {
	t.Helper()
	l.send(t, line)
	r := l.next(t)
	if r.Error == nil || r.Error.Code != code || string(r.ID) != id || r.Result != nil {
		t.Errorf("%.60q: reply id %s, error %+v, result %s; want code %d, id %s", line, r.ID, r.Error, r.Result, code, id)
	}
}

// expectResult sends a request of id and checks that it is answered with a
// result.
func (l *lines) expectResult(t *testing.T, line, id string) reply {
	t.Helper()
	l.send(t, line)
	r := l.next(t)
	if r.Error != nil || r.Result == nil || string(r.ID) != id {
		t.Fatalf("%.60q: reply id %s, error %+v; want a result of id %s", line, r.ID, r.Error, id)
	}
	return r
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// TestLineTransport writes raw lines to the server, each bad one between
// good ones: a line that is not JSON gets a parse error of id null, one
// that is not a JSON-RPC message an invalid request error, and the server
// answers the next line. Closing the input ends the server without error.
func TestLineTransport(t *testing.T) {
	const max = 200
	l := serveLines(t, mcpserver.New(handler(t), nil), max)
	l.expectResult(t, initialize, "1")
	l.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	l.expectError(t, `{"jsonrpc":"2.0","id":5 {"x"}`, jsonrpc.CodeParseError, "null")
	r := l.expectResult(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "2")
	var list mcp.ListToolsResult
	if err := json.Unmarshal(r.Result, &list); err != nil || len(list.Tools) != len(tools.Definitions()) {
		t.Errorf("after a parse error, tools/list: %v %s", err, r.Result)
	}
	for _, bad := range []string{`{`, `}`, `{"jsonrpc":"2.0","id":6,"method":"ping"} {}`, "\x00", `nul`, `{"a":1,}`} {
		l.expectError(t, bad, jsonrpc.CodeParseError, "null")
	}
	l.expectError(t, `42`, jsonrpc.CodeInvalidRequest, "null")
	l.expectError(t, `"ping"`, jsonrpc.CodeInvalidRequest, "null")
	l.expectError(t, `[]`, jsonrpc.CodeInvalidRequest, "null")
	l.expectError(t, `[{"jsonrpc":"2.0","id":7,"method":"ping"}]`, jsonrpc.CodeInvalidRequest, "null")
	l.expectError(t, `{"jsonrpc":"1.0","id":"a","method":"ping"}`, jsonrpc.CodeInvalidRequest, `"a"`)
	l.expectError(t, `{"id":8,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "8")
	l.expectError(t, `{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null")
	l.expectError(t, `{"jsonrpc":"2.0","id":9,"method":"ping","params":"`+strings.Repeat("x", max)+`"}`, jsonrpc.CodeInvalidRequest, "null")

	// Blank lines and spaces around a message are nothing; a good line
	// after all of them is answered.
	l.send(t, "")
	l.send(t, " \t\r")
	l.expectResult(t, "  "+`{"jsonrpc":"2.0","id":10,"method":"ping"}`+" \r", "10")

	l.in.Close()
	select {
	case err := <-l.done:
		if err != nil {
			t.Errorf("the server ended with %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the server did not end when its input closed")
	}
}

// TestUndeclaredMethods: the server declares tools and logging, and
// answers the methods of resources, prompts and completions as unknown, to
// raw lines and to the SDK's client.
func TestUndeclaredMethods(t *testing.T) {
	l := serveLines(t, mcpserver.New(handler(t), nil), 0)
	r := l.expectResult(t, initialize, "1")
	var init mcp.InitializeResult
	if err := json.Unmarshal(r.Result, &init); err != nil {
		t.Fatal(err)
	}
	if c := init.Capabilities; c.Tools == nil || c.Logging == nil || c.Resources != nil || c.Prompts != nil || c.Completions != nil {
		t.Errorf("capabilities: %+v", c)
	}
	l.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, m := range []string{
		`"resources/list"`, `"resources/templates/list"`, `"resources/read","params":{"uri":"file:///etc/passwd"}`,
		`"resources/subscribe","params":{"uri":"file:///x"}`, `"prompts/list"`, `"prompts/get","params":{"name":"x"}`,
		`"completion/complete","params":{"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":"b"}}`,
	} {
		id := string(rune('a' + i))
		l.expectError(t, `{"jsonrpc":"2.0","id":"`+id+`","method":`+m+`}`, jsonrpc.CodeMethodNotFound, `"`+id+`"`)
	}
	l.expectResult(t, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}`, "2")

	// The SDK's client, connected through the line transport.
	s := connect(t, mcpserver.New(handler(t), nil))
	ctx := context.Background()
	if _, err := s.ListTools(ctx, nil); err != nil {
		t.Errorf("tools/list: %v", err)
	}
	for name, call := range map[string]func() error{
		"resources/list": func() error { _, err := s.ListResources(ctx, nil); return err },
		"prompts/list":   func() error { _, err := s.ListPrompts(ctx, nil); return err },
		"resources/read": func() error { _, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///x"}); return err },
	} {
		var je *jsonrpc.Error
		if err := call(); !errors.As(err, &je) || je.Code != jsonrpc.CodeMethodNotFound {
			t.Errorf("%s: %v, want method not found", name, err)
		}
	}
}

// connect runs server on a LineTransport and connects the SDK's client to
// it over pipes.
func connect(t *testing.T, server *mcp.Server) *mcp.ClientSession {
	t.Helper()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	var wg sync.WaitGroup
	wg.Go(func() {
		server.Run(context.Background(), &mcpserver.LineTransport{Reader: toServer, Writer: fromServer})
		fromServer.Close()
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "smg-test", Version: "0"}, nil)
	s, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: toClient, Writer: fromClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		wg.Wait()
	})
	return s
}

// TestUnavailable: a server of memories that could not be opened starts,
// says why in its instructions, lists its tools and answers every call
// with an error result that gives the reason, without logging each.
func TestUnavailable(t *testing.T) {
	reason := errors.New("me.smg: the file is encrypted and there is no terminal to ask for its password: set SMG_PASSWORD")
	var log strings.Builder
	s := connect(t, mcpserver.New(nil, &mcpserver.Options{Version: "1", Log: &log, Unavailable: reason}))
	ctx := context.Background()
	if got := s.InitializeResult().Instructions; !strings.HasPrefix(got, tools.Guidance) || !strings.Contains(got, reason.Error()) {
		t.Errorf("instructions:\n%s", got)
	}
	list, err := s.ListTools(ctx, nil)
	if err != nil || len(list.Tools) != len(tools.Definitions()) {
		t.Fatalf("tools/list: %v", err)
	}
	for _, tool := range list.Tools {
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: map[string]any{"query": "x", "content": "User likes tea", "category": "preference", "reasoning": "r", "id": "x"}})
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		if !res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s: %+v", tool.Name, res)
		}
		if text, _ := res.Content[0].(*mcp.TextContent); text == nil || !strings.Contains(text.Text, reason.Error()) {
			t.Errorf("%s: %+v", tool.Name, res.Content[0])
		}
	}
	if log.Len() != 0 {
		t.Errorf("the server logged the reason:\n%s", log.String())
	}
}
