package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/provider"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/smg/tools"
)

// binDir holds the smg binary that tests run as a process; TestMain
// removes it.
var binDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var buildOnce = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "smg-bin-")
	if err != nil {
		return "", err
	}
	binDir = dir
	bin := filepath.Join(dir, "smg")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// smgBinary builds the smg command, once, and returns its path.
func smgBinary(t testing.TB) string {
	t.Helper()
	bin, err := buildOnce()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// mcpServer is an smg mcp process and the client session connected to it.
type mcpServer struct {
	*mcp.ClientSession
	stderr *syncBuffer
}

// syncBuffer is a bytes.Buffer safe for a process to write while a test
// reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startMCP starts smg mcp with args and connects an MCP client to it over
// the process's stdin and stdout.
func startMCP(t testing.TB, ctx context.Context, args ...string) *mcpServer {
	t.Helper()
	return startMCPEnv(t, ctx, nil, args...)
}

// startMCPEnv is startMCP with env added to the process's environment,
// from which a model provider is left out.
func startMCPEnv(t testing.TB, ctx context.Context, env []string, args ...string) *mcpServer {
	t.Helper()
	cmd := exec.Command(smgBinary(t), append([]string{"mcp"}, args...)...)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return k == provider.EnvURL || k == provider.EnvEmbedModel || k == provider.EnvChatModel || k == passwordEnv
	})
	cmd.Env = append(cmd.Env, env...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "smg-test", Version: "0"}, nil)
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to smg mcp: %v\n%s", err, stderr)
	}
	t.Cleanup(func() { s.Close() })
	return &mcpServer{ClientSession: s, stderr: stderr}
}

// call calls a tool and returns its reply, decoded, and whether the result
// was marked as an error. The text and the structured content must agree.
func (s *mcpServer) call(t testing.TB, ctx context.Context, name string, args map[string]any) (tools.Reply, bool) {
	t.Helper()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, s.stderr)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d contents", name, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: a content of type %T", name, res.Content[0])
	}
	var r tools.Reply
	if err := json.Unmarshal([]byte(text.Text), &r); err != nil {
		t.Fatalf("%s: the reply is not JSON: %v\n%s", name, err, text.Text)
	}
	var fromText, structured any
	json.Unmarshal([]byte(text.Text), &fromText)
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &structured)
	if !reflect.DeepEqual(fromText, structured) {
		t.Errorf("%s: the structured content differs from the text:\n%s\n%s", name, b, text.Text)
	}
	return r, res.IsError
}

