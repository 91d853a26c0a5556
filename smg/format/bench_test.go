package format_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

// The benchmarks read a memory of real conversation: the turns of
// ../shared/bench/locomo-dev.json (or the file SMG_BENCH_LOCOMO names),
// repeated to 10,000 turns in blocks of 50, with a graph of one node per 5
// turns and 4 edges per node. The graph is synthetic (the engine that
// builds graphs comes later); the archive, which is most of a file, is
// real text.
//
//	go test ./smg/format -run '^$' -bench . -benchmem

var benchDoc = sync.OnceValues(func() (*spec.Document, error) {
	raw, err := os.ReadFile(smgtest.LoCoMoPath())
	if err != nil {
		return nil, err
	}
	var samples []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(raw, &samples); err != nil {
		return nil, err
	}
	type turn struct{ Speaker, DiaID, Text string }
	var texts []turn
	for _, s := range samples {
		for i := 1; ; i++ {
			session, ok := s.Conversation[fmt.Sprintf("session_%d", i)]
			if !ok {
				break
			}
			var ts []struct {
				Speaker string `json:"speaker"`
				DiaID   string `json:"dia_id"`
				Text    string `json:"text"`
			}
			if err := json.Unmarshal(session, &ts); err != nil {
				return nil, err
			}
			for _, t := range ts {
				texts = append(texts, turn{t.Speaker, t.DiaID, t.Text})
			}
		}
	}
	const n = 10_000
	t0 := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	turns := make([]spec.Turn, n)
	for i := range turns {
		t := texts[i%len(texts)]
		turns[i] = spec.Turn{Turn: i + 1, ExternalID: t.DiaID, Timestamp: t0.Add(time.Duration(i) * time.Minute), Speaker: t.Speaker, Role: spec.RoleUser, Content: t.Text}
	}
	doc := spec.New("bench", t0)
	doc.Metadata.TotalExchanges = n
	if doc.Metadata.TranscriptBytes, err = smgtest.TranscriptBytes(turns); err != nil {
		return nil, err
	}
	for i := 0; i < n; i += 50 {
		b, err := smgtest.Block(fmt.Sprintf("block-%04d", i/50+1), turns[i:i+50])
		if err != nil {
			return nil, err
		}
		b.Summary = turns[i].Content
		doc.DeepArchive.Blocks = append(doc.DeepArchive.Blocks, b)
	}
	doc.WorkingMemory.RecentContext = turns[n-10:]
	for i := 0; i < n/5; i++ {
		words := strings.Fields(turns[i*5].Content)
		label := strings.Join(words[:min(3, len(words))], " ")
		doc.SemanticGraph.Nodes = append(doc.SemanticGraph.Nodes, spec.Node{
			ID: fmt.Sprintf("concept-%05d", i), Type: spec.NodeConcept, Label: label,
			Description: turns[i*5+1].Content, Confidence: 0.8, Importance: float64(i%100) / 100,
			Activation: 0.5, Version: 1, Mentions: []int{i*5 + 1, i*5 + 3, i*5 + 5},
			FirstMentioned: i*5 + 1, LastMentioned: i*5 + 5,
		})
		for k := 1; k <= 4; k++ {
			doc.SemanticGraph.Edges = append(doc.SemanticGraph.Edges, spec.Edge{
				From: fmt.Sprintf("concept-%05d", i), To: fmt.Sprintf("concept-%05d", (i+k*37)%(n/5)),
				Relation: spec.RelRelatedTo, Strength: 0.25 * float64(k),
			})
		}
	}
	return doc, nil
})

func loadBench(b *testing.B) *spec.Document {
	doc, err := benchDoc()
	if err != nil {
		b.Skipf("no benchmark data (%v): set SMG_BENCH_LOCOMO", err)
	}
	return doc
}

func BenchmarkMarshal(b *testing.B) {
	doc := loadBench(b)
	for _, tc := range []struct {
		name string
		opts *format.EncodeOptions
	}{
		{"brotli", nil},
		{"brotli-q6", &format.EncodeOptions{Quality: 6}},
		{"brotli-q7", &format.EncodeOptions{Quality: 7}},
		{"brotli-q11", &format.EncodeOptions{Quality: 11}},
		{"plain", &format.EncodeOptions{Plain: true}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			out, _ := format.Marshal(doc, tc.opts)
			js, _ := format.Marshal(doc, &format.EncodeOptions{Plain: true})
			b.SetBytes(int64(len(js)))
			for b.Loop() {
				if _, err := format.Marshal(doc, tc.opts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(out)), "file-bytes")
			b.ReportMetric(float64(len(out))/float64(doc.Metadata.TranscriptBytes), "ratio")
		})
	}
}

func BenchmarkUnmarshal(b *testing.B) {
	doc := loadBench(b)
	js, _ := format.Marshal(doc, &format.EncodeOptions{Plain: true})
	for _, tc := range []struct {
		name string
		opts *format.EncodeOptions
	}{
		{"brotli", nil},
		{"plain", &format.EncodeOptions{Plain: true}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			file, _ := format.Marshal(doc, tc.opts)
			b.SetBytes(int64(len(js)))
			for b.Loop() {
				if _, err := format.Unmarshal(file, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkValidate(b *testing.B) {
	doc := loadBench(b)
	file, _ := format.Marshal(doc, nil)
	b.Run("without-jsonld", func(b *testing.B) {
		for b.Loop() {
			if _, err := format.ValidateBytes(file, &format.ValidateOptions{SkipJSONLD: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("all", func(b *testing.B) {
		for b.Loop() {
			if _, err := format.ValidateBytes(file, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkContentHash(b *testing.B) {
	doc := loadBench(b)
	for b.Loop() {
		if _, err := format.ContentHash(doc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkArchiveTurn reads one turn of the 10,000-turn memory, the
// block that holds it not read before (a new archive view each time, of
// the document decoded once): blocks in the clear (version 1.1), and
// compressed one by one (1.0).
func BenchmarkArchiveTurn(b *testing.B) {
	doc := loadBench(b)
	old := *doc
	old.DeepArchive.Blocks = nil
	for _, blk := range doc.DeepArchive.Blocks {
		raw, err := graph.BlockData(blk, 1<<26)
		if err != nil {
			b.Fatal(err)
		}
		blk.Turns, blk.CompressedData = nil, archive.Compress(raw, archive.DefaultQuality)
		old.DeepArchive.Blocks = append(old.DeepArchive.Blocks, blk)
	}
	for _, tc := range []struct {
		name string
		doc  *spec.Document
	}{{"1.1-plain", doc}, {"1.0-compressed", &old}} {
		b.Run(tc.name, func(b *testing.B) {
			file, err := format.Marshal(tc.doc, nil)
			if err != nil {
				b.Fatal(err)
			}
			d, err := format.Unmarshal(file, nil)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for b.Loop() {
				n = (n + 7919) % 10_000
				if _, err := format.NewArchive(d, format.Limits{}).Turn(n + 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMarshalMemory is a writer's whole write: blocks in the clear,
// the document checked as it is written.
func BenchmarkMarshalMemory(b *testing.B) {
	doc := loadBench(b)
	js, _ := format.Marshal(doc, &format.EncodeOptions{Plain: true})
	b.SetBytes(int64(len(js)))
	for b.Loop() {
		if _, err := format.MarshalMemory(doc, nil); err != nil {
			b.Fatal(err)
		}
	}
}
