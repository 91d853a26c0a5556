package format

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/piprate/json-gold/ld"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/smg-memory/smg/artifacts"
	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// ValidateOptions configure [Validate] and [ValidateBytes]. The zero value
// runs every check within [DefaultLimits], grown with the file.
type ValidateOptions struct {
	// Password and PasswordFunc open an encrypted file ([ValidateBytes]
	// and [ValidateFile] only); see [DecodeOptions].
	Password     []byte
	PasswordFunc func() ([]byte, error)
	// Limits bound decoding and the work of decompressing archive blocks.
	Limits Limits
	// SkipJSONLD leaves out JSON-LD expansion, the slowest check.
	SkipJSONLD bool
}

// Validate checks doc against the whole specification: the JSON Schema,
// JSON-LD expansion with the embedded context, and the semantic rules of
// spec §11 (ids unique, edges resolve, every artifact version reconstructs
// and matches its hash, every archive block decompresses and holds the
// turns its range says, working-memory references resolve). It returns nil
// or a [*ValidationError] that lists every problem, each with its JSON path.
//
// The schema sees doc as it encodes: a Go zero value is a value. To check a
// file as written, where a required member may be missing, use
// [ValidateBytes] or [ValidateFile].
//
// Validate is for checking files, not for the normal read path: JSON-LD
// expansion and decompressing the whole archive cost time.
func Validate(doc *spec.Document, opts *ValidateOptions) error {
	if opts == nil {
		opts = &ValidateOptions{}
	}
	js, err := canonicalJSON(doc)
	if err != nil {
		return err
	}
	return validate(doc, js, opts, opts.Limits.forFile(int64(len(js))))
}

// ValidateBytes decodes a file's bytes and checks the document as Validate
// does, with the JSON Schema applied to the file's own JSON text: a member
// the schema requires that is missing or null is a problem, and problems
// are located in the file's order. It returns the document, and an error
// that is either a decoding error or a [*ValidationError].
func ValidateBytes(b []byte, opts *ValidateOptions) (*spec.Document, error) {
	if opts == nil {
		opts = &ValidateOptions{}
	}
	d, err := decodeText(bytes.NewReader(b), &DecodeOptions{Password: opts.Password, PasswordFunc: opts.PasswordFunc, Limits: opts.Limits})
	if err != nil {
		return nil, err
	}
	return d.Doc, validate(d.Doc, d.JSON(), opts, d.lim)
}

// ValidateFile is [ValidateBytes] of the named file.
func ValidateFile(name string, opts *ValidateOptions) (*spec.Document, error) {
	b, err := ReadBytes(name, opts.limits())
	if err != nil {
		return nil, err
	}
	doc, err := ValidateBytes(b, opts)
	if err != nil {
		return doc, fmt.Errorf("%s: %w", name, err)
	}
	return doc, nil
}

func (o *ValidateOptions) limits() Limits {
	if o == nil {
		return DefaultLimits
	}
	return o.Limits.withDefaults()
}

// validate runs every check on doc, whose JSON text is js, read within
// lim.
func validate(doc *spec.Document, js []byte, opts *ValidateOptions, lim Limits) error {
	// JSON-LD expansion, the slowest check with the schema, runs beside
	// it: neither changes doc.
	ld := make(chan []Problem, 1)
	go func() {
		if opts.SkipJSONLD {
			ld <- nil
			return
		}
		ld <- jsonldProblems(doc)
	}()
	var probs []Problem
	probs = append(probs, schemaProblems(js)...)
	probs = append(probs, <-ld...)
	probs = append(probs, semanticProblems(doc, lim)...)
	if len(probs) == 0 {
		return nil
	}
	return &ValidationError{Problems: probs}
}

// schemas are the compiled JSON Schema of a document and of one turn.
var schemas = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(spec.Schema()))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(spec.SchemaID, doc); err != nil {
		return nil, err
	}
	out := map[string]*jsonschema.Schema{}
	locs := map[string]string{"document": spec.SchemaID}
	for _, def := range []string{"turn", "node", "edge", "block", "artifact", "id"} {
		locs[def] = spec.SchemaID + "#/$defs/" + def
	}
	for name, loc := range locs {
		if out[name], err = c.Compile(loc); err != nil {
			return nil, err
		}
	}
	return out, nil
})

