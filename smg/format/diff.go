package format

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/smg-memory/smg/spec"
)

// Change says what happened to an entry between two versions of a memory.
type Change string

// The kinds of change.
const (
	Added   Change = "added"
	Removed Change = "removed"
	Changed Change = "changed"
)

// Changes is the semantic difference between two versions of a memory, as
// [Diff] finds it: entries are matched by identity (nodes and blocks by
// id, edges by from, relation and to, artifact versions by number, turns
// by number), not by their places in the file. Each list is sorted by
// identity. The zero Changes (see [Changes.Empty]) means the two
// documents have the same content.
type Changes struct {
	// Base and Target are the content hashes of the two documents.
	Base   string `json:"base"`
	Target string `json:"target"`
	// Document lists the changed top-level members other than the five
	// sections (version, and members this version does not know).
	Document []FieldChange `json:"document,omitempty"`
	Metadata []FieldChange `json:"metadata,omitempty"`
	// WorkingMemory lists the changed members of working memory other
	// than its recent turns (summary, goals, active artifacts…);
	// RecentTurns the turns of recentContext by number.
	WorkingMemory []FieldChange `json:"workingMemory,omitempty"`
	RecentTurns   TurnChanges   `json:"recentTurns,omitzero"`
	Nodes         []NodeChange  `json:"nodes,omitempty"`
	Edges         []EdgeChange  `json:"edges,omitempty"`
	// Graph lists the changed members of semanticGraph other than nodes
	// and edges.
	Graph     []FieldChange    `json:"graph,omitempty"`
	Artifacts []ArtifactChange `json:"artifacts,omitempty"`
	// Vault lists the changed members of artifactVault other than
	// artifacts (snapshotInterval…).
	Vault  []FieldChange `json:"vault,omitempty"`
	Blocks []BlockChange `json:"blocks,omitempty"`
	// Archive lists the changed members of deepArchive other than blocks
	// and vectorIndex; VectorIndex those of vectorIndex other than its
	// embeddings, Embeddings the embeddings of whole turns by turn, and
	// Excerpts the embeddings of excerpts of turns (spec §8.3) by turn
	// and excerpt.
	Archive     []FieldChange  `json:"archive,omitempty"`
	VectorIndex []FieldChange  `json:"vectorIndex,omitempty"`
	Embeddings  TurnChanges    `json:"embeddings,omitzero"`
	Excerpts    ExcerptChanges `json:"excerptEmbeddings,omitzero"`
	// Private are the collaborators' private parts (spec §4.6) added,
	// removed or changed.
	Private []PrivateChange `json:"private,omitempty"`
}

// PrivateChange is a collaborator's private part added, removed or
// changed. Sealed tells whether it is sealed (in the second document, or
// in the first for a part removed); a part changed in the clear on both
// sides has the changes of its memory, a sealed one only the fact that it
// changed, since its content cannot be read.
type PrivateChange struct {
	Change  Change   `json:"change"`
	Owner   string   `json:"owner"`
	Sealed  bool     `json:"sealed"`
	Changes *Changes `json:"changes,omitempty"`
}

// FieldChange is a member whose value differs: Old and New are its JSON
// values, canonical, and absent where the member is.
type FieldChange struct {
	Name string         `json:"name"`
	Old  jsontext.Value `json:"old,omitzero"`
	New  jsontext.Value `json:"new,omitzero"`
}

// TurnChanges lists turns, by number, that one version has and the other
// has not, or that both have with different content.
type TurnChanges struct {
	Added   []int `json:"added,omitempty"`
	Removed []int `json:"removed,omitempty"`
	Changed []int `json:"changed,omitempty"`
}

// IsZero reports whether no turn changed.
func (t TurnChanges) IsZero() bool {
	return len(t.Added) == 0 && len(t.Removed) == 0 && len(t.Changed) == 0
}

// Excerpt names an excerpt of a turn: the bytes Start to End of its
// content (spec §8.3).
type Excerpt struct {
	Turn  int `json:"turn"`
	Start int `json:"start"`
	End   int `json:"end"`
}

