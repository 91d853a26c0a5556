package serve

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/smg-memory/smg/smg/format"
)

// Scope is what a key may do: read (list, describe, contexts, search),
// write (create memories, append turns, save and remove facts) and admin
// (delete memories). Each includes the ones before it.
type Scope string

const (
	ScopeRead  Scope = "read"
	ScopeWrite Scope = "write"
	ScopeAdmin Scope = "admin"
)

func (s Scope) rank() int { return slices.Index([]Scope{ScopeRead, ScopeWrite, ScopeAdmin}, s) }

// Key is an API key as the store keeps it: its hash, never the key.
type Key struct {
	ID     string `json:"id"`
	Hash   string `json:"hash,omitempty"` // hex SHA-256 of the whole key
	Tenant string `json:"tenant"`
	Scope  Scope  `json:"scope"`
	// Memories, when set, are the only memories of the tenant the key
	// reaches.
	Memories []string  `json:"memories,omitempty"`
	Label    string    `json:"label,omitempty"`
	Created  time.Time `json:"created"`
	// Expires, when set, is when the key stops working.
	Expires time.Time `json:"expires,omitzero"`
	Revoked time.Time `json:"revoked,omitzero"`
}

// usable is nil for a key that works at now, or the ErrKey of one revoked
// or expired.
func (k *Key) usable(now time.Time) error {
	switch {
	case !k.Revoked.IsZero():
		return fmt.Errorf("%w: revoked on %s", ErrKey, k.Revoked.Format(time.DateOnly))
	case !k.Expires.IsZero() && !now.Before(k.Expires):
		return fmt.Errorf("%w: expired on %s", ErrKey, k.Expires.UTC().Format(time.DateOnly))
	}
	return nil
}

// allows reports whether the key may do what scope says on memory ("":
// no memory in particular).
func (k *Key) allows(scope Scope, memory string) bool {
	if k.Scope.rank() < scope.rank() {
		return false
	}
	return memory == "" || len(k.Memories) == 0 || slices.Contains(k.Memories, memory)
}

// ErrKey is the error of a key that is not one the server knows, or that
// was revoked.
var ErrKey = errors.New("invalid API key")

// keysFile is where a directory store's keys are: DIR/keys.json, written
// atomically, mode 0600.
func keysFile(dir string) string { return filepath.Join(dir, "keys.json") }

// keyedFile marks a directory store that has had keys: DIR/.keyed, made
// with its first key and removed by [Keys.Reset] alone. While it is there
// the store asks every request for a key, and refuses every request when
// keys.json is missing.
func keyedFile(dir string) string { return filepath.Join(dir, ".keyed") }

// ErrKeysMissing is the error of a store that has had keys and can no
// longer read them: it refuses every request rather than serve without
// keys.
var ErrKeysMissing = errors.New("the store has had API keys and its keys file is missing: every request is refused until it is restored, or the keys are reset (smg serve key reset)")

// Keys are the API keys of a directory store, read again when the file
// changes, so that a key added or revoked by the smg command takes effect
// on a running server. A store that has had keys keeps asking for them:
// once keys.json is removed, or cannot be read, every request is refused.
// It is safe for concurrent use.
type Keys struct {
	dir, name string

	mu   sync.Mutex
	mod  time.Time
	size int64
	keys []Key
	// exist: keys.json was read; had: the store has had keys, by this
	// value's reading or by its mark (keyedFile).
	exist, had bool
}

// NewKeys returns the keys of the directory store at dir.
func NewKeys(dir string) *Keys { return &Keys{dir: dir, name: keysFile(dir)} }

// load reads the file again when it changed. k.mu is held.
func (k *Keys) load() error {
	st, err := os.Stat(k.name)
	if errors.Is(err, fs.ErrNotExist) {
		if !k.had {
			_, err := os.Stat(keyedFile(k.dir))
			k.had = err == nil
		}
		k.keys, k.exist, k.mod, k.size = nil, false, time.Time{}, 0
		if k.had {
			return fmt.Errorf("%w: %s", ErrKeysMissing, k.name)
		}
		return nil
	}
	if err != nil {
		return err
	}
	if k.exist && st.ModTime().Equal(k.mod) && st.Size() == k.size {
		return nil
	}
	data, err := os.ReadFile(k.name)
	if err != nil {
		return err
	}
	var keys []Key
	if err := json.Unmarshal(data, &keys); err != nil {
		k.exist = false
		return fmt.Errorf("%s: %w", k.name, err)
	}
	k.keys, k.exist, k.had, k.mod, k.size = keys, true, true, st.ModTime(), st.Size()
	return nil
}

// Enabled reports whether the store has keys: then every request needs
// one. A store that has had keys and cannot read them is an error.
func (k *Keys) Enabled(context.Context) (bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.load(); err != nil {
		return false, err
	}
	return k.exist, nil
}

// Check returns the key of the secret a request gave, or ErrKey.
func (k *Keys) Check(_ context.Context, secret string) (*Key, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.load(); err != nil {
		return nil, err
	}
	want := hashKey(secret)
	for i := range k.keys {
		key := &k.keys[i]
		if subtle.ConstantTimeCompare([]byte(key.Hash), []byte(want)) == 1 {
			if err := key.usable(time.Now()); err != nil {
				return nil, err
			}
			c := *key
			return &c, nil
		}
	}
	return nil, ErrKey
}

