package importer

import (
	"strconv"
	"strings"
	"time"

	"github.com/smg-memory/smg/spec"
)

// How ChatGPT exports a conversation (conversations.json of its data
// export; the same object as its web client's GET /backend-api/conversation/ID),
// and so how it is read here:
//
//   - mapping holds every message ever written in the conversation as a
//     tree: node id → {id, message, parent, children}. Editing a question
//     or regenerating an answer adds a sibling; the abandoned branch stays
//     in the tree. current_node is the leaf of the branch the user last
//     saw, so the conversation is the path from the root to current_node,
//     found by following parent links up and reversing. The order of
//     mapping's members means nothing (newer exports sort them by id).
//   - The root is a node without a message, and its child often a system
//     message with empty text; both, and every message whose
//     metadata.is_visually_hidden_from_conversation is true (the custom
//     instructions, the user_editable_context and model_editable_context
//     of the memory feature, contextual-answer prompts), are left out: the
//     ChatGPT page does not show them either.
//   - A message's text is in content: parts (strings) for content_type
//     "text", text for "code" (an assistant's call of a tool such as the
//     browser or python) and "execution_output", parts mixing strings and
//     objects for "multimodal_text". Other content types (thoughts,
//     reasoning_recap, tether_browsing_display…) change over time; what
//     has no text or parts has nothing to keep.
//   - Times are Unix seconds as floats (create_time), null for some
//     system and tool messages: those get the time of the message before
//     them on the branch, or the conversation's create_time.
//
// A conversation whose path cannot be followed (current_node missing from
// mapping, a parent that is not there, a cycle of parent links, a node
// that is not an object) is malformed as a whole: it is skipped and
// reported, or fails the read with Strict. A malformed message on the path
// is skipped alone.

// readChatGPT reads a ChatGPT export: an array of conversations, or one.
func (r *reader) readChatGPT() error {
	return r.eachDocument("ChatGPT conversations", r.chatGPTConversation)
}

// chatGPTConversation reads the conversation v, at path.
func (r *reader) chatGPTConversation(v jv, path string) error {
	t := r.t
	if v.kind != '{' {
		return r.malformed(r.errorAt(t, 0, v.start, path, "want a ChatGPT conversation object, not "+v.kindName()))
	}
	f := t.fields(v, "id", "conversation_id", "mapping", "current_node", "create_time")
	id, convID, mapping, current, created := f[0], f[1], f[2], f[3], f[4]
	bad := func(at jv, atPath, msg string) error {
		return r.malformed(r.errorAt(t, 0, at.start, atPath, msg+"; the conversation is skipped"))
	}
	var c Conversation
	for _, m := range []struct {
		key string
		v   jv
	}{{"id", id}, {"conversation_id", convID}} {
		if c.ID != "" {
			break
		}
		switch m.v.kind {
		case 0, 'n':
		case '"':
			c.ID = t.str(m.v)
		default:
			return bad(m.v, pathKey(path, m.key), "want a string, not "+m.v.kindName())
		}
	}
	switch {
	case mapping.kind == 0 || mapping.kind == 'n':
		return bad(v, path, "no mapping")
	case mapping.kind != '{':
		return bad(mapping, pathKey(path, "mapping"), "want an object, not "+mapping.kindName())
	case current.kind == 0 || current.kind == 'n':
		return bad(v, path, "no current_node")
	case current.kind != '"':
		return bad(current, pathKey(path, "current_node"), "want a string, not "+current.kindName())
	}
	mpath := pathKey(path, "mapping")
	nodes := map[string]jv{}
	t.members(mapping, func(k, n jv) bool {
		nodes[t.str(k)] = n // the last of duplicate ids, as encoding/json
		return true
	})

	// The branch, from current_node up to the root: it has at most one
	// node per member of mapping, or a node twice, in a cycle. link is the
	// value that named the node nid.
	var branch []string
	seen := map[string]bool{}
	nid, link, linkPath := t.str(current), current, pathKey(path, "current_node")
	for {
		n, ok := nodes[nid]
		switch {
		case !ok && len(branch) == 0:
			return bad(link, linkPath, "current_node "+strconv.Quote(nid)+" is not in mapping")
		case !ok:
			return bad(link, linkPath, "parent "+strconv.Quote(nid)+" is not in mapping")
		case seen[nid]:
			return bad(link, linkPath, "the parent links make a cycle: "+strconv.Quote(nid)+" is its own ancestor")
		case n.kind != '{':
			return bad(n, pathKey(mpath, nid), "want a node object, not "+n.kindName())
		}
		seen[nid] = true
		branch = append(branch, nid)
		parent, ppath := t.fields(n, "parent")[0], pathKey(pathKey(mpath, nid), "parent")
		if parent.kind == 0 || parent.kind == 'n' || parent.kind == '"' && t.str(parent) == "" {
			break // the root
		}
		if parent.kind != '"' {
			return bad(parent, ppath, "want a string, not "+parent.kindName())
		}
		nid, link, linkPath = t.str(parent), parent, ppath
	}

	// A message without a time has the time of the one before it, or of
	// the conversation's start: it came after it.
	var last time.Time
	if created.kind == '0' {
		last, _ = parseTime(t, created)
	}
	for i := len(branch) - 1; i >= 0; i-- {
		npath := pathKey(mpath, branch[i])
		msg := t.fields(nodes[branch[i]], "message")[0]
		if msg.kind == 0 || msg.kind == 'n' {
			continue
		}
		turn, keep, p := chatGPTTurn(t, msg)
		if p != nil {
			if err := r.malformed(r.errorAt(t, 0, msg.start, pathKey(npath, "message"), p.msg)); err != nil {
				return err
			}
			continue
		}
		if keep {
			if turn.ExternalID == "" {
				turn.ExternalID = branch[i]
			}
			if turn.Timestamp.IsZero() {
				turn.Timestamp = last
			}
			last = turn.Timestamp
			c.Turns = append(c.Turns, turn)
		}
	}
	return r.add(c)
}

