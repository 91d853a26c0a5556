package graph_test

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/spec"
)

func locomoTurns(t testing.TB) [][]spec.Turn {
	raw, err := os.ReadFile("../../shared/bench/locomo-dev.json")
	if err != nil {
		t.Skip(err)
	}
	var samples []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	json.Unmarshal(raw, &samples)
	var out [][]spec.Turn
	for _, s := range samples {
		var turns []spec.Turn
		for i := 1; ; i++ {
			sess, ok := s.Conversation[fmt.Sprintf("session_%d", i)]
			if !ok {
				break
			}
			var date string
			json.Unmarshal(s.Conversation[fmt.Sprintf("session_%d_date_time", i)], &date)
			ts, _ := time.Parse("3:04 pm on 2 January, 2006", date)
			var tt []struct{ Speaker, Dia_id, Text, Blip_caption string }
			json.Unmarshal(sess, &tt)
			for _, x := range tt {
				c := x.Text
				if x.Blip_caption != "" {
					c += "\n[shares a photo: " + x.Blip_caption + "]"
				}
				turns = append(turns, spec.Turn{Speaker: x.Speaker, Role: "user", ExternalID: x.Dia_id, Content: c, Timestamp: ts})
			}
		}
		out = append(out, turns)
	}
	return out
}

func TestZZLoCoMo(t *testing.T) {
	convs := locomoTurns(t)
	total := 0
	start := time.Now()
	var docs []*spec.Document
	for _, turns := range convs {
		b := graph.New(graph.Config{}, graph.Options{})
		for _, tu := range turns {
			if err := b.Add(tu); err != nil {
				t.Fatal(err)
			}
		}
		total += len(turns)
		docs = append(docs, b.Document())
	}
	el := time.Since(start)
	fmt.Printf("%d turns in %v: %.0f turns/s\n", total, el, float64(total)/el.Seconds())
	doc := docs[0]
	counts := map[spec.NodeType]int{}
	for _, n := range doc.SemanticGraph.Nodes {
		counts[n.Type]++
	}
	fmt.Println("conv 0:", len(doc.SemanticGraph.Nodes), "nodes", len(doc.SemanticGraph.Edges), "edges", counts)
	if err := smg.Validate(doc, &smg.ValidateOptions{SkipJSONLD: true}); err != nil {
		t.Error(err)
	}
	ns := doc.SemanticGraph.Nodes
	sort.Slice(ns, func(i, j int) bool { return ns[i].Importance > ns[j].Importance })
	shown := map[spec.NodeType]int{}
	for _, n := range ns {
		if shown[n.Type] >= 12 {
			continue
		}
		shown[n.Type]++
		fmt.Printf("%-9s imp=%.2f m=%d %q %v\n", n.Type, n.Importance, len(n.Mentions), n.Label, n.Metadata["kind"])
	}
}
