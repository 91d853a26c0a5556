package extraction

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/smg-memory/smg/classify"
)

// TurnRef is a turn of the sample of turns, on which a person lists what
// the engine should have extracted (its recall).
type TurnRef struct {
	Key          string `json:"key"`
	Source       string `json:"source"`
	Conversation string `json:"conversation"`
	// Turn is the turn's number in its conversation, TurnID its external
	// id.
	Turn   int    `json:"turn"`
	TurnID string `json:"turnId,omitempty"`
}

// SampleTurns returns the sample of turns: n turns, taken from the
// sources in turn, each time the turn of the smallest key a source has
// left, as Sample takes items. A turn's key is the first 16 hex digits of
// the SHA-256 of its source, conversation and external id (or number,
// when it has none), so that it keeps its key, and its label, whatever
// the engine extracts. A turn with nothing to extract (empty, or small
// talk only) is not sampled. They are returned by source and key.
func SampleTurns(convs []Conversation, n int) []TurnRef {
	by := map[string][]TurnRef{} // source → turns
	for _, c := range convs {
		for i, t := range c.Turns {
			if text := strings.TrimSpace(t.Content); text == "" || classify.SmallTalk(text) {
				continue
			}
			num := t.Turn
			if num == 0 {
				num = i + 1
			}
			ref := TurnRef{Source: c.Source, Conversation: c.ID, Turn: num, TurnID: t.ExternalID}
			ref.Key = hash16(ref.Source, ref.Conversation, "turn", turnName(ref.TurnID, ref.Turn))
			by[c.Source] = append(by[c.Source], ref)
		}
	}
	out := roundRobin(by, n, func(t TurnRef) string { return t.Key })
	slices.SortFunc(out, func(a, b TurnRef) int {
		return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Key, b.Key))
	})
	return out
}

// turnName names a turn in a key: its external id, which survives a
// renumbering, or "#" and its number.
func turnName(id string, n int) string {
	if id != "" {
		return id
	}
	return "#" + strconv.Itoa(n)
}

// TermHash hides a word of an expected item (the data is not the
// project's to copy): the first 8 hex digits of the SHA-256 of the word
// in lower case.
func TermHash(word string) string {
	return hash16(strings.ToLower(word))[:8]
}

