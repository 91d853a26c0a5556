package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/smg-memory/smg/spec"
)

// turnInput is one turn of record_turns' input.
type turnInput struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	Time    string `json:"time"`
	ID      string `json:"id"`
	Speaker string `json:"speaker"`
}

// The bounds of record_turns' input, as its schema says.
const (
	maxRecordTurns   = 100
	maxRecordContent = 200000
	maxRecordID      = 256
)

func (h *Handler) record(ctx context.Context, input json.RawMessage) (Reply, error) {
	var raw json.RawMessage
	var conv string
	if err := decode(RecordTurns, input, []param{{"turns", &raw, true}, {"conversation", &conv, false}}); err != nil {
		return Reply{}, err
	}
	if n := utf8.RuneCountInString(conv); n > maxRecordID {
		return failed("conversation is %d characters long; give the chat's id of the conversation, at most %d characters, or leave it out", n, maxRecordID), nil
	}
	turns, msg := readTurns(raw, strings.TrimSpace(conv), h.now())
	if msg != "" {
		return failed("%s", msg), nil
	}
	rec, err := h.user.Record(ctx, turns, nil)
	if err != nil {
		return Reply{}, err
	}
	r := Reply{Success: true, Added: rec.Added, Held: rec.Held, Memory: UserMemory}
	for _, u := range rec.Reused {
		r.Warnings = append(r.Warnings, fmt.Sprintf("turns[%d]: %v", u.Index, u))
	}
	switch {
	case rec.Added == 0:
		r.Message = fmt.Sprintf("The memory holds all %d already: nothing recorded.", rec.Held)
	case rec.Held == 0:
		r.Message = fmt.Sprintf("Recorded %d.", rec.Added)
	default:
		r.Message = fmt.Sprintf("Recorded %d; the memory held %d already.", rec.Added, rec.Held)
	}
	return r, nil
}

// now is the handler's clock: the time of a turn given none.
func (h *Handler) now() time.Time {
	if h.opts.Now != nil {
		return h.opts.Now()
	}
	return time.Now()
}

// readTurns reads record_turns' list of turns, every one checked before
// any is recorded; it returns what to fix, naming the turn, or "". A
// turn without a time takes now; an id, a speaker or a conversation of
// white space is none.
func readTurns(raw json.RawMessage, conv string, now time.Time) ([]spec.Turn, string) {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return nil, "turns must be a list of {role, content, time?, id?, speaker?} objects"
	}
	if len(list) == 0 || len(list) > maxRecordTurns {
		return nil, fmt.Sprintf("turns has %d turns; it takes 1 to %d a call", len(list), maxRecordTurns)
	}
	turns := make([]spec.Turn, len(list))
	for i, item := range list {
		var in turnInput
		dec := json.NewDecoder(bytes.NewReader(item))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			return nil, fmt.Sprintf("turns[%d] is not a {role, content, time?, id?, speaker?} object: %v", i, err)
		}
		t := spec.Turn{ConversationID: conv, Role: in.Role, Content: in.Content, ExternalID: strings.TrimSpace(in.ID),
			Speaker: strings.TrimSpace(in.Speaker), Timestamp: now}
		switch in.Role {
		case spec.RoleUser, spec.RoleAssistant, spec.RoleSystem, spec.RoleTool:
		case "":
			return nil, fmt.Sprintf("turns[%d].role is missing: use user, assistant, system or tool", i)
		default:
			return nil, fmt.Sprintf("turns[%d].role is %q: use user, assistant, system or tool", i, in.Role)
		}
		if strings.TrimSpace(in.Content) == "" {
			return nil, fmt.Sprintf("turns[%d].content is empty: give the message's text", i)
		}
		if n := utf8.RuneCountInString(in.Content); n > maxRecordContent {
			return nil, fmt.Sprintf("turns[%d].content is %d characters long; a turn takes at most %d", i, n, maxRecordContent)
		}
		if n := utf8.RuneCountInString(in.ID); n > maxRecordID {
			return nil, fmt.Sprintf("turns[%d].id is %d characters long; give the message's id, at most %d characters, or leave it out", i, n, maxRecordID)
		}
		if n := utf8.RuneCountInString(in.Speaker); n > maxRecordID {
			return nil, fmt.Sprintf("turns[%d].speaker is %d characters long; give a name of at most %d characters, or leave it out", i, n, maxRecordID)
		}
		if in.Time != "" {
			at, err := time.Parse(time.RFC3339Nano, in.Time)
			if err != nil {
				return nil, fmt.Sprintf("turns[%d].time is %q, not an RFC 3339 time like 2025-03-14T09:00:00Z", i, in.Time)
			}
			t.Timestamp = at
		}
		turns[i] = t
	}
	return turns, ""
}
