package graph

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/classify"
	"github.com/smg-memory/smg/spec"
)

// similarScan is vaultState.similar as it was before the line index:
// every unnamed artifact of the language, its lines read again.
func similarScan(v *vaultState, lang, content string) string {
	lines := lineSet(content)
	if len(lines) < 3 {
		return ""
	}
	best, bestScore := "", overlapSame
	for _, id := range v.unnamed {
		st := v.arts[id]
		if st.art.Language != lang {
			continue
		}
		other := lineSet(st.latest)
		common := 0
		for l := range lines {
			if other[l] {
				common++
			}
		}
		if score := float64(common) / float64(min(len(lines), len(other))); score >= bestScore && len(other) > 0 {
			best, bestScore = id, score
		}
	}
	return best
}

// TestSimilarIndexMatchesScan drives a vault with unnamed code made of a
// few shared lines, so that pieces continue each other, tie and change,
// and checks that the line index finds the artifact the scan of every
// artifact found, before each piece is added.
func TestSimilarIndexMatchesScan(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 7))
		b := New(Config{}, Options{})
		vocab := make([]string, 5+r.IntN(40))
		for i := range vocab {
			vocab[i] = fmt.Sprintf("line %d = %d", i, r.IntN(3))
			if r.IntN(8) == 0 {
				vocab[i] = "  " + vocab[i] + "  " // trimmed
			}
		}
		vocab = append(vocab, "}", "", "ab") // too short to count
		at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		found := 0
		for turn := 1; turn <= 150; turn++ {
			lang := []string{"go", "python", ""}[r.IntN(3)]
			var lines []string
			for range r.IntN(12) {
				lines = append(lines, vocab[r.IntN(len(vocab))])
			}
			content := strings.Join(lines, "\n")
			want := similarScan(&b.vault, lang, content)
			if got := b.vault.similar(lang, content); got != want {
				t.Fatalf("seed %d turn %d: similar(%q, %q) = %q, the scan finds %q", seed, turn, lang, content, got, want)
			}
			if want != "" {
				found++
			}
			b.addToVault(classify.Artifact{Language: lang, Kind: "code", Content: content}, spec.Turn{Turn: turn, Timestamp: at})
		}
		if found == 0 {
			t.Fatalf("seed %d: no piece continued another: the test tests nothing", seed)
		}
	}
}