// schemaMessages replace the messages of the schema's compound keywords,
// whose causes alone would read as a puzzle.
var schemaMessages = map[string]string{
	"/$defs/artifactVersion/oneOf": `a version has exactly one of "content", "patch" and a place in its turn ("end")`,
	"/$defs/turn/anyOf":            `a turn has a "role", a "speaker" or both`,
}

// longLists are the lists of a document that may be long (spec §9.4), by
// JSON pointer, with the schema of one element: their elements are
// checked one at a time, each decoded for the schema only while it is
// checked.
var longLists = map[string]string{
	"/semanticGraph/nodes": "node",
	"/semanticGraph/edges": "edge",
	"/deepArchive/blocks":  "block",
}

// longMembers are the objects of a document that may be large, by JSON
// pointer, with the schema of one member's value (and its name is an
// id): like the long lists, each member is checked on its own. A vault's
// artifacts hold its code.
var longMembers = map[string]string{
	"/artifactVault/artifacts": "artifact",
}

// elementProblems checks v, the JSON text of the value at the path at,
// against one of the schemas.
func elementProblems(schema string, v []byte, at string) []Problem {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(v))
	if err != nil {
		return []Problem{{Path: at, Rule: "schema", Message: err.Error()}}
	}
	var probs []Problem
	for _, p := range instanceProblems(schema, inst) {
		p.Path = at + strings.TrimPrefix(p.Path, "$")
		probs = append(probs, p)
	}
	return probs
}

// memberProblems checks a member of the long object at the path object:
// its name against the schema of an id, its value, v, against schema.
func memberProblems(schema, object, name string, v []byte) []Problem {
	at := pathBuilder(strings.TrimPrefix(object, "$")).member(name).String()
	probs := instanceProblems("id", name)
	for i := range probs {
		probs[i].Path = at
	}
	return append(probs, elementProblems(schema, v, at)...)
}

// schemaProblems checks the JSON text of a document against the schema:
// the elements of its long lists and the members of its long objects one
// at a time, then the rest, with those lists and objects empty. The
// instance a schema checks is several times the size of its text, so that
// checking 100,000 nodes at once cost 700 MB. The problems of the rest
// come first, then those of the pieces in the order of the text: a writer
// that checks the pieces as it writes them ([streamCheck]) gives the same.
func schemaProblems(js []byte) []Problem {
	var probs []Problem
	var cuts [][2]int64 // the insides of the long lists and objects
	dec := jsontext.NewDecoder(bytes.NewReader(js))
	fail := func(err error) []Problem { return []Problem{{Path: "$", Rule: "schema", Message: err.Error()}} }
	for {
		tok, err := dec.ReadToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(err)
		}
		ptr := string(dec.StackPointer())
		list, many := longLists[ptr]
		object, members := longMembers[ptr]
		switch {
		case tok.Kind() == '[' && many:
			at := pointerPath(js, jsontext.Pointer(ptr))
			start := dec.InputOffset()
			for i := 0; dec.PeekKind() != ']'; i++ {
				v, err := dec.ReadValue()
				if err != nil {
					return fail(err)
				}
				probs = append(probs, elementProblems(list, v, fmt.Sprintf("%s[%d]", at, i))...)
			}
			cuts = append(cuts, [2]int64{start, dec.InputOffset()})
		case tok.Kind() == '{' && members:
			at := pointerPath(js, jsontext.Pointer(ptr))
			start := dec.InputOffset()
			for dec.PeekKind() != '}' {
				tok, err := dec.ReadToken()
				if err != nil {
					return fail(err)
				}
				name := tok.String() // before the next read voids tok
				v, err := dec.ReadValue()
				if err != nil {
					return fail(err)
				}
				probs = append(probs, memberProblems(object, at, name, v)...)
			}
			cuts = append(cuts, [2]int64{start, dec.InputOffset()})
		}
	}
	size := int64(len(js))
	for _, c := range cuts {
		size -= c[1] - c[0]
	}
	rest := make([]byte, 0, size)
	at := int64(0)
	for _, c := range cuts {
		rest, at = append(rest, js[at:c[0]]...), c[1]
	}
	rest = append(rest, js[at:]...)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(rest))
	if err != nil {
		return fail(err)
	}
	return append(instanceProblems("document", inst), probs...)
}

