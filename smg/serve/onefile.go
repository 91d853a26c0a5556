package serve

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/smg-memory/smg/smg"
)

// ErrOneFile is the error of what a store of one file cannot do: make,
// import or delete a memory, or keep keys.
var ErrOneFile = errors.New("a store of one file serves that file alone")

var _ Store = (*OneFile)(nil)

// OneFile is the store of one .smg file, as smg view serves it: one memory
// of the default tenant, whose id is the file's name without .smg, kept
// as the smg command keeps it (written atomically under the file's lock,
// changes appended to its journal). It has no keys: serve it on a
// loopback address. It is safe for concurrent use.
type OneFile struct {
	id string
	f  *smg.FileMemory
}

// NewOneFile returns the store of f, the memory of the file name, alone;
// it closes f when it is closed.
func NewOneFile(name string, f *smg.FileMemory) (*OneFile, error) {
	if _, err := f.Memory(context.Background()); err != nil {
		return nil, err
	}
	id := strings.TrimSuffix(filepath.Base(name), ".smg")
	if CheckID("memory", id) != nil {
		id = "memory"
	}
	return &OneFile{id: id, f: f}, nil
}

// ID is the id the file's memory is served under.
func (o *OneFile) ID() string { return o.id }

func (o *OneFile) Create(context.Context, string, string, *smg.Options) (smg.Kept, func(), error) {
	return nil, nil, fmt.Errorf("%w: it makes no memory", ErrOneFile)
}

func (o *OneFile) Import(context.Context, string, string, []byte) (smg.Kept, func(), error) {
	return nil, nil, fmt.Errorf("%w: it imports no memory", ErrOneFile)
}

func (o *OneFile) Open(_ context.Context, tenant, id string) (smg.Kept, func(), error) {
	if tenant != Tenant || id != o.id {
		return nil, nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return o.f, func() {}, nil
}

func (o *OneFile) List(_ context.Context, tenant string) ([]string, error) {
	if tenant != Tenant {
		return []string{}, nil
	}
	return []string{o.id}, nil
}

func (o *OneFile) Delete(context.Context, string, string) error {
	return fmt.Errorf("%w: it deletes no memory", ErrOneFile)
}

// Ready reports whether the file can still be read.
func (o *OneFile) Ready(ctx context.Context) error {
	_, err := o.f.Memory(ctx)
	return err
}

func (o *OneFile) Keys() KeyStore    { return noKeys{} }
func (o *OneFile) Stats() StoreStats { return StoreStats{Open: 1} }
func (o *OneFile) Close() error      { return o.f.Close() }

// noKeys are the keys of a store that has none.
type noKeys struct{}

func (noKeys) Enabled(context.Context) (bool, error)       { return false, nil }
func (noKeys) Check(context.Context, string) (*Key, error) { return nil, ErrKey }
func (noKeys) Reset(context.Context) error                 { return nil }
func (noKeys) Add(context.Context, Key) (string, Key, error) {
	return "", Key{}, fmt.Errorf("%w: it keeps no keys", ErrOneFile)
}
func (noKeys) Revoke(context.Context, string) error {
	return fmt.Errorf("%w: it keeps no keys", ErrOneFile)
}
func (noKeys) List(context.Context) ([]Key, error) { return []Key{}, nil }
