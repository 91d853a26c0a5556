package serve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
)

// ErrNotFound is the error of a memory the store does not hold; ErrExists
// that of creating one it holds.
var (
	ErrNotFound = errors.New("no such memory")
	ErrExists   = errors.New("the memory exists")
)

// ErrInvalidID is the error of a tenant or memory id that is not one.
var ErrInvalidID = errors.New("invalid id")

// idPattern is what a tenant or memory id may be: a file name on every
// system, never "." or "..", and no path.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// CheckID reports whether id is a valid tenant or memory id, with
// [ErrInvalidID] when it is not.
func CheckID(what, id string) error {
	if !idPattern.MatchString(id) {
		return fmt.Errorf("%w: %s %q: want 1 to 64 letters, digits, '-' and '_', not starting with '-' or '_'", ErrInvalidID, what, id)
	}
	return nil
}

// Store keeps a service's memories: [Dir] keeps them in files. Each
// memory a request creates or opens is given with a done, which the
// request calls when it no longer uses it.
type Store interface {
	Create(ctx context.Context, tenant, id string, opts *smg.Options) (smg.Kept, func(), error)
	Open(ctx context.Context, tenant, id string) (smg.Kept, func(), error)
	// Import makes a memory from the bytes of a .smg file.
	Import(ctx context.Context, tenant, id string, file []byte) (smg.Kept, func(), error)
	// List returns the ids of tenant's memories, sorted.
	List(ctx context.Context, tenant string) ([]string, error)
	Delete(ctx context.Context, tenant, id string) error
	// Ready reports whether the store can be written.
	Ready(ctx context.Context) error
	Keys() KeyStore
	Stats() StoreStats
	Close() error
}

// KeyChecker tells a request's key: [Keys] for a directory.
type KeyChecker interface {
	// Enabled reports whether the store has keys: then every request
	// needs one.
	Enabled(ctx context.Context) (bool, error)
	// Check returns the key of a secret, or an error that wraps ErrKey.
	Check(ctx context.Context, secret string) (*Key, error)
}

// KeyStore keeps a store's keys: [Keys] for a directory.
type KeyStore interface {
	KeyChecker
	// Add makes a new key of what k says (Tenant, Scope, and optionally
	// Memories, Label and Expires), keeps its hash, and returns the key,
	// which is shown once: the store cannot tell it again.
	Add(ctx context.Context, k Key) (secret string, key Key, err error)
	// Revoke revokes the key id.
	Revoke(ctx context.Context, id string) error
	// List returns the keys, without their hashes, oldest first.
	List(ctx context.Context) ([]Key, error)
	// Reset removes every key: the store serves without keys again.
	Reset(ctx context.Context) error
}

// StoreStats are a store's counts for the metrics.
type StoreStats struct {
	Open, Hits, Misses int64
}

var _ Store = (*Dir)(nil)

// Dir is the store of the memories a directory holds, one file each:
// ROOT/TENANT/ID.smg, written as the smg command writes them (atomically,
// under the file's lock, changes appended to its journal), so that the
// smg command can read and change them too. It keeps the most recently
// used memories open, with their indexes. It is safe for concurrent use.
type Dir struct {
	root string
	opts smg.FileOptions

	// files is held to make or remove a memory's file, and read to open
	// one.
	files sync.RWMutex
	open  *openSet
	keys  *Keys
	// foldsCase: the file system takes names that differ only in case for
	// one; a memory is opened by its own name only (exact).
	foldsCase bool
	// writing counts the memories let go of whose files are being
	// written whole (see NewDir); Close waits for them.
	writing sync.WaitGroup
}

// Stats counts the memories the store keeps open and the opens served
// from them or read from files.
func (d *Dir) Stats() StoreStats { return d.open.stats() }

// Keys are the directory's API keys (DIR/keys.json).
func (d *Dir) Keys() KeyStore { return d.keys }

