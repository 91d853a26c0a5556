package restore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/smg-memory/smg/spec"
)

// pairedNodes returns a document of n concept nodes (n even), listed in a
// shuffled order. Each node has a word of its own and two words it
// shares with one other node, the one next to it in the order of ids.
func pairedNodes(n int) *spec.Document {
	doc := &spec.Document{}
	for i := range n {
		doc.SemanticGraph.Nodes = append(doc.SemanticGraph.Nodes, spec.Node{
			ID:    fmt.Sprintf("concept-%05d", i),
			Type:  spec.NodeConcept,
			Label: fmt.Sprintf("own%d left%d right%d", i, i/2, i/2),
		})
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(n, func(i, j int) {
		doc.SemanticGraph.Nodes[i], doc.SemanticGraph.Nodes[j] = doc.SemanticGraph.Nodes[j], doc.SemanticGraph.Nodes[i]
	})
	return doc
}

// The nodes of a large memory are indexed in several batches at once,
// which become segments of the index. Bleve's BM25 takes the average
// length of a document from the sum of the segments' dictionary sizes,
// so a word in two segments counts twice, and how the nodes are split
// changes every score. They are split in the order of their ids, so that
// the same memory always scores the same, whatever the order of its
// nodes: here each pair of nodes that share words stays in one batch, and
// the engine scores as an index of all of them in one batch does. A split
// in the document's order, or in a map's, would part about half of the
// pairs, and raise the average length from 2 to 3.
func TestSameDocumentSameScores(t *testing.T) {
	doc := pairedNodes(2*graphBatch + 100)
	one := textIndex(t)
	b := one.NewBatch()
	for i := range doc.SemanticGraph.Nodes {
		n := &doc.SemanticGraph.Nodes[i]
		if err := b.Index(kindNode+":"+n.ID, indexDoc{Text: nodeText(n)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := one.Batch(b); err != nil {
		t.Fatal(err)
	}
	const q = "own7 left100 right2500 own9000"
	want, err := search(one, q, 50, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, doc, nil)
	got, err := search(e.ix, q, 50, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 6 || !reflect.DeepEqual(got, want) {
		t.Errorf("the engine's index scores\n%v\nwant, as one batch,\n%v", got, want)
	}
}

// textIndex returns a new engine's index, closed when the test ends.
func textIndex(t *testing.T) bleve.Index {
	t.Helper()
	ix, err := NewTextIndex()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func TestBatcher(t *testing.T) {
	t.Run("every document", func(t *testing.T) {
		ix := textIndex(t)
		bt := newBatcher(context.Background(), ix, 3, 0)
		for i := range 10 {
			if err := bt.index(fmt.Sprintf("n:%d", i), "a word"); err != nil {
				t.Fatal(err)
			}
		}
		if err := bt.finish(nil); err != nil {
			t.Fatal(err)
		}
		if n, err := ix.DocCount(); err != nil || n != 10 {
			t.Errorf("%d documents (%v), want 10", n, err)
		}
		// Removals in batches of one, indexed at once.
		bt = newBatcher(context.Background(), ix, 1, 0)
		for _, id := range []string{"n:4", "n:7", "n:9"} {
			if err := bt.delete(id); err != nil {
				t.Fatal(err)
			}
		}
		if err := bt.finish(nil); err != nil {
			t.Fatal(err)
		}
		if n, err := ix.DocCount(); err != nil || n != 7 {
			t.Errorf("%d documents (%v) after removing 3, want 7", n, err)
		}
	})
	t.Run("a failed batch", func(t *testing.T) {
		ix, err := NewTextIndex() // closed at once: not textIndex, which closes it again
		if err != nil {
			t.Fatal(err)
		}
		ix.Close()
		bt := newBatcher(context.Background(), ix, 2, 0)
		for i := range 10 {
			if bt.index(fmt.Sprintf("n:%d", i), "a word") != nil {
				break // the first batch failed: the rest are refused
			}
		}
		if err := bt.finish(nil); err == nil {
			t.Error("indexing into a closed index: no error")
		}
	})
	t.Run("stopped", func(t *testing.T) {
		ix := textIndex(t)
		ctx, cancel := context.WithCancel(context.Background())
		bt := newBatcher(ctx, ix, 2, 0)
		if err := bt.index("n:1", "a word"); err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := bt.index("n:2", "a word"); !errors.Is(err, context.Canceled) {
			t.Errorf("a full batch after the context is done: %v", err)
		}
		if err := bt.finish(nil); !errors.Is(err, context.Canceled) {
			t.Errorf("finish after the context is done: %v", err)
		}
		if n, _ := ix.DocCount(); n != 0 {
			t.Errorf("%d documents indexed after the context was done", n)
		}
	})
	t.Run("the producer's error", func(t *testing.T) {
		ix := textIndex(t)
		bt := newBatcher(context.Background(), ix, 5, 0)
		bt.index("n:1", "a word")
		stop := errors.New("a block could not be read")
		if err := bt.finish(stop); err != stop {
			t.Errorf("finish(stop) = %v", err)
		}
		if n, _ := ix.DocCount(); n != 0 {
			t.Errorf("the partial batch was indexed after the documents stopped coming: %d documents", n)
		}
	})
}

// A turn's documents are indexed in batches of turns in order, and Scorch
// looks each id of a new batch up in every earlier segment whose last id
// is above it. The ids of turns and of their passages sort as the turns
// do, so that a later turn's id is above every earlier one's and none is
// looked up; and a hit on either reads back as its turn or passage.
func TestTurnDocIDsSortAsTurns(t *testing.T) {
	turns := []int{0, 1, 9, 10, 99, 100, 999, 1000, 9999, 10000, 38911, 1_000_000, 999_999_999, 1<<31 - 1}
	var ids []string
	for _, n := range turns {
		ids = append(ids, turnDocID(n), passageDocID(n, Span{Start: 0, End: 480}), passageDocID(n, Span{Start: 1200, End: 1900}))
	}
	for i := 1; i < len(ids); i++ {
		if ids[i-1] >= ids[i] {
			t.Errorf("%q is not below %q, which comes after it", ids[i-1], ids[i])
		}
	}
	for _, n := range turns {
		h, ok := hitOf(turnDocID(n), 1)
		if got, err := strconv.Atoi(h.key); !ok || h.kind != kindTurn || err != nil || got != n {
			t.Errorf("turn %d's id %q reads back as %+v", n, turnDocID(n), h)
		}
		span := Span{Start: 12, End: 345}
		h, ok = hitOf(passageDocID(n, span), 1)
		got, p, pok := parsePassage(h.key)
		if !ok || h.kind != kindPassage || !pok || got != n || p != span {
			t.Errorf("a passage of turn %d, id %q, reads back as %+v", n, passageDocID(n, span), h)
		}
	}
}
