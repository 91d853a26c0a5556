package format

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/andybalholm/brotli"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/smg/internal/envelope"
	"github.com/smg-memory/smg/spec"
)

// KDF names a key derivation function and its parameters (spec §9.5.2).
type KDF = envelope.KDF

// Key derivations for [EncodeOptions.KDF]: argon2id (the default) and
// PBKDF2-HMAC-SHA256, with their recommended parameters.
var (
	DefaultArgon2id = envelope.DefaultArgon2id
	DefaultPBKDF2   = envelope.DefaultPBKDF2
)

// DefaultQuality is the Brotli quality a document is written with. On
// LoCoMo's chats and aider's sessions quality 8 makes the file 2.5% and 3%
// smaller than 6, for about 1.7 times the time of a whole write (which a
// memory makes when it compacts, not at each turn): BENCHMARKS.md, "File
// size".
const DefaultQuality = 8

// EncodeOptions configure [Encode]. The zero value writes the canonical,
// Brotli-compressed form.
type EncodeOptions struct {
	// Plain writes the JSON text without Brotli compression.
	Plain bool
	// Indent writes the canonical pretty form (spec §9.2) instead of the
	// compact one.
	Indent bool
	// Quality is the Brotli quality, 1 to 11; 0 means DefaultQuality.
	Quality int
	// Password, when set, encrypts the file (spec §9.5).
	Password []byte
	// KDF is the key derivation for encryption; zero means argon2id with
	// DefaultArgon2id's parameters. Encoding refuses parameters below the
	// minimums of spec §9.5.2 unless InsecureKDF is set, which is for tests
	// and test vectors only.
	KDF         KDF
	InsecureKDF bool
	// Rand supplies the salt and nonce of encryption; nil means
	// crypto/rand. Tests set it to make exact vectors.
	Rand io.Reader
	// WithVectors writes the vectors of the document's vector index
	// (spec §8.3) in a memory's file ([WriteFile], [MarshalMemory], and
	// the writers of package smg; [Marshal] and [Encode] encode a document
	// as it is). Without it, an unencrypted file holds the index without
	// its vectors: they are data derived from the turns by
	// one model, as the full-text index is, and a writer of a memory file
	// keeps them in the file's cache ([KeepVectors], [WriteFile]) where a
	// reader takes them back ([AdoptVectors]). An encrypted file always
	// holds them: nothing beside it may hold what its turns say.
	WithVectors bool
}

// password returns Password, or asks PasswordFunc for one.
func (o *DecodeOptions) password() ([]byte, error) {
	if o.Password == nil && o.PasswordFunc != nil {
		return o.PasswordFunc()
	}
	return o.Password, nil
}

func (o *EncodeOptions) sealOptions() envelope.SealOptions {
	return envelope.SealOptions{KDF: o.KDF, Rand: o.Rand, InsecureKDF: o.InsecureKDF}
}

// DecodeOptions configure [Decode]. The zero value reads unencrypted files
// within [DefaultLimits], grown with the file.
type DecodeOptions struct {
	// Password opens an encrypted file. When it is nil and the file is
	// encrypted, PasswordFunc, if set, is called for it: a command can ask
	// for a password only when one is needed. Its error is returned as it
	// is.
	Password     []byte
	PasswordFunc func() ([]byte, error)
	// Limits bound what is accepted; zero fields take their defaults.
	Limits Limits
	// CachedVectors has [ReadFile] give a file that holds no vectors
	// those kept in its cache for its bytes ([AdoptVectors]): for a
	// writer that carries them into another file (a fork, a merge, a
	// patched file), whose cache then keeps them.
	CachedVectors bool
}