// instanceProblems checks a decoded JSON value against one of the schemas.
// Paths are relative to the value.
func instanceProblems(schema string, inst any) []Problem {
	all, err := schemas()
	if err != nil {
		return []Problem{{Path: "$", Rule: "schema", Message: "the embedded schema does not compile: " + err.Error()}}
	}
	var verr *jsonschema.ValidationError
	if err := all[schema].Validate(inst); !errors.As(err, &verr) {
		return nil
	}
	var out []Problem
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		_, loc, _ := strings.Cut(e.SchemaURL, "#")
		if kw := e.ErrorKind.KeywordPath(); len(kw) > 0 {
			loc += "/" + strings.Join(kw, "/")
		}
		if msg, ok := schemaMessages[loc]; ok {
			out = append(out, Problem{Path: instancePath(inst, e.InstanceLocation), Rule: "schema", Message: msg})
			return
		}
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		out = append(out, Problem{Path: instancePath(inst, e.InstanceLocation), Rule: "schema", Message: schemaMessage(inst, e)})
	}
	walk(verr)
	// The schema's causes come in no set order: by path, then message.
	slices.SortStableFunc(out, func(a, b Problem) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Message, b.Message))
	})
	return out
}

func schemaMessage(inst any, e *jsonschema.ValidationError) string {
	if _, ok := e.ErrorKind.(*kind.FalseSchema); ok && len(e.InstanceLocation) > 0 {
		parent := lookup(inst, e.InstanceLocation[:len(e.InstanceLocation)-1])
		name := e.InstanceLocation[len(e.InstanceLocation)-1]
		if obj, ok := parent.(map[string]any); ok {
			if t, ok := obj["type"].(string); ok {
				return fmt.Sprintf("%q is not allowed on a node of type %q", name, t)
			}
		}
		return fmt.Sprintf("%q is not allowed here", name)
	}
	return e.ErrorKind.LocalizedString(printer)
}

var printer = message.NewPrinter(language.English)

func lookup(inst any, tokens []string) any {
	for _, tok := range tokens {
		switch v := inst.(type) {
		case map[string]any:
			inst = v[tok]
		case []any:
			var i int
			if _, err := fmt.Sscan(tok, &i); err != nil || i < 0 || i >= len(v) {
				return nil
			}
			inst = v[i]
		default:
			return nil
		}
	}
	return inst
}

func jsonldProblems(doc *spec.Document) []Problem {
	var probs []Problem
	for p, err := range ldPieces(doc) {
		if err == nil {
			_, err = ld.NewJsonLdProcessor().Expand(p.in, ldOptions(doc))
		}
		if err != nil {
			probs = append(probs, Problem{Path: p.path, Rule: "jsonld", Message: "JSON-LD expansion fails" + p.what + ": " + err.Error()})
		}
	}
	return probs
}

// checker collects the semantic problems of one document.
type checker struct {
	doc   *spec.Document
	lim   Limits
	probs []Problem
	// turns are what the checks after the archive need of the archived
	// turns, by number, from the blocks that decode; fits, how the
	// excerpts of the vector index fit the turns' content; transcript is
	// the size of their canonical JSON (spec §4.2), and broken that a
	// block did not decode. The turns themselves are not kept: a memory's
	// text may be far larger than the rest of it.
	turns      map[int]turnMark
	fits       map[[3]int]excerptFit
	recent     map[int]bool     // the turns working memory keeps
	excerpts   map[int][][2]int // the excerpts of each turn
	transcript int64
	// vault reads artifact versions for the references of archived turns.
	vault  *artifacts.Reader
	broken bool
}

// turnMark is what the checks after the archive need of an archived turn:
// its ids, and the turn itself for those working memory keeps.
type turnMark struct {
	id, conv string
	whole    *spec.Turn
}

// excerptFit is how an excerpt fits its turn's content: the content's
// length, and whether the excerpt's ends fall on characters' starts.
type excerptFit struct {
	n              int
	startOK, endOK bool
}

func (c *checker) add(p string, format string, args ...any) {
	c.probs = append(c.probs, Problem{Path: p, Rule: "semantic", Message: fmt.Sprintf(format, args...)})
}

// contextTerms are the terms the embedded context defines; a relation that
// is not registered must not be one of them (spec §6.2.1).
var contextTerms = sync.OnceValue(func() map[string]bool {
	var v struct {
		Context map[string]any `json:"@context"`
	}
	terms := map[string]bool{}
	if json.Unmarshal(spec.Context(), &v) == nil {
		for t := range v.Context {
			terms[t] = true
		}
	}
	return terms
})