// Ready reports whether the store's directory can be written: a file is
// made in it and removed.
func (d *Dir) Ready(context.Context) error {
	f, err := os.CreateTemp(d.root, ".ready-")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// NewDir returns the store of the directory root, made when missing, that
// keeps up to maxOpen memories open (DefaultOpen when 0). opts are the
// options of the memories' files (Create is set by Create); a zero
// CompactIdle is smg.DefaultCompactIdle (below zero: never).
func NewDir(root string, maxOpen int, opts smg.FileOptions) (*Dir, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, err
	}
	if opts.CompactIdle == 0 {
		// A memory left idle in the set is written whole too.
		opts.CompactIdle = smg.DefaultCompactIdle
	}
	d := &Dir{root: root, opts: opts, open: newOpenSet(maxOpen), keys: NewKeys(root), foldsCase: foldsCase(root)}
	// A memory let go of (out of the LRU, or the store closed) is written
	// whole, its journal ended, so that its file alone holds everything
	// acknowledged: a copy of it loses nothing. On its own goroutine: the
	// set's lock is held when it lets go.
	d.open.close = func(k smg.Kept) error {
		dm, ok := k.(*dirMemory)
		if !ok {
			return closeKept(k)
		}
		d.writing.Go(func() {
			dm.compact()
			_ = dm.Close()
		})
		return nil
	}
	return d, nil
}

func (d *Dir) path(tenant, id string) string {
	return filepath.Join(d.root, tenant, id+".smg")
}

// vacant returns the file of a new memory id of tenant, its folder made,
// or ErrExists. A tenant or a memory whose name differs only in case from
// one the store holds is refused: on some file systems (macOS's,
// Windows') they would be one folder or one file. d.files is held.
func (d *Dir) vacant(tenant, id string) (string, error) {
	name := d.path(tenant, id)
	if _, err := os.Stat(name); err == nil {
		return "", fmt.Errorf("%w: %s", ErrExists, id)
	}
	if other, err := caseTwin(d.root, tenant); err != nil {
		return "", err
	} else if other != "" {
		return "", fmt.Errorf("%w: tenant %q: the store has the tenant %q, and names that differ only in case are one folder on some systems", ErrInvalidID, tenant, other)
	}
	if other, err := caseTwin(filepath.Dir(name), filepath.Base(name)); err != nil {
		return "", err
	} else if other != "" {
		return "", fmt.Errorf("%w: %s: the memory %s is there, and ids that differ only in case are one file on some systems", ErrExists, id, strings.TrimSuffix(other, ".smg"))
	}
	return name, os.MkdirAll(filepath.Dir(name), 0o700)
}

// caseTwin is the name of the entry of dir that is name but for case, or
// "" when there is none.
func caseTwin(dir, name string) (string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if e.Name() != name && strings.EqualFold(e.Name(), name) {
			return e.Name(), nil
		}
	}
	return "", nil
}

// exact reports whether the memory id of tenant is there under its own
// name, not only one that differs in case (which a file system that
// ignores case would find).
func (d *Dir) exact(tenant, id string) bool {
	if !d.foldsCase {
		return true
	}
	for _, step := range [][2]string{{d.root, tenant}, {filepath.Join(d.root, tenant), id + ".smg"}} {
		entries, err := os.ReadDir(step[0])
		if err != nil || !slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == step[1] }) {
			return false
		}
	}
	return true
}

// foldsCase reports whether the file system of root takes names that
// differ only in case for one (macOS's and Windows' do by default); when
// it cannot tell, it says so.
func foldsCase(root string) bool {
	f, err := os.CreateTemp(root, ".case-probe-")
	if err != nil {
		return true
	}
	name := f.Name()
	f.Close()
	defer os.Remove(name)
	_, err = os.Stat(filepath.Join(root, strings.ToUpper(filepath.Base(name))))
	return err == nil
}

