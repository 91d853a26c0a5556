package main

import (
	"os"
	"os/exec"
	"path/filepath"
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
	r, err := measureServe([][]smg.Turn{res.Conversations[0].Turns}, serveConfig{users: 3, turns: 4, every: 2})
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
	paced, err := measureServe([][]smg.Turn{res.Conversations[0].Turns}, serveConfig{users: 2, turns: 4, every: 2, pace: 20 * time.Millisecond})
	if err != nil || paced.Failed != 0 || paced.Requests != 12 || paced.Seconds < 0.1 {
		t.Errorf("paced: %v %+v", err, paced)
	}
}

// TestMeasureServePostgres: two smg serve processes on one PostgreSQL
// database ($SMG_TEST_POSTGRES), the second killed mid-run: its users go
// on on the first, no request fails, and no acknowledged turn is lost.
func TestMeasureServePostgres(t *testing.T) {
	admin := os.Getenv("SMG_TEST_POSTGRES")
	if admin == "" {
		t.Skip("no PostgreSQL server: set SMG_TEST_POSTGRES (.ci/run does)")
	}
	bin := filepath.Join(t.TempDir(), "smg")
	if out, err := exec.Command("go", "build", "-o", bin, "../smg").CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	res, err := importer.ReadFile("../../smg/examples/checkout.json", importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := measureServe([][]smg.Turn{res.Conversations[0].Turns}, serveConfig{users: 4, turns: 12, every: 3,
		pace: 40 * time.Millisecond, store: admin, servers: 2, kill: 200 * time.Millisecond, smg: bin})
	if err != nil {
		t.Fatal(err)
	}
	if r.Killed == 0 || r.Failed != 0 || r.Lost != 0 || r.TurnsAdded != 48 || r.Servers != 2 || r.PeakRSSMB <= 0 {
		t.Errorf("%+v", r)
	}
	t.Logf("%+v", r)
}