func semanticProblems(doc *spec.Document, lim Limits) []Problem {
	c := &checker{doc: doc, lim: lim, turns: map[int]turnMark{}, fits: map[[3]int]excerptFit{}, recent: map[int]bool{}, excerpts: map[int][][2]int{}}
	for _, t := range doc.WorkingMemory.RecentContext {
		c.recent[t.Turn] = true
	}
	if vi := doc.DeepArchive.VectorIndex; vi != nil {
		for _, e := range vi.Embeddings {
			if e.Start >= 0 && e.Start < e.End {
				c.excerpts[e.Turn] = append(c.excerpts[e.Turn], [2]int{e.Start, e.End})
			}
		}
	}
	c.metadata()
	ids := c.ids()
	c.archive()
	c.nodes()
	c.edges(ids)
	c.artifacts()
	c.workingMemory()
	c.private()
	return c.probs
}

// private checks the collaborators and their private parts (spec §4.5,
// §4.6): ids unique, each part's owner a collaborator with one part, and a
// part in the clear a valid memory of its owner's, holding no parts of its
// own. A sealed part cannot be checked without its owner's password.
func (c *checker) private() {
	collabs := map[string]bool{}
	for i, co := range c.doc.Metadata.Collaborators {
		if collabs[co.ID] {
			c.add(path("metadata", "collaborators", i, "id"), "collaborator %q is listed twice", co.ID)
		}
		collabs[co.ID] = true
	}
	owners := map[string]bool{}
	for i, pc := range c.doc.PrivateContexts {
		at := path("privateContexts", i)
		switch {
		case owners[pc.Owner]:
			c.add(at+".owner", "%q has two private contexts", pc.Owner)
		case !collabs[pc.Owner]:
			c.add(at+".owner", "%q is not a collaborator (metadata.collaborators)", pc.Owner)
		}
		owners[pc.Owner] = true
		m := pc.Memory
		if m == nil {
			continue
		}
		if s := m.Metadata.Scope; s == nil || s.FactScope() != PrivateScope(pc.Owner).FactScope() {
			c.add(at+".memory.metadata.scope", "a private memory's scope must be user %q, its owner", pc.Owner)
		}
		if len(m.Metadata.Collaborators) > 0 || len(m.PrivateContexts) > 0 {
			c.add(at+".memory", "a private memory has no collaborators or private contexts of its own")
		}
		for _, p := range semanticProblems(m, c.lim) {
			p.Path = at + ".memory" + strings.TrimPrefix(p.Path, "$")
			c.probs = append(c.probs, p)
		}
	}
}

func (c *checker) metadata() {
	m := c.doc.Metadata
	if !m.Created.IsZero() && !m.Modified.IsZero() && m.Modified.Before(m.Created) {
		c.add(path("metadata", "modified"), "modified (%s) is before created (%s)", m.Modified, m.Created)
	}
}

// ids checks that node, artifact and block ids are unique across the three
// and returns the node ids.
func (c *checker) ids() map[string]bool {
	seen := map[string]string{} // id → path of its first use
	claim := func(id, p string) {
		if first, ok := seen[id]; ok {
			c.add(p, "id %q is already used at %s", id, first)
			return
		}
		seen[id] = p
	}
	nodes := map[string]bool{}
	for i, n := range c.doc.SemanticGraph.Nodes {
		claim(n.ID, path("semanticGraph", "nodes", i, "id"))
		nodes[n.ID] = true
	}
	for _, id := range sortedKeys(c.doc.ArtifactVault.Artifacts) {
		claim(id, path("artifactVault", "artifacts", id))
	}
	for i, b := range c.doc.DeepArchive.Blocks {
		claim(b.ID, path("deepArchive", "blocks", i, "id"))
	}
	return nodes
}

