package importer

import (
	"bytes"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/smg-memory/smg/spec"
)

// The Transcript and OpenAI readers: both read lists of message objects,
// with the same rules for each object (see the formats' constants). They
// differ in the containers they accept and in a message without content:
// malformed in a transcript, left out of OpenAI messages when it has no
// tool calls either (an assistant message whose content is null).

// readMessages reads a Transcript or OpenAI input. A transcript in JSON
// Lines is read a line at a time, and given in pieces with
// [Options.PieceTurns]; the other forms are read whole.
func (r *reader) readMessages(f Format) error {
	i, err := r.w.start()
	if err != nil {
		return err
	}
	d := r.t.data
	if i == len(d) {
		return r.errorAt(r.t, 0, i, "", "empty input: want "+messagesWant(f))
	}
	switch d[i] {
	case '[':
		if err := r.w.all(); err != nil {
			return err
		}
		v, err := r.document(i)
		if err != nil {
			return err
		}
		c, err := r.messageList(f, r.t, 0, v, "$")
		if err != nil {
			return err
		}
		return r.add(c)
	case '{':
		if f == OpenAI {
			return r.readMessageObjects(i)
		}
		var c Conversation
		first, given := true, 0
		err := r.eachLine(i, func(t *text, line0 int) error {
			v, err := r.lineValue(t, line0)
			if err != nil {
				if first {
					return err // the input is not JSON Lines
				}
				return r.malformed(err)
			}
			first = false
			turn, keep, merr := messageTurn(f, t, v)
			if merr != nil {
				return r.malformed(r.errorAt(t, line0, v.start, "", merr.msg))
			}
			if keep {
				c.Turns = append(c.Turns, turn)
			}
			if n := r.opts.PieceTurns; n > 0 && len(c.Turns) == n {
				err := r.addPart(c, given)
				given, c.Part, c.Turns = given+n, c.Part+1, nil
				return err
			}
			return nil
		})
		if err != nil {
			return err
		}
		if len(c.Turns) > 0 || c.Part == 0 {
			return r.addPart(c, given)
		}
		return nil
	}
	return r.errorAt(r.t, 0, i, "", "not JSON: want "+messagesWant(f))
}

func messagesWant(f Format) string {
	if f == OpenAI {
		return `a JSON array of messages, or an object with a "messages" array`
	}
	return "a JSON array or JSON Lines of objects"
}

// readMessageObjects reads OpenAI input that starts with an object: one
// object with a "messages" array, or JSON Lines of them.
func (r *reader) readMessageObjects(i int) error {
	v, serr := r.t.value(i)
	if serr != nil && bytes.IndexByte(r.t.data[i:serr.off], '\n') >= 0 {
		// The first value spans lines: one object, not JSON Lines.
		return r.syntaxError(r.t, 0, serr)
	}
	if serr == nil && r.t.ws(v.end) == len(r.t.data) {
		c, err := r.messagesOf(r.t, 0, v, "$")
		if err != nil {
			return err
		}
		if c == nil {
			return r.errorAt(r.t, 0, v.start, "$", `want an object with a "messages" array`)
		}
		return r.add(*c)
	}
	first := true
	return r.eachLine(i, func(t *text, line0 int) error {
		v, err := r.lineValue(t, line0)
		if err != nil {
			if first {
				return err
			}
			return r.malformed(err)
		}
		first = false
		c, ferr := r.messagesOf(t, line0, v, "$")
		if ferr != nil {
			return ferr
		}
		if c == nil {
			return r.malformed(r.errorAt(t, line0, v.start, "$", `want an object with a "messages" array`))
		}
		return r.add(*c)
	})
}

// messagesOf returns the conversation of the "messages" array of the
// object v, or nil if v has none.
func (r *reader) messagesOf(t *text, line0 int, v jv, path string) (*Conversation, error) {
	if v.kind != '{' {
		return nil, nil
	}
	var msgs jv
	t.members(v, func(k, val jv) bool {
		if t.is(k, "messages") {
			msgs = val
		}
		return true
	})
	if msgs.kind != '[' {
		return nil, nil
	}
	c, err := r.messageList(OpenAI, t, line0, msgs, pathKey(path, "messages"))
	return &c, err
}

