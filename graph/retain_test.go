package graph

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/smg-memory/smg/spec"
)

// TestBuilderKeepsNoTurnText checks that what the builder keeps of a turn
// (words it counts, names that wait, forms, options, goals) are copies, not
// strings cut from the turn's text: each such string would hold the whole
// text alive, and a memory of 38,000 turns all of its transcript.
func TestBuilderKeepsNoTurnText(t *testing.T) {
	const turns, pad = 20, 100_000
	b := New(Config{}, Options{})
	filler := strings.Repeat("- ", pad/2) // a line of no words
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range turns {
		text := fmt.Sprintf("Zorblax%d met quuxword%d. We could use Redis or Postgres. Our goal is to ship the Frobnicator%d.\n%s", i, i, i, filler)
		if err := b.Add(spec.Turn{Role: spec.RoleUser, Content: text}); err != nil {
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
	if limit := int64(turns * pad / 4); grown > limit {
		t.Errorf("the builder holds %d bytes after %d turns of %d bytes: more than %d, so it holds their texts", grown, turns, pad, limit)
	}
}