func (c *checker) nodes() {
	total := c.doc.Metadata.TotalExchanges
	for i, n := range c.doc.SemanticGraph.Nodes {
		at := func(field string) string { return path("semanticGraph", "nodes", i, field) }
		for j, t := range n.Mentions {
			if t > total {
				c.add(path("semanticGraph", "nodes", i, "mentions", j), "turn %d is beyond the memory's %d turns", t, total)
			}
		}
		if n.FirstMentioned > 0 && n.LastMentioned > 0 && n.FirstMentioned > n.LastMentioned {
			c.add(at("firstMentioned"), "firstMentioned %d is after lastMentioned %d", n.FirstMentioned, n.LastMentioned)
		}
		if n.LastMentioned > total {
			c.add(at("lastMentioned"), "turn %d is beyond the memory's %d turns", n.LastMentioned, total)
		}
		if len(n.Mentions) > 0 {
			lo, hi := slices.Min(n.Mentions), slices.Max(n.Mentions)
			if n.FirstMentioned > lo || (n.FirstMentioned == 0 && lo > 0) {
				c.add(at("firstMentioned"), "firstMentioned %d is after mention %d", n.FirstMentioned, lo)
			}
			if n.LastMentioned < hi {
				c.add(at("lastMentioned"), "lastMentioned %d is before mention %d", n.LastMentioned, hi)
			}
		}
		if !n.ValidFrom.IsZero() && !n.ValidTo.IsZero() && n.ValidTo.Before(n.ValidFrom) {
			c.add(at("validTo"), "validTo (%s) is before validFrom (%s)", n.ValidTo, n.ValidFrom)
		}
		for j, s := range n.PreviousSummaries {
			if s.Version >= n.Version {
				c.add(path("semanticGraph", "nodes", i, "previousSummaries", j, "version"), "version %d is not older than the node's version %d", s.Version, n.Version)
			}
		}
		if t, ok := spec.KindTypes[n.Kind]; ok && n.Type != t {
			c.add(at("kind"), "kind %q is a kind of %s nodes, not of %s nodes", n.Kind, t, n.Type)
		}
		if n.Type == spec.NodeArtifact && n.ArtifactID != "" {
			a, ok := c.doc.ArtifactVault.Artifacts[n.ArtifactID]
			switch {
			case !ok:
				c.add(at("artifactId"), "no artifact %q in the vault", n.ArtifactID)
			case n.ArtifactVersion > len(a.Versions):
				c.add(at("artifactVersion"), "artifact %q has %d versions", n.ArtifactID, len(a.Versions))
			}
		}
	}
}

func (c *checker) edges(ids map[string]bool) {
	type key struct{ from, to, rel string }
	seen := map[key]int{}
	registered := map[spec.Relation]bool{}
	for _, r := range spec.Relations {
		registered[r] = true
	}
	for i, e := range c.doc.SemanticGraph.Edges {
		at := func(field string) string { return path("semanticGraph", "edges", i, field) }
		if !ids[e.From] {
			c.add(at("from"), "no node %q", e.From)
		}
		if !ids[e.To] {
			c.add(at("to"), "no node %q", e.To)
		}
		if e.From == e.To {
			c.add(at("to"), "an edge from node %q to itself", e.From)
		}
		if !registered[e.Relation] && contextTerms()[string(e.Relation)] {
			c.add(at("relation"), "relation %q is a term of the context with another meaning", e.Relation)
		}
		k := key{e.From, e.To, string(e.Relation)}
		if j, ok := seen[k]; ok {
			c.add(path("semanticGraph", "edges", i), "the same edge as edges[%d]", j)
		} else {
			seen[k] = i
		}
	}
}