// TestMCP drives smg mcp, built and run as a process, with the SDK's client
// over a real stdio pipe: the tools are listed, a fact is saved, saved
// again (a duplicate), found, put in a context and removed, and after a
// restart on the same files what was saved is still there.
func TestMCP(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	me, ws := filepath.Join(dir, ".smg", "me.smg"), filepath.Join(dir, "crawler.smg") // the files do not exist yet
	// smg makes no folders (TestMissingFolder).
	if err := os.Mkdir(filepath.Dir(me), 0o755); err != nil {
		t.Fatal(err)
	}
	s := startMCP(t, ctx, "--memory", me, "--workspace", ws)

	if got := s.InitializeResult().Instructions; got != tools.Guidance {
		t.Errorf("the server's instructions:\n%s", got)
	}
	list, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The server lists them by name.
	defs := tools.Definitions()
	if len(list.Tools) != len(defs) {
		t.Errorf("%d tools, want %d", len(list.Tools), len(defs))
	}
	for _, tool := range list.Tools {
		i := slices.IndexFunc(defs, func(d tools.Tool) bool { return d.Name == tool.Name })
		if i < 0 {
			t.Errorf("an unknown tool: %+v", tool)
			continue
		}
		var want any
		json.Unmarshal(defs[i].InputSchema, &want)
		if tool.Description != defs[i].Description || !reflect.DeepEqual(tool.InputSchema, want) {
			t.Errorf("tool %s: %+v", tool.Name, tool)
		}
	}

	// save: in the file before the reply.
	r, isErr := s.call(t, ctx, "save_memory", map[string]any{
		"content": "I prefer answers with code first", "category": "preference", "reasoning": "The user asked for it.",
	})
	if !r.Success || isErr || r.ID == "" || r.Memory != "user" || r.Message != "Saved: User prefers answers with code first" {
		t.Fatalf("save: %+v", r)
	}
	prefID := r.ID
	if got := smgtest.CurrentFacts(t, me, nil); !slices.Equal(got, []string{"User prefers answers with code first"}) {
		t.Errorf("after save, %s holds %q", me, got)
	}

	// The same again: a duplicate, not an error.
	r, isErr = s.call(t, ctx, "save_memory", map[string]any{
		"content": "User prefers answers with code first", "category": "preference", "reasoning": "Said again.",
	})
	if r.Success || !r.Duplicate || isErr || r.Existing == nil || r.Existing.ID != prefID {
		t.Errorf("duplicate: %+v", r)
	}

	// A fact the memory refuses: an error result the model can act on.
	r, isErr = s.call(t, ctx, "save_memory", map[string]any{"content": "User collects pens", "category": "hobby", "reasoning": "A hobby."})
	if !isErr || !strings.Contains(r.Error, `"hobby" is not a category`) {
		t.Errorf("a bad category: %+v, isError %v", r, isErr)
	}

	// Two more: one to remove, one of the workspace.
	r, _ = s.call(t, ctx, "save_memory", map[string]any{
		"content": "User is learning to play the cello", "category": "context", "reasoning": "Their current focus outside work.",
	})
	celloID := r.ID
	r, _ = s.call(t, ctx, "save_memory", map[string]any{
		"content": "The crawler retries a timed-out fetch three times", "category": "project",
		"reasoning": "A decision of the team.", "scope": "workspace:crawler",
	})
	if !r.Success || r.Memory != "workspace" {
		t.Errorf("a workspace fact: %+v", r)
	}
	if got := smgtest.CurrentFacts(t, ws, nil); !slices.Equal(got, []string{"The crawler retries a timed-out fetch three times"}) {
		t.Errorf("%s holds %q", ws, got)
	}

	// search and get_context find them.
	r, _ = s.call(t, ctx, "search_memory", map[string]any{"query": "cello"})
	if len(r.Results) == 0 || r.Results[0].ID != celloID || r.Results[0].Memory != "user" {
		t.Errorf("search: %+v", r)
	}
	r, _ = s.call(t, ctx, "search_memory", map[string]any{"query": "crawler fetch", "limit": 3})
	if len(r.Results) == 0 || r.Results[0].Memory != "workspace" {
		t.Errorf("search of the workspace: %+v", r)
	}
	r, _ = s.call(t, ctx, "get_context", map[string]any{"query": "how often does the crawler retry?", "budget": 400})
	if !r.Success || !strings.Contains(r.Context, "code first") || !strings.Contains(r.Context, "three times") || r.Tokens > 400 {
		t.Errorf("get_context: %+v", r)
	}

	// remove, and an id no memory holds.
	if r, isErr = s.call(t, ctx, "remove_memory", map[string]any{"id": celloID}); !r.Success || isErr {
		t.Errorf("remove: %+v", r)
	}
	if r, isErr = s.call(t, ctx, "remove_memory", map[string]any{"id": celloID}); !isErr || !strings.Contains(r.Error, "no saved fact") {
		t.Errorf("remove again: %+v", r)
	}
	if err := s.Close(); err != nil {
		t.Errorf("closing: %v\n%s", err, s.stderr)
	}
	if e := s.stderr.String(); strings.Contains(e, "level=ERROR") {
		t.Errorf("the server logged:\n%s", e)
	}

	// A new process on the same files: what was saved is there, and what
	// was removed is not.
	s = startMCP(t, ctx, "--memory", me, "--workspace", ws)
	r, _ = s.call(t, ctx, "get_context", map[string]any{"query": "what is the user learning, and how should answers look?"})
	if !strings.Contains(r.Context, "User prefers answers with code first") || strings.Contains(r.Context, "cello") {
		t.Errorf("after a restart, get_context:\n%s", r.Context)
	}
	if r, _ = s.call(t, ctx, "search_memory", map[string]any{"query": "cello"}); len(r.Results) != 0 {
		t.Errorf("after a restart, a removed fact is found: %+v", r)
	}
	if r, _ = s.call(t, ctx, "search_memory", map[string]any{"query": "retries", "memory": "workspace"}); len(r.Results) != 1 {
		t.Errorf("after a restart, the workspace's fact: %+v", r)
	}
	if got := smgtest.CurrentFacts(t, me, nil); !slices.Equal(got, []string{"User prefers answers with code first"}) {
		t.Errorf("%s holds %q", me, got)
	}
	for _, name := range []string{me, ws} {
		validate(t, nil, name)
	}
}

