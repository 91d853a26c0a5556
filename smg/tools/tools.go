// Package tools gives a model the use of a memory: the definitions of five
// tools (save_memory, remove_memory, search_memory, get_context and
// record_turns) with
// their input as JSON Schema, in the shapes of OpenAI's, Anthropic's and
// the Model Context Protocol's tool lists ([Definitions], [Format]); the
// system-prompt guidance that goes with them ([Guidance]); and a [Handler]
// that carries out a model's calls against a user's memory and,
// optionally, a workspace's, and answers in the shape of blah.chat's
// memory tools. The command "smg mcp" serves them to MCP clients.
//
// The input schemas are JSON Schema, draft 2020-12, objects without a
// $schema member (2020-12 is the dialect MCP assumes, and the providers'
// own examples carry none). A fact's categories and the grammar of its
// scope are those of the format, version 1.0 (spec/smg-v1.md §6.1.2).
package tools

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
)

// Tool is the definition of a tool a model can call.
type Tool struct {
	Name        string
	Description string
	// InputSchema is a JSON Schema (draft 2020-12) of type object: the
	// tool's input.
	InputSchema json.RawMessage
}

// The names of the tools.
const (
	SaveMemory   = "save_memory"
	RemoveMemory = "remove_memory"
	SearchMemory = "search_memory"
	GetContext   = "get_context"
	RecordTurns  = "record_turns"
)

//go:embed schemas/*.json
var schemas embed.FS

var descriptions = []struct{ name, text string }{
	{SaveMemory, `Save one fact worth remembering in later conversations: what the user asks you to remember, a stable preference, a decision and why it was made, a term or a name and what it means here, or what the user is working on now. One self-contained fact per call, in the third person ("User prefers tabs over spaces"). Do not save trivia, temporary context, or what the workspace already holds. A reply with "duplicate": true means the memory already holds the fact (its text is in "existing"): nothing was saved, and nothing needs to be.`},
	{RemoveMemory, `Remove a saved fact by its id: one that is wrong or out of date, or that the user asks you to forget. save_memory and search_memory give the ids.`},
	{SearchMemory, `Search the memory for saved facts, decisions and earlier conversations, best first, each with its id, the memory it is in (user or workspace) and its score. Use it to look up something specific, or the id of a fact to remove; for what bears on a question, use get_context.`},
	{GetContext, `Get what the memory knows that bears on a question, within a budget of tokens: the facts about the user, the relevant knowledge and decisions, and the earlier conversations they come from. Call it before answering a question that may depend on earlier conversations.`},
	{RecordTurns, `Record messages of the conversation in the memory, in order, so that later conversations can draw on them: each with its role (user, assistant, system or tool), its text verbatim, and, when the chat gives them, its time and id. A message recorded again with its id (or the same text and time) is not stored twice, so a call may be repeated after a failure. Use it when the chat does not record the conversation itself.`},
}

// Definitions returns the definitions of the tools, in the order
// save_memory, remove_memory, search_memory, get_context, record_turns. Each call
// returns a new slice.
func Definitions() []Tool {
	out := make([]Tool, 0, len(descriptions))
	for _, d := range descriptions {
		b, err := schemas.ReadFile("schemas/" + d.name + ".json")
		if err != nil {
			panic(fmt.Sprintf("tools: the schema of %s is not embedded: %v", d.name, err))
		}
		var c bytes.Buffer
		if err := json.Compact(&c, b); err != nil {
			panic(fmt.Sprintf("tools: the schema of %s: %v", d.name, err))
		}
		out = append(out, Tool{Name: d.name, Description: d.text, InputSchema: c.Bytes()})
	}
	return out
}

// Formats are the formats of [Format].
var Formats = []string{"openai", "anthropic", "mcp"}

// Format writes tool definitions as a model's API takes them, as indented
// JSON:
//
//   - openai: the tools of a Chat Completions request,
//     [{"type":"function","function":{"name","description","parameters"}}];
//   - anthropic: the tools of a Messages request,
//     [{"name","description","input_schema"}];
//   - mcp: the result of an MCP tools/list request,
//     {"tools":[{"name","description","inputSchema"}]}.
func Format(defs []Tool, format string) ([]byte, error) {
	var v any
	switch format {
	case "openai":
		type function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		type tool struct {
			Type     string   `json:"type"`
			Function function `json:"function"`
		}
		out := make([]tool, 0, len(defs))
		for _, d := range defs {
			out = append(out, tool{"function", function{d.Name, d.Description, d.InputSchema}})
		}
		v = out
	case "anthropic":
		type tool struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		}
		out := make([]tool, 0, len(defs))
		for _, d := range defs {
			out = append(out, tool{d.Name, d.Description, d.InputSchema})
		}
		v = out
	case "mcp":
		type tool struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		out := make([]tool, 0, len(defs))
		for _, d := range defs {
			out = append(out, tool{d.Name, d.Description, d.InputSchema})
		}
		v = struct {
			Tools []tool `json:"tools"`
		}{out}
	default:
		return nil, fmt.Errorf("unknown format %q: want one of %q", format, Formats)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Guidance is the system-prompt text recommended with the tools: when to
// save a memory and when not, and how to use the others.
const Guidance = `You have a long-term memory that lasts across conversations, and five tools to use it.

Save (save_memory) what will still matter in a later conversation:
- what the user asks you to remember;
- preferences: how they like answers, the languages, tools and style they want or avoid;
- decisions, with their reasons: "the team chose PostgreSQL over SQLite for concurrent writes";
- terminology: the names of people, projects and systems, and what a term means here;
- the current focus: what they are working on now, and the goal.
Save one self-contained fact per call, in the third person ("User prefers tabs over spaces", not "I prefer tabs"), with the category that fits (identity, preference, relationship, project or context) and a short reason. A fact about the shared project or team takes the scope "workspace"; a fact about the person needs no scope.

Do not save:
- trivia and small talk, or one-off requests ("write a poem about the sea");
- temporary context that will not matter next week;
- what the workspace already holds: files, code and documents the user can open;
- guesses, or what the user did not say; secrets such as passwords and keys.

A save_memory reply with "duplicate": true means the memory already holds the fact (its text is in "existing"): it is remembered, and need not be saved again. A reply with "error" says what to fix: fix the input and try once more, or go on without saving.

Before answering a question that may depend on earlier conversations, call get_context with the question; it returns what the memory knows that bears on it. Use search_memory to look up something specific or to find the id of a fact. When a saved fact is wrong, or the user asks you to forget it, remove it with remove_memory and its id.

When the chat does not keep the conversation in the memory itself, record each exchange with record_turns after you answer: the user's message and your reply, verbatim, with their ids and times when you have them.`