// ExcerptChanges lists excerpts whose embeddings were added, removed or
// changed, each list in the order of turn, start, end.
type ExcerptChanges struct {
	Added   []Excerpt `json:"added,omitempty"`
	Removed []Excerpt `json:"removed,omitempty"`
	Changed []Excerpt `json:"changed,omitempty"`
}

// IsZero reports whether no excerpt's embedding changed.
func (x ExcerptChanges) IsZero() bool {
	return len(x.Added) == 0 && len(x.Removed) == 0 && len(x.Changed) == 0
}

// NodeChange is a node added, removed or changed. Type and Label are the
// node's in the target, or in the base for a removed node; Fields lists,
// for a changed node, the members that differ.
type NodeChange struct {
	Change Change        `json:"change"`
	ID     string        `json:"id"`
	Type   spec.NodeType `json:"type"`
	Label  string        `json:"label"`
	Fields []FieldChange `json:"fields,omitempty"`
}

// EdgeChange is an edge added, removed or changed. OldStrength is absent
// for an added edge, NewStrength for a removed one; Fields lists the other
// members that differ.
type EdgeChange struct {
	Change      Change        `json:"change"`
	From        string        `json:"from"`
	Relation    spec.Relation `json:"relation"`
	To          string        `json:"to"`
	OldStrength *float64      `json:"oldStrength,omitempty"`
	NewStrength *float64      `json:"newStrength,omitempty"`
	Fields      []FieldChange `json:"fields,omitempty"`
}

// ArtifactChange is an artifact added, removed or changed: Fields lists
// its members other than versions that differ, and Versions the versions
// added, removed or changed.
type ArtifactChange struct {
	Change   Change          `json:"change"`
	ID       string          `json:"id"`
	Type     string          `json:"type"`
	Filename string          `json:"filename,omitempty"`
	Fields   []FieldChange   `json:"fields,omitempty"`
	Versions []VersionChange `json:"versions,omitempty"`
}

// VersionChange is an artifact version added, removed or changed. Hash,
// Size and Turn are the version's (the base's when removed). Diff is, for
// an added version and with [DiffOptions.Content], the unified diff from
// the version before it (from nothing for version 1).
type VersionChange struct {
	Change Change        `json:"change"`
	V      int           `json:"v"`
	Hash   string        `json:"hash"`
	Size   int64         `json:"size"`
	Turn   int           `json:"turn,omitzero"`
	Fields []FieldChange `json:"fields,omitempty"`
	Diff   string        `json:"diff,omitempty"`
}

// BlockChange is an archive block added, removed or changed. TurnRange
// and TurnCount are the block's (the base's when removed); Fields lists
// the members that differ, except compressedData, whose change shows in
// contentHash.
type BlockChange struct {
	Change    Change        `json:"change"`
	ID        string        `json:"id"`
	TurnRange [2]int        `json:"turnRange"`
	TurnCount int           `json:"turnCount"`
	Fields    []FieldChange `json:"fields,omitempty"`
}

// DiffOptions configure [Diff]. The zero value leaves out the content of
// artifact versions.
type DiffOptions struct {
	// Content adds to each artifact version added the unified diff of its
	// content from the version before it.
	Content bool
}

// Empty reports whether the two documents have the same content.
func (c *Changes) Empty() bool {
	return len(c.Document) == 0 && len(c.Metadata) == 0 && len(c.WorkingMemory) == 0 &&
		c.RecentTurns.IsZero() && len(c.Nodes) == 0 && len(c.Edges) == 0 && len(c.Graph) == 0 &&
		len(c.Artifacts) == 0 && len(c.Vault) == 0 && len(c.Blocks) == 0 && len(c.Archive) == 0 &&
		len(c.VectorIndex) == 0 && c.Embeddings.IsZero() && c.Excerpts.IsZero() && len(c.Private) == 0
}

