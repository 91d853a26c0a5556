package format

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/andybalholm/brotli"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/smg/internal/envelope"
	"github.com/smg-memory/smg/spec"
)

// Differential files (spec §9.6): what turns one exact version of a memory,
// its base, into another, its target. A differential file names both by
// content hash, so it applies to its base only, and applying it gives a
// document whose canonical JSON is the target's, byte for byte.

// DeltaVersion is the version of the differential file format this
// package writes; it reads every 1.x.
const DeltaVersion = "1.0"

// deltaMagic is the first word of a differential file's header line.
const deltaMagic = "smg-diff"

// DeltaQuality is the Brotli quality a differential file is written with
// unless told otherwise: deltas are small, and the highest quality makes
// them smaller still for little time.
const DeltaQuality = 11

// maxDeltaHeader bounds the header line: the magic, a version and two
// hashes, with room for a longer version.
const maxDeltaHeader = 256

// Errors of differential files, besides ErrMalformed, ErrTruncated,
// ErrUnsupportedVersion, ErrLimit and the password errors that reading one
// may give.
var (
	// ErrNotDelta: the input is not a differential file.
	ErrNotDelta = errors.New("not an smg differential file")
	// ErrWrongBase: a differential file applied to a document other than
	// the one it was made from. The error is a [*BaseError].
	ErrWrongBase = errors.New("differential file does not apply to this document")
)

// BaseError reports a differential file applied to a document other than
// its base.
type BaseError struct {
	// Want is the content hash of the delta's base, Got that of the
	// document it was applied to.
	Want, Got string
}

func (e *BaseError) Error() string {
	return fmt.Sprintf("%v: it applies to %s, and this one is %s", ErrWrongBase, e.Want, e.Got)
}

func (e *BaseError) Unwrap() error { return ErrWrongBase }

// DeltaError reports a differential file that cannot be read, or that does
// not give its target.
type DeltaError struct {
	Msg string
	// Err is ErrNotDelta, ErrMalformed, ErrTruncated or
	// ErrUnsupportedVersion.
	Err error
}

func (e *DeltaError) Error() string { return "differential file: " + e.Err.Error() + ": " + e.Msg }

func (e *DeltaError) Unwrap() error { return e.Err }

// Delta is the difference between two documents, base and target, in the
// form of a differential file (spec §9.6). Make one with [NewDelta], read
// one with [UnmarshalDelta] or [ReadDeltaFile], apply it with [Patch].
// A Delta is safe for concurrent use: applying it does not change it.
type Delta struct {
	// Base and Target are the content hashes of the documents the delta
	// goes from and to.
	Base, Target string
	// body is the canonical JSON of the delta's body: {"patch": P} or
	// {"document": D}.
	body []byte
	// full marks a body that holds the target's whole document.
	full bool
}

// Full reports whether the delta carries the target's whole document
// rather than a patch: NewDelta falls back to it when a patch would not
// reproduce the target exactly (a document whose keyed lists have
// duplicate keys, spec §9.6.2).
func (d *Delta) Full() bool { return d.full }

// NewDelta returns the delta from a to b. It checks that the patch it
// makes gives b exactly and, in the rare case it would not, carries b's
// whole document instead: a delta from NewDelta always applies.
func NewDelta(a, b *spec.Document) (*Delta, error) {
	ja, err := canonicalJSON(a)
	if err != nil {
		return nil, err
	}
	jb, err := canonicalJSON(b)
	if err != nil {
		return nil, err
	}
	d := &Delta{Base: hashJSON(ja), Target: hashJSON(jb)}
	va, errA := keyedView(ja)
	vb, errB := keyedView(jb)
	if errA == nil && errB == nil {
		body, err := spec.MarshalCanonical(map[string]any{"patch": diffObjects(va, vb, nil).encode()})
		if err != nil {
			return nil, fmt.Errorf("smg: making a delta: %w", err)
		}
		d.body = body
		if _, err := d.apply(ja, Limits{}); err == nil {
			return d, nil
		}
	}
	body, err := spec.MarshalCanonical(map[string]jsontext.Value{"document": jb})
	if err != nil {
		return nil, fmt.Errorf("smg: making a delta: %w", err)
	}
	d.body, d.full = body, true
	return d, nil
}

