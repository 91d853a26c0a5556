package graph

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/smg-memory/smg/spec"
)

// TestBuilderKeepsNoTurnText checks that what the builder keeps of a turn
// (words it counts, names that wait, forms, options, goals, the sentences
// of decisions, problems, solutions and facts) are copies, not strings cut
// from the turn's text or from the classifier's copy of its prose: each
// such string would hold the whole text alive, and a memory of 38,000
// turns most of its transcript. A word said again counts too: a map given
// an equal key keeps the new one.
func TestBuilderKeepsNoTurnText(t *testing.T) {
	const turns, pad = 20, 100_000
	b := New(Config{}, Options{})
	filler := strings.Repeat("- ", pad/2) // a line of no words
	word := func(i int) string { return "quux" + string(rune('a'+i%26)) + string(rune('a'+i/26)) }
	text := func(i int) string {
		return fmt.Sprintf("Zorblax%d met %s and %s, then Zorblax%d. We could use Redis or Postgres. Our goal is to ship the Frobnicator%d. "+
			"We decided to use Kafka%d instead of RabbitMQ because it scales. The build fails with a timeout error in deploy%d. "+
			"Fixed it by raising the limit to %d seconds. I live in Paris%d.\n%s",
			i, word(i), word(i+1), max(i-1, 0), i, i, i, i, i, filler)
	}
	// The classifier's tables, loaded on first use, are not the builder's.
	if err := New(Config{}, Options{}).Add(spec.Turn{Role: spec.RoleUser, Content: text(99)}); err != nil {
		t.Fatal(err)
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range turns {
		if err := b.Add(spec.Turn{Role: spec.RoleUser, Content: text(i)}); err != nil {
			t.Fatal(err)
		}
	}
	b.arch.open, b.arch.notes, b.recent = nil, nil, nil // the open block and the last turns: kept on purpose, and let go
	var after runtime.MemStats
	runtime.GC()
	runtime.GC() // and the pools' victims (regexp's machines, sized to the texts)
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(b)
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("the builder grew by %d bytes", grown)
	if limit := int64(turns * pad / 4); grown > limit {
		t.Errorf("the builder holds %d bytes after %d turns of %d bytes: more than %d, so it holds their texts", grown, turns, pad, limit)
	}
}
