package format

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/smg-memory/smg/spec"
)

// JournalVersion is the version of the journal this package writes and
// reads (spec §9.7).
const JournalVersion = "1.0"

// journalMajor is JournalVersion's major number: a reader takes a journal
// of any minor version of it.
const journalMajor = 1

// ErrJournal reports a journal that is not one (spec §9.7): a header
// that is not, or an entry that is not a JSON object, before its last
// line. What comes before the fault is read.
var ErrJournal = errors.New("malformed journal")

// JournalName is the journal of the named memory file: NAME.journal,
// beside it.
func JournalName(name string) string { return name + ".journal" }

// HasJournal reports whether the named file has a journal beside it, of
// any base: a reader that has none to read need not hash the file.
func HasJournal(name string) bool {
	_, err := os.Stat(JournalName(name))
	return err == nil
}

// FileHash is the content hash of a file's bytes, as a journal names its
// base: "sha256:" and the hex of their SHA-256.
func FileHash(raw []byte) string {
	s := sha256.Sum256(raw)
	return "sha256:" + hex.EncodeToString(s[:])
}

// journalHeader is a journal's first line.
type journalHeader struct {
	Journal string `json:"smgJournal"`
	Base    string `json:"base"`
}

// ReadJournal reads the entries of the named file's journal that come
// after byte from (0: all of them), when the journal applies to base, the
// [FileHash] of the file's bytes. It returns them, each a JSON object, and
// the offset of the end of the last whole entry, to read from next time.
// A journal that does not exist, or that names another base (one left
// behind by a write that replaced the file), gives no entries and end 0.
// A last line without its newline (an entry being written, or cut off by
// a crash) is no entry. An entry before it that is not a JSON object
// stops the read with an error that matches ErrJournal, the entries
// before it given.
func ReadJournal(name, base string, from int64) (entries []jsontext.Value, end int64, err error) {
	data, err := os.ReadFile(JournalName(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		return nil, 0, nil // a header being written: no entry yet
	}
	var h journalHeader
	if err := json.Unmarshal(data[:nl], &h); err != nil || h.Journal == "" {
		return nil, 0, fmt.Errorf("%s: line 1: %w: the header is not {\"smgJournal\", \"base\"}", JournalName(name), ErrJournal)
	}
	if major, _, err := spec.ParseVersion(h.Journal); err != nil || major != journalMajor {
		return nil, 0, fmt.Errorf("%s: %w: version %q, this reader reads %s", JournalName(name), ErrJournal, h.Journal, JournalVersion)
	}
	if h.Base != base {
		return nil, 0, nil
	}
	end = int64(nl + 1)
	line := 2
	for pos := end; ; line++ {
		i := bytes.IndexByte(data[pos:], '\n')
		if i < 0 {
			return entries, end, nil // whole entries only
		}
		v := jsontext.Value(data[pos : pos+int64(i)])
		if pos >= from {
			if !v.IsValid() || v.Kind() != '{' {
				return entries, end, fmt.Errorf("%s: line %d: %w: an entry that is not a JSON object", JournalName(name), line, ErrJournal)
			}
			entries = append(entries, bytes.Clone(v))
		}
		pos += int64(i) + 1
		end = pos
	}
}

// AppendJournal appends entries, each a JSON object on one line, to the
// named file's journal for base, the [FileHash] of the file's bytes, and
// syncs it before it returns. end is where the journal's last whole entry
// ends, as [ReadJournal] or the last AppendJournal gave it, read under the
// file's lock that the caller holds ([LockFile]): what follows it is a
// line cut off by a crash, and is cut. A journal that does not exist or
// names another base is replaced by a new one, atomically. It returns
// the new end.
func AppendJournal(name, base string, end int64, entries ...jsontext.Value) (int64, error) {
	var body bytes.Buffer
	for _, e := range entries {
		c := jsontext.Value(bytes.Clone(e))
		if err := c.Compact(); err != nil || c.Kind() != '{' {
			return end, fmt.Errorf("%s: a journal entry is not a JSON object", JournalName(name))
		}
		body.Write(c)
		body.WriteByte('\n')
	}
	jn := JournalName(name)
	if end > 0 {
		f, err := os.OpenFile(jn, os.O_RDWR, 0)
		if err == nil {
			err = appendAt(f, end, body.Bytes())
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return end, fileError(jn, err)
			}
			return end + int64(body.Len()), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return end, fileError(jn, err)
		}
	}
	head, err := json.Marshal(journalHeader{JournalVersion, base})
	if err != nil {
		return end, err
	}
	data := append(append(head, '\n'), body.Bytes()...)
	perm := fs.FileMode(0o666)
	if fi, err := os.Stat(name); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := writeAtomicAs(jn, data, perm); err != nil {
		return end, err
	}
	return int64(len(data)), nil
}

// appendAt cuts f at end and writes data there, then syncs f.
func appendAt(f *os.File, end int64, data []byte) error {
	if err := f.Truncate(end); err != nil {
		return err
	}
	if _, err := f.Seek(end, io.SeekStart); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Sync()
}

// RemoveJournal removes the named file's journal, once a write of the
// file holds what it held. It is no error that there is none.
func RemoveJournal(name string) error {
	err := os.Remove(JournalName(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		if d, derr := os.Open(filepath.Dir(name)); derr == nil {
			_ = d.Sync()
			_ = d.Close()
		}
	}
	return err
}