// newOptions are the options of a new memory of a store that opens its
// memories with open: opts (nil: the defaults), embedding as the store's
// memories do.
func newOptions(open smg.OpenOptions, opts *smg.Options) smg.Options {
	var o smg.Options
	if opts != nil {
		o = *opts
	}
	o.Embedder, o.NoVectors = open.Embedder, open.NoVectors
	return o
}

// Create makes a new memory of opts (nil: the defaults), and writes it.
// The caller calls done when it no longer uses the memory.
func (d *Dir) Create(ctx context.Context, tenant, id string, opts *smg.Options) (kept smg.Kept, done func(), err error) {
	if err := errors.Join(CheckID("tenant", tenant), CheckID("memory", id)); err != nil {
		return nil, nil, err
	}
	d.files.Lock()
	defer d.files.Unlock()
	name, err := d.vacant(tenant, id)
	if err != nil {
		return nil, nil, err
	}
	o := d.opts
	create := newOptions(d.opts.Open, opts)
	o.Create = &create
	o.Open.IndexCache = format.IndexCacheDir(name)
	f, err := smg.OpenFileMemory(name, &o)
	if err != nil {
		return nil, nil, err
	}
	// Written now, so that the memory exists for every server.
	if err := f.Update(ctx, func(*smg.Memory) error { return nil }); err != nil {
		f.Close()
		return nil, nil, err
	}
	kept, done = d.open.keep(tenant+"/"+id, d.memory(tenant, id, f))
	return kept, done, nil
}

