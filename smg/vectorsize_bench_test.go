package smg_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/smg-memory/smg/restore/vec"

	"github.com/smg-memory/smg/classify/encoder"
	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/spec"
)

// BenchmarkVectorFileSize measures what a memory's vectors cost in its
// .smg file in each encoding of spec §8.3: the built-in encoder embeds
// the turns and passages of a conversation of the bench data (LoCoMo's
// first, of short turns, and BEAM's first chat, whose long answers make
// many passages), and the file is
// written without vectors, with them in int8 (as the builder keeps
// them), and with the same vectors in float32. It reports the vectors,
// the files' sizes, the bytes a vector adds to the compressed file, and
// what int8 costs in meaning: the largest loss of cosine between a vector
// and its int8 form, and how many of the 10 vectors nearest each of 200 other vectors
// int8 finds again. It skips without ../shared/bench.
func BenchmarkVectorFileSize(b *testing.B) {
	for _, input := range []string{"locomo", "beam"} {
		b.Run(input, func(b *testing.B) {
			name := "../../shared/bench/" + input + "-dev.json"
			if _, err := os.Stat(name); err != nil {
				b.Skip("no bench data")
			}
			res, err := importer.ReadFile(name, importer.Options{})
			if err != nil {
				b.Fatal(err)
			}
			raw, err := os.ReadFile(name)
			if err != nil {
				b.Fatal(err)
			}
			var samples []struct {
				QA []struct {
					Question string `json:"question"`
					Evidence []any  `json:"evidence"`
					Category any    `json:"category"`
				} `json:"qa"`
			}
			if err := json.Unmarshal(raw, &samples); err != nil {
				b.Fatal(err)
			}
			// The questions of categories 1 to 4 and their evidence turns,
			// the ids that name a turn exactly (the file's quirks left out).
			turns := res.Conversations[0].Turns
			byID := map[string]int{}
			for i, t := range turns {
				byID[t.ExternalID] = i + 1
			}
			var qs []question
			for _, qa := range samples[0].QA {
				if c, ok := qa.Category.(float64); !ok || c < 1 || c > 4 {
					continue
				}
				q := question{text: qa.Question}
				for _, e := range qa.Evidence {
					if s, ok := e.(string); ok && byID[s] > 0 {
						q.evidence = append(q.evidence, byID[s])
					}
				}
				if len(q.evidence) > 0 {
					qs = append(qs, q)
				}
			}
			vectorFileSize(b, turns, qs)
		})
	}
}

// question is a question of the bench data and its evidence turns.
type question struct {
	text     string
	evidence []int
}

func vectorFileSize(b *testing.B, turns []spec.Turn, qs []question) {
	enc, err := encoder.New()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		m := smg.New(&smg.Options{Embedder: enc})
		if _, err := m.IngestAll(ctx, turns); err != nil {
			b.Fatal(err)
		}
		doc := m.Document()
		m.Close()
		vi := doc.DeepArchive.VectorIndex
		if vi == nil || vi.Encoding != spec.EncodingInt8 {
			b.Fatalf("vector index %+v", vi)
		}
		// The same texts embedded again, kept in float32.
		content := map[int]string{}
		if err := graph.EachTurn(doc, nil, func(t spec.Turn) error { content[t.Turn] = t.Content; return nil }); err != nil {
			b.Fatal(err)
		}
		texts := make([]string, len(vi.Embeddings))
		for i, e := range vi.Embeddings {
			texts[i] = content[e.Turn]
			if e.End > 0 {
				texts[i] = texts[i][e.Start:e.End]
			}
		}
		vecs, err := enc.Embed(ctx, texts)
		if err != nil {
			b.Fatal(err)
		}
		f32 := *vi
		f32.Encoding = ""
		f32.Embeddings = slices.Clone(vi.Embeddings)
		for i := range f32.Embeddings {
			f32.Embeddings[i].Vector = spec.EncodeVector(vecs[i])
		}
		size := func(vi *spec.VectorIndex) float64 {
			d := *doc
			d.DeepArchive.VectorIndex = vi
			raw, err := format.Marshal(&d, nil)
			if err != nil {
				b.Fatal(err)
			}
			return float64(len(raw))
		}
		n := float64(len(vi.Embeddings))
		none, i8, f := size(nil), size(vi), size(&f32)
		b.ReportMetric(n, "vectors")
		b.ReportMetric(none, "smg-bytes-none")
		b.ReportMetric(i8, "smg-bytes-int8")
		b.ReportMetric(f, "smg-bytes-float32")
		b.ReportMetric((i8-none)/n, "file-bytes/vector-int8")
		b.ReportMetric((f-none)/n, "file-bytes/vector-float32")

		// What int8 keeps of the vectors' meaning.
		rows := func(enc string, es []spec.Embedding) [][]float32 {
			out := make([][]float32, len(es))
			for i, e := range es {
				v, err := spec.DecodeVectorAs(enc, vi.Dimensions, e.Vector)
				if err != nil {
					b.Fatal(err)
				}
				out[i] = vec.Unit(v)
			}
			return out
		}
		exact, quant := rows("", f32.Embeddings), rows(spec.EncodingInt8, vi.Embeddings)
		worst := 1.0
		for i := range exact {
			worst = min(worst, float64(vec.Dot(exact[i], quant[i])))
		}
		b.ReportMetric(1-worst, "max-cosine-loss-int8")
		r := rand.New(rand.NewPCG(1, 2))
		found := 0.0
		const queries, k = 200, 10
		for range queries {
			q := exact[r.IntN(len(exact))]
			a, c := nearest(q, exact, k), nearest(q, quant, k)
			for _, x := range a {
				if slices.Contains(c, x) {
					found++
				}
			}
		}
		b.ReportMetric(found/(queries*k), "top10-overlap-int8")

		// The vectors alone as a retriever: the share of each question's
		// evidence turns among the 10 turns nearest it, a turn as near as
		// its nearest vector (whole or passage).
		qtexts := make([]string, len(qs))
		for i, q := range qs {
			qtexts[i] = q.text
		}
		qvecs, err := enc.Embed(ctx, qtexts)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range []struct {
			name string
			rows [][]float32
		}{{"float32", exact}, {"int8", quant}} {
			var sum float64
			for i, q := range qs {
				top := nearestTurns(vec.Unit(qvecs[i]), c.rows, vi.Embeddings, 10)
				hit := 0
				for _, e := range q.evidence {
					if slices.Contains(top, e) {
						hit++
					}
				}
				sum += float64(hit) / float64(len(q.evidence))
			}
			b.ReportMetric(sum/float64(len(qs)), "vector-recall@10-"+c.name)
		}
		b.ReportMetric(float64(len(qs)), "questions")
	}
}

