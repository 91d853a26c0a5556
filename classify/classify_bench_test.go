package classify

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchTexts returns the texts of LoCoMo's turns (../shared/bench), or
// skips.
func benchTexts(b *testing.B) []string {
	out, err := locomoTexts()
	if err != nil {
		b.Skip("no LoCoMo data:", err)
	}
	return out
}

// locomoTexts returns the texts of LoCoMo's turns (../shared/bench).
func locomoTexts() ([]string, error) { return samplesTexts("../../shared/bench/locomo-dev.json") }

// beamTexts returns the texts of BEAM's turns (../shared/bench), or skips:
// long project chats, answers of several kilobytes with code.
func beamTexts(b *testing.B) []string {
	out, err := samplesTexts("../../shared/bench/beam-dev.json")
	if err != nil {
		b.Skip("no BEAM data:", err)
	}
	return out
}

// samplesTexts returns the texts of the turns of a file in LoCoMo's
// layout.
func samplesTexts(name string) ([]string, error) {
	raw, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var samples []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(raw, &samples); err != nil {
		return nil, err
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
	return out, nil
}

// aiderTexts returns the exchanges of the aider histories of
// ../shared/bench (see aiderExchanges), or skips.
func aiderTexts(b *testing.B) []string {
	out, err := aiderExchanges()
	if err != nil {
		b.Skip(err)
	}
	return out
}

// aiderExchanges returns the exchanges of the aider histories of
// ../shared/bench, cut at the user's "#### " lines (a rough cut that keeps
// the prose, code and edit blocks of real coding chats).
func aiderExchanges() ([]string, error) {
	files, _ := filepath.Glob("../../shared/bench/aider-dev/[0-9]*.md")
	if len(files) == 0 {
		return nil, errors.New("no aider histories in ../shared/bench/aider-dev")
	}
	var out []string
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, strings.Split(string(raw), "\n#### ")...)
	}
	return out, nil
}

// benchSets are the texts the benchmarks of whole texts run on.
var benchSets = []struct {
	name  string
	texts func(*testing.B) []string
}{{"locomo", benchTexts}, {"aider", aiderTexts}, {"beam", beamTexts}}

// BenchmarkAnalyze classifies the turns of LoCoMo and the exchanges of the
// aider histories one by one; ns/op is per text, and MB/s says how fast
// for texts of any length.
func BenchmarkAnalyze(b *testing.B) {
	for _, bench := range benchSets {
		b.Run(bench.name, func(b *testing.B) {
			texts := bench.texts(b)
			size := 0
			for _, t := range texts {
				size += len(t)
			}
			b.SetBytes(int64(size / len(texts)))
			a := New()
			i := 0
			for b.Loop() {
				a.Analyze(Turn{Text: texts[i%len(texts)], Role: "user", Speaker: "Caroline"})
				i++
			}
		})
	}
}

// BenchmarkFindEntities finds the entities of the prose of LoCoMo's turns
// and of the aider exchanges, one text at a time, the prose split into
// words and sentences beforehand; ns/op is per text.
func BenchmarkFindEntities(b *testing.B) {
	for _, bench := range benchSets {
		b.Run(bench.name, func(b *testing.B) {
			type prose struct {
				p     string
				ws    []string
				offs  []int
				sents []sentence
			}
			var in []prose
			size := 0
			for _, t := range bench.texts(b) {
				var sb strings.Builder
				for _, g := range segments(t) {
					if !g.code {
						sb.WriteString(g.text)
						sb.WriteByte('\n')
					}
				}
				p := sb.String()
				ws, offs := words(p)
				in = append(in, prose{p, ws, offs, sentences(p)})
				size += len(p)
			}
			b.SetBytes(int64(size / len(in)))
			stop := New().stop
			i := 0
			for b.Loop() {
				x := in[i%len(in)]
				findEntities(x.p, x.ws, x.offs, x.sents, stop, "")
				i++
			}
		})
	}
}

// BenchmarkAnalyzeLong classifies one turn of about a MiB, written as one
// line (a paste, minified code) and as lines of a sentence each: the time
// of a turn grows with its length, not with its length squared (a line's
// start was found by scanning back from each entity, 10 s a MiB).
func BenchmarkAnalyzeLong(b *testing.B) {
	var line strings.Builder
	for i := 0; line.Len() < 1<<20; i++ {
		fmt.Fprintf(&line, "On day %d we moved the ledger service %d to PostgreSQL, because the old queue dropped %d payments. ", i, i%97, i%13)
	}
	for _, c := range []struct{ name, text string }{
		{"one-line", line.String()},
		{"lines", strings.ReplaceAll(line.String(), ". ", ".\n")},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			a := New()
			for b.Loop() {
				a.Analyze(Turn{Text: c.text, Role: "user"})
			}
		})
	}
}
