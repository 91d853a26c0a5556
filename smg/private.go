package smg

import (
	"bytes"
	"cmp"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"slices"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/internal/envelope"
	"github.com/smg-memory/smg/spec"
)

// Collaborator is a person who shares a memory (spec §4.5).
type Collaborator = spec.Collaborator

// Errors of private contexts; a [*PrivateError] matches one of them, or
// [ErrWrongPassword] when a password does not open a sealed part.
var (
	// ErrNotCollaborator: the memory lists no collaborator of that id.
	ErrNotCollaborator = errors.New("not a collaborator of the memory")
	// ErrSealed: the private part is sealed, and no password was given.
	ErrSealed = errors.New("the private part is sealed with its owner's password")
	// ErrPrivateMemory: a private part has no collaborators or private
	// parts of its own (spec §4.6).
	ErrPrivateMemory = errors.New("a private part has no collaborators of its own")
	// ErrBadCollaborator: an id that is not an id of spec §2.3.
	ErrBadCollaborator = errors.New("a collaborator's id is 1 to 128 letters, digits, '.', '_', '~' or '-', starting with a letter or a digit")
	// ErrSealedPart: removing the collaborator would destroy their sealed
	// private part, which no one but them can read; see
	// [RemoveOptions.DestroySealed].
	ErrSealedPart = errors.New("it is sealed: removing its owner destroys it, and no one else can read it")
)

// privatePart is one collaborator's private part as the memory holds it:
// as the file had it until it is opened, then as a memory of its own.
type privatePart struct {
	owner string
	// file is the part as read, kept while it is not opened, and as
	// written while what it was made from does not change.
	file spec.PrivateContext
	// mem is the opened part; nil until [Memory.Private].
	mem *Memory
	// password seals the part when it is written; nil keeps it in the
	// clear. seal are the options of sealing.
	password []byte
	seal     EncodeOptions
	// fileGen is mem's generation when file was made from it, and
	// fileOK whether file is current.
	fileGen int
	fileOK  bool
}

// loadPrivate takes the collaborators and private parts of an opened
// document. m.mu is held or m is new.
func (m *Memory) loadPrivate(doc *spec.Document) {
	m.collabs = slices.Clone(doc.Metadata.Collaborators)
	m.priv = nil
	for _, pc := range doc.PrivateContexts {
		m.priv = append(m.priv, &privatePart{owner: pc.Owner, file: pc, fileOK: true})
	}
}

// Collaborators returns the people who share the memory, by id.
func (m *Memory) Collaborators() []Collaborator {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.collabs)
}

// AddCollaborator adds c to the people who share the memory, or renames
// the collaborator of c's id.
func (m *Memory) AddCollaborator(c Collaborator) error {
	if !spec.ValidID(c.ID) {
		return fmt.Errorf("collaborator %q: %w", c.ID, ErrBadCollaborator)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.private {
		return fmt.Errorf("collaborator %q: %w", c.ID, ErrPrivateMemory)
	}
	if i := slices.IndexFunc(m.collabs, func(x Collaborator) bool { return x.ID == c.ID }); i >= 0 {
		m.collabs[i].Name = c.Name
	} else {
		m.collabs = append(m.collabs, Collaborator{ID: c.ID, Name: c.Name})
		slices.SortFunc(m.collabs, func(a, b Collaborator) int { return cmp.Compare(a.ID, b.ID) })
	}
	m.gen++
	return nil
}

// RemoveOptions tell what [Memory.RemoveCollaborator] may destroy.
type RemoveOptions struct {
	// DestroySealed removes a collaborator whose private part is sealed,
	// and the part with them, lost to everyone; without it, that is an
	// error that wraps [ErrSealedPart].
	DestroySealed bool
}

// RemovedCollaborator is what [Memory.RemoveCollaborator] removed.
type RemovedCollaborator struct {
	Collaborator Collaborator `json:"collaborator"`
	// Private is their private part, removed with them; nil when they had
	// none.
	Private *PrivateInfo `json:"private,omitempty"`
}

// RemoveCollaborator removes the collaborator of that id and their private
// part. A sealed part, which no one but its owner can read, is destroyed
// only with opts.DestroySealed (opts may be nil); without it nothing
// changes and the error wraps [ErrSealedPart].
func (m *Memory) RemoveCollaborator(id string, opts *RemoveOptions) (RemovedCollaborator, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	i := slices.IndexFunc(m.collabs, func(x Collaborator) bool { return x.ID == id })
	if i < 0 {
		return RemovedCollaborator{}, &PrivateError{Owner: id, Err: ErrNotCollaborator}
	}
	r := RemovedCollaborator{Collaborator: m.collabs[i]}
	if j := slices.IndexFunc(m.priv, func(p *privatePart) bool { return p.owner == id }); j >= 0 {
		r.Private = &PrivateInfo{Owner: id, Sealed: m.priv[j].sealed()}
	}
	if r.Private != nil && r.Private.Sealed && (opts == nil || !opts.DestroySealed) {
		return RemovedCollaborator{}, &PrivateError{Owner: id, Err: ErrSealedPart}
	}
	m.collabs = slices.Delete(m.collabs, i, i+1)
	m.priv = slices.DeleteFunc(m.priv, func(p *privatePart) bool { return p.owner == id })
	m.gen++
	return r, nil
}

// PrivateInfo describes a collaborator's private part without opening it.
type PrivateInfo struct {
	Owner  string `json:"owner"`
	Sealed bool   `json:"sealed"`
}

// PrivateParts lists the private parts the memory holds, by owner.
func (m *Memory) PrivateParts() []PrivateInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]PrivateInfo, 0, len(m.priv))
	for _, p := range m.priv {
		out = append(out, PrivateInfo{Owner: p.owner, Sealed: p.sealed()})
	}
	return out
}

