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
//
//	smg-bench size INPUT... [--json] [--count N]
//
// size builds the memory of each conversation of each input and reports
// what its .smg file costs against the raw transcript (the turns as
// canonical JSON) compressed by Brotli at quality 11 and by xz -9, against
// the input format's target; the median times to save, decode and open
// the file; each section's share of the file; and how much the artifact
// vault's version chains save, and the code the file keeps once, in the
// turns.
//
//	smg-bench recall --data FILE [--budgets 500,1000,2000,4000] [--tokenizer cl100k|o200k|estimate] [--one] [--json]
//
// recall builds the memory of each conversation of a LoCoMo-format file and
// reports, per question category and budget, the share of each question's
// evidence turns that its context includes, against BM25 over single turns
// and the most recent turns at the same budget; and Context's latency.
// With --one the conversations are one memory, one after the other, and
// every question is asked of it.
//
//	smg-bench extract INPUT... [--labels FILE] [--recall-labels FILE] [--sample 60] [--turns 60] [--todo FILE] [--json]
//
// extract counts what the graph extracts, by kind, and scores a fixed
// sample of items (precision) and of turns (recall) by the labels of
// testdata/labels; --todo writes what is left to label.
//
//	smg-bench recall-labels ANSWERS LABELS
//
// recall-labels adds a labeller's answers on the sample of turns, in plain
// words, to a recall labels file, their words hashed.
//
//	smg-bench plancov --data FILE --plans DIR [--threshold 0.5] [--json]
//
// plancov builds the memory of each chat of a BEAM file in the LoCoMo
// layout (beam-dev.json) and reports its plan coverage: the share of the
// bullets of the chat's plan (DIR/chat-NN.txt for the NN-th sample) that
// one of its typed nodes says by content words, as
// ../shared/bench/plancov.py measures it (package smg/extraction); per
// chat and for all, by category of bullet, with the typed nodes and their
// number per 1,000 turns.
//
//	smg-bench scale --data FILE [--repeat 16] [--smg PATH] [--dir DIR] [--recall=false] [--json]
//
// scale makes the chats of a BEAM file in the LoCoMo layout (beam-dev.json)
// one conversation, repeated, as a year of someone's work in one memory, and
// times each smg command a person would run on it (ingest, info, nodes,
// contexts without and with the index cache) from process start, with its
// peak memory; it reports what sits beside the file, warm contexts in a
// live process, and recall of the chats one memory each and all in one.
package main

import (
	"os"

	"github.com/smg-memory/smg/cmd/internal/memlimit"
	"github.com/smg-memory/smg/smg"
)

func main() {
	stop := func() {}
	if len(os.Args) > 1 && os.Args[1] == "ingest" {
		// smg ingest's memory policy, so that its peak memory is what
		// smg's would be.
		stop = memlimit.Start(memlimit.Floor, memlimit.Ratio)
	}
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// noVectors are the options of the memories the benchmarks build: without
// vectors, so that their figures stay those of the graph and the full
// text, comparable from run to run; the cost of the built-in encoder is
// measured by 'smg ingest' with and without --no-vectors.
var noVectors = &smg.Options{NoVectors: true}
