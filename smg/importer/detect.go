package importer

import (
	"bytes"
	"strings"
)

// Detect tells the format of an input from its first bytes (Read gives it
// [DetectSize]); the input may be cut anywhere, even inside a JSON value.
//
//   - LoCoMo: a JSON array whose first element is an object with
//     "conversation" (or "sample_id" or "qa", when the head ends before
//     "conversation"), or one such object;
//   - ChatGPT: a JSON array whose first element is an object with a
//     "mapping" object or a "current_node", or one such object;
//   - Claude: a JSON array whose first element is an object with a
//     "chat_messages" array, or one such object;
//   - ClaudeCode: JSON Lines where an object of a line before the end of
//     the head has "parentUuid", "isSidechain" or "leafUuid" (the first
//     lines of a session can be bookkeeping without them);
//   - OpenAI: a JSON array of messages where a message's content is a list
//     of parts or a message has tool calls, or an object with a "messages"
//     array;
//   - Transcript: any other JSON array, or JSON Lines, of objects with
//     content or text;
//   - Aider: text with a line that starts with "# aider chat started at",
//     or that starts with "#### ".
//
// Otherwise it returns an [*Error] that wraps [ErrUnknownFormat].
func Detect(head []byte) (Format, error) {
	t := &text{data: head}
	i := t.ws(skipBOM(head))
	if i == len(head) {
		return "", unknown(t, i, "the input is empty")
	}
	switch head[i] {
	case '[':
		return detectArray(t, i)
	case '{':
		o, complete := peekObject(t, i)
		switch {
		case o.has("messages") && o.kind["messages"] == '[':
			return OpenAI, nil
		case o.has("conversation"):
			return LoCoMo, nil
		case o.chatGPT():
			return ChatGPT, nil
		case o.claude():
			return Claude, nil
		case o.claudeCode() || complete && claudeCodeLines(t, o.end):
			return ClaudeCode, nil
		case o.has("content") || o.has("text"):
			return Transcript, nil
		}
		if o.err != nil {
			return "", unknownJSON(t, o.err)
		}
		if !complete {
			return "", unknown(t, i, "a JSON object too long to tell")
		}
		return "", unknown(t, i, "a JSON object that is not a message, a list of messages or a LoCoMo sample")
	}
	for rest := head[i:]; len(rest) > 0; {
		line := rest
		if j := bytes.IndexByte(rest, '\n'); j >= 0 {
			line, rest = rest[:j], rest[j+1:]
		} else {
			rest = nil
		}
		if bytes.HasPrefix(line, []byte(aiderHeader)) {
			return Aider, nil
		}
	}
	if bytes.HasPrefix(head[i:], []byte("#### ")) {
		return Aider, nil
	}
	return "", unknown(t, i, "not JSON and not an aider chat history")
}

func unknown(t *text, off int, msg string) *Error {
	line, col := t.pos(off)
	return &Error{Line: line, Column: col, Msg: "cannot tell the input's format: " + msg, Err: ErrUnknownFormat}
}

func unknownJSON(t *text, err *jsonSyntaxError) *Error {
	return unknown(t, err.off, "it starts like JSON, but "+err.msg)
}

// detectArray tells the format of a JSON array from its first elements.
func detectArray(t *text, i int) (Format, error) {
	d := t.data
	start := i
	i = t.ws(i + 1)
	if i < len(d) && d[i] == ']' {
		return Transcript, nil // an empty list: nothing to read in any format
	}
	messages, objects := false, 0
	for i < len(d) {
		if d[i] != '{' {
			// Not an object: a malformed element, for the reader to report.
			v, err := t.value(i)
			if err != nil {
				if err.off < len(d) {
					return "", unknownJSON(t, err)
				}
				break
			}
			i = t.ws(v.end)
		} else {
			o, complete := peekObject(t, i)
			switch {
			case objects > 0:
			case o.has("conversation") || o.has("sample_id") || o.has("qa"):
				return LoCoMo, nil
			case o.chatGPT():
				return ChatGPT, nil
			case o.claude():
				return Claude, nil
			}
			objects++
			if o.kind["content"] == '[' || o.has("tool_calls") || o.has("function_call") || o.has("tool_call_id") {
				return OpenAI, nil
			}
			messages = messages || o.has("content") || o.has("text")
			if o.err != nil && !messages {
				return "", unknownJSON(t, o.err)
			}
			if !complete {
				break // the end of the head, or a syntax error that Read reports
			}
			i = t.ws(o.end)
		}
		if i >= len(d) || d[i] != ',' {
			break
		}
		i = t.ws(i + 1)
	}
	if objects == 0 {
		return "", unknown(t, start+1, "a JSON array of something else than objects")
	}
	if messages {
		return Transcript, nil
	}
	return "", unknown(t, start, "a JSON array of objects that are not messages or LoCoMo samples")
}