// TestMCPSharedFile runs two servers on one file, each saving facts at the
// same time: the file ends with all of them.
func TestMCPSharedFile(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	me := filepath.Join(t.TempDir(), "me.smg")
	servers := []*mcpServer{startMCP(t, ctx, "--memory", me), startMCP(t, ctx, "--memory", me)}
	const each = 4
	var want []string
	var wg sync.WaitGroup
	for i, s := range servers {
		for j := range each {
			want = append(want, fmt.Sprintf("Client %c saved note number %d", "AB"[i], j))
		}
		wg.Go(func() {
			for j := range each {
				r, isErr := s.call(t, ctx, "save_memory", map[string]any{
					"content":   fmt.Sprintf("Client %c saved note number %d", "AB"[i], j),
					"category":  "context",
					"reasoning": "A test of two clients.",
				})
				if !r.Success || isErr {
					t.Errorf("client %c, fact %d: %+v", "AB"[i], j, r)
				}
			}
		})
	}
	wg.Wait()
	slices.Sort(want)
	if got := smgtest.CurrentFacts(t, me, nil); !slices.Equal(got, want) {
		t.Errorf("the file holds %q, want %q", got, want)
	}
	// Each server sees the other's facts.
	for i, s := range servers {
		r, _ := s.call(t, ctx, "search_memory", map[string]any{"query": "client saved note", "limit": 20})
		if len(r.Results) != 2*each {
			t.Errorf("server %d finds %d facts: %+v", i, len(r.Results), r)
		}
	}
}

// TestMCPEncrypted: an encrypted memory stays encrypted, with its password.
func TestMCPEncrypted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	me := filepath.Join(t.TempDir(), "me.smg")
	s := startMCP(t, ctx, "--memory", me)
	s.call(t, ctx, "save_memory", map[string]any{"content": "User lives in Lisbon", "category": "identity", "reasoning": "Where they live."})
	s.Close()
	pw := withPassword("s3cret")
	if r := run(t, pw, "encrypt", me); r.status != exitOK {
		t.Fatalf("encrypt: status %d: %s", r.status, r.stderr)
	}

	s = startMCPEnv(t, ctx, []string{passwordEnv + "=s3cret"}, "--memory", me)
	r, _ := s.call(t, ctx, "save_memory", map[string]any{"content": "User works as a nurse", "category": "identity", "reasoning": "Their job."})
	if !r.Success {
		t.Fatalf("save: %+v\n%s", r, s.stderr)
	}
	s.Close()
	raw, err := os.ReadFile(me)
	if err != nil {
		t.Fatal(err)
	}
	if !format.IsEncrypted(raw) {
		t.Fatal("the server wrote the memory decrypted")
	}
	doc, err := format.ReadFile(me, &smg.DecodeOptions{Password: []byte("s3cret")})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(doc.SemanticGraph.Nodes); n != 2 {
		t.Errorf("%d nodes, want the two facts", n)
	}
}

