package importer

import (
	"strings"

	"github.com/smg-memory/smg/spec"
)

// How Claude Code keeps a session (~/.claude/projects/PROJECT/SESSION.jsonl),
// and so how it is read here:
//
//   - Every line is an object with a type. Lines of type "user" and
//     "assistant" hold a message {role, content} of the Anthropic Messages
//     API, with uuid, parentUuid, sessionId, timestamp (RFC 3339) and
//     isSidechain; the other types ("summary", "system" for compaction
//     boundaries and hook output, "file-history-snapshot",
//     "queue-operation"…) are Claude Code's bookkeeping, and are left out.
//   - An assistant's reply is written as it streams, one line per content
//     block (thinking, text, tool_use; older versions wrote the blocks of a
//     message on one line), and each line is a turn of its own here, the
//     thinking left out. The result of a tool comes back in a "user" line,
//     as a tool_result block: a turn with the role tool.
//   - Lines with isSidechain true are a sub-agent's own conversation (the
//     Task tool); its result comes back to the main one as a tool_result,
//     so they are left out. So are the lines with isMeta true (notes that
//     Claude Code adds as if the user wrote them: the caveat before a local
//     command's output, the text of a skill) and with isCompactSummary true
//     (the summary /compact writes of the conversation before it, which is
//     already in the file).
//   - A file normally holds one session; the lines of several sessionIds
//     (files concatenated, for one) are read as one conversation per
//     sessionId. Newer versions keep a sub-agent's lines in files of their
//     own (SESSION/subagents/agent-ID.jsonl), all of them side chain.
//   - A session still being written, or cut short by a crash, can end in a
//     partial line: a line that is not JSON is malformed alone.

// readClaudeCode reads Claude Code session transcripts: JSON Lines.
func (r *reader) readClaudeCode() error {
	d := r.t.data
	i := r.t.ws(skipBOM(d))
	if i < len(d) && d[i] != '{' {
		return r.errorAt(r.t, 0, i, "", "not JSON Lines: want a Claude Code session, one JSON object per line")
	}
	var convs []Conversation         // one for each session, in order of its first line
	sessions := map[string]int{}     // sessionId → its conversation
	toolNames := map[string]string{} // tool_use id → the tool's name
	err := r.eachLine(i, func(t *text, line0 int) error {
		v, err := r.lineValue(t, line0)
		if err != nil {
			return r.malformed(err)
		}
		turns, session, keep, p := claudeCodeLine(t, v, toolNames)
		if p != nil {
			return r.malformed(r.errorAt(t, line0, v.start, "", p.msg))
		}
		if !keep {
			return nil
		}
		k, ok := sessions[session]
		if !ok {
			k = len(convs)
			sessions[session] = k
			convs = append(convs, Conversation{ID: session})
		}
		convs[k].Turns = append(convs[k].Turns, turns...)
		return nil
	})
	if err != nil {
		return err
	}
	for _, c := range convs {
		if err := r.add(c); err != nil {
			return err
		}
	}
	return nil
}