// Patch applies d to base and returns the target document. A base whose
// content hash is not d.Base is refused with a [*BaseError] (ErrWrongBase);
// a delta that does not give a document whose content hash is d.Target
// fails with a [*DeltaError]. base is not modified.
func Patch(base *spec.Document, d *Delta) (*spec.Document, error) {
	if d == nil {
		return nil, errors.New("smg: patch: no delta")
	}
	js, err := canonicalJSON(base)
	if err != nil {
		return nil, err
	}
	return d.apply(js, Limits{})
}

// apply applies d to the base whose canonical JSON is ja.
func (d *Delta) apply(ja []byte, lim Limits) (*spec.Document, error) {
	if got := hashJSON(ja); got != d.Base {
		return nil, &BaseError{Want: d.Base, Got: got}
	}
	body, err := parseDeltaBody(d.body)
	if err != nil {
		return nil, err
	}
	js := []byte(body.Document)
	if body.Patch != nil {
		v, err := keyedView(ja)
		if err != nil {
			return nil, &DeltaError{Err: ErrMalformed, Msg: "a patch, but the base has no keyed view: " + err.Error()}
		}
		if err := body.Patch.apply(v, nil); err != nil {
			return nil, err
		}
		if js, err = unkeyedJSON(v); err != nil {
			return nil, &DeltaError{Err: ErrMalformed, Msg: "the patched document: " + err.Error()}
		}
	}
	f, err := decode(bytes.NewReader(js), &DecodeOptions{Limits: lim})
	if err != nil {
		return nil, &DeltaError{Err: ErrMalformed, Msg: "the patched document does not decode: " + err.Error()}
	}
	jt, err := canonicalJSON(f.Doc)
	if err != nil {
		return nil, &DeltaError{Err: ErrMalformed, Msg: "the patched document does not encode: " + err.Error()}
	}
	if got := hashJSON(jt); got != d.Target {
		return nil, &DeltaError{Err: ErrMalformed, Msg: fmt.Sprintf("the patched document is %s, not the target %s", got, d.Target)}
	}
	return f.Doc, nil
}

// hashJSON is the content hash of a document's canonical JSON.
func hashJSON(js []byte) string {
	sum := sha256.Sum256(js)
	return spec.HashPrefix + hex.EncodeToString(sum[:])
}

// isHash reports whether s has the syntax of a content hash (spec §2.4).
func isHash(s string) bool {
	h, ok := strings.CutPrefix(s, spec.HashPrefix)
	return ok && len(h) == 64 && strings.Trim(h, "0123456789abcdef") == ""
}

// MarshalDelta returns the bytes of d's differential file: its header line,
// then its body as Brotli-compressed canonical JSON, the whole sealed in
// an envelope (spec §9.5) when opts.Password is set. Of opts, Quality (0
// means [DeltaQuality]), Password, KDF, InsecureKDF and Rand apply.
func MarshalDelta(d *Delta, opts *EncodeOptions) ([]byte, error) {
	if opts == nil {
		opts = &EncodeOptions{}
	}
	q := opts.Quality
	if q == 0 {
		q = DeltaQuality
	}
	if q < 1 || q > 11 {
		return nil, fmt.Errorf("smg: Brotli quality %d is not in 1..11", q)
	}
	if !isHash(d.Base) || !isHash(d.Target) || d.body == nil {
		return nil, errors.New("smg: encoding a delta that NewDelta or UnmarshalDelta did not make")
	}
	out := fmt.Appendf(nil, "%s %s %s %s\n", deltaMagic, DeltaVersion, d.Base, d.Target)
	out = append(out, archive.Compress(d.body, q)...)
	if opts.Password != nil {
		return envelope.Seal(out, opts.Password, opts.sealOptions())
	}
	return out, nil
}

