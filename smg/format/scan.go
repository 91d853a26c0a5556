package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/smg-memory/smg/spec"
)

// jsonStart reports whether b is JSON text rather than a Brotli stream: its
// first byte after JSON white space is '{' (spec §9.1).
func jsonStart(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}

// header holds the top-level members that say what a JSON object is: the
// raw JSON of scalar values, nil when absent.
type header struct {
	encrypted bool
	context   []byte
	typ       []byte
	version   []byte
}

// maxHeaderValue bounds the scalar values the scanner keeps for the header
// and for the number check.
const maxHeaderValue = 1024

// frame is an open object or array.
type frame struct {
	array bool
	// n counts the array's elements or the object's members so far; max
	// and limit bound it.
	n     int
	max   int
	limit string
	// name is the object's current member name, cut at maxName bytes
	// (nameLong); wantName that the next string is a name.
	name     []byte
	nameLong bool
	wantName bool
}

const maxName = 256

// What the scanner keeps of the string it is in.
type keepMode uint8

const (
	keepNone  keepMode = iota
	keepName           // a member name, into the top frame
	keepValue          // a header member's value, into val
)

// scanner walks JSON text as it streams in and enforces [Limits] with
// memory bounded by MaxDepth: nesting, the length of each string, the
// length of each array and object, the number of nodes and edges. It keeps the header
// members and checks that every number is a finite double. It does not
// check the rest of JSON's syntax: json.Unmarshal does that afterwards, on
// text the scanner has already bounded.
type scanner struct {
	lim    Limits
	array  bool // the top level may be an array as well as an object
	stack  []frame
	off    int64 // bytes consumed
	h      header
	begun  bool // the top-level '{' was seen
	ended  bool // and its '}'
	str    bool // inside a string
	esc    bool // after a backslash in a string
	strLen int
	mode   keepMode
	scalar bool   // inside a number, true, false or null
	val    []byte // the scalar, or the header value, being read
	valDst *[]byte
	// blank counts the white space in a row so far, outside strings;
	// drops are the runs of it beyond maxBlank that the unmarshaller is
	// not given (see takeDrops).
	blank int
	drops []drop
	// most is the most each limit that grows with the file was used.
	most counts
}

// counts are the sizes a document's text reaches against the limits that
// grow with the file (see [Limits.forFile]): a writer learns them while it
// writes, and checks them once it knows the size of its file.
type counts struct {
	text         int64
	list         int
	nodes, edges int
}

// within checks c against lim.
func (c counts) within(lim Limits) error {
	for _, v := range []struct {
		name     string
		got, max int64
	}{
		{"MaxDocumentSize", c.text, lim.MaxDocumentSize},
		{"MaxListLength", int64(c.list), int64(lim.MaxListLength)},
		{"MaxNodes", int64(c.nodes), int64(lim.MaxNodes)},
		{"MaxEdges", int64(c.edges), int64(lim.MaxEdges)},
	} {
		if v.got > v.max {
			return &LimitError{Limit: v.name, Max: v.max}
		}
	}
	return nil
}

// maxBlank is the most JSON white space in a row the unmarshaller is
// given. The canonical pretty form has at most 129 (a newline and two
// spaces a level); the json decoder keeps all the white space before a
// token in its buffer, so that a file of spaces would grow it to
// MaxDocumentSize.
const maxBlank = 1024

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// A drop is a run of white space the unmarshaller is not given: its
// offset and length in the whole text, the line breaks it holds, and the
// blanks after the last of them (-1 when it holds none).
type drop struct{ off, n, breaks, tail int64 }

// takeDrops returns the runs of white space dropped since it was last
// called.
func (s *scanner) takeDrops() []drop {
	d := s.drops
	s.drops = s.drops[len(s.drops):]
	return d
}

// scan reads all of r through a scanner.
func scan(r io.Reader, lim Limits) (header, error) {
	return scanWith(&scanner{lim: lim, stack: make([]frame, 0, 16)}, r)
}

// scanCounts reads all of r through a scanner within the limits of the
// largest file, and returns what it counted of the limits that grow with
// the file.
func scanCounts(r io.Reader) (counts, error) {
	s := &scanner{lim: mostLimits, stack: make([]frame, 0, 16)}
	_, err := scanWith(s, r)
	s.most.text = s.off
	return s.most, err
}