// Diff returns what changed from a to b. Neither is modified. The diff of
// a document with itself is empty. A document whose keyed lists (spec
// §9.6.2: nodes by id, edges by from, relation and to…) have duplicate
// keys breaks a rule of the spec, and Diff reports it with an error that
// matches ErrInvalid.
func Diff(a, b *spec.Document, opts *DiffOptions) (*Changes, error) {
	if opts == nil {
		opts = &DiffOptions{}
	}
	ja, err := canonicalJSON(a)
	if err != nil {
		return nil, err
	}
	jb, err := canonicalJSON(b)
	if err != nil {
		return nil, err
	}
	va, err := keyedView(ja)
	if err != nil {
		return nil, fmt.Errorf("smg: diff: the first document: %w: %v", ErrInvalid, err)
	}
	vb, err := keyedView(jb)
	if err != nil {
		return nil, fmt.Errorf("smg: diff: the second document: %w: %v", ErrInvalid, err)
	}
	c := &Changes{Base: hashJSON(ja), Target: hashJSON(jb)}
	sections := []string{"metadata", "workingMemory", "semanticGraph", "artifactVault", "deepArchive", "privateContexts"}
	c.Document = fieldChanges(va, vb, sections...)
	c.Metadata = fieldChanges(obj(va, "metadata"), obj(vb, "metadata"))

	wa, wb := obj(va, "workingMemory"), obj(vb, "workingMemory")
	c.WorkingMemory = fieldChanges(wa, wb, "recentContext")
	c.RecentTurns = turnChanges(obj(wa, "recentContext"), obj(wb, "recentContext"))

	ga, gb := obj(va, "semanticGraph"), obj(vb, "semanticGraph")
	c.Graph = fieldChanges(ga, gb, "nodes", "edges")
	entries(obj(ga, "nodes"), obj(gb, "nodes"), func(ch Change, id string, old, new map[string]any) {
		n := NodeChange{Change: ch, ID: id}
		e := either(new, old)
		n.Type, n.Label = spec.NodeType(str(e, "type")), str(e, "label")
		if ch == Changed {
			n.Fields = fieldChanges(old, new)
		}
		c.Nodes = append(c.Nodes, n)
	})
	entries(obj(ga, "edges"), obj(gb, "edges"), func(ch Change, _ string, old, new map[string]any) {
		e := either(new, old)
		ec := EdgeChange{Change: ch, From: str(e, "from"), Relation: spec.Relation(str(e, "relation")), To: str(e, "to")}
		if s, ok := old["strength"].(float64); ok {
			ec.OldStrength = &s
		}
		if s, ok := new["strength"].(float64); ok {
			ec.NewStrength = &s
		}
		if ch == Changed {
			ec.Fields = fieldChanges(old, new, "strength")
			if ec.OldStrength != nil && ec.NewStrength != nil && *ec.OldStrength == *ec.NewStrength {
				ec.OldStrength, ec.NewStrength = nil, nil
			}
		}
		c.Edges = append(c.Edges, ec)
	})

	aa, ab := obj(va, "artifactVault"), obj(vb, "artifactVault")
	c.Vault = fieldChanges(aa, ab, "artifacts")
	entries(obj(aa, "artifacts"), obj(ab, "artifacts"), func(ch Change, id string, old, new map[string]any) {
		e := either(new, old)
		ac := ArtifactChange{Change: ch, ID: id, Type: str(e, "type"), Filename: str(e, "filename")}
		if ch == Changed {
			ac.Fields = fieldChanges(old, new, "versions")
		}
		entries(obj(old, "versions"), obj(new, "versions"), func(ch Change, _ string, old, new map[string]any) {
			e := either(new, old)
			v := VersionChange{Change: ch, V: int(num(e, "v")), Size: int64(num(e, "size")), Turn: int(num(e, "turn"))}
			// The hash of the document in memory: a file of 1.3 leaves it
			// to its reader.
			if ch == Removed {
				v.Hash = versionHash(a, id, v.V)
			} else {
				v.Hash = versionHash(b, id, v.V)
			}
			if ch == Changed {
				v.Fields = fieldChanges(old, new)
			}
			if ch == Added && opts.Content {
				v.Diff = versionDiff(b, id, v.V)
			}
			ac.Versions = append(ac.Versions, v)
		})
		slices.SortFunc(ac.Versions, func(x, y VersionChange) int { return cmp.Compare(x.V, y.V) })
		c.Artifacts = append(c.Artifacts, ac)
	})

	da, db := obj(va, "deepArchive"), obj(vb, "deepArchive")
	c.Archive = fieldChanges(da, db, "blocks", "vectorIndex")
	entries(obj(da, "blocks"), obj(db, "blocks"), func(ch Change, id string, old, new map[string]any) {
		e := either(new, old)
		bc := BlockChange{Change: ch, ID: id, TurnCount: int(num(e, "turnCount"))}
		if r, ok := e["turnRange"].([]any); ok && len(r) == 2 {
			f0, _ := r[0].(float64)
			f1, _ := r[1].(float64)
			bc.TurnRange = [2]int{int(f0), int(f1)}
		}
		if ch == Changed {
			bc.Fields = fieldChanges(old, new, "compressedData")
		}
		c.Blocks = append(c.Blocks, bc)
	})
	slices.SortFunc(c.Blocks, func(x, y BlockChange) int {
		return cmp.Or(cmp.Compare(x.TurnRange[0], y.TurnRange[0]), strings.Compare(x.ID, y.ID))
	})
	xa, xb := obj(da, "vectorIndex"), obj(db, "vectorIndex")
	c.VectorIndex = fieldChanges(xa, xb, "embeddings")
	c.Embeddings, c.Excerpts = embeddingChanges(obj(xa, "embeddings"), obj(xb, "embeddings"))

	var err2 error
	entries(obj(va, "privateContexts"), obj(vb, "privateContexts"), func(ch Change, owner string, old, new map[string]any) {
		pa, pb := privateOf(a, owner), privateOf(b, owner)
		pc := PrivateChange{Change: ch, Owner: owner, Sealed: new["sealed"] != nil || new == nil && old["sealed"] != nil}
		if ch == Changed && pa.Memory != nil && pb.Memory != nil {
			pc.Changes, err = Diff(pa.Memory, pb.Memory, opts)
			err2 = cmp.Or(err2, err)
		}
		c.Private = append(c.Private, pc)
	})
	if err2 != nil {
		return nil, err2
	}
	return c, nil
}

