//go:build race

package format_test

// raceEnabled: the race detector slows ingest tenfold; tests that ingest
// megabytes take a sample under it.
const raceEnabled = true
