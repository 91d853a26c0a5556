package encoder

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// tokenizer is the SentencePiece unigram tokenizer as @energetic-ai/embeddings
// 0.2.0 runs it for USE-lite (lib/tokenizer.ts), reproduced step by step so
// that the ids are the same: NFKC, no lowercasing, "▁" before the text and in
// place of every space, a Viterbi pass over the pieces' log-probabilities, one
// unknown id (0) per character no piece starts with, runs of unknowns merged.
type tokenizer struct {
	pieces []string // by id
	// trie maps each prefix of a piece to its node; a node that ends a
	// piece holds its id and score.
	nodes []trieNode
}

type trieNode struct {
	children map[rune]int32
	end      bool
	id       int32
	score    float64
}

// reserved is how many ids at the start of the vocabulary are control
// symbols that the text never matches (RESERVED_SYMBOLS_COUNT).
const reserved = 6

const separator = "\u2581"

func newTokenizer(vocabJSON []byte) (*tokenizer, error) {
	var vocab []struct {
		piece string
		score float64
	}
	var raw [][2]json.RawMessage
	if err := json.Unmarshal(vocabJSON, &raw); err != nil {
		return nil, fmt.Errorf("encoder: vocabulary: %w", err)
	}
	for i, p := range raw {
		var e struct {
			piece string
			score float64
		}
		if err := json.Unmarshal(p[0], &e.piece); err != nil {
			return nil, fmt.Errorf("encoder: vocabulary entry %d: %w", i, err)
		}
		if err := json.Unmarshal(p[1], &e.score); err != nil {
			return nil, fmt.Errorf("encoder: vocabulary entry %d: %w", i, err)
		}
		vocab = append(vocab, e)
	}
	if len(vocab) <= reserved {
		return nil, fmt.Errorf("encoder: vocabulary has %d entries", len(vocab))
	}
	t := &tokenizer{nodes: []trieNode{{}}}
	for _, e := range vocab {
		t.pieces = append(t.pieces, e.piece)
	}
	for i := reserved; i < len(vocab); i++ {
		n := 0
		for _, r := range vocab[i].piece {
			c, ok := t.nodes[n].children[r]
			if !ok {
				if t.nodes[n].children == nil {
					t.nodes[n].children = map[rune]int32{}
				}
				c = int32(len(t.nodes))
				t.nodes[n].children[r] = c
				t.nodes = append(t.nodes, trieNode{})
			}
			n = int(c)
		}
		if n != 0 {
			t.nodes[n].end, t.nodes[n].id, t.nodes[n].score = true, int32(i), vocab[i].score
		}
	}
	return t, nil
}

type match struct {
	length int // in characters
	id     int32
	score  float64
}

// encode returns the ids of text.
func (t *tokenizer) encode(text string) []int32 {
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	text = norm.NFKC.String(text)
	if text == "" {
		return nil
	}
	text = separator + strings.ReplaceAll(text, " ", separator)
	symbols := []rune(text)
	n := len(symbols)

	// lattice[end] lists the pieces ending at end, by ascending start.
	lattice := make([][]match, n+1)
	for i := 0; i < n; i++ {
		found := false
		node, ok := t.nodes[0].children[symbols[i]]
		for j := i; ok; {
			if t.nodes[node].end {
				l := j - i + 1
				lattice[i+l] = append(lattice[i+l], match{l, t.nodes[node].id, t.nodes[node].score})
				found = true
			}
			j++
			if j >= n {
				break
			}
			node, ok = t.nodes[node].children[symbols[j]]
		}
		if !found {
			lattice[i+1] = append(lattice[i+1], match{1, 0, 0})
		}
	}
	// The pieces were appended by ascending start for each end, as the
	// original visits them; a tie goes to the later one, and a best of
	// exactly 0 counts as none, as in the original.
	best := make([]float64, n+1)
	words := make([]int32, n+1)
	for end := 0; end <= n; end++ {
		for _, m := range lattice[end] {
			s := m.score + best[end-m.length]
			if best[end] == 0 || s >= best[end] {
				best[end] = s
				words[end] = m.id
			}
		}
	}
	var rev []int32
	for i := n; i > 0; {
		id := words[i]
		rev = append(rev, id)
		i -= utf16Len(t.pieces[id])
	}
	// Merge runs of unknowns, walking from the end as the original does.
	merged := rev[:0:0]
	prevUnk := false
	for _, id := range rev {
		if !(prevUnk && id == 0) {
			merged = append(merged, id)
		}
		prevUnk = id == 0
	}
	ids := make([]int32, 0, len(merged))
	for i := len(merged) - 1; i >= 0; i-- {
		ids = append(ids, merged[i])
	}
	return ids
}

// utf16Len is the length of s as JavaScript counts it, which is what the
// original steps back by.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}