// versionDiff is the unified diff of version v of an artifact from the
// version before it, or a note when a version does not reconstruct.
// versionHash is the hash of version v of artifact id of doc, or "".
func versionHash(doc *spec.Document, id string, v int) string {
	if a, ok := doc.ArtifactVault.Artifacts[id]; ok && v >= 1 && v <= len(a.Versions) {
		return a.Versions[v-1].Hash
	}
	return ""
}

func versionDiff(doc *spec.Document, id string, v int) string {
	from := ""
	if v > 1 {
		s, err := ArtifactContent(doc, id, v-1)
		if err != nil {
			return fmt.Sprintf("(no diff: %v)\n", err)
		}
		from = s
	}
	to, err := ArtifactContent(doc, id, v)
	if err != nil {
		return fmt.Sprintf("(no diff: %v)\n", err)
	}
	return unifiedDiff(fmt.Sprintf("%s@v%d", id, v-1), fmt.Sprintf("%s@v%d", id, v), from, to)
}

// entries calls f for each entry of two keyed objects that one has and the
// other has not, or that both have with different values, in the order of
// their keys (numerically for numbers). old is nil for an added entry, new
// for a removed one.
func entries(a, b map[string]any, f func(ch Change, key string, old, new map[string]any)) {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, compareKeys)
	for _, k := range keys {
		av, inA := a[k]
		bv, inB := b[k]
		old, _ := av.(map[string]any)
		new, _ := bv.(map[string]any)
		switch {
		case !inA:
			f(Added, k, nil, new)
		case !inB:
			f(Removed, k, old, nil)
		case !equalJSON(av, bv):
			f(Changed, k, old, new)
		}
	}
}