// UnmarshalDelta reads a differential file, encrypted or not, within
// opts.Limits: MaxFileSize bounds the file and MaxDocumentSize its
// decompressed body (by default grown with the body's compressed size, as
// a document's is with its file's). Errors are [*DeltaError] values (ErrNotDelta,
// ErrMalformed, ErrTruncated, ErrUnsupportedVersion), [*LimitError], or the
// password errors of [Decode].
func UnmarshalDelta(b []byte, opts *DecodeOptions) (*Delta, error) {
	if opts == nil {
		opts = &DecodeOptions{}
	}
	lim := opts.Limits.withDefaults()
	if int64(len(b)) > lim.MaxFileSize {
		return nil, &LimitError{Limit: "MaxFileSize", Max: lim.MaxFileSize}
	}
	if isEnvelope(b, lim) {
		password, err := opts.password()
		if err != nil {
			return nil, err
		}
		if b, err = open(b, password, lim); err != nil {
			return nil, err
		}
	}
	line, _, ok := bytes.Cut(b[:min(len(b), maxDeltaHeader)], []byte("\n"))
	if !bytes.HasPrefix(b, []byte(deltaMagic+" ")) {
		return nil, &DeltaError{Err: ErrNotDelta, Msg: fmt.Sprintf("it does not start with %q", deltaMagic+" ")}
	}
	if !ok {
		if len(b) < maxDeltaHeader {
			return nil, &DeltaError{Err: ErrTruncated, Msg: "the header line does not end"}
		}
		return nil, &DeltaError{Err: ErrMalformed, Msg: "the header line is too long"}
	}
	rest := b[len(line)+1:]
	fields := strings.Split(string(line), " ")
	if len(fields) != 4 {
		return nil, &DeltaError{Err: ErrMalformed, Msg: fmt.Sprintf("the header line has %d fields, not 4", len(fields))}
	}
	major, _, err := spec.ParseVersion(fields[1])
	switch {
	case err != nil:
		return nil, &DeltaError{Err: ErrMalformed, Msg: err.Error()}
	case major != 1:
		return nil, &DeltaError{Err: ErrUnsupportedVersion, Msg: fmt.Sprintf("version %s (this reader reads 1.x)", fields[1])}
	}
	d := &Delta{Base: fields[2], Target: fields[3]}
	if !isHash(d.Base) || !isHash(d.Target) {
		return nil, &DeltaError{Err: ErrMalformed, Msg: "the header's base or target is not a content hash"}
	}
	if len(rest) == 0 {
		return nil, &DeltaError{Err: ErrTruncated, Msg: "no body after the header line"}
	}
	lim = opts.Limits.forFile(int64(len(rest)))
	body, err := io.ReadAll(io.LimitReader(brotli.NewReader(bytes.NewReader(rest)), lim.MaxDocumentSize+1))
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, &DeltaError{Err: ErrTruncated, Msg: "the Brotli stream ends early"}
	case err != nil:
		return nil, &DeltaError{Err: ErrMalformed, Msg: "corrupt Brotli stream: " + err.Error()}
	case int64(len(body)) > lim.MaxDocumentSize:
		return nil, &LimitError{Limit: "MaxDocumentSize", Max: lim.MaxDocumentSize}
	}
	parsed, err := parseDeltaBody(body)
	if err != nil {
		return nil, err
	}
	d.body, d.full = body, parsed.Patch == nil
	return d, nil
}

// WriteDeltaFile writes d's differential file (see [MarshalDelta])
// atomically, as [WriteFile] writes a document.
func WriteDeltaFile(name string, d *Delta, opts *EncodeOptions) error {
	b, err := MarshalDelta(d, opts)
	if err != nil {
		return err
	}
	return writeEncoded(name, b, opts)
}