// Encode writes doc to w in the canonical form of spec §9.2: the same
// document always gives the same bytes (except for encryption, whose salt
// and nonce are fresh each time).
func Encode(w io.Writer, doc *spec.Document, opts *EncodeOptions) error {
	b, err := Marshal(doc, opts)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Marshal returns the bytes [Encode] writes. The archive's blocks are
// written in the form doc holds them.
func Marshal(doc *spec.Document, opts *EncodeOptions) ([]byte, error) {
	return encodeDocument(doc, opts, false, false)
}

// MarshalClear is [Marshal] with the archive blocks doc holds compressed
// (version 1.0's form, as a memory's builder keeps them) written in the
// clear, as version 1.1 writes them, each decompressed only while it is
// written: doc is not changed, and the memory's text is never all in
// memory at once.
func MarshalClear(doc *spec.Document, opts *EncodeOptions) ([]byte, error) {
	return encodeDocument(doc, opts, true, false)
}

// marshal is [Marshal], with check, when set, run on the document and its
// compact canonical JSON before it is encoded, and what it counts checked
// against the file's limits once it is ([fitsFile]).
func marshal(doc *spec.Document, opts *EncodeOptions, check func(*spec.Document, []byte) (counts, error)) ([]byte, error) {
	if opts == nil {
		opts = &EncodeOptions{}
	}
	js, err := canonicalJSON(doc)
	if err != nil {
		return nil, err
	}
	fits := func(text, file int64) error { return nil }
	if check != nil {
		c, err := check(doc, js)
		if err != nil {
			return nil, err
		}
		fits = func(text, file int64) error {
			c.text = text // indented, when it is
			return fitsFile(c, file)
		}
	}
	return encodeJSON(js, opts, fits)
}

// encodeJSON encodes js, a document's compact canonical JSON, as opts say,
// once fits accepts the size of its text and of the file before
// encryption.
func encodeJSON(js []byte, opts *EncodeOptions, fits func(text, file int64) error) ([]byte, error) {
	var err error
	if opts.Indent {
		js, err = indent(js)
		if err != nil {
			return nil, err
		}
	}
	out := js
	if !opts.Plain {
		q := opts.Quality
		if q == 0 {
			q = DefaultQuality
		}
		if q < 1 || q > 11 {
			return nil, fmt.Errorf("smg: Brotli quality %d is not in 1..11", q)
		}
		out = archive.Compress(js, q) // its window keeps the first byte off '{' (§9.1)
	}
	if err := fits(int64(len(js)), int64(len(out))); err != nil {
		return nil, err
	}
	if opts.Password != nil {
		return envelope.Seal(out, opts.Password, opts.sealOptions())
	}
	return out, nil
}

// canonicalJSON returns the compact canonical JSON of doc (RFC 8785, with
// the list order of spec §9.2).
func canonicalJSON(doc *spec.Document) ([]byte, error) {
	if err := checkEncodable(doc); err != nil {
		return nil, err
	}
	js, err := spec.MarshalCanonical(canonicalOrder(doc))
	if err != nil {
		return nil, fmt.Errorf("smg: encoding: %w", err)
	}
	return js, nil
}

// indent turns compact canonical JSON into the canonical pretty form: two
// spaces a level, one space after a colon, and a final newline, as
// JavaScript's JSON.stringify(value, null, 2) + "\n" writes it.
func indent(js []byte) ([]byte, error) {
	v := jsontext.Value(bytes.Clone(js))
	if err := v.Indent(jsontext.WithIndent("  ")); err != nil {
		return nil, err
	}
	return append(v, '\n'), nil
}

// ContentHash returns the content hash of doc: "sha256:" and the hex
// SHA-256 of its compact canonical JSON (spec §9.2). It does not depend on
// compression, indentation or encryption.
func ContentHash(doc *spec.Document) (string, error) {
	js, err := canonicalJSON(doc)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(js)
	return spec.HashPrefix + hex.EncodeToString(sum[:]), nil
}

// Decode reads a document in any of the forms of spec §9.1: Brotli
// compressed, plain JSON, or either of these encrypted. It checks the
// format version first and enforces opts.Limits throughout. Decode does not
// run the checks of [Validate].
func Decode(r io.Reader, opts *DecodeOptions) (*spec.Document, error) {
	f, err := decode(r, opts)
	if err != nil {
		return nil, err
	}
	return f.Doc, nil
}

// Unmarshal decodes a document from b, as [Decode] does.
func Unmarshal(b []byte, opts *DecodeOptions) (*spec.Document, error) {
	return Decode(bytes.NewReader(b), opts)
}

// decoded is a document with the layers it came in, and its JSON text in
// the pieces it was read in.
type decoded struct {
	Doc  *spec.Document
	Form FormInfo
	text [][]byte
	lim  Limits // the limits it was decoded within
}

// JSON returns the document's JSON text, in one piece, as the unmarshaller
// read it: the file's, but for runs of more than maxBlank blanks, dropped.
// Only [decodeText] keeps it whole.
func (d *decoded) JSON() []byte { return joined(d.text) }

// indented reports whether the JSON text is in the indented canonical form
// rather than the compact one (see [indented]), from its first piece.
func (d *decoded) indented() bool { return len(d.text) > 0 && indented(d.text[0]) }

func joined(text [][]byte) []byte {
	if len(text) == 1 {
		return text[0]
	}
	return bytes.Join(text, nil)
}

// decode reads a document: its JSON text is not kept but for its start
// (which says whether it is indented), unless an error of its
// unmarshalling is to be placed in it, when it is read again keeping it.
func decode(r io.Reader, opts *DecodeOptions) (*decoded, error) {
	return decodeDoc(r, opts, false)
}

// decodeText is decode keeping the whole JSON text ([decoded.JSON]), as
// validation reads it.
func decodeText(r io.Reader, opts *DecodeOptions) (*decoded, error) {
	return decodeDoc(r, opts, true)
}

func decodeDoc(r io.Reader, opts *DecodeOptions, keep bool) (*decoded, error) {
	l, err := openLayers(r, opts)
	if err != nil {
		return nil, err
	}
	doc := new(spec.Document)
	out, err := l.scan(doc, keep)
	if errors.Is(err, errUnkept) {
		doc = new(spec.Document)
		out, err = l.scan(doc, true)
	}
	if err != nil {
		return nil, err
	}
	complete(doc, out.lim)
	out.Doc = doc
	return out, nil
}

// errUnkept: the text of a document was not kept (a scan without keep),
// and it is needed to place the error of its unmarshalling: scan the
// document again keeping it.
var errUnkept = errors.New("the text to place an error in was not kept")

// layers is a file read, and opened when it is encrypted: its JSON text,
// plain or compressed (inner), and the form it came in; and the limits
// asked for, whose zero fields take their defaults for the size of inner.
type layers struct {
	inner []byte
	form  FormInfo
	asked Limits
}

// openLayers reads a file within opts' limits and opens it when it is
// encrypted, asking for the password once.
func openLayers(r io.Reader, opts *DecodeOptions) (*layers, error) {
	if opts == nil {
		opts = &DecodeOptions{}
	}
	lim := opts.Limits.withDefaults()
	raw, err := io.ReadAll(io.LimitReader(r, lim.MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if int64(len(raw)) > lim.MaxFileSize {
		return nil, &LimitError{Limit: "MaxFileSize", Max: lim.MaxFileSize}
	}
	if len(raw) == 0 {
		return nil, &DecodeError{Path: "$", Err: ErrNotSMG, Msg: "the file is empty"}
	}
	l := &layers{inner: raw, form: FormInfo{FileSize: int64(len(raw))}, asked: opts.Limits}
	if isEnvelope(raw, lim) {
		kdf, err := envelope.Describe(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		l.form.Encrypted, l.form.KDF = true, &kdf
		password, err := opts.password()
		if err != nil {
			return nil, err
		}
		if l.inner, err = open(raw, password, lim); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// scan decodes the JSON text of l into into (a spec.Document, or a part
// of what it holds), not completed. With keep the text is kept
// (decoded.text), to place an error in it; without, only its first piece
// is, an error of the unmarshalling is errUnkept, and what the text costs
// is the scanner's window.
func (l *layers) scan(into any, keep bool) (*decoded, error) {
	lim := l.asked.forFile(int64(len(l.inner)))
	out := &decoded{Form: l.form, lim: lim}
	// The scanner bounds the text while json reads what it has passed,
	// on another goroutine: neither waits for the whole text.
	var plain []byte
	var src io.Reader
	in := &probeReader{}
	if jsonStart(l.inner) {
		if int64(len(l.inner)) > lim.MaxDocumentSize {
			return nil, &LimitError{Limit: "MaxDocumentSize", Max: lim.MaxDocumentSize}
		}
		plain = l.inner
	} else {
		out.Form.Compressed = true
		in.r = bytes.NewReader(l.inner)
		src = &sourceReader{r: brotli.NewReader(in), max: lim.MaxDocumentSize, left: lim.MaxDocumentSize}
	}
	text, size, h, err, uerr := scanAndUnmarshal(plain, src, lim, into, keep)
	if se, ok := errors.AsType[*sourceError](err); ok {
		err = decompressError(se.err, int(size), in.n)
	}
	l.asked.markGrown(err, int64(len(l.inner)))
	if err != nil {
		// A document of another major version may break this version's
		// limits: when its version was seen, that speaks first.
		if herr := checkHeader(h); h.version != nil && errors.Is(herr, ErrUnsupportedVersion) {
			return nil, herr
		}
		return nil, err
	}
	out.Form.JSONSize = size
	if h.encrypted {
		return nil, &DecodeError{Path: "$.encrypted", Err: ErrMalformed, Msg: "an encrypted envelope inside an encrypted or compressed file"}
	}
	if err := checkHeader(h); err != nil {
		return nil, err
	}
	if uerr != nil && !keep {
		return nil, errUnkept
	}
	if uerr != nil {
		return nil, unmarshalError(joined(text), uerr)
	}
	out.text = text
	return out, nil
}

// isEnvelope reports whether raw is an encrypted envelope: a JSON object
// with a top-level member "encrypted".
func isEnvelope(raw []byte, lim Limits) bool {
	// Most JSON is not an envelope, and says so without a scan: the name
	// "encrypted" is not in it, not even written with escapes.
	if !jsonStart(raw) || !bytes.Contains(raw, []byte(`"encrypted"`)) && !bytes.Contains(raw, []byte(`\u`)) {
		return false
	}
	// The ciphertext is one long string: allow it.
	lim.MaxStringLength = int(min(lim.MaxFileSize, math.MaxInt32))
	h, err := scan(bytes.NewReader(raw), lim)
	return err == nil && h.encrypted
}

// sourceReader reads the decompressed text, at most left bytes of it, and
// marks the decompressor's errors as its own.
type sourceReader struct {
	r         io.Reader
	max, left int64
}

type sourceError struct{ err error }

func (e *sourceError) Error() string { return e.err.Error() }

func (s *sourceReader) Read(p []byte) (int, error) {
	if s.left <= 0 {
		// One byte more than the limit tells a document at the limit from
		// one beyond it.
		var one [1]byte
		if n, _ := s.r.Read(one[:]); n > 0 {
			return 0, &LimitError{Limit: "MaxDocumentSize", Max: s.max}
		}
		return 0, io.EOF
	}
	if int64(len(p)) > s.left {
		p = p[:s.left]
	}
	n, err := s.r.Read(p)
	s.left -= int64(n)
	if err != nil && err != io.EOF {
		err = &sourceError{err}
	}
	return n, err
}

// open decrypts an envelope, mapping its errors to this package's.
func open(raw, password []byte, lim Limits) ([]byte, error) {
	if password == nil {
		return nil, ErrPasswordRequired
	}
	inner, err := envelope.Open(raw, password, lim.kdf())
	switch {
	case err == nil:
		return inner, nil
	case errors.Is(err, envelope.ErrKDFLimit):
		return nil, fmt.Errorf("%w: %v", ErrLimit, err)
	case errors.Is(err, envelope.ErrUnsupportedVersion):
		return nil, fmt.Errorf("%w: %v", ErrUnsupportedVersion, err)
	case errors.Is(err, envelope.ErrMalformed), errors.Is(err, envelope.ErrUnsupported):
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return nil, err
}

// probeWindow is how far into its input a Brotli decoder that fails with
// no output is taken to have read something that was never Brotli. Brotli
// has no magic number; measured on text, PNG, PDF, ZIP, gzip and random
// bytes, the decoder fails within the first 128 bytes of each, while a
// .smg file damaged past its first few hundred bytes fails later.
const probeWindow = 256

// probeReader counts the bytes the decoder reads, in small steps over the
// probe window so that the count says where it failed.
type probeReader struct {
	r io.Reader
	n int
}

func (p *probeReader) Read(b []byte) (int, error) {
	if p.n < probeWindow && len(b) > 64 {
		b = b[:64]
	}
	n, err := p.r.Read(b)
	p.n += n
	return n, err
}

// decompressError maps an error of the Brotli decoder, after out bytes of
// output and in bytes of input, to this package's errors.
func decompressError(err error, out, in int) error {
	switch {
	case out == 0 && in <= probeWindow:
		return &DecodeError{Path: "$", Offset: -1, Err: ErrNotSMG, Msg: "neither a JSON object nor a Brotli stream"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &DecodeError{Path: "$", Offset: -1, Err: ErrTruncated, Msg: "the Brotli stream ends early"}
	}
	return &DecodeError{Path: "$", Offset: -1, Err: ErrMalformed, Msg: "corrupt Brotli stream: " + err.Error()}
}

// Clone returns a deep copy of doc.
func Clone(doc *spec.Document) *spec.Document {
	b, err := json.Marshal(doc)
	if err != nil {
		panic(fmt.Sprintf("smg: copying a document: %v", err))
	}
	out := new(spec.Document)
	if err := json.Unmarshal(b, out); err != nil {
		panic(fmt.Sprintf("smg: copying a document: %v", err))
	}
	return out
}

// SetCompressionRatio fills in metadata.compressionRatio: the size of the
// file as written without it (and before encryption) over the transcript's
// size, rounded to four decimals (spec §4.2).
func SetCompressionRatio(doc *spec.Document, opts *EncodeOptions) error {
	doc.Metadata.CompressionRatio = 0
	if doc.Metadata.TranscriptBytes <= 0 {
		return nil
	}
	js, err := canonicalJSON(doc)
	if err != nil {
		return err
	}
	return setRatioOf(doc, js, opts)
}

// setRatioOf is [SetCompressionRatio] of doc, whose compact canonical JSON
// without the ratio is js.
func setRatioOf(doc *spec.Document, js []byte, opts *EncodeOptions) error {
	doc.Metadata.CompressionRatio = 0
	if doc.Metadata.TranscriptBytes <= 0 {
		return nil
	}
	plain := EncodeOptions{}
	if opts != nil {
		plain = *opts
		plain.Password = nil
	}
	b, err := encodeJSON(js, &plain, func(text, file int64) error { return nil })
	if err != nil {
		return err
	}
	doc.Metadata.CompressionRatio = math.Round(float64(len(b))/float64(doc.Metadata.TranscriptBytes)*1e4) / 1e4
	return nil
}