// Terms returns the TermHash of each word of text, words being what lies
// between characters that are neither letters nor digits.
func Terms(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(text, notWordRune) {
		out = append(out, TermHash(w))
	}
	return out
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// RecallLabel lists what the engine should extract from a turn of the
// sample of turns, by the rubric of testdata/labels/README.md: each item
// of a kind by its key words, as terms (TermHash), since a labels file
// holds no text of the data. Expect is empty when the turn has nothing to
// extract.
type RecallLabel struct {
	Turn   string     `json:"turn"`
	Expect []Expected `json:"expect"`
	Note   string     `json:"note,omitempty"`
}

// Expected is an item a turn should give: its kind, and the terms its
// label (a fact's, or its sentence) must contain as words.
type Expected struct {
	Kind  string   `json:"kind"`
	Terms []string `json:"terms"`
}

// RecallLabels are recall labels by turn key.
type RecallLabels map[string]RecallLabel

// ReadRecallLabels reads a recall labels file: JSON lines, one
// RecallLabel each; empty lines are skipped. A line whose turn is not 16
// hex digits, that labels a turn again, or that expects an item of an
// unknown kind or without terms of 8 hex digits fails the read with a
// *LabelError naming it.
func ReadRecallLabels(r io.Reader) (RecallLabels, error) {
	out := RecallLabels{}
	if err := readLines(r, "recall label", out.add); err != nil {
		return nil, err
	}
	return out, nil
}

// add adds l, unless it is no recall label ReadRecallLabels would read.
func (labels RecallLabels) add(l RecallLabel) error {
	if !isHex(l.Turn, 16) {
		return fmt.Errorf("turn %q is not 16 hex digits", l.Turn)
	}
	if l.Expect == nil {
		l.Expect = []Expected{} // "expect": null, or none, is nothing expected
	}
	for i, e := range l.Expect {
		switch {
		case !slices.Contains(Kinds, e.Kind):
			return fmt.Errorf("expected item %d: kind %q is none of %v", i+1, e.Kind, Kinds)
		case len(e.Terms) == 0:
			return fmt.Errorf("expected item %d: no key words", i+1)
		}
		for _, t := range e.Terms {
			if !isHex(t, 8) {
				return fmt.Errorf("expected item %d: term %q is not 8 hex digits", i+1, t)
			}
		}
	}
	if _, ok := labels[l.Turn]; ok {
		return fmt.Errorf("turn %s is labelled again", l.Turn)
	}
	labels[l.Turn] = l
	return nil
}

// WriteRecallLabels writes labels as ReadRecallLabels reads them, in the
// order of their turns' keys.
func WriteRecallLabels(w io.Writer, labels RecallLabels) error {
	return writeLines(w, labels)
}

// ReadRecallAnswers reads a person's answers on the turns of the recall
// worksheet, recall labels in plain words, one JSON line a turn:
//
//	{"turn": KEY, "expect": [{"kind": KIND, "words": [WORD...]}...], "note": TEXT}
//
// and returns them as recall labels, each word split into words as Terms
// splits a label ("rate limiting" is two) and hashed. A line that does
// not make a recall label ReadRecallLabels would read fails the read with
// a *LabelError naming it.
func ReadRecallAnswers(r io.Reader) (RecallLabels, error) {
	type inWords struct {
		Kind  string   `json:"kind"`
		Words []string `json:"words"`
	}
	type answer struct {
		Turn   string    `json:"turn"`
		Expect []inWords `json:"expect"`
		Note   string    `json:"note"`
	}
	out := RecallLabels{}
	err := readLines(r, "answer", func(a answer) error {
		l := RecallLabel{Turn: a.Turn, Expect: []Expected{}, Note: a.Note}
		for _, e := range a.Expect {
			var terms []string
			for _, w := range e.Words {
				terms = append(terms, Terms(w)...)
			}
			l.Expect = append(l.Expect, Expected{Kind: e.Kind, Terms: terms})
		}
		return out.add(l)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ErrRelabelled is what MergeRecallLabels returns when a turn it adds is
// labelled otherwise already: labels are added, never rewritten.
var ErrRelabelled = errors.New("labelled otherwise already")

// MergeRecallLabels adds the labels of more to labels. A turn labelled in
// both alike is kept once; one labelled otherwise fails the merge with
// ErrRelabelled, naming the turn, and changes nothing.
func MergeRecallLabels(labels, more RecallLabels) error {
	for k, l := range more {
		if old, ok := labels[k]; ok && !sameRecallLabel(old, l) {
			return fmt.Errorf("turn %s: %w", k, ErrRelabelled)
		}
	}
	for k, l := range more {
		labels[k] = l
	}
	return nil
}

func sameRecallLabel(a, b RecallLabel) bool {
	return a.Turn == b.Turn && a.Note == b.Note && slices.EqualFunc(a.Expect, b.Expect, func(x, y Expected) bool {
		return x.Kind == y.Kind && slices.Equal(x.Terms, y.Terms)
	})
}

// found reports whether an item of items, which the engine extracted
// from one turn, is the expected item e of that turn: of its kind, its
// label (a fact's, or its sentence) holding every term of e as a word.
func found(e Expected, items []Item) bool {
	for _, it := range items {
		if it.Kind != e.Kind {
			continue
		}
		text := it.Label
		switch it.Kind {
		case Fact, Instruction, Request, Change:
			text += " " + it.Text // a fact's sentence, what a change changed
		}
		words := Terms(text)
		if !slices.ContainsFunc(e.Terms, func(term string) bool { return !slices.Contains(words, term) }) {
			return true
		}
	}
	return false
}
