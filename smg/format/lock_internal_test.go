package format

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gofrs/flock"
)

// A lock is held on the lock file at its path only: once its holder
// removed the file, a lock taken through a handle opened before is of no
// file anyone else will lock.
func TestSameLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".m.smg.lock")
	l := flock.New(path)
	if ok, err := l.TryLock(); !ok || err != nil {
		t.Fatal(ok, err)
	}
	defer l.Unlock()
	if !sameLock(l) {
		t.Error("the lock of the file at its path is not the same lock")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if sameLock(l) {
		t.Error("the lock of a removed file is the same lock")
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if sameLock(l) {
		t.Error("the lock of a removed file is that of the file made again at its path")
	}
}
