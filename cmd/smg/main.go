// Command smg inspects, validates, converts and encrypts .smg memory files
// (spec/smg-v1.md). It is a thin layer over package smg: each command parses
// its flags, makes one library call and prints text or JSON.
//
// Exit codes (see exitStatus in errors.go, the one place that maps errors
// to them):
//
//	0  success
//	1  any other failure: I/O, a model provider that fails, and the
//	   unexpected
//	2  usage error: unknown command or flag, missing argument, bad flag value
//	3  invalid input: not an smg file, unsupported version, malformed,
//	   truncated, over a limit, invalid, tampered, not encrypted (decrypt),
//	   already encrypted (encrypt), a differential file applied to another
//	   base (patch), conflicts without --prefer (merge)
//	4  password problem: none available, wrong, or the two entries differ
//
// The password of an encrypted file comes from the environment variable
// SMG_PASSWORD or, when it is unset or empty, from a prompt on the
// terminal; never from a flag. The optional model provider of embeddings
// comes from SMG_PROVIDER_URL, SMG_EMBED_MODEL and SMG_API_KEY (see
// provider.go).
//
// The commands that build a memory (ingest, add, watch, mcp) keep their
// heap within a quarter over what it holds live, and under 192 MiB while
// it holds less (see package memlimit); GOMEMLIMIT or GOGC in the
// environment replace that with Go's own policy.
package main

import "os"

func main() {
	os.Exit(newApp().run(os.Args[1:]))
}