// scanArray is scan for text whose top level is an array.
func scanArray(r io.Reader, lim Limits) error {
	_, err := scanWith(&scanner{lim: lim, array: true, stack: make([]frame, 0, 16)}, r)
	return err
}

func scanWith(s *scanner, r io.Reader) (header, error) {
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if serr := s.write(buf[:n]); serr != nil {
			return s.h, serr
		}
		if err == io.EOF {
			return s.h, s.close()
		}
		if err != nil {
			return s.h, err
		}
	}
}

func (s *scanner) write(p []byte) error {
	// The next quote and backslash of p from i on, len(p) when there is
	// none; found again only once i has passed them, so that p is
	// searched once for each.
	nextQuote, nextSlash := -1, -1
	for i := 0; i < len(p); i++ {
		c := p[i]
		var err error
		if s.str || !isBlank(c) {
			s.blank = 0
		}
		switch {
		case s.str && !s.esc && c != '"' && c != '\\':
			// The run of a string up to its next quote or backslash:
			// most of a document's bytes.
			if nextQuote < i {
				nextQuote = indexFrom(p, i, '"')
			}
			if nextSlash < i {
				nextSlash = indexFrom(p, i, '\\')
			}
			if err := s.stringRun(p[i:min(nextQuote, nextSlash)]); err != nil {
				return err
			}
			n := min(nextQuote, nextSlash) - i
			s.off += int64(n)
			i += n - 1
			continue
		case s.str:
			err = s.stringByte(c)
		case s.scalar && isScalarByte(c):
			n := 1
			for i+n < len(p) && isScalarByte(p[i+n]) {
				n++
			}
			if err := s.scalarRun(p[i : i+n]); err != nil {
				return err
			}
			s.off += int64(n)
			i += n - 1
			continue
		case s.scalar:
			if err = s.endScalar(); err == nil {
				err = s.structural(c)
			}
		case isBlank(c):
			n := 1
			for i+n < len(p) && isBlank(p[i+n]) {
				n++
			}
			if keep := max(0, maxBlank-s.blank); n > keep {
				run := p[i+keep : i+n]
				d := drop{off: s.off + int64(keep), n: int64(n - keep), breaks: int64(bytes.Count(run, []byte{'\n'})), tail: -1}
				if d.breaks > 0 {
					d.tail = int64(len(run) - bytes.LastIndexByte(run, '\n') - 1)
				}
				s.drops = append(s.drops, d)
			}
			s.blank += n
			s.off += int64(n)
			i += n - 1
			continue
		default:
			err = s.structural(c)
		}
		if err != nil {
			return err
		}
		s.off++
	}
	return nil
}

// indexFrom returns the index of the first c of p from i on, or len(p).
func indexFrom(p []byte, i int, c byte) int {
	if n := bytes.IndexByte(p[i:], c); n >= 0 {
		return i + n
	}
	return len(p)
}

// stringRun takes a run of a string's bytes, none of them a quote or a
// backslash, as stringByte would take them one by one.
func (s *scanner) stringRun(run []byte) error {
	s.strLen += len(run)
	if s.strLen > s.lim.MaxStringLength {
		return s.limitError("MaxStringLength", int64(s.lim.MaxStringLength))
	}
	switch s.mode {
	case keepName:
		top := s.top()
		if room := maxName - len(top.name); len(run) > room {
			top.name, top.nameLong = append(top.name, run[:room]...), true
		} else {
			top.name = append(top.name, run...)
		}
	case keepValue:
		s.val = append(s.val, run[:min(len(run), maxHeaderValue-len(s.val))]...)
	}
	return nil
}

// scalarRun takes a run of a scalar's bytes, as scalarByte would take them
// one by one; s.off is where the run starts, and where the error is when
// the scalar is too long.
func (s *scanner) scalarRun(run []byte) error {
	if room := maxHeaderValue - len(s.val); len(run) > room {
		s.val = append(s.val, run[:room]...)
		s.off += int64(room)
		return s.scalarByte(run[room])
	}
	s.val = append(s.val, run...)
	return nil
}

