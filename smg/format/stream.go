package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/smg/internal/envelope"
	"github.com/smg-memory/smg/spec"
)

// piece is a long list or object of a document, which a writer writes,
// and checks, one element at a time: the artifacts of the vault (which
// hold its code), the archive's blocks (its turns), the graph's edges and
// nodes.
type piece struct {
	path   []string // member names from the top
	schema string   // of one element, or of one member's value
	object bool     // an object, whose members' names are ids
}

var pieces = []piece{
	{[]string{"artifactVault", "artifacts"}, "artifact", true},
	{[]string{"deepArchive", "blocks"}, "block", false},
	{[]string{"semanticGraph", "edges"}, "edge", false},
	{[]string{"semanticGraph", "nodes"}, "node", false},
}

// at is the JSON path of p.
func (p piece) at() string { return path(p.path[0], p.path[1]) }

// writeCanonical writes the compact canonical JSON of doc to w, the
// document's pieces one element at a time: each is encoded (and, with
// clear, a block held compressed is decompressed) only while it is
// written, so that the text of a memory's turns, code and graph is never
// all in memory at once. The bytes are those of canonicalJSON(doc). head,
// when set, is given the text without the pieces (each empty) before
// anything is written; elem is given the text of each element after it is
// written: the piece's index in pieces, the element's index, and for an
// object the member's name.
func writeCanonical(w io.Writer, doc *spec.Document, clear bool, head func(js []byte), elem func(p, i int, name string, js []byte)) error {
	if err := checkEncodable(doc); err != nil {
		return err
	}
	d := canonicalOrder(doc)
	rest := *d
	rest.ArtifactVault.Artifacts = map[string]spec.Artifact{}
	rest.DeepArchive.Blocks = []spec.ArchiveBlock{}
	rest.SemanticGraph.Edges, rest.SemanticGraph.Nodes = []spec.Edge{}, []spec.Node{}
	js, err := spec.MarshalCanonical(&rest)
	if err != nil {
		return fmt.Errorf("smg: encoding: %w", err)
	}
	offsets := make([]int, len(pieces))
	for k, p := range pieces {
		if offsets[k], err = inside(js, p.path); err != nil {
			return fmt.Errorf("smg: encoding: %w", err)
		}
	}
	order := []int{0, 1, 2, 3}
	slices.SortFunc(order, func(a, b int) int { return offsets[a] - offsets[b] })
	if head != nil {
		head(js)
	}
	// put writes the i-th element of piece k, v, with its comma and, for
	// an object, its name.
	put := func(k, i int, name string, v any) error {
		bj, err := spec.MarshalCanonical(v)
		if err != nil {
			return fmt.Errorf("smg: encoding: %w", err)
		}
		var pre []byte
		if i > 0 {
			pre = append(pre, ',')
		}
		if pieces[k].object {
			q, err := spec.MarshalCanonical(name)
			if err != nil {
				return fmt.Errorf("smg: encoding: %w", err)
			}
			pre = append(append(pre, q...), ':')
		}
		if len(pre) > 0 {
			if _, err := w.Write(pre); err != nil {
				return err
			}
		}
		if _, err := w.Write(bj); err != nil {
			return err
		}
		if elem != nil {
			elem(k, i, name, bj)
		}
		return nil
	}
	last := 0
	for _, k := range order {
		if _, err := w.Write(js[last:offsets[k]]); err != nil {
			return err
		}
		last = offsets[k]
		switch k {
		case 0:
			ids := slices.Collect(maps.Keys(d.ArtifactVault.Artifacts))
			slices.SortFunc(ids, compareUTF16)
			for i, id := range ids {
				if err := put(k, i, id, d.ArtifactVault.Artifacts[id]); err != nil {
					return err
				}
			}
		case 1:
			for i, b := range d.DeepArchive.Blocks {
				if clear && b.Turns == nil {
					// A block is decompressed up to the size it claims: no
					// more than a reader takes.
					if b.UncompressedSize > DefaultLimits.MaxBlockSize {
						return fmt.Errorf("smg: encoding: archive block %s: %w", b.ID, &LimitError{Limit: "MaxBlockSize", Max: DefaultLimits.MaxBlockSize})
					}
					if b, err = graph.PlainBlock(b); err != nil {
						return fmt.Errorf("smg: encoding: archive block %s: %w", b.ID, err)
					}
				}
				if err := put(k, i, "", b); err != nil {
					return err
				}
			}
		case 2:
			for i, e := range d.SemanticGraph.Edges {
				if err := put(k, i, "", e); err != nil {
					return err
				}
			}
		case 3:
			for i, n := range d.SemanticGraph.Nodes {
				if err := put(k, i, "", n); err != nil {
					return err
				}
			}
		}
	}
	_, err = w.Write(js[last:])
	return err
}

