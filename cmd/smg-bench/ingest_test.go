package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestIngestReport(t *testing.T) {
	var out, errs bytes.Buffer
	if status := run([]string{"ingest", "--json", "--procs", "2", "../../smg/examples/checkout.json", "../../smg/examples/personal.json"}, &out, &errs); status != 0 {
		t.Fatalf("status %d: %s", status, errs.String())
	}
	var rep ingestReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Inputs) != 2 || rep.GOMAXPROCS != 2 {
		t.Fatalf("%d inputs at GOMAXPROCS %d", len(rep.Inputs), rep.GOMAXPROCS)
	}
	tot := rep.Total
	if tot.Turns != 42 || tot.Conversations != 2 || tot.Artifacts != 2 || tot.Bytes == 0 {
		t.Errorf("total %+v", tot)
	}
	if tot.TurnsPerSec <= 0 || tot.PipelinePerS <= 0 || tot.PipelinePerS > tot.TurnsPerSec {
		t.Errorf("rates: ingest %v, with save %v", tot.TurnsPerSec, tot.PipelinePerS)
	}
	if n := tot.ByType["decision"] + tot.ByType["fact"]; n == 0 || tot.Nodes != sum(tot.ByType) {
		t.Errorf("nodes %d by type %v", tot.Nodes, tot.ByType)
	}
	if want := 1000 * float64(tot.Nodes) / 42; tot.NodesPer1k != want {
		t.Errorf("nodes per 1k turns %v, want %v", tot.NodesPer1k, want)
	}
	if rep.PeakRSSMB <= 0 {
		t.Error("no peak memory")
	}

	out.Reset()
	if status := run([]string{"ingest", "../../smg/examples/checkout.json"}, &out, &errs); status != 0 || !strings.Contains(out.String(), "checkout.json") {
		t.Errorf("table: status %d\n%s", status, out.String())
	}
	if status := run([]string{"ingest", "no-such-file.json"}, &out, &errs); status != 1 {
		t.Errorf("a missing input: status %d", status)
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// TestIngestStreamed: one memory built once from a streamed input is the
// memory built from the input read whole.
func TestIngestStreamed(t *testing.T) {
	const input = "../../smg/importer/testdata/claude-export.json"
	whole, err := measureIngest(input, 2, true, "")
	if err != nil {
		t.Fatal(err)
	}
	streamed, err := measureIngest(input, 1, true, "")
	if err != nil {
		t.Fatal(err)
	}
	if whole.Conversations != 2 || streamed.Conversations != 2 || streamed.Turns != whole.Turns || streamed.TextBytes != whole.TextBytes ||
		streamed.Nodes != whole.Nodes || streamed.Edges != whole.Edges || streamed.Artifacts != whole.Artifacts || streamed.Bytes == 0 {
		t.Errorf("streamed %+v\nwhole %+v", streamed, whole)
	}
	if streamed.TurnsPerSec <= 0 || streamed.Nodes == 0 {
		t.Errorf("streamed %+v", streamed)
	}
}