// object is what peekObject saw of a JSON object.
type object struct {
	kind map[string]byte // the members of interest, and their values' kinds
	end  int             // just after the object, when it is complete
	err  *jsonSyntaxError
}

func (o *object) has(key string) bool { _, ok := o.kind[key]; return ok }

// chatGPT reports whether o is a ChatGPT conversation.
func (o *object) chatGPT() bool { return o.kind["mapping"] == '{' || o.has("current_node") }

// claude reports whether o is a Claude.ai conversation.
func (o *object) claude() bool { return o.kind["chat_messages"] == '[' }

// claudeCode reports whether o is a line of a Claude Code session.
func (o *object) claudeCode() bool {
	return o.has("parentUuid") || o.has("isSidechain") || o.has("leafUuid")
}

// claudeCodeLines reports whether the lines after offset i, up to the end
// of the head or the first line that does not start with an object, have
// a line of a Claude Code session.
func claudeCodeLines(t *text, i int) bool {
	d := t.data
	for {
		j := bytes.IndexByte(d[i:], '\n')
		if j < 0 {
			return false
		}
		if i = t.ws(i + j); i == len(d) || d[i] != '{' {
			return false
		}
		o, complete := peekObject(t, i)
		if o.claudeCode() {
			return true
		}
		if !complete {
			return false
		}
		i = o.end
	}
}

// detectKeys are the members Detect looks at.
var detectKeys = []string{"conversation", "sample_id", "qa", "messages", "role", "speaker",
	"content", "text", "tool_calls", "function_call", "tool_call_id",
	"mapping", "current_node", "chat_messages", "parentUuid", "isSidechain", "leafUuid"}

// peekObject reads the members of the object at i, up to the end of the
// head or the first syntax error; complete is false if it did not reach
// the object's end.
func peekObject(t *text, i int) (o object, complete bool) {
	d := t.data
	o.kind = map[string]byte{}
	i = t.ws(i + 1)
	for i < len(d) && d[i] != '}' {
		if d[i] != '"' {
			o.err = t.errAt(i, "want a string for an object key")
			return o, false
		}
		k, err := t.value(i)
		if err != nil {
			o.err = eofOK(t, err)
			return o, false
		}
		key := t.str(k)
		i = t.ws(k.end)
		if i >= len(d) {
			return o, false
		}
		if d[i] != ':' {
			o.err = t.errAt(i, "want ':' after an object key")
			return o, false
		}
		i = t.ws(i + 1)
		if i >= len(d) {
			return o, false
		}
		kind := d[i]
		if strings.IndexByte("-0123456789", kind) >= 0 {
			kind = '0'
		}
		for _, dk := range detectKeys {
			if key == dk {
				o.kind[key] = kind
			}
		}
		v, err := t.value(i)
		if err != nil {
			o.err = eofOK(t, err)
			return o, false
		}
		i = t.ws(v.end)
		if i < len(d) && d[i] == ',' {
			i = t.ws(i + 1)
		} else if i < len(d) && d[i] != '}' {
			o.err = t.errAt(i, "want ',' or '}'")
			return o, false
		}
	}
	if i >= len(d) {
		return o, false
	}
	o.end = i + 1
	return o, true
}

// eofOK returns err unless it is the end of the head.
func eofOK(t *text, err *jsonSyntaxError) *jsonSyntaxError {
	if err.off >= len(t.data) {
		return nil
	}
	return err
}
