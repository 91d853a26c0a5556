package format_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// remember saves content into the memory of the file f.
func remember(t testing.TB, f *smg.FileMemory, content string) {
	t.Helper()
	ctx := context.Background()
	err := f.Update(ctx, func(m *smg.Memory) error {
		_, err := m.Remember(ctx, smg.Fact{Content: content})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// newMemoryFile is the memory of the named file, made at its first
// change, closed when the test ends.
func newMemoryFile(t testing.TB, name string) *smg.FileMemory {
	t.Helper()
	f, err := smg.OpenFileMemory(name, &smg.FileOptions{Create: &smg.Options{NoVectors: true}, Open: smg.OpenOptions{NoVectors: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// withUmask runs the test under umask mask.
func withUmask(t *testing.T, mask int) {
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}

func mode(t testing.TB, name string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// A new file in the clear gets the mode the umask leaves, a file replaced
// keeps its own, and an encrypted one is its owner's only.
func TestFileModes(t *testing.T) {
	withUmask(t, 0o027)
	dir := t.TempDir()
	m := smg.New(&smg.Options{NoVectors: true})
	plain := filepath.Join(dir, "plain.smg")
	if err := m.Save(plain, nil); err != nil {
		t.Fatal(err)
	}
	if got := mode(t, plain); got != 0o640 {
		t.Errorf("a new file under umask 027 is %v, want -rw-r-----", got)
	}
	if err := os.Chmod(plain, 0o604); err != nil {
		t.Fatal(err)
	}
	f, err := smg.OpenFileMemory(plain, &smg.FileOptions{Open: smg.OpenOptions{NoVectors: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	remember(t, f, "User keeps the plain file's mode")
	if got := mode(t, plain); got != 0o604 {
		t.Errorf("a file written again is %v, want its own -rw----r--", got)
	}
	for _, name := range []string{"secret.smg", "plain.smg"} {
		name = filepath.Join(dir, name)
		if err := m.Save(name, &format.EncodeOptions{Password: []byte("pw"), KDF: cheapKDF, InsecureKDF: true}); err != nil {
			t.Fatal(err)
		}
		if got := mode(t, name); got != 0o600 {
			t.Errorf("the encrypted %s is %v, want -rw-------", filepath.Base(name), got)
		}
	}
}

// cheapKDF derives keys quickly, for tests.
var cheapKDF = format.KDF{Function: format.DefaultPBKDF2.Function, Iterations: 1000}

// The next writer of a memory removes the temporary files that a write
// which crashed left beside it, and an old temporary index cache, but not
// a young one, which a reader may be writing now.
func TestStaleTemporaryFilesRemoved(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "m.smg")
	f := newMemoryFile(t, name)
	remember(t, f, "User lives by the sea")
	old := time.Now().Add(-time.Hour)
	mk := func(rel string, dir bool, mod time.Time) string {
		p := filepath.Join(filepath.Dir(name), rel)
		var err error
		if dir {
			err = os.MkdirAll(filepath.Join(p, "store"), 0o755)
		} else {
			err = os.WriteFile(p, []byte("half a memory"), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := os.MkdirAll(format.CacheDir(name), 0o700); err != nil {
		t.Fatal(err)
	}
	gone := []string{
		mk(".m.smg.tmp-123", false, time.Now()),
		mk(".m.smg.tmp-abc", false, old),
		mk(".m.smg.cache/index.tmp-42", true, old),
		mk(".m.smg.cache/.state.tmp-7", false, time.Now()),   // the builder's state, cut by a crash
		mk(".m.smg.cache/.vectors.tmp-9", false, time.Now()), // the vectors, cut by a crash
		mk(".m.smg.journal.tmp-8", false, time.Now()),        // a journal begun again, cut by a crash
		mk(".m.smg.index", true, old),                        // where an older smg kept the index
		mk(".m.smg.state", false, old),                       // and the builder's state
	}
	kept := []string{
		mk(".m.smg.cache/index.tmp-43", true, time.Now()), // being written
		mk(".other.smg.tmp-1", false, old),                // another memory's
		mk(".other.smg.index", true, old),                 // another memory's
		mk("m.smg.tmp-1", false, old),                     // not a temporary file
	}
	remember(t, f, "User swims every morning")
	for _, p := range gone {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there: %v", filepath.Base(p), err)
		}
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(p), err)
		}
	}
}

// A write waits for another process's, says once that it waits, and gives
// up with ErrLocked after its timeout.
func TestLockFileWaits(t *testing.T) {
	name := filepath.Join(t.TempDir(), "m.smg")
	other := flock.New(filepath.Join(filepath.Dir(name), ".m.smg.lock"))
	if err := other.Lock(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var waits []string
	opts := &format.LockOptions{Timeout: 100 * time.Millisecond, OnWait: func(n string) {
		mu.Lock()
		defer mu.Unlock()
		waits = append(waits, n)
	}}
	if _, err := format.LockFile(context.Background(), name, opts); !errors.Is(err, format.ErrLocked) || !strings.Contains(err.Error(), name) {
		t.Errorf("a file locked for longer than the timeout: %v", err)
	}
	if len(waits) != 1 || waits[0] != name {
		t.Errorf("OnWait was called with %q, want once with the file's name", waits)
	}

	// Given time, the write goes through when the other lets go.
	opts.Timeout, waits = time.Minute, nil
	got := make(chan error, 1)
	go func() {
		unlock, err := format.LockFile(context.Background(), name, opts)
		if err == nil {
			unlock()
		}
		got <- err
	}()
	time.Sleep(50 * time.Millisecond)
	other.Unlock()
	if err := <-got; err != nil {
		t.Errorf("after the other let go: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	other.Lock()
	cancel()
	if _, err := format.LockFile(ctx, name, opts); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled wait: %v", err)
	}
	other.Unlock()
}

// A memory kept in plain JSON, compact or indented, stays so when it is
// changed, unless asked otherwise.
func TestFileMemoryKeepsTheEncoding(t *testing.T) {
	for _, tc := range []struct {
		name string
		enc  *format.EncodeOptions
	}{
		{"brotli", nil},
		{"plain", &format.EncodeOptions{Plain: true}},
		{"indented", &format.EncodeOptions{Plain: true, Indent: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := filepath.Join(t.TempDir(), "m.smg")
			if err := smg.New(&smg.Options{NoVectors: true}).Save(name, tc.enc); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(name)
			for _, reencode := range []bool{false, true} {
				f, err := smg.OpenFileMemory(name, &smg.FileOptions{Reencode: reencode})
				if err != nil {
					t.Fatal(err)
				}
				remember(t, f, "User reads the file with jq, reencode "+map[bool]string{false: "off", true: "on"}[reencode])
				f.Close()
				after, _ := os.ReadFile(name)
				want := before
				if reencode {
					// Encode's form: the zero value, Brotli.
					want = []byte{}
				}
				if a, b := form(after), form(want); a != b {
					t.Errorf("reencode %v: a %s file was written as %s", reencode, form(before), a)
				}
			}
		})
	}
}

// form names the form of a file's bytes.
func form(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("{\n")):
		return "indented"
	case bytes.HasPrefix(b, []byte("{")):
		return "plain"
	}
	return "brotli"
}

// invalidMemory writes a memory that fails validation, with a node of a
// type the spec does not have, as a hand-edited file might.
func invalidMemory(t *testing.T) string {
	t.Helper()
	m := smg.New(&smg.Options{NoVectors: true})
	name := filepath.Join(t.TempDir(), "bad.smg")
	if err := m.Save(name, &format.EncodeOptions{Plain: true}); err != nil {
		t.Fatal(err)
	}
	doc, err := format.ReadFile(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc.SemanticGraph.Nodes = append(doc.SemanticGraph.Nodes, spec.Node{ID: "bogus-1", Type: "bogus", Label: "a node of no type", Importance: 0.5})
	raw, err := format.Marshal(doc, &format.EncodeOptions{Plain: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// A writer refuses to write a memory that does not validate, names the
// problem's path, and leaves the file as it was.
func TestWritersRefuseAnInvalidMemory(t *testing.T) {
	name := invalidMemory(t)
	before, _ := os.ReadFile(name)
	f, err := smg.OpenFileMemory(name, &smg.FileOptions{Open: smg.OpenOptions{NoVectors: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	err = f.Update(ctx, func(m *smg.Memory) error {
		_, err := m.Remember(ctx, smg.Fact{Content: "User keeps a bogus node"})
		return err
	})
	var ve *format.ValidationError
	if !errors.As(err, &ve) || !errors.Is(err, format.ErrInvalid) || !strings.Contains(err.Error(), "$.semanticGraph.nodes[") {
		t.Errorf("remembering into an invalid memory: %v", err)
	}
	doc, err := format.ReadFile(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(name); !bytes.Equal(before, after) {
		t.Error("the invalid memory was written")
	}
	out := filepath.Join(filepath.Dir(name), "copy.smg")
	if err := format.WriteFile(out, doc, nil); !errors.As(err, &ve) || !strings.Contains(err.Error(), out) {
		t.Errorf("WriteFile of an invalid document: %v", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("WriteFile wrote an invalid document: %v", err)
	}
}

// An error of a write names the file the caller named, not a temporary
// file beside it.
func TestWriteErrorsNameTheFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "no", "such", "folder", "m.smg")
	err := smg.New(&smg.Options{NoVectors: true}).Save(name, nil)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), name) || strings.Contains(err.Error(), ".tmp-") {
		t.Errorf("saving into a missing folder: %v", err)
	}
	if _, err := format.LockFile(context.Background(), name, nil); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), filepath.Dir(name)) || strings.Contains(err.Error(), ".lock") {
		t.Errorf("locking in a missing folder: %v", err)
	}
}

// Encrypting a memory removes the index cache beside it, which holds its
// text in the clear; so does writing it encrypted.
func TestEncryptingRemovesTheIndexCache(t *testing.T) {
	ctx := context.Background()
	for _, how := range []string{"EncryptFile", "FileMemory"} {
		t.Run(how, func(t *testing.T) {
			name, o := greyhoundMemory(t)
			if _, err := o.Context(ctx, "greyhound", &smg.ContextOptions{Wait: true}); err != nil {
				t.Fatal(err)
			}
			if err := o.WaitIndex(ctx); err != nil {
				t.Fatal(err)
			}
			o.Close()
			half := format.IndexCacheDir(name) + ".tmp-7"
			if err := os.MkdirAll(half, 0o755); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(format.IndexCacheDir(name), "smg-key")); err != nil {
				t.Fatalf("no cache to remove: %v", err)
			}
			pw := &format.EncodeOptions{Password: []byte("pw"), KDF: cheapKDF, InsecureKDF: true}
			var err error
			switch how {
			case "EncryptFile":
				err = format.EncryptFile(name, name, pw)
			case "FileMemory":
				var f *smg.FileMemory
				f, err = smg.OpenFileMemory(name, &smg.FileOptions{Encode: *pw})
				if err == nil {
					remember(t, f, "User walks Pixel at dawn")
					f.Close()
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{format.IndexCacheDir(name), half} {
				if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%s is still there beside the encrypted memory: %v", filepath.Base(p), err)
				}
			}
		})
	}
}

// A reader writes the index cache of a file only while the file is still
// the one it read, and no writer holds its lock: a cache made from a
// memory in the clear never lands beside the memory encrypted meanwhile.
func TestIndexCacheOnlyOfTheFileAsItIs(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []string{"unchanged", "encrypted meanwhile", "locked by a writer"} {
		t.Run(tc, func(t *testing.T) {
			name, o := greyhoundMemory(t)
			defer o.Close()
			switch tc {
			case "encrypted meanwhile":
				if err := format.EncryptFile(name, name, &format.EncodeOptions{Password: []byte("pw"), KDF: cheapKDF, InsecureKDF: true}); err != nil {
					t.Fatal(err)
				}
			case "locked by a writer":
				unlock, err := format.LockFile(ctx, name, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer unlock()
			}
			if _, err := o.Context(ctx, "greyhound", &smg.ContextOptions{Wait: true}); err != nil {
				t.Fatal(err)
			}
			if err := o.WaitIndex(ctx); err != nil {
				t.Fatal(err)
			}
			_, err := os.Stat(format.IndexCacheDir(name))
			if cached := err == nil; cached != (tc == "unchanged") {
				t.Errorf("an index cache beside the file: %v", cached)
			}
			tmps, _ := filepath.Glob(format.IndexCacheDir(name) + ".tmp-*")
			if len(tmps) > 0 {
				t.Errorf("a temporary cache was left: %q", tmps)
			}
		})
	}
}

// An encrypted file written again keeps the key derivation its owner
// chose.
func TestFileMemoryKeepsTheKeyDerivation(t *testing.T) {
	name := filepath.Join(t.TempDir(), "m.smg")
	pw := []byte("pw")
	// The least a writer may choose, not the default: it is kept only as
	// the file's own.
	least := format.KDF{Function: format.DefaultArgon2id.Function, TimeCost: 2, MemoryKiB: 19 * 1024, Parallelism: 1}
	if err := smg.New(&smg.Options{NoVectors: true}).Save(name, &format.EncodeOptions{Password: pw, KDF: least}); err != nil {
		t.Fatal(err)
	}
	before, err := format.InspectFile(name, &format.DecodeOptions{Password: pw})
	if err != nil {
		t.Fatal(err)
	}
	f, err := smg.OpenFileMemory(name, &smg.FileOptions{Open: smg.OpenOptions{Decode: format.DecodeOptions{Password: pw}}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	remember(t, f, "User chose PBKDF2 for the memory")
	after, err := format.InspectFile(name, &format.DecodeOptions{Password: pw})
	if err != nil {
		t.Fatal(err)
	}
	b, a := *before.Form.KDF, *after.Form.KDF
	if a != b || a != least {
		t.Errorf("written again with %+v, was %+v", a, b)
	}
}

// greyhoundMemory saves a memory of one fact into a new file, and opens it
// with its index cache beside it.
func greyhoundMemory(t *testing.T) (string, *smg.Memory) {
	t.Helper()
	name := filepath.Join(t.TempDir(), "m.smg")
	m := smg.New(&smg.Options{NoVectors: true})
	if _, err := m.Remember(context.Background(), smg.Fact{Content: "User adopted a greyhound called Pixel"}); err != nil {
		t.Fatal(err)
	}
	if err := m.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	o, err := smg.Open(name, &smg.OpenOptions{IndexCache: format.IndexCacheDir(name)})
	if err != nil {
		t.Fatal(err)
	}
	return name, o
}

// A memory grown past the limits a reader applies is not written: the file
// would be one no one could read back.
func TestWritersRefuseWhatReadersWould(t *testing.T) {
	doc := smg.New(&smg.Options{NoVectors: true}).Document()
	for i := range format.DefaultLimits.MaxNodes + 1 {
		id := fmt.Sprintf("concept-c%d", i)
		doc.SemanticGraph.Nodes = append(doc.SemanticGraph.Nodes, spec.Node{ID: id, Type: spec.NodeConcept, Label: id, Importance: 0.5, Version: 1})
	}
	name := filepath.Join(t.TempDir(), "big.smg")
	err := format.WriteFile(name, doc, nil)
	var le *format.LimitError
	if !errors.As(err, &le) || le.Limit != "MaxNodes" || !errors.Is(err, format.ErrLimit) {
		t.Errorf("writing %d nodes: %v", len(doc.SemanticGraph.Nodes), err)
	}
	if _, err := os.Stat(name); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the memory was written: %v", err)
	}
}

// RemoveFile removes a memory's file and everything beside it, under its
// lock: it waits for another process's change, and a process that then
// takes the lock of the removed file finds the file gone, without making
// a lock file that stays.
func TestRemoveFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "m.smg")
	f := newMemoryFile(t, name)
	remember(t, f, "User lives by the sea")
	if _, err := f.Remember(context.Background(), smg.Fact{Content: "User swims every morning"}); err != nil {
		t.Fatal(err) // in the journal
	}
	if err := os.MkdirAll(format.CacheDir(name), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, side := range []string{".m.smg.tmp-1", ".m.smg.cache/.state.tmp-2", ".m.smg.cache/index.tmp-3", ".m.smg.index", "other.smg", ".other.smg.lock"} {
		if err := os.WriteFile(filepath.Join(dir, side), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(format.IndexCacheDir(name), 0o700); err != nil {
		t.Fatal(err)
	}

	// Another process holds the lock: the removal waits for it.
	other := flock.New(filepath.Join(dir, ".m.smg.lock"))
	if err := other.Lock(); err != nil {
		t.Fatal(err)
	}
	removed := make(chan error, 1)
	go func() { removed <- format.RemoveFile(context.Background(), name, nil) }()
	time.Sleep(50 * time.Millisecond)
	if _, err := os.Stat(name); err != nil {
		t.Fatalf("removed while another process held its lock: %v", err)
	}
	other.Unlock()
	if err := <-removed; err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := []string{".other.smg.lock", "other.smg"}; !slices.Equal(left, want) {
		t.Errorf("left %q, want %q (another memory's files)", left, want)
	}

	// The memory opened before finds it gone, and makes nothing again,
	// though it was made with Create.
	if _, err := f.Remember(context.Background(), smg.Fact{Content: "User sails"}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a change after the removal: %v, want fs.ErrNotExist", err)
	}
	if _, err := f.Memory(context.Background()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a read after the removal: %v, want fs.ErrNotExist", err)
	}
	if _, err := os.Stat(name); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the memory was made again: %v", err)
	}
	if err := format.RemoveFile(context.Background(), name, nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("removing it again: %v, want fs.ErrNotExist", err)
	}
}

// Processes that take a memory's lock, some of them removing the lock
// file before they let go (as RemoveFile does), never hold it two at once:
// one that opened the lock file before it was removed takes the lock of
// the file there now.
func TestLockFileRemovedByItsHolder(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "m.smg")
	var inside atomic.Int32
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 150 {
				unlock, err := format.LockFile(context.Background(), name, nil)
				if err != nil {
					t.Error(err)
					return
				}
				if n := inside.Add(1); n != 1 {
					t.Errorf("writer %d, round %d: %d hold the lock at once", w, i, n)
				}
				time.Sleep(100 * time.Microsecond)
				inside.Add(-1)
				if (i+w)%2 == 0 {
					os.Remove(filepath.Join(dir, ".m.smg.lock"))
				}
				unlock()
			}
		})
	}
	wg.Wait()
}