func (c *checker) artifacts() {
	total := c.doc.Metadata.TotalExchanges
	computed := spec.Computed(c.doc.Version)
	var places map[versionAt]placed // the text at each version's place
	if computed {
		places = newTurnIndex(c.doc, c.lim).places(c.doc.ArtifactVault.Artifacts)
	}
	for _, id := range sortedKeys(c.doc.ArtifactVault.Artifacts) {
		a := c.doc.ArtifactVault.Artifacts[id]
		vpath := func(i int, field string) string {
			return path("artifactVault", "artifacts", id, "versions", i, field)
		}
		atPlace := map[int]string{} // the text at each version's place
		for i, v := range a.Versions {
			if v.V != i+1 {
				c.add(vpath(i, "v"), "version %d where %d is due: versions count 1, 2, 3… in order", v.V, i+1)
			}
			if v.Turn > total {
				c.add(vpath(i, "turn"), "turn %d is beyond the memory's %d turns", v.Turn, total)
			}
			switch {
			case !computed && v.Hash == "":
				c.add(vpath(i, "hash"), "missing: a file of version %s records each version's hash (computed since 1.3)", c.doc.Version)
			case !computed && v.Placed():
				c.add(vpath(i, "end"), "a version names its place in a turn since version 1.3, and this file is of %s", c.doc.Version)
			case v.Placed():
				if p := places[versionAt{id, i}]; p.err != nil {
					c.add(path("artifactVault", "artifacts", id, "versions", i), "%v", p.err)
				} else {
					atPlace[i] = p.text
				}
			}
		}
		if n := len(a.Versions); !computed && n > 0 && a.ContentHash == "" {
			c.add(path("artifactVault", "artifacts", id, "contentHash"), "missing: a file of version %s records it (computed since 1.3)", c.doc.Version)
		}
		_ = artifacts.Walk(graph.Chain(a), func(i int, content string, err error) error {
			v := a.Versions[i]
			switch {
			case errors.Is(err, artifacts.ErrNoContent):
				// The schema reports it, or the place above.
			case err == nil && v.Placed() && atPlace[i] != content && computed:
				if _, ok := atPlace[i]; ok {
					c.add(path("artifactVault", "artifacts", id, "versions", i), "bytes [%d, %d) of turn %d are not the version's content", v.Start, v.End, v.Turn)
				}
			case errors.Is(err, artifacts.ErrSizeMismatch):
				c.add(vpath(i, "size"), "size %d, but the reconstructed content has another length", v.Size)
			case errors.Is(err, artifacts.ErrHashMismatch):
				c.add(vpath(i, "hash"), "the reconstructed content does not match the hash")
			case errors.Is(err, artifacts.ErrNoBase) && i == 0:
				c.add(vpath(i, "patch"), "the first version is a patch: it must have the full content")
			case errors.Is(err, artifacts.ErrNoBase):
				c.add(vpath(i, "patch"), "cannot reconstruct: the version before is broken")
			case err != nil:
				c.add(vpath(i, "patch"), "%v", errors.Unwrap(err))
			case int64(len(content)) != a.Versions[i].Size:
				c.add(vpath(i, "size"), "size %d, but the content has %d bytes", a.Versions[i].Size, len(content))
			}
			return nil
		})
		if n := len(a.Versions); n > 0 && a.ContentHash != "" && a.ContentHash != a.Versions[n-1].Hash {
			c.add(path("artifactVault", "artifacts", id, "contentHash"), "not the hash of the latest version")
		}
	}
}

func (c *checker) archive() {
	blocks := c.doc.DeepArchive.Blocks
	next := 1
	sum := 0
	for i, b := range blocks {
		at := func(field string) string { return path("deepArchive", "blocks", i, field) }
		first, last := b.TurnRange[0], b.TurnRange[1]
		switch {
		case last < first:
			c.add(at("turnRange"), "the range [%d, %d] is reversed", first, last)
			continue
		case first != next:
			c.add(at("turnRange"), "starts at turn %d where turn %d is due: blocks cover turns 1, 2, 3… without gaps or overlaps", first, next)
		}
		next = last + 1
		sum += b.TurnCount
		if b.TurnCount != last-first+1 {
			c.add(at("turnCount"), "turnCount %d, but the range [%d, %d] holds %d turns", b.TurnCount, first, last, last-first+1)
		}
		c.block(i, b)
	}
	if sum != c.doc.Metadata.TotalExchanges {
		c.add(path("metadata", "totalExchanges"), "%d, but the archive holds %d turns", c.doc.Metadata.TotalExchanges, sum)
	}
	if tb := c.doc.Metadata.TranscriptBytes; tb != 0 && !c.broken && tb != c.transcript {
		c.add(path("metadata", "transcriptBytes"), "%d, but the archived turns take %d bytes", tb, c.transcript)
	}
	c.vectorIndex()
}

