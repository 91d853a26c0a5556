package graph

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/smg-memory/smg/spec"
)

// A summary a model wrote stays with its block when the memory is loaded
// and continued; the blocks sealed after it are extractive, and every
// block's keyPoints are the builder's.
func TestLoadKeepsModelSummaries(t *testing.T) {
	cfg := Config{BlockSize: 4}
	b := New(cfg, Options{})
	decide := func(b *Builder, n int) {
		for range n {
			k := b.Turns() + 1
			if err := b.Add(spec.Turn{Role: "user", Speaker: "Dana", Content: fmt.Sprintf("We decided to use carrier %c for the Rotterdam parcels.", 'A'+k)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	decide(b, 10)
	if b.Sealed() != 2 {
		t.Fatalf("Sealed() = %d after 10 turns of blocks of 4, want 2", b.Sealed())
	}
	if err := b.SetBlockSummary("block-0001", "  Dana ships the first parcels from Rotterdam.\n", "example-chat-1"); err != nil {
		t.Fatal(err)
	}
	before := b.Document()
	if got := before.DeepArchive.Blocks[0]; got.Summary != "Dana ships the first parcels from Rotterdam." || got.SummaryModel != "example-chat-1" {
		t.Fatalf("block 1: summary %q by %q", got.Summary, got.SummaryModel)
	}

	loaded, err := Load(before, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	decide(loaded, 6)
	after := loaded.Document()
	if len(after.DeepArchive.Blocks) != 4 {
		t.Fatalf("%d blocks, want 4", len(after.DeepArchive.Blocks))
	}
	for i, blk := range after.DeepArchive.Blocks {
		want := before.DeepArchive.Blocks[min(i, 1)]
		switch i {
		case 0:
			if blk.Summary != want.Summary || blk.SummaryModel != want.SummaryModel {
				t.Errorf("block 1 after loading: summary %q by %q, want %q by %q", blk.Summary, blk.SummaryModel, want.Summary, want.SummaryModel)
			}
		case 1:
			if blk.Summary != want.Summary || blk.SummaryModel != "" {
				t.Errorf("block 2 after loading: summary %q by %q, want the extractive %q", blk.Summary, blk.SummaryModel, want.Summary)
			}
		default:
			if blk.SummaryModel != "" || blk.Summary == "" {
				t.Errorf("block %d: summary %q by %q, want an extractive one", i+1, blk.Summary, blk.SummaryModel)
			}
		}
		if len(blk.KeyPoints) == 0 {
			t.Errorf("block %d has no key points", i+1)
		}
	}
	if fmt.Sprint(after.DeepArchive.Blocks[0].KeyPoints) != fmt.Sprint(before.DeepArchive.Blocks[0].KeyPoints) {
		t.Errorf("block 1's key points changed: %q, then %q", before.DeepArchive.Blocks[0].KeyPoints, after.DeepArchive.Blocks[0].KeyPoints)
	}
}

// A model's summary of a block whose turns are other (another
// contentHash) is not carried over: it does not describe them.
func TestLoadDropsSummaryOfOtherTurns(t *testing.T) {
	b := New(Config{BlockSize: 4}, Options{})
	addTurns(t, b, 8)
	doc := b.Document()
	doc.DeepArchive.Blocks[0].Summary, doc.DeepArchive.Blocks[0].SummaryModel = "Something else entirely.", "example-chat-1"
	doc.DeepArchive.Blocks[1].Summary, doc.DeepArchive.Blocks[1].SummaryModel = "The second block.", "example-chat-1"
	doc.DeepArchive.Blocks[0].ContentHash = doc.DeepArchive.Blocks[1].ContentHash
	b.KeepModelSummaries(doc.DeepArchive.Blocks)
	got := b.Document().DeepArchive.Blocks
	if got[0].SummaryModel != "" || got[0].Summary == "Something else entirely." {
		t.Errorf("a summary of other turns was kept: %q by %q", got[0].Summary, got[0].SummaryModel)
	}
	if got[1].Summary != "The second block." || got[1].SummaryModel != "example-chat-1" {
		t.Errorf("block 2: %q by %q, want the model's", got[1].Summary, got[1].SummaryModel)
	}
}

func TestSetBlockSummaryRefuses(t *testing.T) {
	b := New(Config{BlockSize: 4}, Options{})
	addTurns(t, b, 6)
	for _, c := range []struct{ id, text, model string }{
		{"block-0001", " \n\t", "m"},
		{"block-0001", "ok", ""},
		{"block-0001", "bad \xff", "m"},
		{"block-0002", "the open block", "m"},
		{"block-0009", "no such block", "m"},
	} {
		if err := b.SetBlockSummary(c.id, c.text, c.model); !errors.Is(err, ErrInvalidSummary) {
			t.Errorf("SetBlockSummary(%q, %q, %q) = %v, want ErrInvalidSummary", c.id, c.text, c.model, err)
		}
	}
	if got := b.Document().DeepArchive.Blocks[0]; got.SummaryModel != "" {
		t.Errorf("a refused summary was kept: %q by %q", got.Summary, got.SummaryModel)
	}
}

// The working memory's summary names the three concepts of most
// activation times importance, ties by id: those a sort of them all puts
// first, whatever the scores and however many tie.
func TestSummaryFocus(t *testing.T) {
	var turns []spec.Turn
	for _, name := range strings.Fields("Redis Kafka Postgres Nginx Grafana Terraform Ansible Jenkins") {
		for _, text := range []string{"We set up %s for the shop today.", "%s keeps failing on the staging box.", "I fixed the %s settings, and %s works now."} {
			turns = append(turns, spec.Turn{Role: "user", Speaker: "Dana", Content: strings.ReplaceAll(text, "%s", name)})
		}
	}
	b := builder(t, Config{}, turns)
	doc := b.Document()
	var concepts []int
	for i, n := range doc.SemanticGraph.Nodes {
		if n.Type == spec.NodeConcept && b.info[n.ID] != nil && b.info[n.ID].kind != "person" {
			concepts = append(concepts, i)
		}
	}
	if len(concepts) < 5 {
		t.Fatalf("%d concepts: too few to choose three of", len(concepts))
	}
	r := rand.New(rand.NewPCG(5, 6))
	for round := range 200 {
		for _, i := range concepts {
			n := &doc.SemanticGraph.Nodes[i]
			// Few values, so that scores tie often.
			n.Activation, n.Importance = float64(r.IntN(3))/2, float64(1+r.IntN(2))/2
		}
		sorted := make([]spec.Node, 0, len(concepts))
		for _, i := range concepts {
			sorted = append(sorted, doc.SemanticGraph.Nodes[i])
		}
		slices.SortFunc(sorted, func(x, y spec.Node) int { return focusOrder(&x, &y) })
		var names []string
		for _, n := range sorted[:3] {
			names = append(names, n.Label)
		}
		want := "Focus: " + strings.Join(names, ", ") + "."
		if got := b.summary(doc); !strings.HasPrefix(got, want) {
			t.Fatalf("round %d: %q, want it to begin %q", round, got, want)
		}
	}
}
