package encoder

import (
	"encoding/json"
	"strings"
	"sync"
)

// wordPieces are the words that are whole pieces of the vocabulary,
// lowercase: the frequent words of the text the tokenizer was made from.
var wordPieces = sync.OnceValue(func() map[string]bool {
	var raw [][2]json.RawMessage
	out := map[string]bool{}
	if json.Unmarshal(vocabFile, &raw) != nil {
		return out
	}
	for _, p := range raw {
		var piece string
		if json.Unmarshal(p[0], &piece) != nil {
			continue
		}
		if w, ok := strings.CutPrefix(piece, separator); ok && w != "" && w == strings.ToLower(w) {
			out[w] = true
		}
	}
	return out
})

// Frequent reports whether word, in lower case, is a whole piece of the
// vocabulary: one of the few thousand words frequent enough in English
// text to have a piece of their own ("first", "result", "name"), which a
// name written with a capital seldom is ("Catan", "Iguodala").
func Frequent(word string) bool {
	return wordPieces()[strings.ToLower(word)]
}
