// Package importer reads conversations in the formats people have them in
// and returns their turns, in order, as [spec.Turn] values ready to ingest:
//
//   - [Transcript]: a generic transcript, a JSON array or JSON Lines of
//     {role|speaker, content|text, timestamp, id} objects;
//   - [OpenAI]: OpenAI chat messages, [{role, content}] with content a string
//     or a list of parts (https://platform.openai.com/docs/api-reference/chat/create);
//   - [LoCoMo]: the long conversations of the LoCoMo benchmark (Maharana
//     et al., ACL 2024; https://github.com/snap-research/locomo, the file
//     data/locomo10.json);
//   - [Aider]: the chat histories the aider coding assistant keeps in
//     .aider.chat.history.md, as its aider/io.py writes them
//     (https://github.com/Aider-AI/aider/blob/main/aider/io.py);
//   - [ChatGPT]: the conversations.json of ChatGPT's data export, each
//     conversation the branch its user last saw;
//   - [Claude]: the conversations.json of Claude.ai's data export;
//   - [ClaudeCode]: the session transcripts Claude Code keeps in
//     ~/.claude/projects/PROJECT/SESSION.jsonl.
//
// No vendor publishes the last three formats, which change without notice:
// their rules here are what real exports and transcripts show, as the files
// that read them (chatgpt.go, claude.go, claudecode.go) describe.
//
// [Read] and [ReadFile] detect the format ([Detect]) unless it is given.
// A whole input that is not in its format is an error, an [*Error] with the
// position; a single malformed turn (a JSON element of the wrong shape, a
// turn without content) is skipped and reported in [Result.Skipped], or,
// with [Options.Strict], fails the read, and so is a conversation of an
// export whose structure is broken (a ChatGPT conversation whose branch
// cannot be followed). Reading never panics, and never loops, whatever the
// input.
//
// The rules of each format, what each member becomes in a [spec.Turn] and
// what is left out, are on the format's constant. Timestamps without a
// time zone are taken as UTC; timestamps with one keep their offset.
//
// The functions of this package are safe for concurrent use.
package importer

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/smg-memory/smg/spec"
)

// Format names an input format.
type Format string

