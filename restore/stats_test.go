package restore

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// snapshot returns a reader of the engine's index as it is, to close.
func snapshot(t *testing.T, e *Engine) *scorch.IndexSnapshot {
	t.Helper()
	e.rw.RLock()
	defer e.rw.RUnlock()
	adv, err := e.ix.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	return r.(*scorch.IndexSnapshot)
}

// bleveCardinality is what Bleve's BM25 divides by the number of
// documents: the sum of the sizes of the segments' dictionaries.
func bleveCardinality(t *testing.T, e *Engine) int {
	t.Helper()
	r := snapshot(t, e)
	defer r.Close()
	n, err := r.FieldCardinality("text")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// wordTurns returns, for each of cuts, the document of a memory of that
// many turns, of words drawn from a small vocabulary with numbers, so that
// each batch of turns has a dictionary of its own size; and of nodes
// enough for two batches, which share words.
func wordTurns(t testing.TB, cuts ...int) []*spec.Document {
	t.Helper()
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa")
	r := rand.New(rand.NewPCG(3, 4))
	b := graph.New(graph.Config{BlockSize: 50}, graph.Options{})
	t0 := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	var docs []*spec.Document
	for _, cut := range cuts {
		for b.Turns() < cut {
			var sb strings.Builder
			for range 6 {
				fmt.Fprintf(&sb, "%s%d ", words[r.IntN(len(words))], r.IntN(300))
			}
			n := b.Turns() + 1
			err := b.Add(spec.Turn{Turn: n, Role: "user", Speaker: "Dana", Content: sb.String(), Timestamp: t0.Add(time.Duration(n) * time.Minute)})
			if err != nil {
				t.Fatal(err)
			}
		}
		doc := b.Document()
		// Nodes enough for two batches of them, which share words.
		for i := range graphBatch + 200 {
			doc.SemanticGraph.Nodes = append(doc.SemanticGraph.Nodes, spec.Node{
				ID:    fmt.Sprintf("concept-%05d", i),
				Type:  spec.NodeConcept,
				Label: fmt.Sprintf("own%d shared%d", i, i%50),
			})
		}
		docs = append(docs, doc)
	}
	return docs
}

// An engine's count of the terms of an index built at once is Bleve's,
// for an index built at once; and after updates, that of an index built
// at once of the updated document.
func TestFreshStatsCountAsBleve(t *testing.T) {
	docs := wordTurns(t, 2*turnBatch+300, 2*turnBatch+700, 3*turnBatch+10)
	e := newEngine(t, docs[0], nil)
	fs, err := e.countFresh(e.turns)
	if err != nil {
		t.Fatal(err)
	}
	want := bleveCardinality(t, e)
	if got := fs.cardinality(); got != want {
		t.Errorf("counted %d terms, Bleve's index has %d", got, want)
	}
	// The count depends on the batches: that of one batch of each kind
	// is another.
	one := newFreshStats(fs.an)
	terms := map[string]bool{}
	for _, text := range e.indexed {
		for _, term := range one.distinct(text) {
			terms[term] = true
		}
	}
	graphTerms := len(terms)
	for i := range e.turns.ranges {
		turns, err := e.turns.block(i)
		if err != nil {
			t.Fatal(err)
		}
		for _, tu := range turns {
			for _, term := range one.distinct(turnText(tu)) {
				terms[term+"\x00turn"] = true
			}
		}
	}
	if len(terms) == want || graphTerms == fs.graph || len(terms)-graphTerms == fs.full+len(fs.last) {
		t.Fatalf("one batch of each kind makes the count of the batches (%d, %d of nodes, %d of turns): the test cannot tell them apart", len(terms), graphTerms, len(terms)-graphTerms)
	}

	for _, doc := range docs[1:] {
		if err := e.Update(doc); err != nil {
			t.Fatal(err)
		}
		fresh := newEngine(t, doc, nil)
		if got, want := e.cardinality, bleveCardinality(t, fresh); got != want {
			t.Errorf("after an update to %d turns: counted %d terms, an index built at once has %d", e.turns.n, got, want)
		}
	}
}

// segments returns how many segments an engine's index has.
func segments(t *testing.T, e *Engine) int {
	t.Helper()
	r := snapshot(t, e)
	defer r.Close()
	return len(r.Segments())
}

// An engine updated turn by turn builds its index again in the background
// every compactAfter updates, so that its segments stay few; what updates
// came meanwhile are in the new index, and the contexts are those of an
// engine built at once all along.
func TestCompaction(t *testing.T) {
	defer func(n int) { compactAfter = n }(compactAfter)
	compactAfter = 5
	docs := turnByTurn(t)
	reached, release := make(chan struct{}), make(chan struct{})
	beforeSwap = func() {
		close(reached)
		<-release
	}
	defer func() { beforeSwap = nil }()
	e := newEngine(t, docs[0], nil)
	built := segments(t, e)
	update := func(doc *spec.Document) {
		t.Helper()
		if err := e.Update(doc); err != nil {
			t.Fatal(err)
		}
	}
	k := 1
	for ; e.compacting == nil; k++ {
		update(docs[k])
	}
	<-reached
	// Updates while the new index is being built go to the old one, and
	// then to the new one too.
	update(docs[k])
	update(docs[k+1])
	more := segments(t, e)
	beforeSwap = nil
	e.upd.Lock()
	c := e.compacting
	e.upd.Unlock()
	close(release)
	<-c.done
	if n := segments(t, e); n >= more || n > built+2 {
		t.Errorf("%d segments after the compaction: %d before it, %d built at once", n, more, built)
	}
	if n, want := docCount(t, e); n != uint64(len(e.indexed)+want) {
		t.Errorf("the new index holds %d documents, want %d nodes and blocks and %d of turns", n, len(e.indexed), want)
	}
	sameContexts(t, e, newEngine(t, docs[k+1], nil))
	for _, doc := range docs[k+2:] {
		update(doc)
	}
	e.upd.Lock()
	if c := e.compacting; c != nil {
		e.upd.Unlock()
		<-c.done
	} else {
		e.upd.Unlock()
	}
	sameContexts(t, e, newEngine(t, docs[len(docs)-1], nil))
}

// Closing an engine stops its compaction, and waits for it.
func TestCloseDuringCompaction(t *testing.T) {
	defer func(n int) { compactAfter = n }(compactAfter)
	compactAfter = 2
	docs := checkoutAt(t, 4, 4, 8, 12)
	reached, release := make(chan struct{}), make(chan struct{})
	beforeSwap = func() {
		close(reached)
		<-release
	}
	defer func() { beforeSwap = nil }()
	e, err := New(docs[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range docs[1:] {
		if err := e.Update(doc); err != nil {
			t.Fatal(err)
		}
	}
	<-reached
	closed := make(chan error)
	go func() { closed <- e.Close() }()
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) while the compaction was under way", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if err := <-closed; err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := e.ix.DocCount(); err == nil {
		t.Error("the index is open after Close: the compaction put its own in place")
	}
	if err := e.Close(); err != nil {
		t.Errorf("Close again: %v", err)
	}
}

// BenchmarkFreshStats measures what an engine's first update costs to
// count the terms of an index built at once (count), and what each update
// costs to count them again for a new node (update), on a memory of 3,000
// turns and 5,200 nodes.
func BenchmarkFreshStats(b *testing.B) {
	doc := wordTurns(b, 3000)[0]
	e := newEngine(b, doc, nil)
	b.Run("count", func(b *testing.B) {
		for b.Loop() {
			if _, err := e.countFresh(e.turns); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("update", func(b *testing.B) {
		fs, err := e.countFresh(e.turns)
		if err != nil {
			b.Fatal(err)
		}
		want := maps.Clone(e.indexed)
		want["n:concept-new"] = "a new node"
		for b.Loop() {
			fs.setGraph(want, []string{"n:concept-new"}, nil)
		}
	})
}

// Contexts asked while the engine updates and compacts its index find
// an open index, whichever one is in place.
func TestContextsDuringCompaction(t *testing.T) {
	defer func(n int) { compactAfter = n }(compactAfter)
	compactAfter = 2
	docs := turnByTurn(t)
	e := newEngine(t, docs[0], nil)
	stop := make(chan struct{})
	errs := make(chan error, 1)
	go func() {
		defer close(errs)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			q := checkoutQuestions[i%len(checkoutQuestions)]
			if _, err := e.Context(context.Background(), q, Options{Budget: 300}); err != nil {
				errs <- err
				return
			}
			if _, err := e.Search(context.Background(), q, 5); err != nil {
				errs <- err
				return
			}
		}
	}()
	for _, doc := range docs[1:] {
		if err := e.Update(doc); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	if err := <-errs; err != nil {
		t.Errorf("a context during the updates: %v", err)
	}
	e.upd.Lock()
	c := e.compacting
	e.upd.Unlock()
	if c != nil {
		<-c.done
	}
	sameContexts(t, e, newEngine(t, docs[len(docs)-1], nil))
}
