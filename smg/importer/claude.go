package importer

import (
	"strings"

	"github.com/smg-memory/smg/spec"
)

// How Claude.ai exports conversations (conversations.json of its data
// export, and the conversation objects of its web client), and so how they
// are read here:
//
//   - Each conversation is {uuid, name, created_at, updated_at, account,
//     chat_messages}, its messages in order, each {uuid, sender, text,
//     content, created_at, updated_at, attachments, files}.
//   - content is the message as blocks: text, thinking, tool_use and
//     tool_result (web search, artifacts, analysis), token_budget. text is
//     a flattened copy of it, where a block the export cannot show becomes
//     "This block is not supported on your current device yet.": so text
//     is read only when the blocks give nothing (older exports have no
//     content).
//   - attachments are the text the user pasted or uploaded, with its
//     extracted_content; files are uploaded images and documents, by name.
//
// The turns keep the text blocks, joined with "\n", and the calls of tools
// as "[tool call: NAME(INPUT)]" lines, in the blocks' order; the model's
// thinking and the tools' results (search results, mostly) are left out.
// An attachment with extracted content is appended as
// "\n[attachment: FILE_NAME]\n" and the content, since it is the user's
// message as much as what they typed; a file as "\n[file: FILE_NAME]".

// readClaude reads a Claude.ai export: an array of conversations, or one.
func (r *reader) readClaude() error {
	return r.eachDocument("Claude conversations", r.claudeConversation)
}

// claudeConversation reads the conversation v, at path.
func (r *reader) claudeConversation(v jv, path string) error {
	t := r.t
	if v.kind != '{' {
		return r.malformed(r.errorAt(t, 0, v.start, path, "want a Claude conversation object, not "+v.kindName()))
	}
	f := t.fields(v, "uuid", "chat_messages")
	id, msgs := f[0], f[1]
	var c Conversation
	switch id.kind {
	case 0, 'n':
	case '"':
		c.ID = t.str(id)
	default:
		return r.malformed(r.errorAt(t, 0, id.start, pathKey(path, "uuid"), "want a string, not "+id.kindName()+"; the conversation is skipped"))
	}
	switch msgs.kind {
	case '[':
	case 0, 'n':
		return r.malformed(r.errorAt(t, 0, v.start, path, "no chat_messages; the conversation is skipped"))
	default:
		return r.malformed(r.errorAt(t, 0, msgs.start, pathKey(path, "chat_messages"), "want a list, not "+msgs.kindName()+"; the conversation is skipped"))
	}
	mpath := pathKey(path, "chat_messages")
	var err error
	t.elems(msgs, func(n int, m jv) bool {
		turn, keep, p := claudeTurn(t, m)
		if p != nil {
			err = r.malformed(r.errorAt(t, 0, m.start, pathIndex(mpath, n), p.msg))
			return err == nil
		}
		if keep {
			c.Turns = append(c.Turns, turn)
		}
		return true
	})
	if err != nil {
		return err
	}
	return r.add(c)
}

// claudeTurn reads the message m. keep is false for a message without
// text, which is left out.
func claudeTurn(t *text, m jv) (turn spec.Turn, keep bool, p *problem) {
	if m.kind != '{' {
		return turn, false, &problem{msg: "want a message object, not " + m.kindName()}
	}
	f := t.fields(m, "uuid", "sender", "text", "content", "created_at", "attachments", "files")
	id, sender, txt, content, created, attachments, files := f[0], f[1], f[2], f[3], f[4], f[5], f[6]

	switch sender.kind {
	case '"':
	case 0, 'n':
		return turn, false, &problem{msg: "no sender"}
	default:
		return turn, false, problemf("sender", sender, "a string")
	}
	s := strings.TrimSpace(t.str(sender))
	if turn.Role = mapRole(s); turn.Role == "" {
		if s == "" {
			return turn, false, &problem{msg: "empty sender"}
		}
		turn.Speaker = s
	}

	var parts []string
	switch content.kind {
	case 0, 'n':
	case '[':
		if parts, p = claudeBlocks(t, content); p != nil {
			return turn, false, p
		}
	default:
		return turn, false, problemf("content", content, "a list of blocks")
	}
	if strings.TrimSpace(strings.Join(parts, "")) == "" {
		switch txt.kind {
		case 0, 'n':
		case '"':
			parts = []string{t.str(txt)}
		default:
			return turn, false, problemf("text", txt, "a string")
		}
	}
	body := strings.Join(parts, "\n")

	var extra []string
	for _, list := range []struct {
		member string
		v      jv
	}{{"attachments", attachments}, {"files", files}} {
		switch list.v.kind {
		case 0, 'n':
			continue
		case '[':
		default:
			return turn, false, problemf(list.member, list.v, "a list")
		}
		t.elems(list.v, func(n int, a jv) bool {
			if a.kind != '{' {
				p = problemf(pathIndex(list.member, n), a, "an object")
				return false
			}
			g := t.fields(a, "file_name", "extracted_content")
			name := ""
			if g[0].kind == '"' {
				name = strings.TrimSpace(t.str(g[0]))
			}
			if list.member == "files" {
				extra = append(extra, "[file: "+name+"]")
			} else if g[1].kind == '"' && strings.TrimSpace(t.str(g[1])) != "" {
				extra = append(extra, "[attachment: "+name+"]\n"+t.str(g[1]))
			}
			return true
		})
		if p != nil {
			return turn, false, p
		}
	}
	if strings.TrimSpace(body) != "" {
		extra = append([]string{body}, extra...)
	}
	if turn.Content = strings.Join(extra, "\n"); turn.Content == "" {
		return turn, false, nil
	}

	switch created.kind {
	case 0, 'n':
	case '"':
		tm, err := parseTime(t, created)
		if err != "" {
			return turn, false, &problem{msg: "created_at: " + err}
		}
		turn.Timestamp = tm
	default:
		return turn, false, problemf("created_at", created, "a string")
	}
	switch id.kind {
	case 0, 'n':
	case '"':
		turn.ExternalID = t.str(id)
	default:
		return turn, false, problemf("uuid", id, "a string")
	}
	return turn, true, nil
}

// claudeBlocks returns the texts of a Claude.ai message's content blocks:
// text blocks give their text, tool_use blocks a "[tool call: NAME(INPUT)]"
// line, and the other blocks (thinking, tool_result, token_budget…)
// nothing.
func claudeBlocks(t *text, v jv) (parts []string, p *problem) {
	t.elems(v, func(n int, b jv) bool {
		where := pathIndex("content", n)
		if b.kind != '{' {
			p = problemf(where, b, "a content block")
			return false
		}
		f := t.fields(b, "type", "text", "name", "input")
		typ, txt, name, input := f[0], f[1], f[2], f[3]
		if typ.kind != '"' {
			p = &problem{msg: where + ": a content block without a type"}
			return false
		}
		switch t.str(typ) {
		case "text":
			switch txt.kind {
			case '"':
				parts = append(parts, t.str(txt))
			case 0, 'n':
			default:
				p = problemf(where+".text", txt, "a string")
			}
		case "tool_use":
			parts = append(parts, toolCall(t, name, input))
		}
		return p == nil
	})
	return parts, p
}
