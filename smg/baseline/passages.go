package baseline

import "github.com/smg-memory/smg/restore"

// Passage is a document of BM25 over passages: a part of turn Turn (an
// index into the turns it was made of), and its text.
type Passage struct {
	Turn int
	Text string
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
			out = append(out, Passage{Turn: i, Text: heads[i] + c})
			continue
		}
		for _, p := range ps {
			out = append(out, Passage{Turn: i, Text: heads[i] + c[p.Start:p.End]})
		}
	}
	return out
}