// block decompresses one archive block and checks its turns. A broken
// block is reported and the others are still checked.
func (c *checker) block(i int, b spec.ArchiveBlock) {
	at := func(field string) string { return path("deepArchive", "blocks", i, field) }
	ok := false
	defer func() { c.broken = c.broken || !ok }()
	field := "compressedData"
	if b.Turns != nil {
		field = "turns"
	}
	raw, err := graph.BlockData(b, c.lim.MaxBlockSize)
	if err != nil {
		c.add(at(field), "%v", err)
		return
	}
	if int64(len(raw)) != b.UncompressedSize {
		c.add(at("uncompressedSize"), "%d, but the block decompresses to %d bytes", b.UncompressedSize, len(raw))
	}
	switch {
	case b.ContentHash == "" && !spec.Computed(c.doc.Version):
		c.add(at("contentHash"), "missing: a file of version %s records it (computed since 1.3)", c.doc.Version)
	case b.ContentHash == "":
		// A file of 1.3 whose reader did not compute it (a limit):
		// there is nothing to check the data against.
	case artifacts.HashBytes(raw) != b.ContentHash:
		c.add(at("contentHash"), "the decompressed block does not match the hash")
		return
	}
	var turns []spec.Turn
	if err := scanArray(bytes.NewReader(raw), c.lim); err != nil {
		c.add(at(field), "the block's turns: %v", err)
		return
	}
	if err := json.Unmarshal(raw, &turns); err != nil {
		c.add(at(field), "the block's turns: %v", unmarshalError(raw, err))
		return
	}
	if inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw)); err == nil {
		if list, ok := inst.([]any); ok {
			for j, t := range list {
				for _, p := range instanceProblems("turn", t) {
					c.add(at(field), "turn %d of the block, at %s: %s", j, p.Path, p.Message)
				}
			}
		}
	}
	first, last := b.TurnRange[0], b.TurnRange[1]
	if len(turns) != last-first+1 {
		c.add(at(field), "holds %d turns, but the range [%d, %d] says %d", len(turns), first, last, last-first+1)
	}
	for j, t := range turns {
		if t.Turn != first+j {
			c.add(at(field), "turn %d of the block is numbered %d, not %d", j, t.Turn, first+j)
			return
		}
		if len(t.ContentRefs) > 0 && spec.Computed(c.doc.Version) {
			c.add(at(field), "turn %d holds contentRefs: since version 1.3 an archived turn is whole", t.Turn)
			return
		}
		if len(t.ContentRefs) > 0 {
			if c.vault == nil {
				c.vault = graph.VaultReader(&c.doc.ArtifactVault)
			}
			whole, err := t.Expand(c.vault.Content)
			if err != nil {
				c.add(at(field), "turn %d: %v", t.Turn, err)
				return
			}
			t = whole
		}
		if t.SameIDAs != 0 {
			if a, ok := c.turns[t.SameIDAs]; t.SameIDAs >= t.Turn {
				c.add(at(field), "turn %d: sameIdAs %d is not an earlier turn", t.Turn, t.SameIDAs)
			} else if ok && (a.id == "" || a.id != t.ExternalID || a.conv != t.ConversationID) {
				c.add(at(field), "turn %d: sameIdAs %d names a turn with another id", t.Turn, t.SameIDAs)
			}
		}
		mark := turnMark{id: t.ExternalID, conv: t.ConversationID}
		if c.recent[t.Turn] {
			mark.whole = &t
		}
		c.turns[t.Turn] = mark
		for _, x := range c.excerpts[t.Turn] {
			f := excerptFit{n: len(t.Content)}
			f.startOK = x[0] < f.n && utf8.RuneStart(t.Content[x[0]])
			f.endOK = x[1] >= f.n || utf8.RuneStart(t.Content[x[1]])
			c.fits[[3]int{t.Turn, x[0], x[1]}] = f
		}
		js, err := spec.MarshalCanonical(t)
		if err != nil {
			c.add(at(field), "turn %d: %v", t.Turn, err)
			return
		}
		c.transcript += int64(len(js))
	}
	ok = true
	if len(turns) > 0 {
		if !b.FirstTimestamp.Equal(turns[0].Timestamp) {
			c.add(at("firstTimestamp"), "not the timestamp of the block's first turn")
		}
		if !b.LastTimestamp.Equal(turns[len(turns)-1].Timestamp) {
			c.add(at("lastTimestamp"), "not the timestamp of the block's last turn")
		}
	}
}

