package importer

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/smg-memory/smg/spec"
)

// locomoTime is the layout of LoCoMo's session_N_date_time.
const locomoTime = "3:04 pm on 2 January, 2006"

// readLoCoMo reads a LoCoMo input: an array of samples (or one sample).
// A sample that is not an object with a "conversation" object is
// malformed, and so are a session that is not a list and a session date
// that does not parse (the session's turns are then skipped with it).
func (r *reader) readLoCoMo() error {
	return r.eachDocument("LoCoMo samples", r.locomoSample)
}

// session is a session of a LoCoMo conversation.
type session struct {
	n          int
	turns      jv
	date       jv
	key, dkey  string
	hasDateKey bool
}

func (r *reader) locomoSample(v jv, path string) error {
	t := r.t
	if v.kind != '{' {
		return r.malformed(r.errorAt(t, 0, v.start, path, "want a LoCoMo sample object, not "+v.kindName()))
	}
	var id, conv jv
	t.members(v, func(k, val jv) bool {
		switch {
		case t.is(k, "sample_id"):
			id = val
		case t.is(k, "conversation"):
			conv = val
		}
		return true
	})
	var c Conversation
	switch id.kind {
	case 0, 'n':
	case '"':
		c.ID = t.str(id)
	case '0':
		c.ID = string(t.data[id.start:id.end])
	default:
		return r.malformed(r.errorAt(t, 0, id.start, pathKey(path, "sample_id"), "want a string, not "+id.kindName()))
	}
	if conv.kind != '{' {
		if conv.kind == 0 {
			return r.malformed(r.errorAt(t, 0, v.start, path, "no conversation"))
		}
		return r.malformed(r.errorAt(t, 0, conv.start, pathKey(path, "conversation"), "want an object, not "+conv.kindName()))
	}
	path = pathKey(path, "conversation")

	var sessions []*session
	byN := map[int]*session{}
	get := func(n int) *session {
		s := byN[n]
		if s == nil {
			s = &session{n: n}
			byN[n] = s
			sessions = append(sessions, s)
		}
		return s
	}
	var speakers [2]jv
	t.members(conv, func(k, val jv) bool {
		key := t.str(k)
		switch key {
		case "speaker_a":
			speakers[0] = val
			return true
		case "speaker_b":
			speakers[1] = val
			return true
		}
		rest, ok := strings.CutPrefix(key, "session_")
		if !ok {
			return true
		}
		digits, isDate := strings.CutSuffix(rest, "_date_time")
		n, err := strconv.Atoi(digits)
		if err != nil || n < 0 || digits[0] == '+' || digits[0] == '-' {
			return true // session_N_summary and other keys: not turns
		}
		s := get(n)
		if isDate {
			s.date, s.dkey, s.hasDateKey = val, key, true
		} else {
			s.turns, s.key = val, key
		}
		return true
	})
	for _, sp := range speakers {
		if sp.kind == '"' {
			if name := strings.TrimSpace(t.str(sp)); name != "" {
				c.Speakers = append(c.Speakers, name)
			}
		}
	}
	slices.SortFunc(sessions, func(a, b *session) int { return cmp.Compare(a.n, b.n) })

	for _, s := range sessions {
		switch s.turns.kind {
		case 0, 'n':
			continue // a date for a session with no turns
		case '[':
		default:
			if err := r.malformed(r.errorAt(t, 0, s.turns.start, pathKey(path, s.key), "want a list of turns, not "+s.turns.kindName())); err != nil {
				return err
			}
			continue
		}
		var when time.Time
		switch s.date.kind {
		case 0, 'n':
		case '"':
			var err error
			if when, err = time.Parse(locomoTime, strings.TrimSpace(t.str(s.date))); err != nil {
				if err := r.malformed(r.errorAt(t, 0, s.date.start, pathKey(path, s.dkey),
					"cannot read "+strconv.Quote(t.str(s.date))+` as a date like "1:56 pm on 8 May, 2023"; the session's turns are skipped`)); err != nil {
					return err
				}
				continue
			}
		default:
			if err := r.malformed(r.errorAt(t, 0, s.date.start, pathKey(path, s.dkey), "want a string, not "+s.date.kindName()+"; the session's turns are skipped")); err != nil {
				return err
			}
			continue
		}
		var err error
		spath := pathKey(path, s.key)
		t.elems(s.turns, func(n int, e jv) bool {
			turn, p := locomoTurn(t, e)
			if p != nil {
				err = r.malformed(r.errorAt(t, 0, e.start, pathIndex(spath, n), p.msg))
				return err == nil
			}
			turn.Timestamp = when
			c.Turns = append(c.Turns, turn)
			return true
		})
		if err != nil {
			return err
		}
	}
	return r.add(c)
}

// locomoTurn reads a turn {speaker, dia_id, text, blip_caption?}; every
// other member (img_url, query…) is left out.
func locomoTurn(t *text, v jv) (turn spec.Turn, p *problem) {
	if v.kind != '{' {
		return turn, &problem{msg: "want a turn object, not " + v.kindName()}
	}
	var speaker, id, txt, caption jv
	t.members(v, func(k, val jv) bool {
		switch {
		case t.is(k, "speaker"):
			speaker = val
		case t.is(k, "dia_id"):
			id = val
		case t.is(k, "text"):
			txt = val
		case t.is(k, "blip_caption"):
			caption = val
		}
		return true
	})
	switch speaker.kind {
	case 0, 'n':
		return turn, &problem{msg: "no speaker"}
	case '"':
		if turn.Speaker = strings.TrimSpace(t.str(speaker)); turn.Speaker == "" {
			return turn, &problem{msg: "empty speaker"}
		}
	default:
		return turn, problemf("speaker", speaker, "a string")
	}
	switch txt.kind {
	case 0, 'n':
		return turn, &problem{msg: "no text"}
	case '"':
		turn.Content = t.str(txt)
	default:
		return turn, problemf("text", txt, "a string")
	}
	switch id.kind {
	case 0, 'n':
	case '"':
		turn.ExternalID = t.str(id)
	case '0':
		turn.ExternalID = string(t.data[id.start:id.end])
	default:
		return turn, problemf("dia_id", id, "a string")
	}
	switch caption.kind {
	case 0, 'n':
	case '"':
		if c := strings.TrimSpace(t.str(caption)); c != "" {
			if turn.Content != "" {
				turn.Content += "\n"
			}
			turn.Content += "[shares a photo: " + c + "]"
		}
	default:
		return turn, problemf("blip_caption", caption, "a string")
	}
	// A chat converted to this layout names its assistant as a speaker
	// (BEAM's project chats: "User" and "Assistant"); people are users.
	if turn.Role = mapRole(turn.Speaker); turn.Role == "" {
		turn.Role = "user"
	}
	return turn, nil
}