// TestMCPUnopenable: a memory that cannot be opened is served all the
// same; each tool call is an error result that says why, the reason is on
// stderr once, the file is left as it was, and the process ends with the
// exit status of the reason.
func TestMCPUnopenable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	encrypted, _ := example(t, "small.smg")
	if r := run(t, withPassword("s3cret"), "encrypt", encrypted); r.status != exitOK {
		t.Fatalf("encrypt: %s", r.stderr)
	}
	bad := writeTemp(t, "notes.smg", []byte("not a memory"))
	good := filepath.Join(t.TempDir(), "me.smg")
	for _, c := range []struct {
		name   string
		env    []string
		args   []string
		reason string
		status int
	}{
		{"no password", nil, []string{"--memory", encrypted}, "there is no terminal to ask for its password: set SMG_PASSWORD", exitPassword},
		{"a wrong password", []string{passwordEnv + "=nope"}, []string{"--memory", encrypted}, "wrong password (hint: check the password", exitPassword},
		{"not a memory", nil, []string{"--memory", bad}, "not an smg file", exitInvalid},
		{"a workspace that is not a memory", nil, []string{"--memory", good, "--workspace", bad}, "not an smg file", exitInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			unchanged, unchangedBad := readOnly(t, encrypted), readOnly(t, bad)
			s := startMCPEnv(t, ctx, c.env, c.args...)
			if got := s.InitializeResult().Instructions; !strings.Contains(got, c.reason) {
				t.Errorf("the instructions do not say why:\n%s", got)
			}
			for _, name := range []string{tools.SaveMemory, tools.SearchMemory} {
				res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{
					"content": "User drinks green tea", "category": "preference", "reasoning": "Said so.", "query": "tea",
				}})
				if err != nil {
					t.Fatalf("%s: %v\n%s", name, err, s.stderr)
				}
				if text, _ := res.Content[0].(*mcp.TextContent); !res.IsError || text == nil || !strings.Contains(text.Text, c.reason) {
					t.Errorf("%s: isError %v, %+v", name, res.IsError, res.Content[0])
				}
			}
			var exit *exec.ExitError
			if err := s.Close(); !errors.As(err, &exit) || exit.ExitCode() != c.status {
				t.Errorf("the server ended with %v, want status %d\n%s", err, c.status, s.stderr)
			}
			if n := strings.Count(s.stderr.String(), c.reason); n != 1 {
				t.Errorf("stderr gives the reason %d times:\n%s", n, s.stderr)
			}
			unchanged("mcp")
			unchangedBad("mcp")
			if _, err := os.Stat(good); err == nil {
				t.Errorf("%s was created", good)
			}
		})
	}
}

// TestMCPRawLines writes JSON-RPC lines to smg mcp as a client would,
// with a malformed one among them: it is answered with a parse error of id
// null, and the server answers the next lines; a method of a capability it
// does not declare is not found.
func TestMCPRawLines(t *testing.T) {
	cmd := exec.Command(smgBinary(t), "mcp", "--memory", filepath.Join(t.TempDir(), "me.smg"), "--no-provider")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	replies := bufio.NewScanner(stdout)
	replies.Buffer(nil, 1<<20)
	exchange := func(line string) (reply struct {
		ID    json.RawMessage
		Error *struct{ Code int }
	}) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("writing %s: %v\n%s", line, err, stderr)
		}
		if !replies.Scan() {
			t.Fatalf("no reply to %s: %v\n%s", line, replies.Err(), stderr)
		}
		if err := json.Unmarshal(replies.Bytes(), &reply); err != nil {
			t.Fatalf("the reply to %s: %v\n%s", line, err, replies.Bytes())
		}
		return reply
	}
	if r := exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`); r.Error != nil {
		t.Fatalf("initialize: %+v", r.Error)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	if r := exchange(`{"jsonrpc":"2.0","id":2,"method":"tools/list" {"x"}`); r.Error == nil || r.Error.Code != -32700 || string(r.ID) != "null" {
		t.Errorf("a malformed line: id %s, error %+v", r.ID, r.Error)
	}
	if r := exchange(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`); r.Error != nil || string(r.ID) != "3" {
		t.Errorf("the line after: id %s, error %+v", r.ID, r.Error)
	}
	if r := exchange(`{"jsonrpc":"2.0","id":4,"method":"resources/list"}`); r.Error == nil || r.Error.Code != -32601 || string(r.ID) != "4" {
		t.Errorf("resources/list: id %s, error %+v", r.ID, r.Error)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("the server ended with %v\n%s", err, stderr)
	}
}

func TestMCPUsage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp"}, "--memory FILE is required"},
		{[]string{"mcp", "--memory", filepath.Join(dir, "a.smg"), "--workspace", filepath.Join(dir, "a.smg")}, "the same file"},
		{[]string{"mcp", "--memory", filepath.Join(dir, "a.smg"), "extra"}, "unknown command"},
	} {
		r := run(t, nil, c.args...)
		if r.status != exitUsage || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("%q: status %d, stderr %q", c.args, r.status, r.stderr)
		}
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("usage errors left %q", got)
	}
}

