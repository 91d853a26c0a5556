package main

import (
	"testing"
	"time"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/importer"
)

// TestMeasureServe: the simulated users append every turn and ask their
// contexts, none fails, and the counts add up.
func TestMeasureServe(t *testing.T) {
	res, err := importer.ReadFile("../../smg/examples/checkout.json", importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := measureServe([][]smg.Turn{res.Conversations[0].Turns}, 3, 4, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Failed != 0 || r.TurnsAdded != 12 || r.Append.Calls != 12 || r.Context.Calls != 6 || r.Requests != 18 || r.PerSecond <= 0 {
		t.Errorf("%+v", r)
	}
	if r.Append.P50 <= 0 || r.Append.P99 < r.Append.P50 || r.Context.P99 < r.Context.P50 {
		t.Errorf("latencies %+v %+v", r.Append, r.Context)
	}
	// Paced, each user takes a pace a request: 6 requests, 5 paces at least.
	paced, err := measureServe([][]smg.Turn{res.Conversations[0].Turns}, 2, 4, 2, 20*time.Millisecond)
	if err != nil || paced.Failed != 0 || paced.Requests != 12 || paced.Seconds < 0.1 {
		t.Errorf("paced: %v %+v", err, paced)
	}
}