// The formats. The zero Format means Auto.
const (
	// Auto detects the format with [Detect].
	Auto Format = "auto"

	// Transcript is a generic transcript: a JSON array, or JSON Lines (one
	// object per non-empty line), of objects with
	//   - role and/or speaker (strings; at least one): the roles user,
	//     assistant, system and tool are kept, obvious synonyms (human; ai,
	//     bot, model; developer; function) are mapped to them, and any other
	//     role becomes the Speaker when there is no speaker;
	//   - content or text (required): a string, or a list of parts as in
	//     [OpenAI];
	//   - timestamp (optional): RFC 3339 (the offset is kept), or
	//     "2006-01-02 15:04:05", "2006-01-02T15:04:05" or "2006-01-02" (UTC),
	//     or a Unix time in seconds, as a number or a string of digits
	//     (numbers of 10¹¹ and more are taken as milliseconds);
	//   - id (optional, a string or a number): the ExternalID.
	// The members of [OpenAI] messages (name, tool_calls) are read as
	// there; other members are ignored.
	Transcript Format = "transcript"

	// OpenAI is a list of OpenAI chat messages: a JSON array, or an object
	// with a "messages" array (or JSON Lines of such objects, as in
	// fine-tuning files: one conversation per line), of {role, content,
	// name?, tool_calls?}. The content is a string, null, or a list of
	// parts: text parts are joined with "\n", an image part becomes
	// "[image]" and a part of another type "[TYPE]". Tool calls (and the
	// older function_call) are appended as "[tool call: NAME(ARGS)]" lines,
	// so that nothing is lost. A message with neither text nor tool calls
	// is left out. The role developer becomes system; name becomes the
	// Speaker. The members of [Transcript] objects (speaker, text,
	// timestamp, id) are read as there.
	OpenAI Format = "openai"

	// LoCoMo is the format of the LoCoMo benchmark: a JSON array of samples,
	// each one [Conversation] (ID sample_id, Speakers speaker_a and
	// speaker_b). Its sessions session_1, session_2… are read in numeric
	// order; every turn of a session has the session's date and time
	// (session_N_date_time, like "1:56 pm on 8 May, 2023", taken as UTC).
	// A turn's speaker is its Speaker, its dia_id its ExternalID, its role
	// "user"; a shared photo's blip_caption is appended to the text as
	// "\n[shares a photo: CAPTION]". The annotations (observation,
	// session_summary, event_summary, qa) are never read.
	LoCoMo Format = "locomo"

	// Aider is the .aider.chat.history.md file of the aider coding
	// assistant (https://aider.chat): Markdown that aider appends to. Every
	// "# aider chat started at 2006-01-02 15:04:05" line starts a session,
	// whose time (taken as UTC) every turn of it gets. Lines "#### TEXT" are
	// the user's (consecutive ones are one user turn); lines "> TEXT" are
	// aider's own output (a run of them is one turn with the role tool:
	// commands, "Applied edit to PATH", failed edits); the Markdown between
	// is the assistant's reply, verbatim but for carriage returns and
	// trailing blank lines. Lines inside code fences are the reply's, never
	// structure, unless the reply was cut off inside the fence. The whole
	// file is one [Conversation]. The rules that tell the user's input from
	// the assistant's Markdown headings, multi-line tool messages, and
	// replies cut off inside a fence, learnt from real files, are in
	// aider.go.
	Aider Format = "aider"

	// ChatGPT is the conversations.json of ChatGPT's data export: a JSON
	// array (or one object) of conversations, each one [Conversation] (ID
	// its id, or conversation_id), whose messages form a tree in mapping
	// (node id → {message, parent, children}) because editing a question
	// or regenerating an answer starts a new branch. Only the branch the
	// user last saw is read: the path from the root to current_node,
	// followed up by parent links. A message's author.role is the Role
	// (author.name the Speaker of a tool's message), its id the ExternalID,
	// its create_time (Unix seconds; when null, that of the message before
	// it, or of the conversation) the Timestamp. Its text is
	// content.text, then the strings of content.parts, joined with "\n"; an
	// image in the parts becomes "[image]", a transcription of speech its
	// text. Left out, without a report: nodes without a message, messages
	// hidden from the conversation (metadata.is_visually_hidden_from_conversation:
	// the empty system message at the root, custom instructions, memory
	// context), and messages without text (the model's thoughts, for one).
	// A conversation whose branch cannot be followed (current_node or a
	// parent missing from mapping, a cycle of parent links) is malformed as
	// a whole. The rules learnt from real exports are in chatgpt.go.
	ChatGPT Format = "chatgpt"

	// Claude is the conversations.json of Claude.ai's data export: a JSON
	// array (or one object) of conversations {uuid, name, created_at,
	// chat_messages}, each one [Conversation] (ID its uuid). A message's
	// sender is its Role (human becomes user), its uuid the ExternalID, its
	// created_at (RFC 3339) the Timestamp. Its text is that of its content
	// blocks of type text, joined with "\n", with tool calls as
	// "[tool call: NAME(INPUT)]" lines; the model's thinking and the tools'
	// results are left out. When the blocks give no text (older exports have
	// none), the message's text is read instead. Each attachment with
	// extracted_content (pasted or uploaded text) is appended as
	// "\n[attachment: FILE_NAME]\n" and the content, and each of files (an
	// uploaded image or document) as "\n[file: FILE_NAME]". A message
	// with none of these is left out. The rules are in claude.go.
	Claude Format = "claude"

	// ClaudeCode is a session transcript of Claude Code, the JSON Lines it
	// keeps in ~/.claude/projects/PROJECT/SESSION.jsonl: one object per
	// line, of a type. The lines of type user and assistant hold a message
	// {role, content}; every sessionId is a [Conversation] (ID the
	// sessionId), in the order the sessions first appear. A line's uuid is
	// the ExternalID and its timestamp the Timestamp of its turns. Its
	// content is a string, or blocks: text blocks give their text (joined
	// with "\n"), a tool_use block "[tool call: NAME(INPUT)]", an image
	// "[image]", a thinking block nothing, and each tool_result block a turn
	// of its own, before the line's other text, with the role tool, the
	// tool's name (from its tool_use) as Speaker and the result's text as
	// Content. Left out, without a report: the lines of other types
	// (summary, system, file-history-snapshot…), a sub-agent's lines
	// (isSidechain), the notes Claude Code writes as the user's (isMeta,
	// isCompactSummary), and lines without text. A line that is not JSON
	// (a session cut off in the middle of a line) is malformed alone. The
	// rules are in claudecode.go.
	ClaudeCode Format = "claude-code"
)