// Open returns the memory id of tenant. The caller calls done when it no
// longer uses the memory: a memory is not closed while a request uses it.
func (d *Dir) Open(_ context.Context, tenant, id string) (kept smg.Kept, done func(), err error) {
	if err := errors.Join(CheckID("tenant", tenant), CheckID("memory", id)); err != nil {
		return nil, nil, err
	}
	key := tenant + "/" + id
	if f, done, ok := d.open.get(key); ok {
		return f, done, nil
	}
	d.files.RLock()
	defer d.files.RUnlock()
	name := d.path(tenant, id)
	if _, err := os.Stat(name); errors.Is(err, fs.ErrNotExist) || err == nil && !d.exact(tenant, id) {
		return nil, nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	o := d.opts
	o.Create = nil
	o.Open.IndexCache = format.IndexCacheDir(name)
	f, err := smg.OpenFileMemory(name, &o)
	if err != nil {
		return nil, nil, err
	}
	kept, done = d.open.keep(key, d.memory(tenant, id, f))
	return kept, done, nil
}

// List returns the ids of tenant's memories, sorted.
func (d *Dir) List(_ context.Context, tenant string) ([]string, error) {
	if err := CheckID("tenant", tenant); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(filepath.Join(d.root, tenant))
	if errors.Is(err, fs.ErrNotExist) {
		return []string{}, nil
	}
	if err != nil {
		return nil, err
	}
	ids := []string{}
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), ".smg"); ok && e.Type().IsRegular() && idPattern.MatchString(id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// Delete removes the memory id of tenant, and what the smg command keeps
// beside its file (journal, lock, cache folder). A
// request that holds the memory finishes what it started first; from then
// on the memory is gone for every request, those that hold it included,
// and nothing makes it again (see [smg.FileOptions.Create]).
func (d *Dir) Delete(ctx context.Context, tenant, id string) error {
	if err := errors.Join(CheckID("tenant", tenant), CheckID("memory", id)); err != nil {
		return err
	}
	d.files.Lock()
	defer d.files.Unlock()
	if dm, ok := d.open.forget(tenant + "/" + id).(*dirMemory); ok {
		// Held until the files are gone: the calls that started end
		// first, and those after find it gone.
		dm.mu.Lock()
		defer dm.mu.Unlock()
		dm.gone = true
		// Closed now, not when the set lets go of it: its index, on disk
		// beside the file, goes with the files.
		_ = dm.FileMemory.Close()
	}
	if !d.exact(tenant, id) {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	err := format.RemoveFile(ctx, d.path(tenant, id), &d.opts.Lock)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return err
}

// memory is the memory id of tenant, of the file f, as requests are given
// it.
func (d *Dir) memory(tenant, id string, f *smg.FileMemory) *dirMemory {
	return &dirMemory{FileMemory: f, id: id, lost: func() { d.open.forget(tenant + "/" + id) }}
}

// dirMemory is a memory of the directory as the store gives it to
// requests. Once deleted it is gone for every request, those that hold
// it included.
type dirMemory struct {
	*smg.FileMemory
	id string
	// lost lets go of the memory.
	lost func()
	// mu is read by each call, and held by Delete while it removes the
	// memory's files.
	mu   sync.RWMutex
	gone bool
}

var _ smg.Kept = (*dirMemory)(nil)

// compact writes the memory whole with what its journal holds, unless it
// was deleted (Delete holds m.mu while it removes the files: a memory
// deleted is not written again). A failure leaves the journal, which
// every reader reads: nothing is lost.
func (m *dirMemory) compact() {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if !m.gone {
		_ = m.FileMemory.Compact(context.Background())
	}
}

// use calls fn as a call of the memory: ErrNotFound once it is deleted.
// A memory whose file another process removed is let go of, so that the
// requests after find it gone without touching its folder.
func use[T any](m *dirMemory, fn func() (T, error)) (T, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.gone {
		var zero T
		return zero, fmt.Errorf("%w: %s", ErrNotFound, m.id)
	}
	v, err := fn()
	if errors.Is(err, fs.ErrNotExist) {
		m.lost()
	}
	return v, err
}

func (m *dirMemory) Memory(ctx context.Context) (*smg.Memory, error) {
	return use(m, func() (*smg.Memory, error) { return m.FileMemory.Memory(ctx) })
}

func (m *dirMemory) Update(ctx context.Context, fn func(*smg.Memory) error) error {
	_, err := use(m, func() (struct{}, error) { return struct{}{}, m.FileMemory.Update(ctx, fn) })
	return err
}

func (m *dirMemory) Record(ctx context.Context, turns []smg.Turn, opts *smg.RecordOptions) (smg.Recorded, error) {
	return use(m, func() (smg.Recorded, error) { return m.FileMemory.Record(ctx, turns, opts) })
}

func (m *dirMemory) Remember(ctx context.Context, fact smg.Fact) (smg.Remembered, error) {
	return use(m, func() (smg.Remembered, error) { return m.FileMemory.Remember(ctx, fact) })
}

// Close closes every open memory, each written whole first.
func (d *Dir) Close() error {
	d.open.closeAll()
	d.writing.Wait()
	return nil
}

// Import makes the memory id of tenant from the bytes of a .smg file,
// which must decode within the format's limits, in the clear (a store
// keeps no passwords). The caller calls done when it no longer uses the
// memory.
func (d *Dir) Import(ctx context.Context, tenant, id string, file []byte) (kept smg.Kept, done func(), err error) {
	if err := errors.Join(CheckID("tenant", tenant), CheckID("memory", id)); err != nil {
		return nil, nil, err
	}
	if _, err := format.Unmarshal(file, &format.DecodeOptions{}); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	d.files.Lock()
	defer d.files.Unlock()
	name, err := d.vacant(tenant, id)
	if err != nil {
		return nil, nil, err
	}
	if err := format.WriteBytes(name, file, true); err != nil {
		return nil, nil, err
	}
	o := d.opts
	o.Create = nil
	o.Open.IndexCache = format.IndexCacheDir(name)
	f, err := smg.OpenFileMemory(name, &o)
	if err != nil {
		os.Remove(name)
		return nil, nil, err
	}
	kept, done = d.open.keep(tenant+"/"+id, d.memory(tenant, id, f))
	return kept, done, nil
}