// When an MCP session ends, what it saved is in the file itself: a copy of
// the file alone, with nothing beside it, holds the fact saved.
func TestMCPSessionEndWritesTheFile(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	me := filepath.Join(t.TempDir(), "me.smg")
	succeed(t, nil, "add", me, "--no-vectors", "We ship parcels from Antwerp.")
	s := startMCP(t, ctx, "--memory", me, "--no-vectors")
	if r, isErr := s.call(t, ctx, "save_memory", map[string]any{"content": "I prefer answers with code first", "category": "preference", "reasoning": "Asked."}); !r.Success || isErr {
		t.Fatalf("save: %+v", r)
	}
	if r, _ := s.call(t, ctx, "get_context", map[string]any{"query": "Where do parcels ship from?"}); !strings.Contains(r.Context, "Antwerp") {
		t.Errorf("context: %+v", r)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("closing the session: %v\n%s", err, s.stderr)
	}
	// The file's index, written with it, for the next session to open.
	key, err := os.ReadFile(filepath.Join(format.IndexCacheDir(me), "smg-key"))
	if raw, _ := os.ReadFile(me); err != nil || !bytes.Contains(key, []byte(format.IndexKey(raw, smg.Limits{}))) {
		t.Errorf("no index of the file as the session left it: %v", err)
	}
	if fi, err := os.Stat(me + ".journal"); err == nil && fi.Size() > 0 {
		t.Errorf("after the session, a journal of %d bytes beside the file", fi.Size())
	}
	raw, err := os.ReadFile(me)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), "copy.smg")
	if err := os.WriteFile(copied, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := smgtest.CurrentFacts(t, copied, nil); !slices.Contains(got, "User prefers answers with code first") {
		t.Errorf("a copy of the file alone holds the facts %q", got)
	}
	if n := len(smgtest.FileTurns(t, copied)); n != 1 {
		t.Errorf("a copy of the file alone holds %d turns, want 1", n)
	}
}

// TestMCPRecordTurns: a real MCP client records a conversation through
// record_turns; sent again, nothing is stored twice; the turns are in the
// memory for every reader (the file's journal), and the next context
// finds them.
func TestMCPRecordTurns(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	me := filepath.Join(t.TempDir(), "me.smg")
	s := startMCP(t, ctx, "--memory", me)
	exchange := map[string]any{"conversation": "chat-9", "turns": []any{
		map[string]any{"role": "user", "content": "We moved the warehouse from Rotterdam to Antwerp last week.", "id": "u1", "time": "2025-05-02T10:00:00Z"},
		map[string]any{"role": "assistant", "content": "Noted: parcels now ship from Antwerp.", "id": "a1", "time": "2025-05-02T10:00:05Z"},
	}}
	for i, want := range []int{2, 0} {
		r, isErr := s.call(t, ctx, "record_turns", exchange)
		if !r.Success || isErr || r.Added != want || r.Held != 2-want {
			t.Fatalf("call %d: %+v", i+1, r)
		}
	}
	more := map[string]any{"conversation": "chat-9", "turns": []any{
		map[string]any{"role": "user", "content": "Which city do parcels ship from?", "id": "u2", "time": "2025-05-02T10:01:00Z"},
	}}
	if r, _ := s.call(t, ctx, "record_turns", more); r.Added != 1 {
		t.Fatalf("more: %+v", r)
	}
	turns := smgtest.FileTurns(t, me)
	if len(turns) != 3 || turns[0].ConversationID != "chat-9" || turns[2].ExternalID != "u2" {
		t.Fatalf("the memory holds %+v", turns)
	}
	if r, _ := s.call(t, ctx, "get_context", map[string]any{"query": "Where do parcels ship from now?"}); !strings.Contains(r.Context, "Antwerp") {
		t.Errorf("the context after recording: %+v", r)
	}
	// Bad input: the turn named, nothing recorded.
	r, isErr := s.call(t, ctx, "record_turns", map[string]any{"turns": []any{map[string]any{"role": "user", "content": "x", "time": "soon"}}})
	if r.Success || !isErr || !strings.Contains(r.Error, "turns[0].time") {
		t.Errorf("a bad time: %+v", r)
	}
	if n := len(smgtest.FileTurns(t, me)); n != 3 {
		t.Errorf("%d turns after a bad call, want 3", n)
	}
}
