package smg_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

// FuzzMerge grows a memory of fuzzed turns apart on two sides (turns,
// facts remembered, a node forgotten) and merges them, with their base and
// without: a merge never panics, and what it gives is valid and the same
// twice.
func FuzzMerge(f *testing.F) {
	turns := smgtest.CheckoutTurns(f)
	for i := 0; i+2 < len(turns); i += 3 {
		f.Add(turns[i].Content, turns[i+1].Content, turns[i+2].Content, "I prefer green tea", uint8(i))
	}
	f.Add("```go main.go\npackage main\n```", "```go main.go\npackage main\n\nfunc main() {}\n```", "I'm Ana, I live in Lisbon.", "I live in Porto now", uint8(1))
	f.Add("Let's use Redis, because it persists.", "We chose Postgres over MySQL.", "Mel said hi to Melanie", "User's dog is Biscuit", uint8(7))
	f.Fuzz(func(t *testing.T, first, ours, theirs, fact string, forget uint8) {
		ctx := context.Background()
		at := time.Date(2024, 5, 8, 13, 56, 0, 0, time.UTC)
		turn := func(i int, content string) smg.Turn {
			return smg.Turn{Role: []string{"user", "assistant"}[i%2], Content: content, Timestamp: at.Add(time.Duration(i) * time.Minute)}
		}
		grow := func(doc *spec.Document, from int, contents []string, change func(m *smg.Memory)) *spec.Document {
			m, err := smg.Load(doc, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			for i, c := range contents {
				if err := m.Ingest(ctx, turn(from+i, c)); err != nil && !errors.Is(err, smg.ErrInvalidTurn) {
					t.Fatal(err)
				}
			}
			change(m)
			return m.Document()
		}
		base := grow(spec.New("base", at), 0, []string{first, ours + "\n" + theirs}, func(*smg.Memory) {})
		var forgotten string
		if n := len(base.SemanticGraph.Nodes); n > 0 {
			if nd := base.SemanticGraph.Nodes[int(forget)%n]; nd.Type != spec.NodeArtifact {
				forgotten = nd.ID
			}
		}
		o := grow(base, 2, []string{ours, first}, func(m *smg.Memory) {
			_, _ = m.Remember(ctx, smg.Fact{Content: fact})
			if forget%2 == 0 && forgotten != "" {
				_ = m.Pin(ctx, forgotten)
			}
		})
		th := grow(base, 2, []string{theirs, ours}, func(m *smg.Memory) {
			_, _ = m.Remember(ctx, smg.Fact{Content: fact + " on Sundays"})
			if forgotten != "" {
				_, _ = m.Forget(ctx, forgotten)
			}
		})
		for _, c := range []struct {
			base   *spec.Document
			prefer format.Side
		}{{base, ""}, {base, format.Theirs}, {nil, ""}} {
			merged, _, err := smg.Merge(c.base, o, th, smg.MergeOptions{Prefer: c.prefer})
			if errors.Is(err, smg.ErrConflict) && c.prefer == "" {
				continue
			}
			if err != nil {
				t.Fatalf("base %v, prefer %q: %v", c.base != nil, c.prefer, err)
			}
			if err := format.Validate(merged, &format.ValidateOptions{SkipJSONLD: true}); err != nil {
				t.Fatalf("base %v, prefer %q: %v", c.base != nil, c.prefer, err)
			}
			again, _, _ := smg.Merge(c.base, o, th, smg.MergeOptions{Prefer: c.prefer})
			if !bytes.Equal(fuzzBytes(t, merged), fuzzBytes(t, again)) {
				t.Fatal("two merges differ")
			}
		}
	})
}

// fuzzBytes is the canonical JSON of doc.
func fuzzBytes(t *testing.T, doc *spec.Document) []byte {
	b, err := format.Marshal(doc, &smg.EncodeOptions{Plain: true})
	if err != nil {
		t.Fatal(fmt.Errorf("encoding the merge: %w", err))
	}
	return b
}