// Reset removes every key, revoked or not, and the store's mark of having
// had keys: it serves without keys again (on a loopback address, as the
// smg command does). It is the operator's way back to a store without
// keys; a keys file removed otherwise refuses every request.
func (k *Keys) Reset(context.Context) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	unlock, err := format.LockFile(context.Background(), k.name, nil)
	if err != nil {
		return err
	}
	defer unlock()
	for _, name := range []string{k.name, keyedFile(k.dir)} {
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	k.keys, k.exist, k.had, k.mod, k.size = nil, false, false, time.Time{}, 0
	return nil
}

// newKey makes a new key of what k says (its tenant, scope, memories,
// label and expiry), and returns it with its secret.
func newKey(k Key) (secret string, key Key, err error) {
	if err := CheckID("tenant", k.Tenant); err != nil {
		return "", Key{}, err
	}
	if k.Scope.rank() < 0 {
		return "", Key{}, fmt.Errorf("scope %q: want read, write or admin", k.Scope)
	}
	for _, m := range k.Memories {
		if err := CheckID("memory", m); err != nil {
			return "", Key{}, err
		}
	}
	now := time.Now().UTC().Truncate(time.Second)
	if !k.Expires.IsZero() && !k.Expires.After(now) {
		return "", Key{}, fmt.Errorf("the key would expire at %s, which is past", k.Expires.UTC().Format(time.RFC3339))
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", Key{}, err
	}
	var id [6]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", Key{}, err
	}
	key = Key{ID: hex.EncodeToString(id[:]), Tenant: k.Tenant, Scope: k.Scope, Memories: k.Memories, Label: k.Label, Created: now}
	if !k.Expires.IsZero() {
		key.Expires = k.Expires.UTC().Truncate(time.Second)
	}
	secret = "smg_" + key.ID + "_" + base64.RawURLEncoding.EncodeToString(raw[:])
	key.Hash = hashKey(secret)
	return secret, key, nil
}

// caseClash refuses a new key's tenant that differs only in case from a
// tenant of the store's keys, or from the tenant of a store without keys:
// a directory store keeps each tenant's memories in a folder named after
// it, and on some file systems (macOS's, Windows') "ACME" and "acme" are
// one folder. The same rule holds for every store, so that memories move
// between them.
func caseClash(tenants []string, tenant string) error {
	for _, t := range append(tenants, Tenant) {
		if t != tenant && strings.EqualFold(t, tenant) {
			return fmt.Errorf("%w: tenant %q: the store has the tenant %q, and tenants that differ only in case are one on some file systems", ErrInvalidID, tenant, t)
		}
	}
	return nil
}

// hashKey is the hash a store keeps of a key: hex SHA-256.
func hashKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// Add makes a new key of what nk says, keeps its hash in DIR/keys.json,
// and returns the key, which is shown once: the store cannot tell it
// again.
func (k *Keys) Add(_ context.Context, nk Key) (secret string, key Key, err error) {
	secret, key, err = newKey(nk)
	if err != nil {
		return "", Key{}, err
	}
	err = changeKeys(k.dir, func(keys []Key) ([]Key, error) {
		tenants := make([]string, len(keys))
		for i, k := range keys {
			tenants[i] = k.Tenant
		}
		if err := caseClash(tenants, key.Tenant); err != nil {
			return nil, err
		}
		return append(keys, key), nil
	})
	if err != nil {
		return "", Key{}, err
	}
	return secret, key, nil
}

// Revoke revokes the key id.
func (k *Keys) Revoke(_ context.Context, id string) error {
	return changeKeys(k.dir, func(keys []Key) ([]Key, error) {
		for i := range keys {
			if keys[i].ID == id {
				if keys[i].Revoked.IsZero() {
					keys[i].Revoked = time.Now().UTC().Truncate(time.Second)
				}
				return keys, nil
			}
		}
		return nil, fmt.Errorf("%w: no key %q", ErrKey, id)
	})
}

// List returns the keys, without their hashes.
func (k *Keys) List(context.Context) ([]Key, error) {
	keys, err := readKeys(k.dir)
	for i := range keys {
		keys[i].Hash = ""
	}
	return keys, err
}

func readKeys(dir string) ([]Key, error) {
	data, err := os.ReadFile(keysFile(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var keys []Key
	if err := json.Unmarshal(data, &keys); err != nil {
		return nil, fmt.Errorf("%s: %w", keysFile(dir), err)
	}
	return keys, nil
}

// changeKeys changes the keys file under its lock, atomically.
func changeKeys(dir string, change func([]Key) ([]Key, error)) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	name := keysFile(dir)
	unlock, err := format.LockFile(context.Background(), name, nil)
	if err != nil {
		return err
	}
	defer unlock()
	keys, err := readKeys(dir)
	if err != nil {
		return err
	}
	if keys, err = change(keys); err != nil {
		return err
	}
	data, err := json.MarshalIndent(keys, "", "  ")
	if err != nil {
		return err
	}
	// The mark first: keys.json never exists without it.
	if err := format.WriteBytes(keyedFile(dir), []byte(keyedNote), true); err != nil {
		return err
	}
	return format.WriteBytes(name, append(data, '\n'), true)
}

// keyedNote is what the mark of a store that has had keys says.
const keyedNote = `This directory of memories has had API keys (keys.json): smg serve asks every
request for one, and refuses every request while keys.json is missing or
cannot be read. 'smg serve key reset --dir DIR' removes the keys and this
mark, to serve without keys again (on a loopback address only).
`

// bearer is the key of an Authorization header, "Bearer KEY".
func bearer(h string) (string, bool) {
	scheme, key, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(key), true
}
