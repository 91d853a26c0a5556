package format

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/andybalholm/brotli"
	"github.com/smg-memory/smg/smg/internal/envelope"
	"github.com/smg-memory/smg/spec"
)

// ReadFile decodes the document in the named file; with
// opts.CachedVectors, with the vectors its cache keeps for it.
func ReadFile(name string, opts *DecodeOptions) (*spec.Document, error) {
	var o DecodeOptions
	if opts != nil {
		o = *opts
	}
	raw, err := ReadBytes(name, o.Limits)
	if err != nil {
		return nil, err
	}
	doc, _, err := DecodeForm(raw, &o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if o.CachedVectors {
		AdoptVectors(name, raw, doc, o.Limits)
	}
	return doc, nil
}

// ReadBytes reads the named file's bytes, and fails with a [*LimitError]
// if there are more than lim.MaxFileSize (a zero field of lim takes its
// default), before reading it when the file says its size.
func ReadBytes(name string, lim Limits) ([]byte, error) {
	lim = lim.withDefaults()
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Read into a buffer of the file's size, with room for the read that
	// meets its end: io.ReadAll would grow one to twice the size.
	size := int64(0)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if size = fi.Size(); size > lim.MaxFileSize {
			return nil, fmt.Errorf("%s: %w", name, &LimitError{Limit: "MaxFileSize", Max: lim.MaxFileSize})
		}
	}
	var head []byte
	if size > sniffAbove {
		head = make([]byte, sniffBytes)
		n, err := io.ReadFull(f, head)
		if err != nil && err != io.ErrUnexpectedEOF {
			return nil, err
		}
		head = head[:n]
		if err := sniff(head); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	buf.Write(head)
	if _, err := buf.ReadFrom(io.LimitReader(f, lim.MaxFileSize+1-int64(len(head)))); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if int64(len(b)) > lim.MaxFileSize {
		return nil, fmt.Errorf("%s: %w", name, &LimitError{Limit: "MaxFileSize", Max: lim.MaxFileSize})
	}
	return b, nil
}

// A file larger than sniffAbove (the most a reader took before its
// limits grew with the file) is read only once its first sniffBytes say
// it may be a memory, so that a large file of another kind is refused
// without being held.
const (
	sniffAbove = 64 << 20
	sniffBytes = 4 << 10
)

// sniff fails with ErrNotSMG when head, the start of a file, can start
// no memory: it is not JSON text, and a Brotli decoder fails on it within
// the probe window without a byte of output, as it does on text, images
// and archives (decompressError). Anything else is left to the reading.
func sniff(head []byte) error {
	if jsonStart(head) || len(bytes.TrimLeft(head, " \t\r\n")) == 0 {
		return nil // JSON text, or white space: the reading tells
	}
	in := &probeReader{r: bytes.NewReader(head)}
	var out [1]byte
	n, err := io.ReadFull(brotli.NewReader(in), out[:])
	if n == 0 && err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		if e := decompressError(err, 0, in.n); errors.Is(e, ErrNotSMG) {
			return e
		}
	}
	return nil
}

// WriteFile encodes doc into the named file atomically: it writes a
// temporary file in the same folder, syncs it and renames it over the old
// one, so that a failure at any point leaves the old file as it was. It
// refuses, with a [*ValidationError], a document that breaks the rules
// [Validate] checks (but JSON-LD expansion), and then writes nothing. It
// takes no lock: see [LockFile]. Unless opts ask for them in the file
// ([EncodeOptions.WithVectors]), doc's vectors are kept in the file's
// cache ([KeepVectors]).
func WriteFile(name string, doc *spec.Document, opts *EncodeOptions) error {
	b, err := marshalValid(WithoutVectors(doc, opts), opts)
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return WriteMemoryBytes(name, b, doc.DeepArchive.VectorIndex, opts)
}

// WriteMemoryBytes replaces the named file with b, a memory's file
// encoded with opts from a document whose vector index is vi, atomically
// (see [WriteBytes]; encrypted, it is its owner's only), and keeps vi's
// vectors in its cache when the file holds none ([KeepVectors]: a cache,
// whose failure costs embedding the turns again and is no error).
func WriteMemoryBytes(name string, b []byte, vi *spec.VectorIndex, opts *EncodeOptions) error {
	if err := writeEncoded(name, b, opts); err != nil {
		return err
	}
	_ = KeepVectors(name, FileHash(b), vi, opts)
	return nil
}

// marshalValid is [Marshal] of a document that passes [checkWritable],
// the check a writer makes before it writes: a file that smg writes is a
// valid one, and one that a reader accepts.
func marshalValid(doc *spec.Document, opts *EncodeOptions) ([]byte, error) {
	b, err := encodeDocument(doc, opts, false, true)
	if err == nil {
		err = checkFileSize(b)
	}
	return b, err
}