// ReadDeltaFile reads the named differential file (see [UnmarshalDelta]).
func ReadDeltaFile(name string, opts *DecodeOptions) (*Delta, error) {
	if opts == nil {
		opts = &DecodeOptions{}
	}
	b, err := ReadBytes(name, opts.Limits.withDefaults())
	if err != nil {
		return nil, err
	}
	d, err := UnmarshalDelta(b, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return d, nil
}

// deltaBody is the JSON body of a differential file: exactly one of a
// patch over the keyed view of the base, and the target's whole document.
type deltaBody struct {
	Patch    *objPatch
	Document jsontext.Value
}

// parseDeltaBody reads and checks a body.
func parseDeltaBody(js []byte) (*deltaBody, error) {
	var raw struct {
		Patch    map[string]any `json:"patch"`
		Document jsontext.Value `json:"document,omitzero"`
	}
	if err := json.Unmarshal(js, &raw, json.RejectUnknownMembers(true)); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &DeltaError{Err: ErrTruncated, Msg: "the body ends early"}
		}
		return nil, &DeltaError{Err: ErrMalformed, Msg: "the body: " + err.Error()}
	}
	switch {
	case (raw.Patch == nil) == (len(raw.Document) == 0):
		return nil, &DeltaError{Err: ErrMalformed, Msg: `the body must have exactly one of "patch" and "document", an object`}
	case len(raw.Document) > 0 && raw.Document.Kind() != '{':
		return nil, &DeltaError{Err: ErrMalformed, Msg: `the body's "document" is not an object`}
	case raw.Patch != nil:
		p, err := parsePatch(raw.Patch, nil)
		if err != nil {
			return nil, err
		}
		return &deltaBody{Patch: p}, nil
	}
	return &deltaBody{Document: raw.Document}, nil
}

// The keyed view of a document (spec §9.6.2) is its JSON with each list of
// identified elements turned into an object whose members are the elements,
// named by their keys. Differences between two versions are then
// differences of members, whatever the elements' places in their lists.

// keyedList is a list of the keyed view: the path of its member from the
// top of the document ("*" stands for every member of an object), and the
// key of an element, if it has one.
type keyedList struct {
	path []string
	key  func(elem map[string]any) (string, bool)
	// numbered: the keys are numbers ("11", "3:12-40"), and the list goes
	// in the order of those numbers, not of the keys as text.
	numbered bool
}

// keyedLists are the lists of spec §9.6.2.
var keyedLists = []keyedList{
	{[]string{"workingMemory", "recentContext"}, intKey("turn"), true},
	{[]string{"semanticGraph", "nodes"}, stringKey("id"), false},
	{[]string{"semanticGraph", "edges"}, edgeName, false},
	{[]string{"artifactVault", "artifacts", "*", "versions"}, intKey("v"), true},
	{[]string{"deepArchive", "blocks"}, stringKey("id"), false},
	{[]string{"deepArchive", "vectorIndex", "embeddings"}, embeddingKey, true},
	{[]string{"metadata", "collaborators"}, stringKey("id"), false},
	{[]string{"privateContexts"}, stringKey("owner"), false},
}

// stringKey keys elements by a string member.
func stringKey(name string) func(map[string]any) (string, bool) {
	return func(e map[string]any) (string, bool) {
		s, ok := e[name].(string)
		return s, ok
	}
}

// intKey keys elements by an integer member, written in decimal.
func intKey(name string) func(map[string]any) (string, bool) {
	return func(e map[string]any) (string, bool) {
		f, ok := e[name].(float64)
		if !ok || f != float64(int64(f)) || f > 1<<53 || f < -(1<<53) {
			return "", false
		}
		return fmt.Sprint(int64(f)), true
	}
}

// embeddingKey keys an embedding by its turn, in decimal, and for an
// excerpt by its turn, start and end, "3:12-40" (spec §9.6.2). A start or
// end that is present must be an integer too.
func embeddingKey(e map[string]any) (string, bool) {
	turn, ok := intKey("turn")(e)
	if !ok {
		return "", false
	}
	span := [2]string{"0", "0"}
	for i, name := range []string{"start", "end"} {
		if _, has := e[name]; has {
			if span[i], ok = intKey(name)(e); !ok {
				return "", false
			}
		}
	}
	if span == [2]string{"0", "0"} {
		return turn, true
	}
	return turn + ":" + span[0] + "-" + span[1], true
}

