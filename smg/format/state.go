package format

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
)

// stateMagic starts a file of a builder's state.
const stateMagic = "smg-state 1\n"

// ErrStateMismatch: the state beside a file was not made for its bytes.
var ErrStateMismatch = errors.New("the state was made for other bytes")

// StateName is where the state of the builder of the named file is kept
// (see [graph.Builder.State]): a hidden file beside it, ".NAME.state". It
// is a cache, made again by replaying the file's turns when it is
// missing, damaged or made for other bytes.
func StateName(name string) string {
	return filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+".state")
}

// WriteState writes data, the state of the builder of a file whose bytes
// have the hash base ([FileHash]), to the named state file, atomically,
// readable by its owner alone: it holds the memory's text.
func WriteState(name, base string, data []byte) error {
	var b bytes.Buffer
	b.WriteString(stateMagic)
	b.WriteString(base)
	b.WriteByte('\n')
	sum := sha256.Sum256(data)
	b.Write(sum[:])
	b.Write(data)
	return writeAtomicAs(name, b.Bytes(), 0o600)
}

// ReadState reads the named state file, when it was made for the bytes
// of hash base and is whole; otherwise it fails.
func ReadState(name, base string) ([]byte, error) {
	raw, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	head := stateMagic + base + "\n"
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