// checkWritable checks doc, whose compact canonical JSON is js, as a
// writer does before it writes: against [Validate] but JSON-LD expansion,
// and against the limits of the largest file. It returns what the text
// counts of the limits that grow with the file, for [fitsFile] to check
// once the file's size is known, so that a memory grown past them is not
// written as a file that no one can read back ([*LimitError]).
func checkWritable(doc *spec.Document, js []byte) (counts, error) {
	c, err := scanCounts(bytes.NewReader(js))
	if err != nil {
		return c, overLimit(err)
	}
	return c, validate(doc, js, &ValidateOptions{SkipJSONLD: true}, mostLimits)
}

// fitsFile checks c, what a document's text counts, against the default
// limits of its file, whose bytes before encryption are n.
func fitsFile(c counts, n int64) error {
	if err := c.within(Limits{}.forFile(n)); err != nil {
		return overLimit(err)
	}
	return nil
}

// checkFileSize checks the size of an encoded file against the
// [DefaultLimits].
func checkFileSize(b []byte) error {
	if int64(len(b)) > DefaultLimits.MaxFileSize {
		return overLimit(&LimitError{Limit: "MaxFileSize", Max: DefaultLimits.MaxFileSize})
	}
	return nil
}

// overLimit says of err, a limit a memory about to be written breaks, that
// a reader would refuse it.
func overLimit(err error) error {
	return fmt.Errorf("the memory has grown past what a reader accepts (smg maintain prunes what is stale): %w", err)
}

// WriteBytes replaces the named file with data atomically, as [WriteFile]
// does: it writes a temporary file in the same folder, syncs it and
// renames it over the old one, so that a failure at any point leaves the
// old file as it was. A file that exists keeps its mode, and a new one
// gets the mode the umask leaves of 0666; private makes it readable by its
// owner only (0600) either way, as the export of an encrypted memory
// should be. Like every function that writes a file, it takes no lock:
// see [LockFile].
func WriteBytes(name string, data []byte, private bool) error {
	return writeAtomic(name, data, private)
}

// writeEncoded writes b, encoded with opts, atomically: an encrypted file
// is made readable by its owner only.
func writeEncoded(name string, b []byte, opts *EncodeOptions) error {
	return writeAtomic(name, b, opts != nil && opts.Password != nil)
}

// EncryptFile encrypts the .smg file src into dst (which may be src) with
// opts.Password, opts.KDF and opts.Rand (the other options do not apply).
// The envelope holds src's bytes exactly, so decrypting gives them back;
// but for a file that holds no vectors and whose cache keeps them
// ([AdoptVectors]): the envelope holds its document with them, in its
// form, since nothing is kept beside an encrypted file.
// The encrypted file is made readable by its owner only.
func EncryptFile(src, dst string, opts *EncodeOptions) error {
	if opts == nil || opts.Password == nil {
		return fmt.Errorf("encrypting %s: %w", src, envelope.ErrNoPassword)
	}
	raw, err := ReadBytes(src, DefaultLimits)
	if err != nil {
		return err
	}
	doc, err := Unmarshal(raw, nil)
	if err != nil {
		if errors.Is(err, ErrPasswordRequired) {
			return fmt.Errorf("encrypting %s: %w", src, ErrAlreadyEncrypted)
		}
		return fmt.Errorf("encrypting %s: %w", src, err)
	}
	if AdoptVectors(src, raw, doc, DefaultLimits) {
		// The vectors src's cache keeps go into the encrypted file:
		// nothing is kept beside it.
		form := FormOf(raw)
		if raw, err = Marshal(doc, &EncodeOptions{Plain: form.Plain, Indent: form.Indented}); err != nil {
			return fmt.Errorf("encrypting %s: %w", src, err)
		}
	}
	sealed, err := envelope.Seal(raw, opts.Password, opts.sealOptions())
	if err != nil {
		return fmt.Errorf("encrypting %s: %w", src, err)
	}
	return writeAtomic(dst, sealed, true)
}

// DecryptFile decrypts the .smg file src into dst (which may be src),
// giving back the bytes that were encrypted, with opts.Password or, when
// that is nil, the password opts.PasswordFunc returns (asked for only once
// src is known to be encrypted). It checks that the decrypted bytes are a
// readable document before it writes anything.
func DecryptFile(src, dst string, opts *DecodeOptions) error {
	if opts == nil {
		opts = &DecodeOptions{}
	}
	lim := opts.Limits.withDefaults()
	raw, err := ReadBytes(src, lim)
	if err != nil {
		return err
	}
	if !isEnvelope(raw, lim) {
		return fmt.Errorf("decrypting %s: %w", src, ErrNotEncrypted)
	}
	password, err := opts.password()
	if err != nil {
		return err
	}
	inner, err := open(raw, password, lim)
	if err != nil {
		return fmt.Errorf("decrypting %s: %w", src, err)
	}
	if _, err := Decode(bytes.NewReader(inner), &DecodeOptions{Limits: opts.Limits}); err != nil {
		return fmt.Errorf("decrypting %s: the decrypted content: %w", src, err)
	}
	return writeAtomic(dst, inner, true)
}