// compareNumbers orders keys made of numbers ("11", "3:12-40") by those
// numbers, in turn; a key that is a prefix of another ("3" of "3:12-40")
// comes first.
func compareNumbers(a, b string) int {
	for a != "" && b != "" {
		var x, y int64
		x, a = leadingNumber(a)
		y, b = leadingNumber(b)
		if c := cmp.Compare(x, y); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// leadingNumber reads the number s starts with, after any separator, and
// returns the rest.
func leadingNumber(s string) (int64, string) {
	s = strings.TrimLeft(s, ":-")
	var n int64
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int64(s[i]-'0')
	}
	if i == 0 && s != "" {
		i = 1 // not a number: skipped, so that comparing ends
	}
	return n, s[i:]
}

// edgeName keys an edge by its from, relation and to, joined by spaces,
// which none of them may hold (spec §2.3, §6.2.1).
func edgeName(e map[string]any) (string, bool) {
	from, ok1 := e["from"].(string)
	rel, ok2 := e["relation"].(string)
	to, ok3 := e["to"].(string)
	return from + " " + rel + " " + to, ok1 && ok2 && ok3
}

// at calls f with the object that holds each member the path names.
func at(v any, path []string, f func(parent map[string]any, name string) error) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if len(path) == 1 {
		if _, ok := obj[path[0]]; ok {
			return f(obj, path[0])
		}
		return nil
	}
	if path[0] != "*" {
		return at(obj[path[0]], path[1:], f)
	}
	for _, c := range obj {
		if err := at(c, path[1:], f); err != nil {
			return err
		}
	}
	return nil
}

