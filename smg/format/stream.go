package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/smg/internal/envelope"
	"github.com/smg-memory/smg/spec"
)

// writeCanonical writes the compact canonical JSON of doc to w, the
// archive's blocks one at a time: each is encoded (and, with clear, a block
// held compressed is decompressed) only while it is written, so that the
// text of a memory's turns is never all in memory at once. The bytes are
// those of canonicalJSON(doc). head, when set, is given the text without
// the blocks (an empty list in their place) before anything is written;
// block is given each block's text after it is written.
func writeCanonical(w io.Writer, doc *spec.Document, clear bool, head func(js []byte), block func(i int, js []byte)) error {
	if err := checkEncodable(doc); err != nil {
		return err
	}
	d := canonicalOrder(doc)
	blocks := d.DeepArchive.Blocks
	rest := *d
	rest.DeepArchive.Blocks = []spec.ArchiveBlock{}
	js, err := spec.MarshalCanonical(&rest)
	if err != nil {
		return fmt.Errorf("smg: encoding: %w", err)
	}
	at, err := listInside(js)
	if err != nil {
		return fmt.Errorf("smg: encoding: %w", err)
	}
	if head != nil {
		head(js)
	}
	if _, err := w.Write(js[:at]); err != nil {
		return err
	}
	for i, b := range blocks {
		if clear && b.Turns == nil {
			if b, err = graph.PlainBlock(b); err != nil {
				return fmt.Errorf("smg: encoding: archive block %s: %w", b.ID, err)
			}
		}
		bj, err := spec.MarshalCanonical(b)
		if err != nil {
			return fmt.Errorf("smg: encoding: %w", err)
		}
		if i > 0 {
			bj = append([]byte{','}, bj...)
		}
		if _, err := w.Write(bj); err != nil {
			return err
		}
		if block != nil {
			block(i, bj[min(i, 1):])
		}
	}
	_, err = w.Write(js[at:])
	return err
}

// listInside returns the offset in js, a document's JSON, just inside the
// '[' of its list of archive blocks.
func listInside(js []byte) (int, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(js))
	if !descendMember(dec, "deepArchive") || !descendMember(dec, "blocks") || dec.PeekKind() != '[' {
		return 0, errors.New("no list of archive blocks")
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
			d.DeepArchive.Blocks = make([]spec.ArchiveBlock, len(doc.DeepArchive.Blocks))
			for i, b := range doc.DeepArchive.Blocks {
				if b.Turns == nil {
					b, _ = graph.PlainBlock(b)
				}
				d.DeepArchive.Blocks[i] = b
			}
			doc = &d
		}
		var check func(*spec.Document, []byte) error
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
		sink = bw
	}
	text := &counter{w: sink}
	var w io.Writer = text
	var c *streamCheck
	var head func([]byte)
	var block func(int, []byte)
	if checked {
		c = startCheck(doc)
		w, head, block = io.MultiWriter(text, c.pipe), c.head, c.block
	}
	err := writeCanonical(w, doc, clear, head, block)
	if err == nil && bw != nil {
		err = bw.Close()
	}
	if c != nil {
		if cerr := c.wait(text.n); cerr != nil {
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
// the text without the blocks and each block on its own, and the rules
// beyond the schema run on the document, each on a goroutine of its own.
type streamCheck struct {
	pipe     *io.PipeWriter
	scanned  chan error
	semantic chan []Problem
	heads    chan [2][]Problem // the schema's problems before and after the blocks
	blocks   chan blockText
	checked  chan []Problem // the blocks' problems
	headed   bool           // head was called
	// semanticProbs are the problems beyond the schema, once head has
	// waited for them.
	semanticProbs []Problem
}

// blocksPath is the JSON path of a document's list of archive blocks.
var blocksPath = pointerPath(nil, "/deepArchive/blocks")

// blockText is the text of the i-th archive block.
type blockText struct {
	i  int
	js []byte
}

func startCheck(doc *spec.Document) *streamCheck {
	pr, pw := io.Pipe()
	c := &streamCheck{
		pipe:     pw,
		scanned:  make(chan error, 1),
		semantic: make(chan []Problem, 1),
		heads:    make(chan [2][]Problem, 1),
		blocks:   make(chan blockText, 4),
		checked:  make(chan []Problem, 1),
	}
	go func() {
		_, err := scan(pr, DefaultLimits)
		_, _ = io.Copy(io.Discard, pr) // the writer does not wait on a scan that stopped
		c.scanned <- err
	}()
	go func() { c.semantic <- semanticProblems(doc, DefaultLimits) }()
	go func() {
		var probs []Problem
		for b := range c.blocks {
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.js))
			if err != nil {
				probs = append(probs, Problem{Path: "$", Rule: "schema", Message: err.Error()})
				continue
			}
			at := fmt.Sprintf("%s[%d]", blocksPath, b.i)
			for _, p := range instanceProblems("block", inst) {
				p.Path = at + strings.TrimPrefix(p.Path, "$")
				probs = append(probs, p)
			}
		}
		c.checked <- probs
	}()
	return c
}

// head takes the document's text without its blocks, and checks it
// against the schema before any of the text is written, while the rules
// beyond the schema run: the checks of a large memory (the schema's
// instance of its vault alone can take tens of MB) and its encoding are
// not in memory at once.
func (c *streamCheck) head(js []byte) {
	c.headed = true
	before, after := schemaProblemsSplit(js)
	c.heads <- [2][]Problem{before, after}
	c.semanticProbs = <-c.semantic
}

// block takes the text of the i-th block.
func (c *streamCheck) block(i int, js []byte) { c.blocks <- blockText{i, js} }

// wait ends the check of a text of n bytes and returns what
// [checkWritable] would.
func (c *streamCheck) wait(n int64) error {
	c.pipe.Close()
	close(c.blocks)
	scanErr, blocks := <-c.scanned, <-c.checked
	var heads [2][]Problem
	semantic := c.semanticProbs
	if c.headed {
		heads = <-c.heads
	} else {
		semantic = <-c.semantic
	}
	switch {
	case n > DefaultLimits.MaxDocumentSize:
		return overLimit(&LimitError{Limit: "MaxDocumentSize", Max: DefaultLimits.MaxDocumentSize})
	case scanErr != nil:
		return overLimit(scanErr)
	}
	probs := append(append(append(heads[0], blocks...), heads[1]...), semantic...)
	if len(probs) > 0 {
		return &ValidationError{Problems: probs}
	}
	return nil
}
