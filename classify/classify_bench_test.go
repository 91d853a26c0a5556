package classify

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// benchTexts returns the texts of LoCoMo's turns (../shared/bench), or
// skips.
func benchTexts(b *testing.B) []string {
	raw, err := os.ReadFile("../../shared/bench/locomo-dev.json")
	if err != nil {
		b.Skip("no LoCoMo data:", err)
	}
	var samples []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(raw, &samples); err != nil {
		b.Fatal(err)
	}
	var out []string
	for _, s := range samples {
		for i := 1; ; i++ {
			sess, ok := s.Conversation[fmt.Sprintf("session_%d", i)]
			if !ok {
				break
			}
			var ts []struct{ Text string }
			json.Unmarshal(sess, &ts)
			for _, t := range ts {
				out = append(out, t.Text)
			}
		}
	}
	return out
}

// BenchmarkAnalyze classifies the turns of LoCoMo one by one; ns/op is per
// turn.
func BenchmarkAnalyze(b *testing.B) {
	texts := benchTexts(b)
	a := New()
	i := 0
	for b.Loop() {
		a.Analyze(Turn{Text: texts[i%len(texts)], Role: "user", Speaker: "Caroline"})
		i++
	}
}