// compareKeys orders keys numerically when both are integers, and as
// strings otherwise.
func compareKeys(x, y string) int {
	a, errA := strconv.ParseInt(x, 10, 64)
	b, errB := strconv.ParseInt(y, 10, 64)
	if errA == nil && errB == nil {
		return cmp.Compare(a, b)
	}
	return strings.Compare(x, y)
}

// turnChanges lists the turns of two keyed objects by number.
func turnChanges(a, b map[string]any) TurnChanges {
	var t TurnChanges
	entries(a, b, func(ch Change, key string, _, _ map[string]any) {
		n, _ := strconv.Atoi(key)
		byChange(ch, n, &t.Added, &t.Removed, &t.Changed)
	})
	return t
}

// byChange appends v to the list of its kind of change.
func byChange[T any](ch Change, v T, added, removed, changed *[]T) {
	switch ch {
	case Added:
		*added = append(*added, v)
	case Removed:
		*removed = append(*removed, v)
	default:
		*changed = append(*changed, v)
	}
}

// embeddingChanges lists the embeddings that differ between two keyed
// objects of embeddings (spec §9.6.2): those of whole turns, keyed "3",
// by turn, and those of excerpts, keyed "3:12-40", by turn and excerpt.
func embeddingChanges(a, b map[string]any) (TurnChanges, ExcerptChanges) {
	var t TurnChanges
	var x ExcerptChanges
	entries(a, b, func(ch Change, key string, _, _ map[string]any) {
		turn, span, isExcerpt := strings.Cut(key, ":")
		n, _ := strconv.Atoi(turn)
		if !isExcerpt {
			byChange(ch, n, &t.Added, &t.Removed, &t.Changed)
			return
		}
		start, end, _ := strings.Cut(span, "-")
		e := Excerpt{Turn: n}
		e.Start, _ = strconv.Atoi(start)
		e.End, _ = strconv.Atoi(end)
		byChange(ch, e, &x.Added, &x.Removed, &x.Changed)
	})
	// The keys mix numbers and text, which entries orders by neither
	// alone.
	for _, l := range [][]int{t.Added, t.Removed, t.Changed} {
		slices.Sort(l)
	}
	for _, l := range [][]Excerpt{x.Added, x.Removed, x.Changed} {
		slices.SortFunc(l, func(p, q Excerpt) int {
			return cmp.Or(cmp.Compare(p.Turn, q.Turn), cmp.Compare(p.Start, q.Start), cmp.Compare(p.End, q.End))
		})
	}
	return t, x
}

// fieldChanges lists the members of two objects that differ, by name,
// leaving out those named in skip.
func fieldChanges(a, b map[string]any, skip ...string) []FieldChange {
	var out []FieldChange
	names := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		av, inA := a[name]
		bv, inB := b[name]
		if slices.Contains(skip, name) || inA && inB && equalJSON(av, bv) {
			continue
		}
		fc := FieldChange{Name: name}
		if inA {
			fc.Old = canonicalValue(av)
		}
		if inB {
			fc.New = canonicalValue(bv)
		}
		out = append(out, fc)
	}
	return out
}

// canonicalValue is the canonical JSON of a value of a keyed view.
func canonicalValue(v any) jsontext.Value {
	b, err := spec.MarshalCanonical(v)
	if err != nil {
		return jsontext.Value(`null`) // unreachable: v was parsed from JSON
	}
	return b
}

// equalJSON reports whether two values of a keyed view are the same JSON
// value.
func equalJSON(a, b any) bool { return reflect.DeepEqual(a, b) }

// either returns a, or b when a is nil.
func either(a, b map[string]any) map[string]any {
	if a != nil {
		return a
	}
	return b
}

// obj returns the object member name of o, or nil.
func obj(o map[string]any, name string) map[string]any {
	m, _ := o[name].(map[string]any)
	return m
}

// str returns the string member name of o, or "".
func str(o map[string]any, name string) string {
	s, _ := o[name].(string)
	return s
}

// num returns the number member name of o, or 0.
func num(o map[string]any, name string) float64 {
	f, _ := o[name].(float64)
	return f
}