// inside returns the offset in js, a document's JSON, just inside the '['
// or '{' of the value at path (member names from the top).
func inside(js []byte, path []string) (int, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(js))
	for _, name := range path {
		if !descendMember(dec, name) {
			return 0, fmt.Errorf("no %s in the document", strings.Join(path, "."))
		}
	}
	if k := dec.PeekKind(); k != '[' && k != '{' {
		return 0, fmt.Errorf("%s is not a list or an object", strings.Join(path, "."))
	}
	if _, err := dec.ReadToken(); err != nil {
		return 0, err
	}
	return int(dec.InputOffset()), nil
}

// checkEncodable checks what encoding needs of doc: a version this writer
// writes, and the document's type and context.
func checkEncodable(doc *spec.Document) error {
	if doc == nil {
		return errors.New("smg: encoding a nil document")
	}
	major, _, err := spec.ParseVersion(doc.Version)
	switch {
	case err != nil:
		return fmt.Errorf("smg: encoding: %w", err)
	case major != spec.MajorVersion:
		return fmt.Errorf("smg: encoding: %w %q", ErrUnsupportedVersion, doc.Version)
	case doc.Type != spec.DocumentType || doc.Context != spec.ContextIRI:
		return fmt.Errorf(`smg: encoding: "@type" must be %q and "@context" %q`, spec.DocumentType, spec.ContextIRI)
	}
	return nil
}

