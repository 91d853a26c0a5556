package importer

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkRead reads the bench data (when it is there) and generated
// transcripts: turns per second and MB/s.
func BenchmarkRead(b *testing.B) {
	inputs := []struct {
		name string
		data []byte
	}{
		{"transcript-10k", transcript(10_000, false)},
		{"jsonl-10k", transcript(10_000, true)},
	}
	if data, err := os.ReadFile(filepath.Join(benchDir, "locomo-dev.json")); err == nil {
		inputs = append(inputs, struct {
			name string
			data []byte
		}{"locomo-dev", data})
	}
	files, _ := filepath.Glob(filepath.Join(benchDir, "aider-dev", "02_*.md"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		inputs = append(inputs, struct {
			name string
			data []byte
		}{"aider-02", data})
	}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			turns := 0
			for b.Loop() {
				res, err := Read(bytes.NewReader(in.data), Options{})
				if err != nil {
					b.Fatal(err)
				}
				turns = 0
				for _, c := range res.Conversations {
					turns += len(c.Turns)
				}
			}
			b.ReportMetric(float64(turns)*float64(b.N)/b.Elapsed().Seconds(), "turns/s")
		})
	}
}

// transcript generates a transcript of n turns, as a JSON array or JSON
// Lines.
func transcript(n int, lines bool) []byte {
	var b strings.Builder
	if !lines {
		b.WriteString("[\n")
	}
	for i := range n {
		role := []string{"user", "assistant"}[i%2]
		fmt.Fprintf(&b, `{"id": "m%d", "role": %q, "timestamp": "2025-03-14T09:%02d:%02dZ", "content": "Turn %d: let's use Stripe Elements instead of Checkout, because the custom styling matters.\nThe webhook returned a 401; the signing secret was the test one."}`,
			i, role, i/60%60, i%60, i)
		switch {
		case lines:
			b.WriteString("\n")
		case i < n-1:
			b.WriteString(",\n")
		}
	}
	if !lines {
		b.WriteString("\n]\n")
	}
	return []byte(b.String())
}
