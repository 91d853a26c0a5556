// Package mcpserver serves the memory tools of package tools
// (save_memory, remove_memory, search_memory, get_context) to a client of
// the Model Context Protocol, such as Claude Desktop or Claude Code, with
// the official Go SDK (github.com/modelcontextprotocol/go-sdk). [New]
// builds the server; [LineTransport] is the stdio transport it runs on,
// one that answers a malformed line with a JSON-RPC error instead of
// ending the session. The command "smg mcp" wires them to its flags.
//
// The server declares two capabilities, tools and logging, and answers
// the methods of no other (resources, prompts, completions) with "method
// not found".
package mcpserver

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/smg-memory/smg/smg/tools"
)

// Options shape the server [New] builds.
type Options struct {
	// Version is the server's version in its reply to initialize.
	Version string
	// Log gets a line for each call that failed in a way the model cannot
	// fix (a file that cannot be written, a lock held too long), and the
	// SDK's warnings and errors; nil discards them.
	Log io.Writer
	// Unavailable, when set, is why the memories cannot be served: they
	// could not be opened (a damaged file, an encrypted one without its
	// password). The server still starts, answers initialize and lists
	// the tools; its instructions say what is wrong, and every tool call
	// is an error result (isError) that says it, so that the client's user
	// reads the reason in the conversation. The handler is not used and
	// may be nil. Unavailable is not written to Log: the caller reports it
	// once.
	Unavailable error
	// Tools, when set, are the only tools served, by name: a client that
	// may only read gets get_context and search_memory.
	Tools []string
}

// New returns a server of the tools of h. A tool's reply is its JSON
// ([tools.Reply]), as text and as structured content; an error reply is
// marked isError. What the model cannot fix is an error result too, with
// the error's text, and is written to opts.Log.
func New(h *tools.Handler, opts *Options) *mcp.Server {
	o := Options{Log: io.Discard}
	if opts != nil {
		o = *opts
		o.Log = cmp.Or[io.Writer](o.Log, io.Discard)
	}
	instructions := tools.Guidance
	if o.Unavailable != nil {
		instructions += "\n\nThe memory cannot be used now: " + o.Unavailable.Error() +
			"\nEvery tool call answers this error. Tell the user, who can fix it in the configuration of this server."
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "smg", Title: "smg memory", Version: o.Version},
		&mcp.ServerOptions{
			Instructions: instructions,
			Logger:       slog.New(slog.NewTextHandler(o.Log, &slog.HandlerOptions{Level: slog.LevelWarn})),
		})
	server.AddReceivingMiddleware(refuseUndeclared)
	for _, d := range tools.Definitions() {
		if o.Tools != nil && !slices.Contains(o.Tools, d.Name) {
			continue
		}
		server.AddTool(&mcp.Tool{Name: d.Name, Description: d.Description, InputSchema: d.InputSchema},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if o.Unavailable != nil {
					return errorResult(o.Unavailable), nil
				}
				r, err := h.Call(ctx, req.Params.Name, req.Params.Arguments)
				if err != nil {
					fmt.Fprintf(o.Log, "smg: %s: %v\n", req.Params.Name, err)
					return errorResult(err), nil
				}
				b, err := json.Marshal(r)
				if err != nil {
					return nil, err
				}
				return &mcp.CallToolResult{
					Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
					StructuredContent: jsontext.Value(b),
					IsError:           r.IsError(),
				}, nil
			})
	}
	return server
}

// errorResult is the result of a call that failed with err.
func errorResult(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "smg: " + err.Error()}}}
}

// undeclared are the prefixes of the methods of the capabilities the
// server does not declare. The SDK (v1.8.0) answers resources/list,
// resources/templates/list and prompts/list with empty lists, and
// resources/read with "not found", whatever the server declares.
var undeclared = []string{"resources/", "prompts/", "completion/"}

// refuseUndeclared answers the requests of an undeclared capability with
// "method not found" (-32601), as JSON-RPC asks for a method the server
// does not have.
func refuseUndeclared(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		for _, p := range undeclared {
			if strings.HasPrefix(method, p) {
				return nil, &jsonrpc.Error{
					Code:    jsonrpc.CodeMethodNotFound,
					Message: fmt.Sprintf("method not found: %q (this server has tools and logging only)", method),
				}
			}
		}
		return next(ctx, method, req)
	}
}
