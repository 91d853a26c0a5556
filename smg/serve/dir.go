package serve

import (
	"container/list"
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
	Ready() error
	Keys() KeyChecker
	Stats() StoreStats
	Close() error
}

// KeyChecker tells a request's key: [Keys] for a directory.
type KeyChecker interface {
	// Enabled reports whether the store has keys: then every request
	// needs one.
	Enabled() (bool, error)
	// Check returns the key of a secret, or an error that wraps ErrKey.
	Check(secret string) (*Key, error)
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
	max  int

	mu           sync.Mutex
	open         map[string]*list.Element // of *openMemory, by key
	lru          *list.List               // most recent first
	hits, misses int64                    // opens of a memory open, of one read from its file

	keys *Keys

	// close closes a memory the store lets go of: (*smg.FileMemory).Close;
	// tests count the calls.
	close func(*smg.FileMemory) error
}

// Stats counts the memories the store keeps open and the opens served
// from them or read from files.
func (d *Dir) Stats() StoreStats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return StoreStats{Open: int64(d.lru.Len()), Hits: d.hits, Misses: d.misses}
}

// Keys are the directory's API keys (DIR/keys.json).
func (d *Dir) Keys() KeyChecker { return d.keys }

// Ready reports whether the store's directory can be written: a file is
// made in it and removed.
func (d *Dir) Ready() error {
	f, err := os.CreateTemp(d.root, ".ready-")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// openMemory is a memory the store keeps open: closed when it leaves the
// LRU, or, when requests use it then, when the last of them is done.
type openMemory struct {
	key     string
	f       *smg.FileMemory
	refs    int  // requests using it
	evicted bool // out of the LRU: closed when refs drops to 0
}

// DefaultOpen is how many memories a Dir keeps open unless told.
const DefaultOpen = 64

// NewDir returns the store of the directory root, made when missing, that
// keeps up to maxOpen memories open (DefaultOpen when 0). opts are the
// options of the memories' files (Create is set by Create).
func NewDir(root string, maxOpen int, opts smg.FileOptions) (*Dir, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, err
	}
	if maxOpen <= 0 {
		maxOpen = DefaultOpen
	}
	return &Dir{root: root, opts: opts, max: maxOpen, open: map[string]*list.Element{}, lru: list.New(), close: (*smg.FileMemory).Close, keys: NewKeys(root)}, nil
}

func (d *Dir) path(tenant, id string) string {
	return filepath.Join(d.root, tenant, id+".smg")
}

// vacant returns the file of a new memory id of tenant, its folder made,
// or ErrExists. d.mu is held.
func (d *Dir) vacant(tenant, id string) (string, error) {
	name := d.path(tenant, id)
	if _, err := os.Stat(name); err == nil {
		return "", fmt.Errorf("%w: %s", ErrExists, id)
	}
	return name, os.MkdirAll(filepath.Dir(name), 0o700)
}

// Create makes a new memory of opts (nil: the defaults), and writes it.
// The caller calls done when it no longer uses the memory.
func (d *Dir) Create(ctx context.Context, tenant, id string, opts *smg.Options) (kept smg.Kept, done func(), err error) {
	if err := errors.Join(CheckID("tenant", tenant), CheckID("memory", id)); err != nil {
		return nil, nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	name, err := d.vacant(tenant, id)
	if err != nil {
		return nil, nil, err
	}
	o := d.opts
	create := smg.Options{}
	if opts != nil {
		create = *opts
	}
	o.Create = &create
	f, err := smg.OpenFileMemory(name, &o)
	if err != nil {
		return nil, nil, err
	}
	// Written now, so that the memory exists for every server.
	if err := f.Update(ctx, func(*smg.Memory) error { return nil }); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, d.keep(tenant+"/"+id, f), nil
}

// Open returns the memory id of tenant. The caller calls done when it no
// longer uses the memory: a memory is not closed while a request uses it.
func (d *Dir) Open(_ context.Context, tenant, id string) (kept smg.Kept, done func(), err error) {
	if err := errors.Join(CheckID("tenant", tenant), CheckID("memory", id)); err != nil {
		return nil, nil, err
	}
	key := tenant + "/" + id
	d.mu.Lock()
	defer d.mu.Unlock()
	if e, ok := d.open[key]; ok {
		d.hits++
		d.lru.MoveToFront(e)
		om := e.Value.(*openMemory)
		om.refs++
		return om.f, d.release(om), nil
	}
	d.misses++
	name := d.path(tenant, id)
	if _, err := os.Stat(name); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	o := d.opts
	o.Create = nil
	f, err := smg.OpenFileMemory(name, &o)
	if err != nil {
		return nil, nil, err
	}
	return f, d.keep(key, f), nil
}

// keep adds an open memory, used by one request, and lets go of the least
// recently used past the bound. d.mu is held.
func (d *Dir) keep(key string, f *smg.FileMemory) (done func()) {
	om := &openMemory{key: key, f: f, refs: 1}
	d.open[key] = d.lru.PushFront(om)
	for d.lru.Len() > d.max {
		d.forget(d.lru.Back().Value.(*openMemory).key)
	}
	return d.release(om)
}

// release is the done of a request that uses om.
func (d *Dir) release(om *openMemory) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			d.mu.Lock()
			defer d.mu.Unlock()
			if om.refs--; om.refs == 0 && om.evicted {
				_ = d.close(om.f)
			}
		})
	}
}

// forget takes the memory of key out of the LRU, and closes it unless a
// request uses it (the last to be done closes it). d.mu is held.
func (d *Dir) forget(key string) {
	e, ok := d.open[key]
	if !ok {
		return
	}
	d.lru.Remove(e)
	delete(d.open, key)
	om := e.Value.(*openMemory)
	om.evicted = true
	if om.refs == 0 {
		_ = d.close(om.f)
	}
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
// beside its file (journal, lock, builder's state, index cache).
func (d *Dir) Delete(_ context.Context, tenant, id string) error {
	if err := errors.Join(CheckID("tenant", tenant), CheckID("memory", id)); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.forget(tenant + "/" + id)
	name := d.path(tenant, id)
	if err := os.Remove(name); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	} else if err != nil {
		return err
	}
	dir, base := filepath.Split(name)
	for _, side := range []string{base + ".journal", "." + base + ".lock", "." + base + ".state", "." + base + ".index"} {
		_ = os.RemoveAll(filepath.Join(dir, side))
	}
	return nil
}

// Close closes every open memory.
func (d *Dir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for key := range d.open {
		d.forget(key)
	}
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
		return nil, nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	name, err := d.vacant(tenant, id)
	if err != nil {
		return nil, nil, err
	}
	if err := format.WriteBytes(name, file, true); err != nil {
		return nil, nil, err
	}
	o := d.opts
	o.Create = nil
	f, err := smg.OpenFileMemory(name, &o)
	if err != nil {
		os.Remove(name)
		return nil, nil, err
	}
	return f, d.keep(tenant+"/"+id, f), nil
}
