package baseline

import "github.com/smg-memory/smg/restore"

// Passage is a document of BM25 over passages: a part of turn Turn (an
// index into the turns it was made of), its text (the turn's head, then
// Body), and Body, the passage itself (the whole content of a short
// turn), which is what a memory embeds.
type Passage struct {
	Turn       int
	Text, Body string
}

// TurnPassages splits turns into the documents smg's engine indexes of
// them (restore.Passages): a short turn whole, a long one in passages.
// heads[i] is what each document of turn i starts with (its date and
// speaker, say) and contents[i] the turn's text.
func TurnPassages(heads, contents []string) []Passage {
	var out []Passage
	for i, c := range contents {
		ps := restore.Passages(c)
		if ps == nil {
			out = append(out, Passage{Turn: i, Text: heads[i] + c, Body: c})
			continue
		}
		for _, p := range ps {
			body := c[p.Start:p.End]
			out = append(out, Passage{Turn: i, Text: heads[i] + body, Body: body})
		}
	}
	return out
}