// nearestTurns returns the k turns nearest q, each as near as the nearest
// of its rows; es says the turn of each row.
func nearestTurns(q []float32, rows [][]float32, es []spec.Embedding, k int) []int {
	best := map[int]float64{}
	for i, r := range rows {
		c := float64(vec.Dot(q, r))
		if old, ok := best[es[i].Turn]; !ok || c > old {
			best[es[i].Turn] = c
		}
	}
	turns := make([]int, 0, len(best))
	for t := range best {
		turns = append(turns, t)
	}
	slices.SortFunc(turns, func(a, b int) int {
		switch {
		case best[a] > best[b]:
			return -1
		case best[a] < best[b]:
			return 1
		}
		return a - b
	})
	return turns[:min(k, len(turns))]
}

// BenchmarkVectorBytes measures the bytes of one random 512-dimensional
// vector in each encoding: in base64 in the JSON, and in a file of 2,000
// of them Brotli-compressed at the writer's quality.
func BenchmarkVectorBytes(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	vecs := make([][]float32, 2000)
	for i := range vecs {
		vecs[i] = make([]float32, 512)
		for j := range vecs[i] {
			vecs[i][j] = float32(r.NormFloat64())
		}
		vecs[i] = vec.Unit(vecs[i])
	}
	for b.Loop() {
		for _, encoding := range []string{spec.EncodingFloat32, spec.EncodingInt8} {
			doc := spec.New("v", mergeClock())
			doc.Metadata.TotalExchanges = 0
			vi := &spec.VectorIndex{Enabled: true, Model: "m", Dimensions: 512, Encoding: encoding}
			for i, v := range vecs {
				e := spec.Embedding{Turn: i + 1, Vector: spec.EncodeVector(v)}
				if encoding == spec.EncodingInt8 {
					e.Vector = spec.EncodeVectorInt8(v)
				}
				vi.Embeddings = append(vi.Embeddings, e)
			}
			js, err := spec.MarshalCanonical(vi)
			if err != nil {
				b.Fatal(err)
			}
			doc.DeepArchive.VectorIndex = vi
			raw, err := format.Marshal(doc, nil)
			if err != nil {
				b.Fatal(err)
			}
			empty := spec.New("v", mergeClock())
			base, _ := format.Marshal(empty, nil)
			b.ReportMetric(float64(len(js))/2000, "json-bytes/vector-"+encoding)
			b.ReportMetric(float64(len(raw)-len(base))/2000, "file-bytes/vector-"+encoding)
		}
	}
}

// nearest returns the indexes of the k rows nearest q.
func nearest(q []float32, rows [][]float32, k int) []int {
	idx := make([]int, len(rows))
	score := make([]float64, len(rows))
	for i, r := range rows {
		idx[i], score[i] = i, float64(vec.Dot(q, r))
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case score[a] > score[b]:
			return -1
		case score[a] < score[b]:
			return 1
		}
		return a - b
	})
	return idx[:k]
}