// sealed tells whether the part is sealed, or is to be when written.
func (p *privatePart) sealed() bool {
	return p.password != nil || (p.mem == nil && p.file.Sealed != nil)
}

// Private returns the private part of the collaborator owner: a memory of
// their own, scoped to them ("user:OWNER"), which only a context asked
// for them includes (see [Memory.ContextFor]). Changes to it are changes
// to m: they are written with it.
//
// A part that does not exist yet is made, empty. A sealed part needs its
// owner's password: without one, Private fails with [ErrSealed]; with a
// wrong one, with [ErrWrongPassword]. A part opened with a password stays
// sealed with it; a password given for a part in the clear, or a new one,
// seals it from then on (with the default key derivation; see
// [Memory.SealPrivate] to choose another). A part opened already is
// returned without a password, but not with a wrong one. The errors are
// [*PrivateError]s.
func (m *Memory) Private(owner string, password []byte) (*Memory, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.private {
		return nil, &PrivateError{Owner: owner, Err: ErrPrivateMemory}
	}
	if !slices.ContainsFunc(m.collabs, func(c Collaborator) bool { return c.ID == owner }) {
		return nil, &PrivateError{Owner: owner, Err: ErrNotCollaborator}
	}
	p := m.part(owner)
	if p == nil {
		p = &privatePart{owner: owner}
		p.mem = New(&Options{ID: privateID(owner), Scope: format.PrivateScope(owner), Config: m.cfg, Now: m.now, Embedder: m.emb, NoVectors: m.emb == nil, Summarizer: m.sum})
		p.mem.private, p.mem.factEmb = true, m.factEmb
		m.priv = append(m.priv, p)
		slices.SortFunc(m.priv, func(a, b *privatePart) int { return cmp.Compare(a.owner, b.owner) })
		m.gen++
	}
	if p.mem != nil && p.password != nil && password != nil && subtle.ConstantTimeCompare(p.password, password) != 1 {
		// Opened already, with its password: a wrong one still fails.
		return nil, &PrivateError{Owner: owner, Err: ErrWrongPassword}
	}
	if p.mem == nil {
		mem, err := m.openPart(p, password)
		if err != nil {
			return nil, &PrivateError{Owner: owner, Err: err}
		}
		p.mem = mem
		p.fileGen = mem.generation()
	}
	if password != nil && p.password == nil {
		if err := envelope.CheckSeal(password, sealOptions(p.seal)); err != nil {
			return nil, &PrivateError{Owner: owner, Err: err}
		}
		p.password, p.fileOK = bytes.Clone(password), false
		m.gen++
	}
	return p.mem, nil
}

// SealPrivate seals owner's private part with password from now on, with
// the key derivation of opts (nil: the default); a nil password keeps it
// in the clear instead. The part must be open (see [Memory.Private]).
func (m *Memory) SealPrivate(owner string, password []byte, opts *EncodeOptions) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.part(owner)
	if p == nil || p.mem == nil {
		return &PrivateError{Owner: owner, Err: errors.New("the private part is not open")}
	}
	seal := EncodeOptions{}
	if opts != nil {
		seal = EncodeOptions{KDF: opts.KDF, InsecureKDF: opts.InsecureKDF, Rand: opts.Rand}
	}
	if password != nil {
		if err := envelope.CheckSeal(password, sealOptions(seal)); err != nil {
			return &PrivateError{Owner: owner, Err: err}
		}
	}
	p.password, p.fileOK, p.seal = bytes.Clone(password), false, seal
	m.gen++
	return nil
}