// messageList reads the array v of messages.
func (r *reader) messageList(f Format, t *text, line0 int, v jv, path string) (Conversation, error) {
	var c Conversation
	var err error
	t.elems(v, func(n int, e jv) bool {
		turn, keep, merr := messageTurn(f, t, e)
		if merr != nil {
			err = r.malformed(r.errorAt(t, line0, e.start, pathIndex(path, n), merr.msg))
			return err == nil
		}
		if keep {
			c.Turns = append(c.Turns, turn)
		}
		return true
	})
	return c, err
}

// problem is what makes a turn malformed.
type problem struct{ msg string }

func problemf(member string, v jv, want string) *problem {
	return &problem{msg: member + ": want " + want + ", not " + v.kindName()}
}

// messageTurn reads the message object v. keep is false for a message
// that is left out without being malformed.
func messageTurn(f Format, t *text, v jv) (turn spec.Turn, keep bool, p *problem) {
	if v.kind != '{' {
		return turn, false, &problem{msg: "want a message object, not " + v.kindName()}
	}
	var role, speaker, name, content, txt, ts, id, calls, call jv
	t.members(v, func(k, val jv) bool {
		switch {
		case t.is(k, "role"):
			role = val
		case t.is(k, "speaker"):
			speaker = val
		case t.is(k, "name"):
			name = val
		case t.is(k, "content"):
			content = val
		case t.is(k, "text"):
			txt = val
		case t.is(k, "timestamp"):
			ts = val
		case t.is(k, "id"):
			id = val
		case t.is(k, "tool_calls"):
			calls = val
		case t.is(k, "function_call"):
			call = val
		}
		return true
	})
	strMember := func(member string, v jv) (string, *problem) {
		switch v.kind {
		case 0, 'n':
			return "", nil
		case '"':
			return strings.TrimSpace(t.str(v)), nil
		}
		return "", problemf(member, v, "a string")
	}
	var r, s, n string
	if r, p = strMember("role", role); p != nil {
		return
	}
	if s, p = strMember("speaker", speaker); p != nil {
		return
	}
	if n, p = strMember("name", name); p != nil {
		return
	}
	if s == "" {
		s = n
	}
	turn.Role = mapRole(r)
	if turn.Role == "" && r != "" && s == "" {
		s = r
	}
	turn.Speaker = s
	if turn.Role == "" && turn.Speaker == "" {
		if f == OpenAI {
			return turn, false, &problem{msg: "no role"}
		}
		return turn, false, &problem{msg: "no role or speaker"}
	}

	body := content
	member := "content"
	if body.kind == 0 || body.kind == 'n' && txt.kind != 0 {
		body, member = txt, "text"
	}
	var parts []string
	switch body.kind {
	case 0, 'n':
	case '"':
		parts = append(parts, t.str(body))
	case '[':
		if parts, p = contentParts(t, body, member); p != nil {
			return
		}
	default:
		return turn, false, problemf(member, body, "a string or a list of parts")
	}
	for _, c := range []struct {
		member string
		v      jv
	}{{"tool_calls", calls}, {"function_call", call}} {
		cs, p := toolCalls(t, c.member, c.v)
		if p != nil {
			return turn, false, p
		}
		parts = append(parts, cs...)
	}
	turn.Content = strings.Join(parts, "\n")
	switch {
	case body.kind == 0 && parts == nil:
		if f == OpenAI {
			return turn, false, &problem{msg: "no content"}
		}
		return turn, false, &problem{msg: "no content or text"}
	case f == OpenAI && turn.Content == "":
		return turn, false, nil // no text and no tool calls: nothing to keep
	case parts == nil && body.kind == 'n':
		return turn, false, &problem{msg: member + " is null"}
	}

	switch ts.kind {
	case 0, 'n':
	case '"', '0':
		tm, err := parseTime(t, ts)
		if err != "" {
			return turn, false, &problem{msg: "timestamp: " + err}
		}
		turn.Timestamp = tm
	default:
		return turn, false, problemf("timestamp", ts, "a string or a number")
	}
	switch id.kind {
	case 0, 'n':
	case '"':
		turn.ExternalID = t.str(id)
	case '0':
		turn.ExternalID = string(t.data[id.start:id.end])
	default:
		return turn, false, problemf("id", id, "a string or a number")
	}
	return turn, true, nil
}

