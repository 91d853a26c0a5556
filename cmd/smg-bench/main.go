// Command smg-bench measures smg on real conversations. BENCHMARKS.md
// records what it printed, with the commands.
//
//	smg-bench ingest INPUT... [--json]
//
// ingest reads each input (any format smg ingest reads), builds one memory
// per conversation with the whole write path (classification, the graph,
// the vault, the archive), and reports turns per second on one core, the
// time to produce the document, peak memory, and nodes and edges per
// 1,000 turns.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
