package restore

import (
	"math"
	"path"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
)

// This file counts cl100k tokens without tiktoken-go's regular expression,
// which took nine tenths of a count: cl100kPiece splits text the way
// cl100k's pattern does, written out by hand, and bpeCount counts the
// tokens of a piece with the encoding's own ranks. TestCL100KPieces and
// FuzzCL100K check both against tiktoken-go.

// rankLoader loads the BPE tables for tiktoken-go and keeps them, by
// encoding name ("cl100k_base"), so that the counter below shares the
// ranks tiktoken-go reads rather than holding a second copy.
type rankLoader struct {
	inner tiktoken.BpeLoader
	mu    sync.Mutex
	ranks map[string]map[string]int
}

func (l *rankLoader) LoadTiktokenBpe(file string) (map[string]int, error) {
	ranks, err := l.inner.LoadTiktokenBpe(file)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ranks == nil {
		l.ranks = map[string]map[string]int{}
	}
	l.ranks[strings.TrimSuffix(path.Base(file), ".tiktoken")] = ranks
	return ranks, nil
}

// loaded returns the ranks of the named encoding, if they were loaded.
func (l *rankLoader) loaded(encoding string) map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ranks[encoding]
}

// countCL100K counts the tokens of s, valid UTF-8, as cl100k_base encodes
// it with ranks.
func countCL100K(s string, ranks map[string]int) int {
	n := 0
	for i := 0; i < len(s); {
		j := cl100kPiece(s, i)
		piece := s[i:j]
		if _, ok := ranks[piece]; ok {
			n++
		} else {
			n += bpeCount(piece, ranks)
		}
		i = j
	}
	return n
}

// cl100kPiece returns the end of the piece of s that starts at i: the match
// at i of cl100k's pattern,
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// whose alternatives are tried in order. s is valid UTF-8 and i < len(s).
func cl100kPiece(s string, i int) int {
	r, w := utf8.DecodeRuneInString(s[i:])
	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if r == '\'' && i+w < len(s) {
		r1, w1 := utf8.DecodeRuneInString(s[i+w:])
		switch unicode.ToLower(r1) {
		case 's', 't', 'm', 'd':
			return i + w + w1
		case 'r', 'v', 'l':
			if i+w+w1 < len(s) {
				r2, w2 := utf8.DecodeRuneInString(s[i+w+w1:])
				if l1, l2 := unicode.ToLower(r1), unicode.ToLower(r2); l1 == 'r' && l2 == 'e' || l1 == 'v' && l2 == 'e' || l1 == 'l' && l2 == 'l' {
					return i + w + w1 + w2
				}
			}
		}
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if unicode.IsLetter(r) {
		return letters(s, i+w)
	}
	if r != '\r' && r != '\n' && !unicode.IsNumber(r) && i+w < len(s) {
		if r1, w1 := utf8.DecodeRuneInString(s[i+w:]); unicode.IsLetter(r1) {
			return letters(s, i+w+w1)
		}
	}
	// \p{N}{1,3}
	if unicode.IsNumber(r) {
		j := i + w
		for k := 1; k < 3 && j < len(s); k++ {
			r1, w1 := utf8.DecodeRuneInString(s[j:])
			if !unicode.IsNumber(r1) {
				break
			}
			j += w1
		}
		return j
	}
	// ' ?[^\s\p{L}\p{N}]+[\r\n]*'
	j := i
	if r == ' ' {
		j++
	}
	k := j
	for k < len(s) {
		r1, w1 := utf8.DecodeRuneInString(s[k:])
		if unicode.IsSpace(r1) || unicode.IsLetter(r1) || unicode.IsNumber(r1) {
			break
		}
		k += w1
	}
	if k > j {
		for k < len(s) && (s[k] == '\r' || s[k] == '\n') {
			k++
		}
		return k
	}
	// What is left starts with white space: its run is s[i:end].
	end, lastNL, lastStart := i, -1, i
	for end < len(s) {
		r1, w1 := utf8.DecodeRuneInString(s[end:])
		if !unicode.IsSpace(r1) {
			break
		}
		if r1 == '\r' || r1 == '\n' {
			lastNL = end
		}
		lastStart = end
		end += w1
	}
	switch {
	case lastNL >= 0: // \s*[\r\n]+
		return lastNL + 1
	case end == len(s) || lastStart == i: // \s+(?!\S) at the end, or \s+
		return end
	}
	return lastStart // \s+(?!\S): all but the last space
}

// letters returns the end of the run of letters of s from i.
func letters(s string, i int) int {
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) {
			break
		}
		i += w
	}
	return i
}

// bpeCount counts the tokens byte-pair encoding gives piece with ranks:
// tiktoken-go's bytePairMerge, counting rather than listing.
func bpeCount(piece string, ranks map[string]int) int {
	if len(piece) <= 1 {
		return len(piece)
	}
	type part struct{ start, rank int }
	var buf [48]part
	parts := buf[:0]
	if len(piece)+1 > len(buf) {
		parts = make([]part, 0, len(piece)+1)
	}
	for i := 0; i <= len(piece); i++ {
		parts = append(parts, part{i, math.MaxInt})
	}
	rank := func(i, skip int) int {
		if i+skip+2 < len(parts) {
			if r, ok := ranks[piece[parts[i].start:parts[i+skip+2].start]]; ok {
				return r
			}
		}
		return math.MaxInt
	}
	for i := 0; i < len(parts)-2; i++ {
		parts[i].rank = rank(i, 0)
	}
	for len(parts) > 1 {
		minRank, i := math.MaxInt, -1
		for j := 0; j < len(parts)-1; j++ {
			if parts[j].rank < minRank {
				minRank, i = parts[j].rank, j
			}
		}
		if i < 0 {
			break
		}
		parts[i].rank = rank(i, 1)
		if i > 0 {
			parts[i-1].rank = rank(i-1, 1)
		}
		parts = append(parts[:i+1], parts[i+2:]...)
	}
	return len(parts) - 1
}