// Formats lists the formats Read can read.
var Formats = []Format{Transcript, OpenAI, LoCoMo, Aider, ChatGPT, Claude, ClaudeCode}

// ParseFormat returns the Format named s ("auto" or one of [Formats]).
func ParseFormat(s string) (Format, error) {
	f := Format(strings.ToLower(strings.TrimSpace(s)))
	if f == Auto {
		return Auto, nil
	}
	for _, g := range Formats {
		if f == g {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown input format %q (want auto, %s)", s, FormatNames())
}

// FormatNames lists the names of [Formats] in prose: "transcript, openai,
// … or claude-code".
func FormatNames() string {
	var b strings.Builder
	for i, f := range Formats {
		switch {
		case i == len(Formats)-1:
			b.WriteString(" or ")
		case i > 0:
			b.WriteString(", ")
		}
		b.WriteString(string(f))
	}
	return b.String()
}

// Options control a read.
type Options struct {
	// Format is the input's format; Auto, or the zero value, detects it.
	Format Format
	// Strict makes a malformed turn fail the whole read instead of being
	// skipped.
	Strict bool
	// Name is the input's name (a file name), for error messages.
	Name string
	// RequireTurns makes an input that gives no turn (an empty one, or one
	// whose every turn was malformed and skipped) an error: an [*Error]
	// that wraps [ErrNoTurns]. Without it, such an input reads as a
	// [Result] without turns.
	RequireTurns bool
	// PieceTurns, when positive, makes [Stream] give a conversation it
	// reads a line at a time (a transcript in JSON Lines) in pieces of at
	// most this many turns, each as soon as it is read, so that a read
	// holds one piece, not the whole conversation: each piece is a
	// [Conversation] with the conversation's ID and its Part, and its
	// turns are numbered on from the piece before. [Read] gives every
	// conversation whole.
	PieceTurns int

	chunk int // the window's reads, when not chunkSize: tests read small pieces
}

// Conversation is one conversation of an input: a LoCoMo file, a ChatGPT
// or Claude export, a Claude Code transcript may hold several, an input of
// another format holds one.
type Conversation struct {
	// ID is the LoCoMo sample_id, the ChatGPT conversation id, the Claude
	// conversation uuid or the Claude Code sessionId; "" in the other
	// formats.
	ID string
	// Speakers are the named participants, when the format names them
	// (LoCoMo's speaker_a and speaker_b).
	Speakers []string
	// Turns are the conversation's turns in order; their Turn numbers are
	// 1, 2, 3…, and their ConversationID is ID. In a piece of a
	// conversation (see [Options.PieceTurns]) they are the piece's, and
	// their numbers go on from the piece before.
	Turns []spec.Turn
	// Part is the place of a piece of a conversation among its pieces:
	// 0 for the first, or for a conversation given whole.
	Part int
}

// Result is what [Read] found in an input.
type Result struct {
	// Format is the format read: the one detected, when it was Auto.
	Format Format
	// Conversations are the input's conversations, in order.
	Conversations []Conversation
	// Skipped are the malformed turns, and conversations, that were left
	// out (never with Options.Strict).
	Skipped []*Error
}

// ErrUnknownFormat is the error (wrapped in an [*Error]) of [Detect], and
// so of Read with Auto, when the input is in none of the formats.
var ErrUnknownFormat = errors.New("unknown input format")

// ErrNoTurns is the error (wrapped in an [*Error]) of an input that gives
// no turn to ingest, with [Options.RequireTurns].
var ErrNoTurns = errors.New("no turns")

// Error is a malformed turn or input, with where it is.
type Error struct {
	// Name is Options.Name.
	Name string
	// Line and Column are 1-based, the column counting bytes, when they are
	// known; in JSON, the line and column where the malformed value starts,
	// or, for a syntax error, where the text stops being JSON.
	Line, Column int
	// Path is the JSON path of the turn (like $[3] or
	// $[0].conversation.session_2[5]) when the input is JSON.
	Path string
	// Msg says what is wrong.
	Msg string
	// Err is the underlying error, if any: ErrUnknownFormat from Detect.
	Err error
}

// Error returns "NAME:LINE:COL: PATH: MSG", leaving out what is unknown.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Name)
	if e.Line > 0 {
		if b.Len() > 0 {
			b.WriteByte(':')
		}
		b.WriteString(strconv.Itoa(e.Line))
		if e.Column > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(e.Column))
		}
	}
	if e.Path != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(e.Path)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// DetectSize is how much of an input Read gives to [Detect].
