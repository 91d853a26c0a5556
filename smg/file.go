package smg

import (
	"bytes"
	"errors"
	"fmt"
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
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return doc, nil
}

// WriteFile encodes doc into the named file atomically: it writes a
// temporary file in the same folder, syncs it and renames it over the old
// one, so that a failure at any point leaves the old file as it was.
func WriteFile(name string, doc *spec.Document, opts *EncodeOptions) error {
	b, err := Marshal(doc, opts)
	if err != nil {
		return err
	}
	perm := fs.FileMode(0o644)
	if opts != nil && opts.Password != nil {
		perm = 0o600
	}
	return writeAtomic(name, b, perm)
}

// EncryptFile encrypts the .smg file src into dst (which may be src). The
// envelope holds src's bytes exactly, so decrypting gives them back.
func EncryptFile(src, dst string, password []byte, kdf KDF) error {
	raw, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if _, err := Unmarshal(raw, nil); err != nil {
		if errors.Is(err, ErrPasswordRequired) {
			return fmt.Errorf("encrypting %s: %w", src, ErrAlreadyEncrypted)
		}
		return fmt.Errorf("encrypting %s: %w", src, err)
	}
	sealed, err := envelope.Seal(raw, password, envelope.SealOptions{KDF: kdf})
	if err != nil {
		return fmt.Errorf("encrypting %s: %w", src, err)
	}
	return writeAtomic(dst, sealed, 0o600)
}

// DecryptFile decrypts the .smg file src into dst (which may be src),
// giving back the bytes that were encrypted. It checks that they are a
// readable document before it writes anything.
func DecryptFile(src, dst string, password []byte, lim Limits) error {
	raw, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	lim = lim.withDefaults()
	if !isEnvelope(raw, lim) {
		return fmt.Errorf("decrypting %s: %w", src, ErrNotEncrypted)
	}
	inner, err := open(raw, password, lim)
	if err != nil {
		return fmt.Errorf("decrypting %s: %w", src, err)
	}
	if _, err := Decode(bytes.NewReader(inner), &DecodeOptions{Limits: lim}); err != nil {
		return fmt.Errorf("decrypting %s: the decrypted content: %w", src, err)
	}
	return writeAtomic(dst, inner, 0o600)
}

// writeAtomic replaces the named file with data, or leaves it as it was.
// A new file gets perm; an existing one keeps its mode.
func writeAtomic(name string, data []byte, perm fs.FileMode) (err error) {
	if fi, err := os.Stat(name); err == nil {
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