// contentParts reads a list of content parts: text parts give their text,
// an image part "[image]", a part of another type "[TYPE]".
func contentParts(t *text, v jv, member string) (parts []string, p *problem) {
	t.elems(v, func(n int, e jv) bool {
		where := pathIndex(member, n)
		switch e.kind {
		case '"':
			parts = append(parts, t.str(e))
			return true
		case '{':
		default:
			p = problemf(where, e, "a content part")
			return false
		}
		var typ, txt, refusal jv
		t.members(e, func(k, val jv) bool {
			switch {
			case t.is(k, "type"):
				typ = val
			case t.is(k, "text"):
				txt = val
			case t.is(k, "refusal"):
				refusal = val
			}
			return true
		})
		if typ.kind != '"' && typ.kind != 0 {
			p = problemf(where+".type", typ, "a string")
			return false
		}
		ty := ""
		if typ.kind == '"' {
			ty = t.str(typ)
		}
		switch {
		case ty == "text" || ty == "input_text" || ty == "output_text" || ty == "" && txt.kind != 0:
			if txt.kind != '"' {
				p = &problem{msg: where + ": a text part without text"}
				return false
			}
			parts = append(parts, t.str(txt))
		case ty == "refusal" && refusal.kind == '"':
			parts = append(parts, t.str(refusal))
		case ty == "":
			p = &problem{msg: where + ": a content part without a type"}
			return false
		case strings.Contains(ty, "image"):
			parts = append(parts, "[image]")
		default:
			parts = append(parts, "["+ty+"]")
		}
		return true
	})
	return parts, p
}

// toolCalls renders an assistant's tool_calls (a list) or function_call
// (one call) as "[tool call: NAME(ARGS)]" lines.
func toolCalls(t *text, member string, v jv) (lines []string, p *problem) {
	one := func(where string, c jv) {
		if c.kind != '{' {
			p = problemf(where, c, "an object")
			return
		}
		fn := c
		t.members(c, func(k, val jv) bool {
			if t.is(k, "function") && val.kind == '{' {
				fn = val
			}
			return true
		})
		var name, args jv
		t.members(fn, func(k, val jv) bool {
			switch {
			case t.is(k, "name"):
				name = val
			case t.is(k, "arguments"):
				args = val
			}
			return true
		})
		lines = append(lines, toolCall(t, name, args))
	}
	switch v.kind {
	case 0, 'n':
	case '[':
		t.elems(v, func(n int, c jv) bool {
			one(pathIndex(member, n), c)
			return p == nil
		})
	default:
		if member == "function_call" {
			one(member, v)
		} else {
			p = problemf(member, v, "a list")
		}
	}
	return lines, p
}

// toolCall renders the call of the tool name with input as
// "[tool call: NAME(INPUT)]": a string input is its text, any other JSON
// value is kept as it is, but put on one line if it spans several, and
// with invalid UTF-8 replaced by U+FFFD as in strings.
func toolCall(t *text, name, input jv) string {
	n := "?"
	if name.kind == '"' {
		n = t.str(name)
	}
	a := ""
	switch input.kind {
	case 0, 'n':
	case '"':
		a = t.str(input)
	default:
		raw := jsontext.Value(t.data[input.start:input.end])
		if bytes.IndexByte(raw, '\n') >= 0 {
			raw = bytes.Clone(raw)
			_ = raw.Compact() // a checked value, and invalid UTF-8 allowed
		}
		a = strings.ToValidUTF8(string(raw), "\uFFFD")
	}
	return "[tool call: " + n + "(" + a + ")]"
}

// mapRole returns the spec role for a message's role, or "" when there is
// none or no obvious one.
func mapRole(role string) string {
	switch strings.ToLower(role) {
	case "user", "human", "person":
		return "user"
	case "assistant", "ai", "bot", "model", "gpt", "chatgpt", "chatbot":
		return "assistant"
	case "system", "developer":
		return "system"
	case "tool", "function", "ipython":
		return "tool"
	}
	return ""
}
