package format

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// stateMagic starts a file of a builder's state.
const stateMagic = "smg-state 1\n"

// ErrStateMismatch: the state beside a file was not made for its bytes.
var ErrStateMismatch = errors.New("the state was made for other bytes")

// StateName is where the state of the builder of the named file is kept
// (see [graph.Builder.State]): in its [CacheDir]. It is a cache, made
// again by replaying the file's turns when it is missing, damaged or made
// for other bytes.
func StateName(name string) string { return filepath.Join(CacheDir(name), "state") }

// WriteState writes data, the state of the builder of a file whose bytes
// have the hash base ([FileHash]), to the named state file, atomically,
// readable by its owner alone: it holds the memory's text.
func WriteState(name, base string, data []byte) error {
	return WriteStateFrom(name, base, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteStateFrom is [WriteState] of the data write writes (as
// [graph.Builder.WriteState] does), streamed to the file rather than held.
func WriteStateFrom(name, base string, write func(io.Writer) error) error {
	return writeStamped(name, stateMagic, base, write)
}

// ReadState reads the named state file, when it was made for the bytes
// of hash base and is whole; otherwise it fails.
func ReadState(name, base string) ([]byte, error) {
	return readStamped(name, stateMagic, base, -1)
}

// writeStamped writes a file of the cache, atomically, readable by its
// owner alone: magic, the hash base of the memory file's bytes it was
// made for, the hash of its data, then the data write writes.
func writeStamped(name, magic, base string, write func(io.Writer) error) error {
	head := magic + base + "\n"
	if err := makeCacheDir(name); err != nil {
		return err
	}
	return writeReplacingWith(name, 0o600, true, func(f *os.File) error {
		// The data's hash goes before it: a place for it now, the hash
		// once the data is written.
		if _, err := f.WriteString(head + strings.Repeat("\x00", sha256.Size)); err != nil {
			return err
		}
		h := sha256.New()
		bw := bufio.NewWriterSize(io.MultiWriter(f, h), 1<<16)
		if err := write(bw); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		_, err := f.WriteAt(h.Sum(nil), int64(len(head)))
		return err
	})
}

// readStamped reads the data of the named file of the cache, written by
// writeStamped with magic, when it was made for the bytes of hash base, is
// whole, and is no larger than max bytes (when max is not negative);
// otherwise it fails with [ErrStateMismatch].
func readStamped(name, magic, base string, max int64) ([]byte, error) {
	head := magic + base + "\n"
	if max >= 0 {
		fi, err := os.Stat(name)
		if err != nil {
			return nil, err
		}
		if fi.Size() > max+int64(len(head))+sha256.Size {
			return nil, ErrStateMismatch
		}
	}
	raw, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(raw, []byte(head)) || len(raw) < len(head)+sha256.Size {
		return nil, ErrStateMismatch
	}
	rest := raw[len(head):]
	data := rest[sha256.Size:]
	if sum := sha256.Sum256(data); !bytes.Equal(sum[:], rest[:sha256.Size]) {
		return nil, ErrStateMismatch
	}
	return data, nil
}
