package graph

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/smg-memory/smg/spec"
)

// beamConversations returns the conversations of BEAM (../shared/bench),
// as turns, or skips: long project chats, answers of several kilobytes
// with code.
func beamConversations(b *testing.B) [][]spec.Turn {
	raw, err := os.ReadFile("../../shared/bench/beam-dev.json")
	if err != nil {
		b.Skip("no BEAM data:", err)
	}
	var samples []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(raw, &samples); err != nil {
		b.Fatal(err)
	}
	var out [][]spec.Turn
	for _, s := range samples {
		var turns []spec.Turn
		for i := 1; ; i++ {
			sess, ok := s.Conversation[fmt.Sprintf("session_%d", i)]
			if !ok {
				break
			}
			var ts []struct{ Speaker, Text string }
			if err := json.Unmarshal(sess, &ts); err != nil {
				b.Fatal(err)
			}
			for _, t := range ts {
				role := spec.RoleUser
				if t.Speaker == "Assistant" {
					role = spec.RoleAssistant
				}
				turns = append(turns, spec.Turn{Role: role, Content: t.Text})
			}
		}
		out = append(out, turns)
	}
	return out
}

// BenchmarkAdd builds the memory of each BEAM conversation in turn, with
// Builder.Add; ns/op is per conversation, and MB/s is of the turns' text
// (the target of issue 20 is 3 MB/s a core).
func BenchmarkAdd(b *testing.B) {
	convs := beamConversations(b)
	size := 0
	for _, c := range convs {
		for _, t := range c {
			size += len(t.Content)
		}
	}
	b.SetBytes(int64(size / len(convs)))
	i := 0
	for b.Loop() {
		bl := New(Config{}, Options{ID: "bench"})
		for _, t := range convs[i%len(convs)] {
			if err := bl.Add(t); err != nil {
				b.Fatal(err)
			}
		}
		i++
	}
}
