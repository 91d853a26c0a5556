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
}

// dirStats are the counts of a Dir's metrics.
type dirStats struct{ open, hits, misses int64 }

func (d *Dir) stats() dirStats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return dirStats{int64(d.lru.Len()), d.hits, d.misses}
}

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

type openMemory struct {
	key string
	f   *smg.FileMemory
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
	return &Dir{root: root, opts: opts, max: maxOpen, open: map[string]*list.Element{}, lru: list.New()}, nil
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
func (d *Dir) Create(ctx context.Context, tenant, id string, opts *smg.Options) (*smg.FileMemory, error) {
	if err := errors.Join(CheckID("tenant", tenant), CheckID("memory", id)); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	name, err := d.vacant(tenant, id)
	if err != nil {
		return nil, err
	}
	o := d.opts
	create := smg.Options{}
	if opts != nil {
		create = *opts
	}
	o.Create = &create
	f, err := smg.OpenFileMemory(name, &o)
	if err != nil {
		return nil, err
	}
	// Written now, so that the memory exists for every server.
	if err := f.Update(ctx, func(*smg.Memory) error { return nil }); err != nil {
		f.Close()
		return nil, err
	}
	d.keep(tenant+"/"+id, f)
	return f, nil
}

// Open returns the memory id of tenant.
func (d *Dir) Open(_ context.Context, tenant, id string) (*smg.FileMemory, error) {
	if err := errors.Join(CheckID("tenant", tenant), CheckID("memory", id)); err != nil {
		return nil, err
	}
	key := tenant + "/" + id
	d.mu.Lock()
	defer d.mu.Unlock()
	if e, ok := d.open[key]; ok {
		d.hits++
		d.lru.MoveToFront(e)
		return e.Value.(*openMemory).f, nil
	}
	d.misses++
	name := d.path(tenant, id)
	if _, err := os.Stat(name); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	o := d.opts
	o.Create = nil
	f, err := smg.OpenFileMemory(name, &o)
	if err != nil {
		return nil, err
	}
	d.keep(key, f)
	return f, nil
}

// keep adds an open memory, closing the least recently used past the
// bound. d.mu is held.
func (d *Dir) keep(key string, f *smg.FileMemory) {
	d.open[key] = d.lru.PushFront(&openMemory{key, f})
	for d.lru.Len() > d.max {
		old := d.lru.Back().Value.(*openMemory)
		d.forget(old.key)
	}
}

// forget closes the open memory of key, if any. d.mu is held.
func (d *Dir) forget(key string) {
	if e, ok := d.open[key]; ok {
		d.lru.Remove(e)
		delete(d.open, key)
		_ = e.Value.(*openMemory).f.Close()
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
// keeps no passwords).
func (d *Dir) Import(ctx context.Context, tenant, id string, file []byte) (*smg.FileMemory, error) {
	if err := errors.Join(CheckID("tenant", tenant), CheckID("memory", id)); err != nil {
		return nil, err
	}
	if _, err := format.Unmarshal(file, &format.DecodeOptions{}); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	name, err := d.vacant(tenant, id)
	if err != nil {
		return nil, err
	}
	if err := format.WriteBytes(name, file, true); err != nil {
		return nil, err
	}
	o := d.opts
	o.Create = nil
	f, err := smg.OpenFileMemory(name, &o)
	if err != nil {
		os.Remove(name)
		return nil, err
	}
	d.keep(tenant+"/"+id, f)
	return f, nil
}