const DetectSize = 64 << 10

// Read reads a conversation input in the format opts.Format, or the one
// [Detect] finds in its first [DetectSize] bytes.
func Read(r io.Reader, opts Options) (*Result, error) {
	return collect(r, opts)
}

// ReadFile reads the file name with [Read]; opts.Name is name when empty.
func ReadFile(name string, opts Options) (*Result, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if opts.Name == "" {
		opts.Name = name
	}
	return collect(f, opts)
}

func collect(r io.Reader, opts Options) (*Result, error) {
	opts.PieceTurns = 0
	var convs []Conversation
	res, err := Stream(r, opts, func(c Conversation) error {
		convs = append(convs, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Conversations = convs
	return res, nil
}

// Stream reads an input as [Read] does, but gives each conversation to fn
// as soon as it is read instead of keeping it: an export of many
// conversations (LoCoMo, ChatGPT, Claude) is read holding one conversation
// at a time, not the whole input; a transcript in JSON Lines is read a
// line at a time, and given in pieces with [Options.PieceTurns]; an input
// of another format, which holds one conversation or whose conversations
// interleave (Claude Code), is read whole first. The [Result] has no Conversations; its Skipped are
// complete when Stream returns.
//
// An error of fn stops the read, and Stream returns it. Malformed JSON
// is found where the read reaches it: the conversations before it have
// been given to fn when Stream returns the error. With
// [Options.RequireTurns], an input whose conversations have no turn is an
// error once it is read.
func Stream(r io.Reader, opts Options, fn func(Conversation) error) (*Result, error) {
	res, err := stream(r, opts, fn)
	if err != nil && res != nil && res.readErr != nil && opts.Name != "" {
		return nil, fmt.Errorf("reading %s: %w", opts.Name, err)
	}
	if err != nil {
		return nil, err
	}
	return res.Result, nil
}

// StreamFile reads the file name with [Stream]; opts.Name is name when
// empty.
func StreamFile(name string, opts Options, fn func(Conversation) error) (*Result, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if opts.Name == "" {
		opts.Name = name
	}
	return Stream(f, opts, fn)
}

// streamed is a Result, and the error that stopped reading the input, if
// one did.
type streamed struct {
	*Result
	readErr error
}

func stream(src io.Reader, opts Options, emit func(Conversation) error) (*streamed, error) {
	w := &window{src: src, chunk: chunkSize}
	if opts.chunk > 0 {
		w.chunk = opts.chunk
	}
	out := &streamed{}
	f := opts.Format
	if f == "" || f == Auto {
		for len(w.t.data) < DetectSize {
			if ok, err := w.more(); err != nil {
				out.readErr = err
				return out, err
			} else if !ok {
				break
			}
		}
		var err error
		if f, err = Detect(w.t.data[:min(len(w.t.data), DetectSize)]); err != nil {
			var e *Error
			if errors.As(err, &e) {
				e.Name = opts.Name
			}
			return out, err
		}
	}
	out.Result = &Result{Format: f}
	r := &reader{opts: opts, res: out.Result, w: w, t: &w.t, emit: emit}
	var err error
	switch f {
	case LoCoMo, ChatGPT, Claude: // read one conversation at a time
	case Transcript: // JSON Lines a line at a time, a JSON array whole
	default:
		err = w.all()
	}
	if err == nil {
		switch f {
		case Transcript, OpenAI:
			err = r.readMessages(f)
		case LoCoMo:
			err = r.readLoCoMo()
		case Aider:
			err = r.readAider()
		case ChatGPT:
			err = r.readChatGPT()
		case Claude:
			err = r.readClaude()
		case ClaudeCode:
			err = r.readClaudeCode()
		default:
			_, err = ParseFormat(string(f))
		}
	}
	if w.err != nil {
		out.readErr = w.err
		return out, w.err
	}
	if err != nil {
		return out, err
	}
	if r.turns == 0 && opts.RequireTurns {
		return out, r.noTurns(w.head, f)
	}
	return out, nil
}

// add gives the caller a conversation read, its turns numbered.
func (r *reader) add(c Conversation) error { return r.addPart(c, 0) }

// addPart gives the caller a piece of a conversation read, its turns
// numbered on from the given turns of the pieces before it.
func (r *reader) addPart(c Conversation, given int) error {
	for i := range c.Turns {
		c.Turns[i].Turn, c.Turns[i].ConversationID = given+i+1, c.ID
	}
	r.turns += len(c.Turns)
	return r.emit(c)
}

// noTurns is the error of an input of the format f that gave no turn: it
// says how many turns were skipped and why the first was, and, when the
// input looks like another format than the one it was read as, which.
func (r *reader) noTurns(data []byte, f Format) *Error {
	msg := fmt.Sprintf("no turns in it, read as %s", f)
	if k := len(r.res.Skipped); k > 0 {
		first := *r.res.Skipped[0]
		first.Name = ""
		msg += fmt.Sprintf(": %d malformed, skipped (the first: %v)", k, &first)
	}
	if g, err := Detect(data[:min(len(data), DetectSize)]); err == nil && g != f {
		msg += fmt.Sprintf("; it looks like %s", g)
	}
	return &Error{Name: r.opts.Name, Msg: msg, Err: ErrNoTurns}
}

// reader holds the state of one read.
type reader struct {
	opts  Options
	res   *Result
	w     *window
	t     *text // the input, or the window of it being read: &w.t
	emit  func(Conversation) error
	turns int // given to emit
}

// errorAt returns an Error at the offset off of t, whose first line is the
// input's line line0 (t is one line of JSON Lines, or the whole input with
// line0 0).
func (r *reader) errorAt(t *text, line0, off int, path, msg string) *Error {
	line, col := t.pos(off)
	return &Error{Name: r.opts.Name, Line: line0 + line, Column: col, Path: path, Msg: msg}
}

// malformed reports a malformed turn: it is skipped, or with Strict it is
// the error of the read.
func (r *reader) malformed(e *Error) error {
	if r.opts.Strict {
		return e
	}
	r.res.Skipped = append(r.res.Skipped, e)
	return nil
}

// document checks that the input, from offset i, is one JSON value and
// white space, and returns the value.
func (r *reader) document(i int) (jv, error) {
	v, err := r.t.value(i)
	if err != nil {
		return jv{}, r.syntaxError(r.t, 0, err)
	}
	if j := r.t.ws(v.end); j < len(r.t.data) {
		return jv{}, r.errorAt(r.t, 0, j, "", "not JSON: more text after the JSON value")
	}
	return v, nil
}

func (r *reader) syntaxError(t *text, line0 int, err *jsonSyntaxError) *Error {
	return r.errorAt(t, line0, err.off, "", "not JSON: "+err.msg)
}

// lineValue returns the one JSON value of a line of JSON Lines.
func (r *reader) lineValue(t *text, line0 int) (jv, *Error) {
	i := t.ws(0)
	v, err := t.value(i)
	if err != nil {
		if err.off == len(t.data) {
			err.msg = "the line ends inside a JSON value"
		}
		return jv{}, r.syntaxError(t, line0, err)
	}
	if j := t.ws(v.end); j < len(t.data) {
		return jv{}, r.errorAt(t, line0, j, "", "not JSON Lines: more text after the line's JSON value")
	}
	return v, nil
}

// skipBOM returns the offset after a UTF-8 byte order mark, if there is one.
func skipBOM(d []byte) int {
	if len(d) >= 3 && d[0] == 0xef && d[1] == 0xbb && d[2] == 0xbf {
		return 3
	}
	return 0
}

// pathIndex returns the JSON path of the element i of the value at path.
func pathIndex(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// pathKey returns the JSON path of the member key of the object at path.
func pathKey(path, key string) string {
	for i, c := range key {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return path + "[" + strconv.Quote(key) + "]"
		}
	}
	if key == "" {
		return path + `[""]`
	}
	return path + "." + key
}
