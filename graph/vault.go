package graph

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/smg-memory/smg/artifacts"
	"github.com/smg-memory/smg/classify"
	"github.com/smg-memory/smg/spec"
)

// overlapSame is the share of lines two unnamed pieces of code of the same
// language must have in common to be versions of one artifact.
const overlapSame = 0.6

// vaultState is the artifact vault being built: each artifact with the
// full text of its latest version.
type vaultState struct {
	arts    map[string]*artState // vault id → artifact
	byFile  map[string]string    // file name → vault id
	unnamed []string             // vault ids of artifacts without a file name
	lines   lineIndex            // the lines of the unnamed artifacts' latest versions
	byHash  map[string]verRef    // content hash → the first version with it
	node    map[string]string    // vault id → artifact node id
	// turnArtifacts are the artifact nodes of the last turn that had any.
	turnArtifacts   []string
	turnOfArtifacts int
}

// verRef names a version of an artifact.
type verRef struct {
	id string
	v  int
}

type artState struct {
	art spec.Artifact
	// latest is the text of the latest version that is the whole file,
	// which an edit applies to; afterEdit, the last version is an edit
	// (spec §7.2.1): the next is stored whole, not as a patch of it.
	latest    string
	latestV   int
	afterEdit bool
	unnamed   int // 1 + its place in vaultState.unnamed; 0 if it has a name
	lastTurn  int
}

func newVault() vaultState {
	return vaultState{arts: map[string]*artState{}, byFile: map[string]string{}, node: map[string]string{}, byHash: map[string]verRef{}}
}

func (v *vaultState) hasID(id string) bool { return v.arts[id] != nil }

// isFile reports whether the artifact id is a file, named by its path.
func (v *vaultState) isFile(id string) bool {
	return v.arts[id] != nil && v.arts[id].art.Filename != ""
}

// fileID is the vault id of the file named name: by its path, or, for a
// name without a directory ("Header.js"), the one file the vault knows of
// that name in a directory; "" when there is none, or several.
func (v *vaultState) fileID(name string) string {
	if id := v.byFile[name]; id != "" || strings.ContainsAny(name, "/\\") {
		return id
	}
	found := ""
	for p, id := range v.byFile {
		if strings.HasSuffix(p, "/"+name) {
			if found != "" {
				return ""
			}
			found = id
		}
	}
	return found
}

// addToVault stores an artifact of a turn: a new artifact, or a new version
// of the one it continues (same file, or the same unnamed code much
// changed). It returns the vault id, the version number, and whether the
// turn's content failed to apply as an edit.
func (b *Builder) addToVault(a classify.Artifact, t spec.Turn) (id string, version int, failed bool) {
	turn := t.Turn
	v := &b.vault
	content := a.Content
	if a.Filename != "" {
		id = v.fileID(a.Filename)
	} else if a.Edit == nil {
		id = v.similar(a.Language, content)
	}
	edited := -1  // where the edit's SEARCH text is in the latest version
	edit := false // the version is an edit of a file not known whole
	if a.Edit != nil {
		switch {
		case a.Edit.Search == "":
			content = a.Edit.Replace // a new file, or a whole replacement
		case id != "" && strings.Contains(v.arts[id].latest, a.Edit.Search):
			edited = strings.Index(v.arts[id].latest, a.Edit.Search)
			content = v.arts[id].latest[:edited] + a.Edit.Replace + v.arts[id].latest[edited+len(a.Edit.Search):]
		case a.Filename != "":
			// The file was never shown whole, or not as the edit finds
			// it: the block is kept as it is, an edit version of the
			// file (spec §7.2.1). Never invent content.
			failed, edit = true, true
			content = failedEdit(a.Edit)
		default:
			// An edit of no file it names: kept on its own.
			failed = true
			content = failedEdit(a.Edit)
			id = ""
		}
	}
	hash := artifacts.Hash(content)
	if id == "" && a.Filename == "" {
		// Content the vault has already, under no other name, is that
		// version: stored once, and referenced.
		if r, ok := v.byHash[hash]; ok {
			v.arts[r.id].lastTurn = turn
			return r.id, r.v, failed
		}
	}
	if id == "" {
		name := a.Filename
		if name == "" {
			name = a.Language
		}
		if name == "" {
			name = a.Kind
		}
		key := name + "\x00" + content
		id = "art-" + slug(name, 60)
		if failed && !edit || a.Filename == "" || v.arts[id] != nil || b.store.Node(id) != nil {
			id = "art-" + slug(name, 52) + "-" + shortHash(key)
		}
		for n := 2; v.arts[id] != nil || b.store.Node(id) != nil; n++ {
			id = fmt.Sprintf("art-%s-%s-%d", slug(name, 48), shortHash(key), n)
		}
		typ := spec.ArtifactType(a.Kind)
		if typ == "" {
			typ = spec.ArtifactCode
		}
		v.arts[id] = &artState{art: spec.Artifact{Type: typ, Language: a.Language, Filename: a.Filename}}
		if a.Filename != "" && (!failed || edit) {
			v.byFile[a.Filename] = id
		} else if !failed {
			v.unnamed = append(v.unnamed, id)
			v.arts[id].unnamed = len(v.unnamed)
		}
	}
	st := v.arts[id]
	st.lastTurn = turn
	version = len(st.art.Versions)
	if version == 0 || st.art.Versions[version-1].Hash != hash {
		version = b.newVersion(id, st, content, hash, t, a.Start, edit)
	}
	return id, version, failed
}

