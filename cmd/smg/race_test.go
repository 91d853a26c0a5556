//go:build race

package main

// raceEnabled: the race detector slows ingest tenfold; tests that ingest
// megabytes take a sample under it.
const raceEnabled = true