// keyedView parses a document's JSON and turns its keyed lists into
// objects. A list whose elements do not all have distinct keys has no
// keyed view: the error says which.
func keyedView(js []byte) (map[string]any, error) {
	var root map[string]any
	if err := json.Unmarshal(js, &root); err != nil {
		return nil, err
	}
	for _, kl := range keyedLists {
		err := at(root, kl.path, func(parent map[string]any, name string) error {
			list, ok := parent[name].([]any)
			if !ok {
				return fmt.Errorf("%s is not a list", strings.Join(kl.path, "."))
			}
			obj := make(map[string]any, len(list))
			for i, e := range list {
				m, ok := e.(map[string]any)
				var k string
				if ok {
					k, ok = kl.key(m)
				}
				if !ok {
					return fmt.Errorf("%s[%d] has no key", strings.Join(kl.path, "."), i)
				}
				if _, dup := obj[k]; dup {
					return fmt.Errorf("%s has two elements with the key %q", strings.Join(kl.path, "."), k)
				}
				obj[k] = m
			}
			parent[name] = obj
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return root, nil
}

// unkeyedJSON turns the keyed lists of a view back into lists, in the
// order of their keys (of their numbers, for a list keyed by numbers: the
// embedding of turn 11 after that of turn 9), and returns the view's JSON.
func unkeyedJSON(v map[string]any) ([]byte, error) {
	for _, kl := range keyedLists {
		_ = at(v, kl.path, func(parent map[string]any, name string) error {
			obj, ok := parent[name].(map[string]any)
			if !ok {
				return nil // not a view's object: left for decoding to judge
			}
			list := make([]any, 0, len(obj))
			keys := sortedKeys(obj)
			if kl.numbered {
				slices.SortFunc(keys, compareNumbers)
			}
			for _, k := range keys {
				list = append(list, obj[k])
			}
			parent[name] = list
			return nil
		})
	}
	return json.Marshal(v)
}

// The operations of a patch (spec §9.6.3): every other member of a patch
// names a member of the object patched.
const (
	opRemove = "-" // names of members removed
	opSet    = "=" // members set to these values, verbatim
	opAppend = "+" // arrays lengthened by these elements
	opAt     = "~" // patches of members named by their places
)

// reserved reports whether name is one of the operations, which a patch
// cannot use as the name of a member it sets or patches directly.
func reserved(name string) bool {
	return name == opRemove || name == opSet || name == opAppend || name == opAt
}

// objPatch is the patch of a JSON object (spec §9.6.3): members removed,
// set to a value, lengthened at the end (arrays), or patched in turn
// (objects), these named or, in at, given by their places among the
// object's members. A member is changed by one operation at most.
type objPatch struct {
	remove []string
	set    map[string]any
	append map[string][]any
	patch  map[string]*objPatch
	at     []atPatch
}

// atPatch patches the member skip places after the one before (the first
// member for skip 0 at the start).
type atPatch struct {
	skip int
	p    *objPatch
}

// diffObjects returns the patch that turns a into b, two objects at path
// in the keyed view. Members of a keyed list are patched by place, which
// spares naming them.
func diffObjects(a, b map[string]any, path []string) *objPatch {
	p := &objPatch{}
	keyed := isKeyedPath(path)
	var order []string // a's members, by place, when keyed
	if keyed {
		order = slices.SortedFunc(maps.Keys(a), compareUTF16)
	}
	for _, name := range order {
		if _, ok := b[name]; !ok {
			p.remove = append(p.remove, name)
		}
	}
	if !keyed {
		for _, name := range sortedKeys(a) {
			if _, ok := b[name]; !ok {
				p.remove = append(p.remove, name)
			}
		}
	}
	last := -1
	for _, name := range slices.SortedFunc(maps.Keys(b), compareUTF16) {
		av, ok := a[name]
		bv := b[name]
		if ok && equalJSON(av, bv) {
			continue
		}
		if ok {
			if am, ok := av.(map[string]any); ok {
				if bm, ok := bv.(map[string]any); ok {
					sub := diffObjects(am, bm, append(path[:len(path):len(path)], name))
					switch {
					case keyed:
						i, _ := slices.BinarySearchFunc(order, name, compareUTF16)
						p.at = append(p.at, atPatch{skip: i - last - 1, p: sub})
						last = i
						continue
					case !reserved(name):
						setMember(&p.patch, name, sub)
						continue
					}
				}
			}
			if aa, ok := av.([]any); ok {
				if ba, ok := bv.([]any); ok && len(aa) > 0 && len(ba) > len(aa) && equalJSON(aa, ba[:len(aa)]) {
					setMember(&p.append, name, ba[len(aa):])
					continue
				}
			}
		}
		setMember(&p.set, name, bv)
	}
	return p
}

// isKeyedPath reports whether path is the path of a keyed list.
func isKeyedPath(path []string) bool {
	for _, kl := range keyedLists {
		if len(kl.path) == len(path) && slices.EqualFunc(kl.path, path, func(k, p string) bool { return k == "*" || k == p }) {
			return true
		}
	}
	return false
}

// setMember sets m[name], making m when it is nil.
func setMember[T any](m *map[string]T, name string, v T) {
	if *m == nil {
		*m = map[string]T{}
	}
	(*m)[name] = v
}

// encode returns p as JSON: set values that are objects, and members
// named like operations, go under "="; other set values, and patches,
// under their names.
func (p *objPatch) encode() map[string]any {
	m := map[string]any{}
	if len(p.remove) > 0 {
		m[opRemove] = p.remove
	}
	verbatim := map[string]any{}
	for name, v := range p.set {
		if _, isObj := v.(map[string]any); isObj || reserved(name) {
			verbatim[name] = v
		} else {
			m[name] = v
		}
	}
	if len(verbatim) > 0 {
		m[opSet] = verbatim
	}
	if len(p.append) > 0 {
		m[opAppend] = p.append
	}
	for name, sub := range p.patch {
		m[name] = sub.encode()
	}
	if len(p.at) > 0 {
		at := make([]any, 0, 2*len(p.at))
		for _, a := range p.at {
			at = append(at, a.skip, a.p.encode())
		}
		m[opAt] = at
	}
	return m
}

// parsePatch reads the patch m of the object at path, checking its form.
func parsePatch(m map[string]any, path pathBuilder) (*objPatch, error) {
	bad := func(format string, args ...any) error {
		return &DeltaError{Err: ErrMalformed, Msg: "the patch of " + path.String() + ": " + fmt.Sprintf(format, args...)}
	}
	p := &objPatch{}
	seen := map[string]bool{}
	once := func(name string) error {
		if seen[name] {
			return bad("it changes %q twice", name)
		}
		seen[name] = true
		return nil
	}
	for _, name := range sortedKeys(m) {
		v := m[name]
		switch name {
		case opRemove:
			list, ok := v.([]any)
			if !ok {
				return nil, bad("%q is not an array", name)
			}
			for _, e := range list {
				s, ok := e.(string)
				if !ok {
					return nil, bad("%q holds a value that is not a string", name)
				}
				if err := once(s); err != nil {
					return nil, err
				}
				p.remove = append(p.remove, s)
			}
		case opSet:
			o, ok := v.(map[string]any)
			if !ok {
				return nil, bad("%q is not an object", name)
			}
			for _, k := range sortedKeys(o) {
				if err := once(k); err != nil {
					return nil, err
				}
				setMember(&p.set, k, o[k])
			}
		case opAppend:
			o, ok := v.(map[string]any)
			if !ok {
				return nil, bad("%q is not an object", name)
			}
			for _, k := range sortedKeys(o) {
				list, ok := o[k].([]any)
				if !ok {
					return nil, bad("%q holds a value that is not an array", name)
				}
				if err := once(k); err != nil {
					return nil, err
				}
				setMember(&p.append, k, list)
			}
		case opAt:
			list, ok := v.([]any)
			if !ok || len(list)%2 != 0 {
				return nil, bad("%q is not an array of place and patch pairs", name)
			}
			for i := 0; i < len(list); i += 2 {
				f, ok := list[i].(float64)
				if !ok || f < 0 || f > 1<<53 || f != float64(int64(f)) {
					return nil, bad("%q[%d] is not a count of members to skip", name, i)
				}
				o, ok := list[i+1].(map[string]any)
				if !ok {
					return nil, bad("%q[%d] is not a patch", name, i+1)
				}
				sub, err := parsePatch(o, path.member(opAt).index(i+1))
				if err != nil {
					return nil, err
				}
				p.at = append(p.at, atPatch{skip: int(f), p: sub})
			}
		default:
			if err := once(name); err != nil {
				return nil, err
			}
			if o, ok := v.(map[string]any); ok {
				sub, err := parsePatch(o, path.member(name))
				if err != nil {
					return nil, err
				}
				setMember(&p.patch, name, sub)
			} else {
				setMember(&p.set, name, v)
			}
		}
	}
	return p, nil
}

// apply applies p to obj, the object at path.
func (p *objPatch) apply(obj map[string]any, path pathBuilder) error {
	fail := func(format string, args ...any) error {
		return &DeltaError{Err: ErrMalformed, Msg: "the patch does not apply: " + fmt.Sprintf(format, args...)}
	}
	// Places are those of the members before any change.
	patches := p.patch
	if len(p.at) > 0 {
		patches = maps.Clone(p.patch)
		if patches == nil {
			patches = map[string]*objPatch{}
		}
		order := slices.SortedFunc(maps.Keys(obj), compareUTF16)
		i := -1
		for _, a := range p.at {
			i += a.skip + 1
			if i < 0 || i >= len(order) {
				return fail("it patches member %d of %s, which has %d", i+1, path, len(order))
			}
			name := order[i]
			_, dup := patches[name]
			_, set := p.set[name]
			_, app := p.append[name]
			if dup || set || app || slices.Contains(p.remove, name) {
				return fail("it changes %s twice", path.member(name))
			}
			patches[name] = a.p
		}
	}
	for _, name := range p.remove {
		if _, ok := obj[name]; !ok {
			return fail("it removes %s, which the base does not have", path.member(name))
		}
		delete(obj, name)
	}
	for name, v := range p.set {
		obj[name] = v
	}
	for name, vs := range p.append {
		a, ok := obj[name].([]any)
		if !ok {
			return fail("it appends to %s, which is not an array in the base", path.member(name))
		}
		obj[name] = append(a[:len(a):len(a)], vs...)
	}
	for _, name := range sortedKeys(patches) {
		o, ok := obj[name].(map[string]any)
		if !ok {
			return fail("it patches %s, which is not an object in the base", path.member(name))
		}
		if err := patches[name].apply(o, path.member(name)); err != nil {
			return err
		}
	}
	return nil
}

// compareUTF16 orders strings as RFC 8785 orders member names: by their
// UTF-16 code units. That is the order of code points, except that those
// from U+E000 to U+FFFF come after those above U+FFFF.
func compareUTF16(a, b string) int {
	key := func(r rune) rune {
		if r >= 0xE000 && r <= 0xFFFF {
			return r + 0x200000
		}
		return r
	}
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return cmp.Compare(key(ra), key(rb))
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(len(a), len(b))
}