// The lines around an edit block's texts, as a failed edit's artifact
// keeps them.
const (
	searchMarker  = "<<<<<<< SEARCH\n"
	dividerMarker = "\n=======\n"
	replaceMarker = "\n>>>>>>> REPLACE\n"
)

func failedEdit(e *classify.Edit) string {
	return searchMarker + e.Search + dividerMarker + e.Replace + replaceMarker
}

// newVersion appends a version of content, of turn t, to an artifact and
// returns its number. A version whose text the turn holds whole, at or
// after from, names its place there (spec §7.2.2): the file keeps the text
// once, in the turn. Any other is a full copy every SnapshotInterval
// versions, a patch against the version before otherwise, unless the
// patch is no shorter than the content. (A patch carries the text it deletes: a file rewritten from top
// to bottom patches to both versions, twice the size of the new one. On
// the aider histories one in five versions is such a rewrite.)
// An edit version (spec §7.2.1), and the version after one, are stored
// whole: a patch is of the version before, which is then not the file.
func (b *Builder) newVersion(id string, st *artState, content, hash string, t spec.Turn, from int, edit bool) int {
	ver := spec.ArtifactVersion{V: len(st.art.Versions) + 1, Timestamp: t.Timestamp, Turn: t.Turn, Hash: hash, Size: int64(len(content)), Edit: edit}
	if i := placeOf(t.Content, content, from); i >= 0 {
		ver.Start, ver.End, ver.Content = i, i+len(content), &content
	} else if (ver.V-1)%b.cfg.SnapshotInterval == 0 || edit || st.afterEdit {
		ver.Content = &content
	} else if p, err := artifacts.MakePatch(st.latest, content); err == nil && len(p) < len(content) {
		ver.Patch = &p
	} else {
		ver.Content = &content
	}
	st.art.Versions = append(st.art.Versions, ver)
	st.art.ContentHash = hash
	if _, ok := b.vault.byHash[hash]; !ok {
		b.vault.byHash[hash] = verRef{id, ver.V}
	}
	st.afterEdit = edit
	if edit {
		return ver.V // the file's text is still the one before
	}
	if st.unnamed > 0 {
		b.vault.lines.replace(st.unnamed-1, st.art.Language, st.latest, content)
	}
	st.latest, st.latestV = content, ver.V
	return ver.V
}

// placeOf is where text is whole in content, at or after from (or before
// it), or -1: never for empty text, which a place cannot name.
func placeOf(content, text string, from int) int {
	if text == "" {
		return -1
	}
	if from < 0 || from > len(content) {
		from = 0
	}
	if i := strings.Index(content[from:], text); i >= 0 {
		return from + i
	}
	return strings.Index(content, text)
}

// similar returns the unnamed artifact of the same language whose latest
// version shares most lines with content, if it shares enough: the last
// in the order of v.unnamed of those that share the greatest share.
func (v *vaultState) similar(lang, content string) string {
	lines := lineSet(content)
	if len(lines) < 3 {
		return ""
	}
	return v.lines.best(lang, lines, func(i int) string { return v.unnamed[i] })
}

func lineSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); len(l) > 2 {
			m[l] = true
		}
	}
	return m
}

// artifact puts an artifact of a turn into the vault and the graph, and
// links it to the decision it results from and the concepts it mentions.
func (b *Builder) artifact(ts *turnState, a classify.Artifact) string {
	// What the vault keeps of the turn are copies: a piece of the turn's
	// text would keep all of it (on long project chats, half the text of
	// the input stayed in memory through the whole ingest).
	a.Kind, a.Language, a.Filename, a.Content = strings.Clone(a.Kind), strings.Clone(a.Language), strings.Clone(a.Filename), strings.Clone(a.Content)
	vid, version, failed := b.addToVault(a, ts.t)
	id := b.vault.node[vid]
	if id == "" {
		label := a.Filename
		if label == "" {
			label = strings.TrimSpace(a.Language + " " + a.Kind)
		}
		id = b.newID("artifact", strings.TrimPrefix(vid, "art-"), "artifact:"+vid)
		b.vault.node[vid] = id
		n := b.create(id, spec.NodeArtifact, label)
		n.ArtifactID = vid
		n.Confidence = 1
		md := map[string]any{}
		if a.Language != "" {
			md["language"] = a.Language
		}
		if failed {
			md["editFailed"] = true
			n.Confidence = 0.5
		}
		if len(md) > 0 {
			n.Metadata = md
		}
		b.info[id].artifactRel = true
	}
	n := b.store.Node(id)
	n.ArtifactVersion = version
	b.mention(id, ts.turn)
	if d := b.lastDecision; d.id != "" && ts.turn-d.turn <= decisionWindow {
		b.store.Link(d.id, id, spec.RelResultedIn, resultedIn)
		b.info[d.id].artifactRel = true
	}
	for _, c := range ts.concepts {
		if k := b.info[c].kind; k == "path" || k == "identifier" {
			if strings.Contains(a.Content, b.info[c].firstForm) {
				b.store.Link(id, c, spec.RelMentions, mentions)
			}
		}
	}
	return id
}

// activeArtifacts are the vault ids of the artifacts touched in the last
// ActiveWindow turns, most recent first.
func (b *Builder) activeArtifacts() []string {
	var ids []string
	for id, st := range b.vault.arts {
		if b.turns-st.lastTurn < b.cfg.ActiveWindow {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(x, y string) int {
		if d := b.vault.arts[y].lastTurn - b.vault.arts[x].lastTurn; d != 0 {
			return d
		}
		return strings.Compare(x, y)
	})
	if len(ids) > b.cfg.ActiveArtifacts {
		ids = ids[:b.cfg.ActiveArtifacts]
	}
	return ids
}

// Chain returns the versions of an artifact as package artifacts reads
// them.
func Chain(a spec.Artifact) []artifacts.Version {
	chain := make([]artifacts.Version, len(a.Versions))
	for i, v := range a.Versions {
		chain[i] = artifacts.Version{Hash: v.Hash, Size: v.Size, Content: v.Content, Patch: v.Patch}
	}
	return chain
}

// VaultContent returns a function that gives version v of an artifact of
// the vault, checked against its hash, safe for concurrent use: the
// content function of [spec.Turn.Expand] for readers that decode blocks
// in parallel. Its reader is made on the first call. The vault must not
// change while the function is in use.
func VaultContent(v *spec.ArtifactVault) func(id string, version int) (string, error) {
	var mu sync.Mutex // guards r, which is not safe for concurrent use
	var r *artifacts.Reader
	return func(id string, version int) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if r == nil {
			r = VaultReader(v)
		}
		return r.Content(id, version)
	}
}

// VaultReader returns a reader of the versions of the vault's artifacts,
// for [spec.Turn.Expand] among others. The vault must not change while
// the reader is in use.
func VaultReader(v *spec.ArtifactVault) *artifacts.Reader {
	chains := map[string][]artifacts.Version{}
	return artifacts.NewReader(func(id string) []artifacts.Version {
		c, ok := chains[id]
		if !ok {
			if a, ok := v.Artifacts[id]; ok {
				c = Chain(a)
			}
			chains[id] = c
		}
		return c
	})
}