// claudeCodeLine reads the line v: the turns of its message (none, when
// it has no text), and its session. keep is false for a line that is left
// out.
func claudeCodeLine(t *text, v jv, toolNames map[string]string) (turns []spec.Turn, session string, keep bool, p *problem) {
	if v.kind != '{' {
		return nil, "", false, &problem{msg: "want an object, not " + v.kindName()}
	}
	f := t.fields(v, "type", "uuid", "timestamp", "sessionId", "isSidechain", "isMeta", "isCompactSummary", "message")
	typ, id, ts, sid, side, meta, compact, msg := f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]
	switch typ.kind {
	case '"':
	case 0, 'n':
		return nil, "", false, &problem{msg: "no type"}
	default:
		return nil, "", false, problemf("type", typ, "a string")
	}
	if ty := t.str(typ); ty != "user" && ty != "assistant" || side.kind == 't' || meta.kind == 't' || compact.kind == 't' {
		return nil, "", false, nil
	}
	switch sid.kind {
	case 0, 'n':
	case '"':
		session = t.str(sid)
	default:
		return nil, "", false, problemf("sessionId", sid, "a string")
	}
	switch msg.kind {
	case '{':
	case 0, 'n':
		return nil, "", false, &problem{msg: "no message"}
	default:
		return nil, "", false, problemf("message", msg, "an object")
	}
	m := t.fields(msg, "role", "content")
	role, content := m[0], m[1]

	var base spec.Turn
	switch role.kind {
	case 0, 'n':
		base.Role = mapRole(t.str(typ))
	case '"':
		r := strings.TrimSpace(t.str(role))
		if base.Role = mapRole(r); base.Role == "" {
			if r == "" {
				return nil, "", false, &problem{msg: "empty message.role"}
			}
			base.Speaker = r
		}
	default:
		return nil, "", false, problemf("message.role", role, "a string")
	}
	switch ts.kind {
	case 0, 'n':
	case '"', '0':
		tm, err := parseTime(t, ts)
		if err != "" {
			return nil, "", false, &problem{msg: "timestamp: " + err}
		}
		base.Timestamp = tm
	default:
		return nil, "", false, problemf("timestamp", ts, "a string")
	}
	switch id.kind {
	case 0, 'n':
	case '"':
		base.ExternalID = t.str(id)
	default:
		return nil, "", false, problemf("uuid", id, "a string")
	}

	var parts []string
	switch content.kind {
	case 0, 'n':
	case '"':
		parts = append(parts, t.str(content))
	case '[':
		t.elems(content, func(n int, b jv) bool {
			where := pathIndex("message.content", n)
			if b.kind == '"' {
				parts = append(parts, t.str(b))
				return true
			}
			if b.kind != '{' {
				p = problemf(where, b, "a content block")
				return false
			}
			g := t.fields(b, "type", "text", "id", "name", "input", "tool_use_id", "content")
			btyp, txt, useID, name, input, resultOf, result := g[0], g[1], g[2], g[3], g[4], g[5], g[6]
			if btyp.kind != '"' {
				p = &problem{msg: where + ": a content block without a type"}
				return false
			}
			switch bt := t.str(btyp); bt {
			case "text":
				if txt.kind != '"' {
					p = &problem{msg: where + ": a text block without text"}
					return false
				}
				parts = append(parts, t.str(txt))
			case "thinking", "redacted_thinking":
			case "tool_use":
				if useID.kind == '"' && name.kind == '"' {
					toolNames[t.str(useID)] = t.str(name)
				}
				parts = append(parts, toolCall(t, name, input))
			case "tool_result":
				var out []string
				switch result.kind {
				case 0, 'n':
				case '"':
					out = append(out, t.str(result))
				case '[':
					if out, p = contentParts(t, result, where+".content"); p != nil {
						return false
					}
				default:
					p = problemf(where+".content", result, "a string or a list of blocks")
					return false
				}
				tool := spec.Turn{Role: spec.RoleTool, Timestamp: base.Timestamp, ExternalID: base.ExternalID}
				if resultOf.kind == '"' {
					tool.Speaker = toolNames[t.str(resultOf)]
				}
				if tool.Content = strings.Join(out, "\n"); strings.TrimSpace(tool.Content) != "" {
					turns = append(turns, tool)
				}
			case "image":
				parts = append(parts, "[image]")
			default:
				parts = append(parts, "["+bt+"]")
			}
			return true
		})
		if p != nil {
			return nil, "", false, p
		}
	default:
		return nil, "", false, problemf("message.content", content, "a string or a list of blocks")
	}
	if base.Content = strings.Join(parts, "\n"); strings.TrimSpace(base.Content) != "" {
		turns = append(turns, base)
	}
	return turns, session, true, nil
}
