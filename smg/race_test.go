//go:build race

package smg_test

// raceEnabled: the race detector slows ingest tenfold; tests that ingest
// megabytes take a sample under it.
const raceEnabled = true
