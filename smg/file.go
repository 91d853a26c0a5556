package smg

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/smg-memory/smg/smg/internal/envelope"
	"github.com/smg-memory/smg/spec"
)

// ReadFile decodes the document in the named file.
func ReadFile(name string, opts *DecodeOptions) (*spec.Document, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := Decode(f, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return doc, nil
}

// readLimited reads the named file, refusing one larger than MaxFileSize
// before reading it.
func readLimited(name string, lim Limits) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > lim.MaxFileSize {
		return nil, fmt.Errorf("%s: %w", name, &LimitError{Limit: "MaxFileSize", Max: lim.MaxFileSize})
	}
	b, err := io.ReadAll(io.LimitReader(f, lim.MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > lim.MaxFileSize {
		return nil, fmt.Errorf("%s: %w", name, &LimitError{Limit: "MaxFileSize", Max: lim.MaxFileSize})
	}
	return b, nil
}

// WriteFile encodes doc into the named file atomically: it writes a
// temporary file in the same folder, syncs it and renames it over the old
// one, so that a failure at any point leaves the old file as it was.
func WriteFile(name string, doc *spec.Document, opts *EncodeOptions) error {
	b, err := Marshal(doc, opts)
	if err != nil {
		return err
	}
	return writeEncoded(name, b, opts)
}

// WriteBytes replaces the named file with data atomically, as [WriteFile]
// does: it writes a temporary file in the same folder, syncs it and
// renames it over the old one, so that a failure at any point leaves the
// old file as it was. A file that exists keeps its mode, a new one is
// made readable by all (0644); private makes it readable by its owner
// only (0600) either way, as the export of an encrypted memory should be.
func WriteBytes(name string, data []byte, private bool) error {
	if private {
		return writeAtomic(name, data, 0o600, false)
	}
	return writeAtomic(name, data, 0o644, true)
}

// writeEncoded writes b, encoded with opts, atomically: an encrypted
// file is made readable by its owner only (an existing file keeps its
// mode).
func writeEncoded(name string, b []byte, opts *EncodeOptions) error {
	perm := fs.FileMode(0o644)
	if opts != nil && opts.Password != nil {
		perm = 0o600
	}
	return writeAtomic(name, b, perm, true)
}

// EncryptFile encrypts the .smg file src into dst (which may be src) with
// opts.Password, opts.KDF and opts.Rand (the other options do not apply).
// The envelope holds src's bytes exactly, so decrypting gives them back.
// The encrypted file is made readable by its owner only.
func EncryptFile(src, dst string, opts *EncodeOptions) error {
	if opts == nil || opts.Password == nil {
		return fmt.Errorf("encrypting %s: %w", src, envelope.ErrNoPassword)
	}
	raw, err := readLimited(src, DefaultLimits)
	if err != nil {
		return err
	}
	if _, err := Unmarshal(raw, nil); err != nil {
		if errors.Is(err, ErrPasswordRequired) {
			return fmt.Errorf("encrypting %s: %w", src, ErrAlreadyEncrypted)
		}
		return fmt.Errorf("encrypting %s: %w", src, err)
	}
	sealed, err := envelope.Seal(raw, opts.Password, opts.sealOptions())
	if err != nil {
		return fmt.Errorf("encrypting %s: %w", src, err)
	}
	return writeAtomic(dst, sealed, 0o600, false)
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
	raw, err := readLimited(src, lim)
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
	if _, err := Decode(bytes.NewReader(inner), &DecodeOptions{Limits: lim}); err != nil {
		return fmt.Errorf("decrypting %s: the decrypted content: %w", src, err)
	}
	return writeAtomic(dst, inner, 0o600, true)
}

// writeAtomic replaces the named file with data, or leaves it as it was.
// The file gets perm, or keeps its mode when it exists and keepMode is set.
func writeAtomic(name string, data []byte, perm fs.FileMode, keepMode bool) (err error) {
	if fi, err := os.Stat(name); err == nil && keepMode {
		perm = fi.Mode().Perm()
	}
	dir, base := filepath.Split(name)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
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
