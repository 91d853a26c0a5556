// Package format reads, writes and checks .smg files: the Semantic Memory
// Graph format, version 1.3 (and every file of 1.0, 1.1 and 1.2), that
// spec/smg-v1.md specifies. Package smg, the memory a chat client uses,
// builds on it; use this package to read, check, compare, patch or export
// a file without making a memory of it.
//
// A file holds one [spec.Document]. [Encode] and [Marshal] write it in the
// canonical form (spec §9.2): RFC 8785 JSON with set-like lists sorted,
// Brotli-compressed by default, optionally in an AES-256-GCM envelope under
// a password. [Decode] and [Unmarshal] read every form, check the format
// version first, and enforce [Limits] while they read, so that a hostile
// file fails with a typed error instead of exhausting memory. [WriteFile]
// replaces a file atomically, and only with a valid document; [LockFile]
// takes the lock every process that writes a memory file through smg
// takes. [Validate], [ValidateBytes] and [ValidateFile] check a document
// against the whole specification and report every problem with its JSON
// path. [ExpandJSONLD] and [NQuads] export it as linked data, offline;
// [Export] also as a Markdown report, Graphviz DOT or Cytoscape.js elements
// (never a collaborator's private part).
//
// Over time: [Diff] compares two versions of a memory, and [NewDelta] and
// [Patch] make and apply a differential file (spec §9.6); [Fork] and
// [Merge] branch a document and join branches again. [NewArchive] reads
// the deep archive a block at a time, [Artifacts] and [ArtifactContent]
// the vault, [Nodes] and [ShowNode] the graph.
//
// Errors wrap the sentinels of errors.go (ErrNotSMG, ErrUnsupportedVersion,
// ErrMalformed, ErrTruncated, ErrLimit, ErrInvalid, ErrPasswordRequired,
// ErrWrongPassword, ErrTampered…); test for them with errors.Is, and use
// errors.As for the detail of [*DecodeError], [*LimitError] and
// [*ValidationError].
//
// The functions of this package are safe for concurrent use; a
// [spec.Document] is not, and Encode does not modify the one it is given.
//
// # Backwards compatibility
//
// A reader of this package reads every 1.x document and keeps the members
// it does not know on a round trip (spec §9.3); it rejects other major
// versions with ErrUnsupportedVersion. A document written by this package
// keeps its version ([spec.New] makes one of [spec.Version], 1.3, and a
// file of 1.1 read and written back stays 1.1); its canonical JSON, and so
// its content hash, depend only on the document, not on the version of
// this package. Its Brotli bytes may change with the compressor's
// version: compare files by [ContentHash], not by their bytes.
//
// A file of 1.3 or later leaves out what its reader computes (spec
// §7.2.3): the content hashes of versions, artifacts and blocks, and the
// text of a version named by its place in a turn. A document read from
// such a file holds them, computed as it is read, and the writer leaves
// them out again, so that every other function sees one model whatever
// the file's version.
package format