func isScalarByte(c byte) bool {
	return c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func (s *scanner) structural(c byte) error {
	switch c {
	case ' ', '\t', '\n', '\r':
		return nil
	}
	if !s.begun {
		if c != '{' && !(s.array && c == '[') {
			return &DecodeError{Path: "$", Offset: s.off, Err: ErrNotSMG, Msg: "the top level is not a JSON object"}
		}
		s.begun = true
	} else if s.ended {
		return &DecodeError{Path: "$", Offset: s.off, Err: ErrMalformed, Msg: "text after the top-level object"}
	}
	top := s.top()
	switch c {
	case '{', '[':
		if err := s.valueStart(); err != nil {
			return err
		}
		if len(s.stack) >= s.lim.MaxDepth {
			return s.limitError("MaxDepth", int64(s.lim.MaxDepth))
		}
		f := frame{array: c == '[', wantName: c == '{', max: s.lim.MaxListLength, limit: "MaxListLength"}
		if f.array && len(s.stack) == 2 && string(s.stack[0].name) == "semanticGraph" {
			switch string(s.stack[1].name) {
			case "nodes":
				f.max, f.limit = s.lim.MaxNodes, "MaxNodes"
			case "edges":
				f.max, f.limit = s.lim.MaxEdges, "MaxEdges"
			}
		}
		if len(s.stack) < cap(s.stack) {
			// Reuse the name buffer of the frame last popped from here.
			f.name = s.stack[: len(s.stack)+1 : len(s.stack)+1][len(s.stack)].name[:0]
		}
		s.stack = append(s.stack, f)
	case '}', ']':
		if top == nil || top.array != (c == ']') {
			return &DecodeError{Path: s.path(), Offset: s.off, Err: ErrMalformed, Msg: fmt.Sprintf("unexpected %q", c)}
		}
		switch top.limit {
		case "MaxNodes":
			s.most.nodes = top.n
		case "MaxEdges":
			s.most.edges = top.n
		default:
			s.most.list = max(s.most.list, top.n)
		}
		s.stack = s.stack[:len(s.stack)-1]
		s.ended = len(s.stack) == 0
	case ':':
		if top != nil && !top.array {
			top.wantName = false
		}
	case ',':
		if top != nil && !top.array {
			top.wantName = true
		}
	case '"':
		s.str, s.esc, s.strLen = true, false, 0
		if top != nil && !top.array && top.wantName {
			top.n++
			if top.n > top.max {
				return s.limitError(top.limit, int64(top.max))
			}
			top.name, top.nameLong = top.name[:0], false
			s.mode = keepName
			return nil
		}
		if err := s.valueStart(); err != nil {
			return err
		}
		s.mode = keepNone
		if s.valDst = s.headerMember(); s.valDst != nil {
			s.mode, s.val = keepValue, append(s.val[:0], '"')
		}
	default:
		if !isScalarByte(c) {
			return &DecodeError{Path: s.path(), Offset: s.off, Err: ErrMalformed, Msg: fmt.Sprintf("unexpected %q", c)}
		}
		if err := s.valueStart(); err != nil {
			return err
		}
		s.scalar, s.val, s.valDst = true, append(s.val[:0], c), s.headerMember()
	}
	return nil
}

// headerMember returns where a top-level value goes when the header wants
// it, or nil.
func (s *scanner) headerMember() *[]byte {
	if len(s.stack) != 1 {
		return nil
	}
	switch string(s.stack[0].name) {
	case "@context":
		return &s.h.context
	case "@type":
		return &s.h.typ
	case "version":
		return &s.h.version
	}
	return nil
}

// valueStart counts a value in the array it is in.
func (s *scanner) valueStart() error {
	top := s.top()
	if top == nil || !top.array {
		return nil
	}
	top.n++
	if top.n > top.max {
		return s.limitError(top.limit, int64(top.max))
	}
	return nil
}

func (s *scanner) stringByte(c byte) error {
	switch {
	case s.esc:
		s.esc = false
	case c == '\\':
		s.esc = true
	case c == '"':
		s.str = false
		s.endString()
		return nil
	}
	s.strLen++
	if s.strLen > s.lim.MaxStringLength {
		return s.limitError("MaxStringLength", int64(s.lim.MaxStringLength))
	}
	switch s.mode {
	case keepName:
		top := s.top()
		if len(top.name) < maxName {
			top.name = append(top.name, c)
		} else {
			top.nameLong = true
		}
	case keepValue:
		if len(s.val) < maxHeaderValue {
			s.val = append(s.val, c)
		}
	}
	return nil
}

func (s *scanner) endString() {
	switch s.mode {
	case keepName:
		top := s.top()
		if !top.nameLong && bytes.IndexByte(top.name, '\\') >= 0 {
			// A name written with escapes is the name it spells.
			quoted := append(append([]byte{'"'}, top.name...), '"')
			if name, err := jsontext.AppendUnquote(nil, quoted); err == nil {
				top.name = append(top.name[:0], name...)
			}
		}
		if len(s.stack) == 1 && string(s.stack[0].name) == "encrypted" {
			s.h.encrypted = true
		}
	case keepValue:
		*s.valDst = append(bytes.Clone(s.val), '"')
	}
	s.mode = keepNone
}

func (s *scanner) scalarByte(c byte) error {
	if len(s.val) >= maxHeaderValue {
		return &DecodeError{Path: s.path(), Offset: s.off, Err: ErrMalformed, Msg: "a number longer than 1024 characters"}
	}
	s.val = append(s.val, c)
	return nil
}

// endScalar checks a finished number, true, false or null.
func (s *scanner) endScalar() error {
	s.scalar = false
	v := s.val
	if s.valDst != nil {
		*s.valDst = bytes.Clone(v)
	}
	switch string(v) {
	case "true", "false", "null":
		return nil
	}
	if plainDecimal(v) {
		return nil
	}
	if _, err := strconv.ParseFloat(string(v), 64); errors.Is(err, strconv.ErrRange) {
		return &DecodeError{Path: s.path(), Offset: s.off - int64(len(v)), Err: ErrMalformed, Msg: fmt.Sprintf("number %.40s is not a finite double", v)}
	}
	// Anything else that is not a number, json.Unmarshal reports.
	return nil
}

// plainDecimal reports whether v is written with digits, minus signs and
// points alone, fewer than 300 of them: ParseFloat finds it finite, or
// not a number at all, and so need not be asked. Nearly every number of
// a document is one.
func plainDecimal(v []byte) bool {
	if len(v) >= 300 {
		return false
	}
	for _, c := range v {
		if (c < '0' || c > '9') && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

func (s *scanner) close() error {
	if s.scalar {
		if err := s.endScalar(); err != nil {
			return err
		}
	}
	switch {
	case !s.begun:
		return &DecodeError{Path: "$", Offset: s.off, Err: ErrNotSMG, Msg: "no JSON object"}
	case !s.ended:
		return &DecodeError{Path: s.path(), Offset: s.off, Err: ErrTruncated, Msg: "the JSON text ends early"}
	}
	return nil
}

func (s *scanner) top() *frame {
	if len(s.stack) == 0 {
		return nil
	}
	return &s.stack[len(s.stack)-1]
}

func (s *scanner) limitError(name string, max int64) error {
	return &LimitError{Limit: name, Max: max, Path: s.path()}
}

// path is the JSON path of where the scanner is.
func (s *scanner) path() string {
	var p pathBuilder
	for _, f := range s.stack {
		switch {
		case f.array && f.n > 0:
			p = p.index(f.n - 1)
		case !f.array && len(f.name) > 0 && !f.wantName:
			name := string(f.name)
			if f.nameLong {
				name += "…"
			}
			p = p.member(name)
		}
	}
	return p.String()
}

// checkHeader decides whether a JSON object is a document this reader can
// read (spec §3): its type first, then its major version, then its context.
func checkHeader(h header) error {
	var typ, version, context string
	if json.Unmarshal(h.typ, &typ) != nil || typ != spec.DocumentType {
		return &DecodeError{Path: "$", Offset: -1, Err: ErrNotSMG, Msg: `a JSON object without "@type": "SemanticMemoryGraph"`}
	}
	if h.version == nil {
		return &DecodeError{Path: "$.version", Offset: -1, Err: ErrMalformed, Msg: "missing"}
	}
	if err := json.Unmarshal(h.version, &version); err != nil {
		return &DecodeError{Path: "$.version", Offset: -1, Err: ErrMalformed, Msg: "not a string"}
	}
	major, _, err := spec.ParseVersion(version)
	if err != nil {
		return &DecodeError{Path: "$.version", Offset: -1, Err: ErrMalformed, Msg: err.Error()}
	}
	if major != spec.MajorVersion {
		return fmt.Errorf("%w %q: this reader reads %d.x", ErrUnsupportedVersion, version, spec.MajorVersion)
	}
	if json.Unmarshal(h.context, &context) != nil || context != spec.ContextIRI {
		return &DecodeError{Path: "$['@context']", Offset: -1, Err: ErrMalformed, Msg: fmt.Sprintf("must be %q", spec.ContextIRI)}
	}
	return nil
}

// unmarshalError turns an error of json.Unmarshal into a DecodeError.
func unmarshalError(js []byte, err error) error {
	var sem *json.SemanticError
	var syn *jsontext.SyntacticError
	e := &DecodeError{Path: "$", Offset: -1, Err: ErrMalformed, Msg: err.Error()}
	original := func(off int64) int64 { return off }
	lines := lineColumn
	if se, ok := errors.AsType[*shiftedError](err); ok {
		original, lines = se.sh.original, se.sh.lineColumn
	}
	defer func() {
		// js is the text the unmarshaller was given; the line, column
		// and offset are the file's.
		e.Line, e.Column = lines(js, e.Offset)
		if e.Offset >= 0 {
			e.Offset = original(e.Offset)
		}
	}()
	switch {
	case errors.As(err, &sem):
		e.Path, e.Offset = pointerPath(js, sem.JSONPointer), sem.ByteOffset
		switch {
		case sem.GoType != nil && sem.JSONKind != 0:
			e.Msg = fmt.Sprintf("cannot read JSON %s as %s", kindName(sem.JSONKind), goTypeName(sem.GoType.String()))
			if sem.Err != nil {
				e.Msg += ": " + sem.Err.Error()
			}
		case sem.Err != nil:
			e.Msg = sem.Err.Error()
		}
	case errors.As(err, &syn):
		e.Path, e.Offset = pointerPath(js, syn.JSONPointer), syn.ByteOffset
		if syn.Err != nil {
			e.Msg = syn.Err.Error()
		}
		if errors.Is(syn.Err, io.ErrUnexpectedEOF) {
			e.Err, e.Msg = ErrTruncated, "the JSON text ends early"
		}
	}
	return e
}

func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "boolean"
	case '"':
		return "string"
	case '0':
		return "number"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "value"
}

func goTypeName(t string) string {
	switch t {
	case "string", "spec.NodeType", "spec.Relation", "spec.ArtifactType":
		return "a string"
	case "int", "int64", "uint32":
		return "an integer"
	case "float64":
		return "a number"
	case "bool":
		return "a boolean"
	case "time.Time":
		return "an RFC 3339 timestamp"
	case "[]uint8", "spec.Bytes":
		return "base64"
	case "[2]int":
		return "a pair of integers"
	}
	return t
}

// lineColumn locates a byte offset of js as a 1-based line and column
// (counted in characters).
func lineColumn(js []byte, off int64) (line, col int) {
	if off < 0 || off > int64(len(js)) {
		return 0, 0
	}
	before := js[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCount(before[start:]) + 1
}

// scanAndUnmarshal reads JSON text through a scanner and, at the same
// time on another goroutine, unmarshals into into (a document, or what a
// summary reads of one) what the scanner has passed: the unmarshaller
// never reads a byte the scanner has not bounded. The text is plain when
// that is not nil, else what src reads (a decompressor). With keep, it
// returns the text the unmarshaller was given, in the pieces it was read
// in (kept as they are, so that a text growing to its limit is never
// copied), without the runs of white space the scanner dropped (so that a
// file of a GiB of spaces is never held); without, its first piece. It returns the
// size of the whole text; the header, the scanner's error and the
// unmarshaller's.
func scanAndUnmarshal(plain []byte, src io.Reader, lim Limits, into any, keep bool) (text [][]byte, size int64, h header, err, uerr error) {
	chunks := make(chan []byte, 64)
	done := make(chan error, 1)
	// Without keep, the pieces of a decompressed text are used again once
	// read: a summary of a hundred megabytes of text allocates a few.
	var pieces chan []byte
	if !keep {
		pieces = make(chan []byte, cap(chunks)+2)
	}
	piece := func() []byte {
		select {
		case p := <-pieces:
			return p[:scanChunk]
		default:
			return make([]byte, scanChunk)
		}
	}
	reuse := func(p []byte) {
		if pieces != nil && cap(p) == scanChunk {
			select {
			case pieces <- p:
			default:
			}
		}
	}
	go func() {
		err := json.UnmarshalRead(&chunkReader{ch: chunks, done: reuse}, into, listUnmarshalers)
		for range chunks {
			// The rest, after an error: the scanner goes on to the end.
		}
		done <- err
	}()
	s := &scanner{lim: lim, stack: make([]frame, 0, 16)}
	var sh shifts
	// send gives the unmarshaller p, the text at offset base, without the
	// white space the scanner dropped.
	send := func(p []byte, base int64) {
		drops := s.takeDrops()
		if len(drops) == 0 {
			sh.sent += int64(len(p))
			switch {
			case keep:
				text = append(text, p)
			case len(text) == 0:
				text = append(text, bytes.Clone(p)) // its start: p is used again
			}
			chunks <- p
			return
		}
		if src != nil {
			defer reuse(p) // what is sent is out, a copy
		}
		kept := int64(len(p))
		for _, d := range drops {
			kept -= d.n
		}
		out := make([]byte, 0, kept)
		at := base
		for _, d := range drops {
			out = append(out, p[at-base:d.off-base]...)
			sh.add(sh.sent+int64(len(out)), d)
			at = d.off + d.n
		}
		out = append(out, p[at-base:]...)
		sh.sent += int64(len(out))
		if len(out) > 0 {
			if keep || len(text) == 0 {
				text = append(text, out)
			}
			chunks <- out
		}
	}
	err = func() error {
		defer close(chunks)
		if plain != nil {
			size = int64(len(plain))
			for off := 0; off < len(plain); off += scanChunk {
				p := plain[off:min(off+scanChunk, len(plain))]
				if err := s.write(p); err != nil {
					return err
				}
				send(p, int64(off))
			}
			return s.close()
		}
		var base int64
		for {
			// A piece of its own each time: the pieces sent are not
			// written again until they are read, and then only without
			// keep.
			p := piece()
			n, rerr := io.ReadFull(src, p)
			p = p[:n]
			if rerr == io.ErrUnexpectedEOF {
				rerr = io.EOF
			}
			size += int64(n)
			if err := s.write(p); err != nil {
				return err
			}
			if n > 0 {
				send(p, base)
			}
			base += int64(n)
			if rerr == io.EOF {
				return s.close()
			}
			if rerr != nil {
				return rerr
			}
		}
	}()
	uerr = <-done
	if uerr != nil {
		uerr = &shiftedError{err: uerr, sh: &sh}
	}
	return text, size, s.h, err, uerr
}

// scanChunk is how much text the scanner passes at a time.
const scanChunk = 64 << 10

// chunkReader reads the chunks of a channel, in order, until it is
// closed, and gives each to done once it is read.
type chunkReader struct {
	ch        chan []byte
	cur, read []byte // what is left of the chunk being read; that chunk
	done      func([]byte)
}

func (r *chunkReader) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		if r.read != nil {
			r.done(r.read)
			r.read = nil
		}
		c, ok := <-r.ch
		if !ok {
			return 0, io.EOF
		}
		r.cur, r.read = c, c
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

// shifts map offsets in the text the unmarshaller was given to offsets in
// the whole text: at each of at, the text had removed more bytes dropped
// so far.
type shifts struct {
	sent    int64
	at      []int64
	removed []int64 // bytes, in all, up to each
	drops   []drop
}

func (sh *shifts) add(at int64, d drop) {
	total := d.n
	if len(sh.removed) > 0 {
		total += sh.removed[len(sh.removed)-1]
	}
	sh.at, sh.removed, sh.drops = append(sh.at, at), append(sh.removed, total), append(sh.drops, d)
}

// lineColumn locates offset off of js, the text given, in the whole
// text, as a 1-based line and column (counted in characters): the runs
// dropped before it count, their line breaks and their blanks.
func (sh *shifts) lineColumn(js []byte, off int64) (line, col int) {
	if off < 0 || off > int64(len(js)) {
		return 0, 0
	}
	before := js[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	start := int64(bytes.LastIndexByte(before, '\n') + 1)
	from, blanks := start, int64(0) // where the line's kept text starts, and the blanks dropped in it
	for i, at := range sh.at {
		if at > off {
			break
		}
		d := sh.drops[i]
		line += int(d.breaks)
		switch {
		case at < start:
		case d.breaks > 0:
			from, blanks = at, d.tail
		default:
			blanks += d.n
		}
	}
	return line, int(blanks) + utf8.RuneCount(js[from:off]) + 1
}

// original maps an offset of the text given to the whole text's.
func (sh *shifts) original(off int64) int64 {
	i, found := slices.BinarySearch(sh.at, off)
	if found {
		i++
	}
	if i == 0 {
		return off
	}
	return off + sh.removed[i-1]
}

// shiftedError is an error of the unmarshaller, whose offsets sh maps.
type shiftedError struct {
	err error
	sh  *shifts
}

func (e *shiftedError) Error() string { return e.err.Error() }
func (e *shiftedError) Unwrap() error { return e.err }