// chatGPTTurn reads the message m. keep is false for a message that is
// left out without being malformed: hidden, or without text.
func chatGPTTurn(t *text, m jv) (turn spec.Turn, keep bool, p *problem) {
	if m.kind != '{' {
		return turn, false, &problem{msg: "want a message object, not " + m.kindName()}
	}
	f := t.fields(m, "id", "author", "content", "create_time", "metadata")
	id, author, content, created, metadata := f[0], f[1], f[2], f[3], f[4]

	if metadata.kind == '{' && t.fields(metadata, "is_visually_hidden_from_conversation")[0].kind == 't' {
		return turn, false, nil
	}
	switch author.kind {
	case '{':
	case 0, 'n':
		return turn, false, &problem{msg: "no author"}
	default:
		return turn, false, problemf("author", author, "an object")
	}
	a := t.fields(author, "role", "name")
	role, name := a[0], a[1]
	switch role.kind {
	case '"':
	case 0, 'n':
		return turn, false, &problem{msg: "no author.role"}
	default:
		return turn, false, problemf("author.role", role, "a string")
	}
	r := strings.TrimSpace(t.str(role))
	if turn.Role = mapRole(r); turn.Role == "" {
		if r == "" {
			return turn, false, &problem{msg: "empty author.role"}
		}
		turn.Speaker = r
	}
	if turn.Role == spec.RoleTool && name.kind == '"' {
		turn.Speaker = strings.TrimSpace(t.str(name))
	}

	switch content.kind {
	case '{':
	case 0, 'n':
		return turn, false, nil
	default:
		return turn, false, problemf("content", content, "an object")
	}
	parts, p := chatGPTContent(t, content)
	if p != nil {
		return turn, false, p
	}
	turn.Content = strings.Join(parts, "\n")
	if strings.TrimSpace(turn.Content) == "" {
		return turn, false, nil
	}

	switch created.kind {
	case 0, 'n':
	case '0', '"':
		tm, err := parseTime(t, created)
		if err != "" {
			return turn, false, &problem{msg: "create_time: " + err}
		}
		turn.Timestamp = tm
	default:
		return turn, false, problemf("create_time", created, "a number")
	}
	switch id.kind {
	case 0, 'n':
	case '"':
		turn.ExternalID = t.str(id)
	default:
		return turn, false, problemf("id", id, "a string")
	}
	return turn, true, nil
}

// chatGPTContent returns the texts of a message's content: its text, then
// its parts. A part is a string, or an object: an image ("image_asset_pointer")
// is "[image]", an object with text (an "audio_transcription") is its text,
// and other objects (the audio and video the transcriptions come from,
// files…) are left out.
func chatGPTContent(t *text, c jv) (parts []string, p *problem) {
	f := t.fields(c, "text", "parts")
	txt, ps := f[0], f[1]
	switch txt.kind {
	case 0, 'n':
	case '"':
		parts = append(parts, t.str(txt))
	default:
		return nil, problemf("content.text", txt, "a string")
	}
	switch ps.kind {
	case 0, 'n':
		return parts, nil
	case '[':
	default:
		return nil, problemf("content.parts", ps, "a list")
	}
	t.elems(ps, func(n int, e jv) bool {
		switch e.kind {
		case 'n':
		case '"':
			parts = append(parts, t.str(e))
		case '{':
			g := t.fields(e, "content_type", "text")
			switch {
			case g[1].kind == '"':
				parts = append(parts, t.str(g[1]))
			case g[0].kind == '"' && strings.Contains(t.str(g[0]), "image"):
				parts = append(parts, "[image]")
			}
		default:
			p = problemf(pathIndex("content.parts", n), e, "a string or an object")
		}
		return p == nil
	})
	return parts, p
}