// writeAtomic replaces the named file with data, or leaves it as it was.
// A file that exists keeps its mode, and a new one gets the mode the umask
// leaves of 0666, unless private: then the file is its owner's only
// (0600), and the index cache of a memory in the clear that was there is
// removed, since it holds the memory's text. Its errors name the file,
// never its temporary file.
func writeAtomic(name string, data []byte, private bool) (err error) {
	perm, keep := fs.FileMode(0o666), false
	if private {
		perm = 0o600
	} else if fi, err := os.Stat(name); err == nil {
		perm, keep = fi.Mode().Perm(), true
	}
	if err := writeReplacing(name, data, perm, keep); err != nil {
		return err
	}
	if private {
		if err := removeCache(name); err != nil {
			return fmt.Errorf("%s is encrypted, but its cache folder, which holds its text in the clear, could not be removed: %w", name, err)
		}
	}
	return nil
}

// writeAtomicAs writes data to the named file atomically, as writeAtomic
// does, with the mode perm whatever the umask.
func writeAtomicAs(name string, data []byte, perm fs.FileMode) error {
	return writeReplacing(name, data, perm, true)
}

// writeReplacing writes data to a temporary file beside the named one,
// of mode perm (less the umask, unless exact), syncs it and renames it
// over the named file.
func writeReplacing(name string, data []byte, perm fs.FileMode, exact bool) error {
	return writeReplacingWith(name, perm, exact, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// writeReplacingWith is writeReplacing of what fill writes to the
// temporary file.
func writeReplacingWith(name string, perm fs.FileMode, exact bool, fill func(*os.File) error) (err error) {
	keep := exact
	dir := filepath.Dir(name)
	tmp, err := createTemp(name, perm)
	if err != nil {
		return fileError(name, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fileError(name, err)
		}
	}()
	if err = fill(tmp); err != nil {
		return err
	}
	if keep {
		// The umask does not apply to the mode of the file replaced.
		if err = tmp.Chmod(perm); err != nil {
			return err
		}
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), name); err != nil {
		return err
	}
	// Make the rename itself durable; not every system can sync a folder.
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// createTemp creates a new temporary file beside the named one
// (".NAME.tmp-" and a random number), with perm less the umask.
func createTemp(name string, perm fs.FileMode) (*os.File, error) {
	prefix := filepath.Join(filepath.Dir(name), tempPrefix(name))
	for range 100 {
		f, err := os.OpenFile(prefix+strconv.FormatUint(rand.Uint64(), 36), os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("writing %s: no free name for a temporary file beside it", name)
}

// indented reports whether js, JSON text that smg wrote or can read, is in
// the indented canonical form rather than the compact one.
func indented(js []byte) bool { return bytes.HasPrefix(js, []byte("{\n")) }

// IndexKey is what an index cache is made for: a file's bytes, raw, read
// under lim (a zero field of lim takes its default).
func IndexKey(raw []byte, lim Limits) string {
	lim = lim.withDefaults()
	h := sha256.New()
	h.Write(raw)
	fmt.Fprintf(h, "\x00%+v", lim)
	return hex.EncodeToString(h.Sum(nil))
}

// Form is the form of a file: encrypted or not, with which key
// derivation, and inside, plain JSON or Brotli-compressed, compact or
// indented (spec §9.1, §9.2): what a writer that keeps a file's form sets
// in [EncodeOptions] (Plain, Indent, and the KDF with the password).
type Form struct {
	Encrypted       bool
	KDF             *KDF
	Plain, Indented bool
}

// FormOf is the form of raw, the bytes of an unencrypted file, read from
// its first bytes only.
func FormOf(raw []byte) Form {
	if jsonStart(raw) {
		return Form{Plain: true, Indented: indented(raw)}
	}
	head := make([]byte, 2)
	n, _ := io.ReadFull(brotli.NewReader(bytes.NewReader(raw)), head)
	return Form{Indented: indented(head[:n])}
}

// DecodeForm is [Unmarshal] of raw, the bytes of a file, that also tells
// the form they came in.
func DecodeForm(raw []byte, opts *DecodeOptions) (*spec.Document, Form, error) {
	d, err := decode(bytes.NewReader(raw), opts)
	if err != nil {
		return nil, Form{}, err
	}
	return d.Doc, Form{Encrypted: d.Form.Encrypted, KDF: d.Form.KDF, Plain: !d.Form.Compressed, Indented: d.indented()}, nil
}

// MarshalMemory is [Marshal] of a memory's document as its writer makes
// it: without metadata.compressionRatio (spec §4.2: it would cost a second
// encoding of the whole file at every save), its archive blocks in the
// clear as [MarshalClear] writes them, and checked as [WriteFile] checks
// it, piece by piece on other cores while the file is encoded, so that a
// write holds the file's lock for less time and never holds the whole
// text of the memory.
func MarshalMemory(doc *spec.Document, opts *EncodeOptions) ([]byte, error) {
	doc.Metadata.CompressionRatio = 0
	b, err := encodeDocument(WithoutVectors(doc, opts), opts, true, true)
	if err != nil {
		return nil, err
	}
	return b, checkFileSize(b)
}