// ContextFor builds the context of a question for the collaborator owner:
// the shared memory and owner's private part, composed as [Compose] does,
// and never another collaborator's part. A sealed part must have been
// opened with [Memory.Private] first; a collaborator without a private
// part gets the shared memory's context.
func (m *Memory) ContextFor(ctx context.Context, owner, query string, opts *ComposeOptions) (*ContextResult, error) {
	m.mu.Lock()
	known := slices.ContainsFunc(m.collabs, func(c Collaborator) bool { return c.ID == owner })
	p := m.part(owner)
	m.mu.Unlock()
	if !known {
		return nil, &PrivateError{Owner: owner, Err: ErrNotCollaborator}
	}
	if p == nil {
		return Compose(ctx, query, opts, m)
	}
	mem, err := m.Private(owner, nil)
	if err != nil {
		return nil, err
	}
	return Compose(ctx, query, opts, m, mem)
}

// part returns owner's part, or nil. m.mu is held.
func (m *Memory) part(owner string) *privatePart {
	for _, p := range m.priv {
		if p.owner == owner {
			return p
		}
	}
	return nil
}

// openPart reads a part as the file has it. m.mu is held.
func (m *Memory) openPart(p *privatePart, password []byte) (*Memory, error) {
	doc := p.file.Memory
	if p.file.Sealed != nil {
		if password == nil {
			return nil, ErrSealed
		}
		raw, err := envelope.Open(p.file.Sealed, password, envelope.Limits{})
		if err != nil {
			return nil, err
		}
		if doc, err = format.Unmarshal(raw, nil); err != nil {
			return nil, fmt.Errorf("its sealed memory: %w", err)
		}
		p.password = bytes.Clone(password)
		if kdf, err := envelope.Describe(p.file.Sealed); err == nil {
			p.seal.KDF = kdf // sealed again as it was, not with the default
			p.seal.InsecureKDF = true
		}
	}
	if doc == nil {
		return nil, fmt.Errorf("%w: it holds neither a memory nor a sealed one", ErrInvalid)
	}
	if s := doc.Metadata.Scope; s == nil || s.FactScope() != format.PrivateScope(p.owner).FactScope() {
		// A part moved from another owner's place.
		return nil, fmt.Errorf("%w: its memory is not scoped to its owner", ErrInvalid)
	}
	mem, err := Load(doc, &m.cfg)
	if err == nil {
		mem.private, mem.emb, mem.factEmb = true, m.emb, m.factEmb
	}
	return mem, err
}

// privateID is the memory id of owner's private part.
func privateID(owner string) string {
	id := "private-" + owner
	return id[:min(len(id), 128)]
}

// closePrivate closes the opened private parts' indexes. m.mu is held.
func (m *Memory) closePrivate() error {
	var errs []error
	for _, p := range m.priv {
		if p.mem != nil {
			errs = append(errs, p.mem.Close())
		}
	}
	return errors.Join(errs...)
}

// generation is the count of m's changes.
func (m *Memory) generation() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.gen
}

// withPrivate puts the memory's collaborators and private parts into doc,
// sealing the parts whose owners' passwords say so. m.mu is held.
func (m *Memory) withPrivate(doc *spec.Document) error {
	doc.Metadata.Collaborators = slices.Clone(m.collabs)
	doc.PrivateContexts = nil
	var errs []error
	for _, p := range m.priv {
		if p.mem != nil && (!p.fileOK || p.fileGen != p.mem.generation()) {
			gen := p.mem.generation()
			pc, err := p.encode()
			if err != nil {
				errs = append(errs, &PrivateError{Owner: p.owner, Err: err})
			} else {
				p.file, p.fileGen, p.fileOK = pc, gen, true
			}
		}
		if p.file.Owner == "" || p.password != nil && p.file.Sealed == nil {
			// A new part that failed to seal, or one that is to be
			// sealed: never in the clear.
			continue
		}
		doc.PrivateContexts = append(doc.PrivateContexts, clonePrivate(p.file))
	}
	return errors.Join(errs...)
}

// encode writes an opened part: its document in the clear, or its file
// sealed with its owner's password.
func (p *privatePart) encode() (spec.PrivateContext, error) {
	doc := p.mem.Document()
	pc := spec.PrivateContext{Owner: p.owner}
	if p.password == nil {
		pc.Memory = doc
		return pc, nil
	}
	raw, err := format.Marshal(doc, nil)
	if err != nil {
		return pc, err
	}
	sealed, err := envelope.Seal(raw, p.password, sealOptions(p.seal))
	if err != nil {
		return pc, err
	}
	pc.Sealed = jsontext.Value(sealed)
	return pc, nil
}

// clonePrivate is a deep copy of pc, for a document the memory gives away.
func clonePrivate(pc spec.PrivateContext) spec.PrivateContext {
	pc.Sealed = bytes.Clone(pc.Sealed)
	pc.Extra = bytes.Clone(pc.Extra)
	if pc.Memory != nil {
		pc.Memory = format.Clone(pc.Memory)
	}
	return pc
}

// sealOptions are the options of sealing a private part with o.
func sealOptions(o EncodeOptions) envelope.SealOptions {
	return envelope.SealOptions{KDF: o.KDF, Rand: o.Rand, InsecureKDF: o.InsecureKDF}
}