// vectorIndex checks the vector index (spec §11.4 rules 16 to 18): each
// vector's length by the index's encoding (an unknown encoding is the
// schema's problem, and its vectors' lengths are not checked), each
// embedding's turn and excerpt, and their order.
func (c *checker) vectorIndex() {
	vi := c.doc.DeepArchive.VectorIndex
	if vi == nil {
		return
	}
	size, sizeErr := spec.VectorSize(vi.Encoding, vi.Dimensions)
	seen := make(map[[3]int]bool, len(vi.Embeddings))
	for i, e := range vi.Embeddings {
		at := func(field string) string { return path("deepArchive", "vectorIndex", "embeddings", i, field) }
		if sizeErr == nil && len(e.Vector) != size {
			c.add(at("vector"), "%v", &spec.VectorError{Encoding: vi.Encoding, Dimensions: vi.Dimensions, Len: len(e.Vector), Err: spec.ErrVectorLength})
		}
		if e.Turn > c.doc.Metadata.TotalExchanges {
			c.add(at("turn"), "turn %d is beyond the memory's %d turns", e.Turn, c.doc.Metadata.TotalExchanges)
		}
		c.excerpt(e, at)
		key := [3]int{e.Turn, e.Start, e.End}
		switch {
		case seen[key]:
			c.add(at("turn"), "a second embedding of %s", excerptName(e))
		case i > 0 && spec.CompareEmbeddings(vi.Embeddings[i-1], e) > 0:
			c.add(at("turn"), "the embedding of %s comes after that of %s: embeddings go by turn, start, then end", excerptName(e), excerptName(vi.Embeddings[i-1]))
		}
		seen[key] = true
	}
}

// excerpt checks an embedding's excerpt (rule 17): a span of bytes, and,
// when the turn could be read, within its content and on character
// boundaries. A negative offset is the schema's problem.
func (c *checker) excerpt(e spec.Embedding, at func(string) string) {
	if e.Start == 0 && e.End == 0 || e.Start < 0 || e.End < 0 {
		return
	}
	if e.Start >= e.End {
		c.add(at("start"), "the excerpt of turn %d starts at byte %d, not before its end %d", e.Turn, e.Start, e.End)
		return
	}
	f, ok := c.fits[[3]int{e.Turn, e.Start, e.End}]
	if !ok {
		return
	}
	switch {
	case e.End > f.n:
		c.add(at("end"), "the excerpt of turn %d ends at byte %d, beyond its content's %d bytes", e.Turn, e.End, f.n)
	case !f.startOK:
		c.add(at("start"), "the excerpt of turn %d starts at byte %d, inside a character", e.Turn, e.Start)
	case !f.endOK:
		c.add(at("end"), "the excerpt of turn %d ends at byte %d, inside a character", e.Turn, e.End)
	}
}

// excerptName names what an embedding is of: "turn 3", or "turn 3, bytes
// 12 to 40".
func excerptName(e spec.Embedding) string {
	if e.Start == 0 && e.End == 0 {
		return fmt.Sprintf("turn %d", e.Turn)
	}
	return fmt.Sprintf("turn %d, bytes %d to %d", e.Turn, e.Start, e.End)
}

func (c *checker) workingMemory() {
	wm := c.doc.WorkingMemory
	for i, id := range wm.ActiveArtifacts {
		if _, ok := c.doc.ArtifactVault.Artifacts[id]; !ok {
			c.add(path("workingMemory", "activeArtifacts", i), "no artifact %q in the vault", id)
		}
	}
	seen := map[int]bool{}
	for i, t := range wm.RecentContext {
		at := path("workingMemory", "recentContext", i)
		if seen[t.Turn] {
			c.add(at, "turn %d appears twice", t.Turn)
		}
		seen[t.Turn] = true
		if len(t.ContentRefs) > 0 {
			c.add(path("workingMemory", "recentContext", i, "contentRefs"), "a recent turn is kept verbatim, without references")
		}
		if t.Turn > c.doc.Metadata.TotalExchanges {
			c.add(at, "turn %d is beyond the memory's %d turns", t.Turn, c.doc.Metadata.TotalExchanges)
			continue
		}
		if a, ok := c.turns[t.Turn]; ok && a.whole != nil && !sameTurn(*a.whole, t) {
			c.add(at, "turn %d differs from the archived turn %d", t.Turn, t.Turn)
		}
	}
}

// sameTurn compares what working memory keeps verbatim of a turn.
func sameTurn(a, b spec.Turn) bool {
	return a.Content == b.Content && a.Role == b.Role && a.Speaker == b.Speaker &&
		a.ConversationID == b.ConversationID && a.ExternalID == b.ExternalID && a.SameIDAs == b.SameIDAs &&
		a.Timestamp.Equal(b.Timestamp)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmp.Compare)
	return keys
}

// PrivateScope is the scope of owner's private part.
func PrivateScope(owner string) *spec.Scope {
	return &spec.Scope{Kind: spec.ScopeUser, ID: owner}
}