// counter counts the bytes written through it.
type counter struct {
	w io.Writer
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// metablocks ends a Brotli meta-block every metablockBytes of text: left
// to itself, the encoder gathers up to twice its window of text (8 MiB)
// before it compresses any, and takes twice that for its output, 24 MiB
// more for a large memory's write. A meta-block of 1 MiB costs a few bytes
// more than one of 8 MiB, as its codes are its own.
type metablocks struct {
	bw *brotli.Writer
	n  int
}

const metablockBytes = 1 << 20

func (m *metablocks) Write(p []byte) (int, error) {
	n, err := m.bw.Write(p)
	if m.n += n; err == nil && m.n >= metablockBytes {
		m.n, err = 0, m.bw.Flush()
	}
	return n, err
}

// encodeDocument returns the bytes of doc's file as opts say, writing its
// canonical JSON straight into the compressor (see [writeCanonical]). With
// clear, blocks held compressed are written in the clear; with checked,
// doc is checked as [checkWritable] checks it, piece by piece while it is
// written, and nothing is returned unless it passes. An indented file is
// made whole, as before: it is for people to read, and small.
func encodeDocument(doc *spec.Document, opts *EncodeOptions, clear, checked bool) ([]byte, error) {
	if opts == nil {
		opts = &EncodeOptions{}
	}
	if opts.Indent {
		if clear {
			d := *doc
			d.DeepArchive.Blocks = slices.Clone(doc.DeepArchive.Blocks)
			graph.PlainBlocks(&d)
			doc = &d
		}
		var check func(*spec.Document, []byte) (counts, error)
		if checked {
			check = checkWritable
		}
		return marshal(doc, opts, check)
	}
	q := opts.Quality
	if q == 0 {
		q = DefaultQuality
	}
	if !opts.Plain && (q < 1 || q > 11) {
		return nil, fmt.Errorf("smg: Brotli quality %d is not in 1..11", q)
	}
	var out bytes.Buffer
	var sink io.Writer = &out
	var bw *brotli.Writer
	if !opts.Plain {
		// Its window keeps the first byte off '{' (§9.1), as
		// archive.Compress's does.
		bw = brotli.NewWriterOptions(&out, brotli.WriterOptions{Quality: q, LGWin: archive.Window})
		sink = &metablocks{bw: bw}
	}
	text := &counter{w: sink}
	var w io.Writer = text
	var c *streamCheck
	var head func([]byte)
	var elem func(int, int, string, []byte)
	if checked {
		c = startCheck(doc)
		w, head, elem = io.MultiWriter(text, c.pipe), c.head, c.elem
	}
	err := writeCanonical(w, doc, clear, head, elem)
	if err == nil && bw != nil {
		err = bw.Close()
	}
	if c != nil {
		if cerr := c.wait(text.n, int64(out.Len())); cerr != nil {
			return nil, cerr
		}
	}
	if err != nil {
		return nil, err
	}
	b := out.Bytes()
	if opts.Password != nil {
		return envelope.Seal(b, opts.Password, opts.sealOptions())
	}
	return b, nil
}

// streamCheck is [checkWritable] of a document whose text is written one
// piece at a time: the limits are scanned from a pipe, the schema checks
// the text without the pieces and then each element on its own, and the
// rules beyond the schema run on the document.
type streamCheck struct {
	pipe     *io.PipeWriter
	scanned  chan scanned
	semantic chan []Problem
	elems    chan elemText
	checked  chan []Problem // the elements' problems
	// headProbs are the schema's problems of the text without the pieces.
	headProbs []Problem
}

// scanned is what a scan of the text counted, and its error.
type scanned struct {
	counts
	err error
}

// elemText is the text of the i-th element of piece p, named name in an
// object.
type elemText struct {
	p, i int
	name string
	js   []byte
}

func startCheck(doc *spec.Document) *streamCheck {
	pr, pw := io.Pipe()
	c := &streamCheck{
		pipe:     pw,
		scanned:  make(chan scanned, 1),
		semantic: make(chan []Problem, 1),
		elems:    make(chan elemText, 16),
		checked:  make(chan []Problem, 1),
	}
	go func() {
		n, err := scanCounts(pr)
		_, _ = io.Copy(io.Discard, pr) // the writer does not wait on a scan that stopped
		c.scanned <- scanned{n, err}
	}()
	go func() { c.semantic <- semanticProblems(doc, mostLimits) }()
	go func() {
		var probs []Problem
		for e := range c.elems {
			p := pieces[e.p]
			if p.object {
				probs = append(probs, memberProblems(p.schema, p.at(), e.name, e.js)...)
			} else {
				probs = append(probs, elementProblems(p.schema, e.js, fmt.Sprintf("%s[%d]", p.at(), e.i))...)
			}
		}
		c.checked <- probs
	}()
	return c
}

// head takes the document's text without its pieces, and checks it
// against the schema before any of the text is written (it is small: the
// long lists are the pieces), while the rules beyond the schema run beside
// the encoding.
func (c *streamCheck) head(js []byte) {
	c.headProbs = schemaProblems(js)
}

// elem takes the text of an element of a piece.
func (c *streamCheck) elem(p, i int, name string, js []byte) {
	c.elems <- elemText{p, i, name, js}
}

// wait ends the check of a text of n bytes, in a file of size bytes
// before encryption, and returns what [checkWritable] and [fitsFile]
// would.
func (c *streamCheck) wait(n, size int64) error {
	c.pipe.Close()
	close(c.elems)
	sc, elems, semantic := <-c.scanned, <-c.checked, <-c.semantic
	if sc.err != nil {
		return overLimit(sc.err)
	}
	sc.text = n
	if err := fitsFile(sc.counts, size); err != nil {
		return err
	}
	probs := append(append(c.headProbs, elems...), semantic...)
	if len(probs) > 0 {
		return &ValidationError{Problems: probs}
	}
	return nil
}
