package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/spec"
)

// Info summarizes a .smg file: what [Inspect] reports and `smg info`
// prints.
type Info struct {
	// Journal, from InspectFile, is the file's journal (spec §9.7), when
	// it has one that applies to it: the changes kept beside the file,
	// which the rest of Info does not count.
	Journal *JournalInfo `json:"journal,omitzero"`
	// Cache, from InspectFile, is the file's cache folder ([CacheDir]),
	// when it has one: derived data, removable at any time.
	Cache       *CacheInfo    `json:"cache,omitzero"`
	Metadata    spec.Metadata `json:"metadata"`
	Version     string        `json:"version"`
	ContentHash string        `json:"contentHash,omitempty"` // when asked for ([InspectOptions])
	Form        FormInfo      `json:"form"`
	// Nodes counts the nodes of each type; every v1 type is present.
	Nodes      map[spec.NodeType]int `json:"nodes"`
	TotalNodes int                   `json:"totalNodes"`
	Edges      int                   `json:"edges"`
	// Relations counts the edges of each relation.
	Relations        map[spec.Relation]int `json:"relations"`
	Artifacts        int                   `json:"artifacts"`
	ArtifactVersions int                   `json:"artifactVersions"`
	// ArtifactBytes is the full size of every version of every artifact;
	// ArtifactStoredBytes what the vault stores for them (snapshots and
	// patches); ArchivedCodeBytes the bytes of artifact content that the
	// file keeps once, in the turns: the versions that name their place
	// in a turn (spec §7.2.2), or in a file before version 1.3 the bytes
	// of archived turns stored as references to the vault (§8.2.1).
	ArtifactBytes       int64 `json:"artifactBytes"`
	ArtifactStoredBytes int64 `json:"artifactStoredBytes"`
	ArchivedCodeBytes   int64 `json:"archivedCodeBytes"`
	ArchiveBlocks       int   `json:"archiveBlocks"`
	ArchivedTurns       int   `json:"archivedTurns"`
	RecentTurns         int   `json:"recentTurns"`
	Embeddings          int   `json:"embeddings"`
	// Vectors is what the vector index costs; nil without one.
	Vectors *VectorsInfo `json:"vectors,omitempty"`
	// Sections gives the size of each top-level section, in the order of
	// [SectionNames], when asked for ([InspectFileWith],
	// [SectionSizes]): compressing each costs most of the time of a
	// summary of a large memory.
	Sections []SectionSize `json:"sections,omitempty"`
	// CompressionRatio is the file's size over the transcript's
	// (metadata.transcriptBytes), or 0 when that is unknown.
	CompressionRatio float64 `json:"compressionRatio"`
}

// FormInfo describes the layers of a file around its JSON text.
type FormInfo struct {
	Encrypted  bool `json:"encrypted"`
	KDF        *KDF `json:"keyDerivation,omitempty"`
	Compressed bool `json:"compressed"`
	// FileSize is the size of the file; JSONSize that of the JSON text in
	// it.
	FileSize int64 `json:"fileSize"`
	JSONSize int64 `json:"jsonSize"`
}

// VectorsInfo describes a memory's vector index (spec §8.3) and its cost.
type VectorsInfo struct {
	Model      string `json:"model,omitzero"`
	Dimensions int    `json:"dimensions"`
	// Encoding is the index's, float32 when it names none.
	Encoding string `json:"encoding"`
	// Embeddings counts the vectors, Excerpts those of them that are of
	// excerpts of turns.
	Embeddings int `json:"embeddings"`
	Excerpts   int `json:"excerpts"`
	// Bytes is the vectors' bytes, decoded; JSON the size of the index's
	// canonical JSON (the vectors in base64, their turns and excerpts);
	// Compressed that JSON Brotli-compressed on its own at
	// DefaultQuality, as the sections are.
	Bytes      int64 `json:"bytes"`
	JSON       int64 `json:"json"`
	Compressed int64 `json:"compressed"`
	// Share is Compressed over the size of the file ([Inspect]: its JSON
	// for a file that is not compressed); 0 from [Stat], which has no
	// file.
	Share float64 `json:"share"`
}

// vectorsInfo measures doc's vector index, nil without one.
func vectorsInfo(vi *spec.VectorIndex) (*VectorsInfo, error) {
	if vi == nil {
		return nil, nil
	}
	v := &VectorsInfo{Model: vi.Model, Dimensions: vi.Dimensions, Encoding: vi.VectorEncoding(), Embeddings: len(vi.Embeddings)}
	for _, e := range vi.Embeddings {
		v.Bytes += int64(len(e.Vector))
		if e.Start != 0 || e.End != 0 {
			v.Excerpts++
		}
	}
	js, err := spec.MarshalCanonical(vi)
	if err != nil {
		return nil, err
	}
	v.JSON = int64(len(js))
	v.Compressed = int64(len(archive.Compress(js, DefaultQuality)))
	return v, nil
}

// share is part over whole, to four places; 0 when whole is 0.
func share(part, whole int64) float64 {
	if whole == 0 {
		return 0
	}
	return math.Round(float64(part)/float64(whole)*1e4) / 1e4
}

// SectionSize is the size of one top-level section: its canonical JSON,
// and that JSON Brotli-compressed on its own at DefaultQuality.
type SectionSize struct {
	Name       string `json:"name"`
	JSON       int64  `json:"json"`
	Compressed int64  `json:"compressed"`
}

// SectionNames are the top-level sections of a document.
var SectionNames = []string{"metadata", "workingMemory", "semanticGraph", "artifactVault", "deepArchive"}

// InspectOptions choose what a summary of a file computes beyond its
// counts: each decodes the whole document.
type InspectOptions struct {
	// ContentHash computes the content hash (spec §9.2), which is of the
	// whole document's canonical JSON.
	ContentHash bool
	// Sections computes the size of each section ([SectionSizes]), which
	// takes the time of writing the file again.
	Sections bool
}

// Inspect decodes a file and summarizes it, with its content hash and
// without the sizes of its sections.
func Inspect(r io.Reader, opts *DecodeOptions) (*Info, error) {
	return inspect(r, opts, InspectOptions{ContentHash: true})
}

func inspect(r io.Reader, opts *DecodeOptions, what InspectOptions) (*Info, error) {
	d, err := decode(r, opts)
	if err != nil {
		return nil, err
	}
	stat := Stat
	if !what.ContentHash {
		stat = func(doc *spec.Document) (*Info, error) { return summaryOf(doc).info() }
	}
	info, err := stat(d.Doc)
	if err != nil {
		return nil, err
	}
	if what.Sections {
		if info.Sections, err = SectionSizes(d.Doc); err != nil {
			return nil, err
		}
	}
	info.ofFile(d.Form)
	return info, nil
}

// errWhole: a summary needs the whole document (a file before version 1.3,
// whose references to the vault are in its turns, or a file whose error
// is to be placed).
var errWhole = errors.New("the summary needs the whole document")

// summarize summarizes the file of bytes b without its content hash, as
// its reader decodes it but without holding the document: the turns are
// read past, not kept, and nor is the text. A file that it cannot
// summarize so is errWhole.
func summarize(b []byte, opts *DecodeOptions) (*Info, error) {
	l, err := openLayers(bytes.NewReader(b), opts)
	if err != nil {
		return nil, err
	}
	var s summary
	d, err := l.scan(&s, false)
	if errors.Is(err, errUnkept) {
		return nil, errWhole
	}
	if err != nil {
		return nil, err
	}
	if !spec.Computed(s.Version) {
		return nil, errWhole
	}
	info, err := s.info()
	if err != nil {
		return nil, err
	}
	info.ofFile(d.Form)
	return info, nil
}

// ofFile fills in what info says of the file of the form f.
func (info *Info) ofFile(f FormInfo) {
	info.Form = f
	if t := info.Metadata.TranscriptBytes; t > 0 {
		info.CompressionRatio = math.Round(float64(f.FileSize)/float64(t)*1e4) / 1e4
	}
	if v := info.Vectors; v != nil {
		part := v.Compressed
		if !f.Compressed {
			part = v.JSON
		}
		v.Share = share(part, f.FileSize)
	}
}

// InspectFile is [Inspect] of the named file, with its journal and its
// cache folder.
func InspectFile(name string, opts *DecodeOptions) (*Info, error) {
	return InspectFileWith(name, opts, InspectOptions{ContentHash: true})
}

// InspectFileWith is [InspectFile], computing what what asks for. Asked
// for neither, it reads the file's counts without holding its document:
// its turns are read past, and a memory of a hundred megabytes of text is
// summarized in the memory of its graph and vault. It then checks what it
// reads (the limits, the version, the members it counts), not the rest:
// [Validate] does.
func InspectFileWith(name string, opts *DecodeOptions, what InspectOptions) (*Info, error) {
	return inspectFile(name, opts, what)
}

func inspectFile(name string, opts *DecodeOptions, what InspectOptions) (*Info, error) {
	lim := DefaultLimits
	if opts != nil {
		lim = opts.Limits.withDefaults()
	}
	b, err := ReadBytes(name, lim)
	if err != nil {
		return nil, err
	}
	var info *Info
	if !what.ContentHash && !what.Sections {
		info, err = summarize(b, opts)
	}
	if what.ContentHash || what.Sections || errors.Is(err, errWhole) {
		info, err = inspect(bytes.NewReader(b), opts, what)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	base := FileHash(b) // names the journal and the cache's vectors
	if !info.Form.Encrypted && HasJournal(name) {
		entries, end, err := ReadJournal(name, base, 0)
		if err != nil {
			return nil, err
		}
		if len(entries) > 0 {
			info.Journal = &JournalInfo{Entries: len(entries), Bytes: end}
		}
	}
	if _, err := os.Stat(CacheDir(name)); err == nil {
		info.Cache = &CacheInfo{Folder: CacheDir(name), Bytes: CacheSize(name)}
		if vi, err := ReadVectors(name, base, info.Metadata.TotalExchanges, lim); err == nil {
			info.Cache.Vectors, info.Cache.Model = len(vi.Embeddings), vi.Model
		}
	}
	return info, nil
}

// CacheInfo summarizes a file's cache folder: its bytes, and the vectors
// it keeps for the file's bytes, of the model Model.
type CacheInfo struct {
	Folder  string `json:"folder"`
	Bytes   int64  `json:"bytes"`
	Vectors int    `json:"vectors"`
	Model   string `json:"model,omitempty"`
}

// JournalInfo summarizes a file's journal: its entries (changes), and
// its bytes up to the end of the last.
type JournalInfo struct {
	Entries int   `json:"entries"`
	Bytes   int64 `json:"bytes"`
}

// Stat summarizes a document, without the sizes of its sections
// ([SectionSizes]). The file-level fields of [Info] (Form,
// CompressionRatio) are left zero.
func Stat(doc *spec.Document) (*Info, error) {
	hash, err := ContentHash(doc)
	if err != nil {
		return nil, err
	}
	info, err := summaryOf(doc).info()
	if err != nil {
		return nil, err
	}
	info.ContentHash = hash
	return info, nil
}

// summary is what [Info] counts of a document, as a reader of the file
// decodes it without the document (summarize): the metadata, the types of
// nodes and relations of edges, the artifacts' versions, the blocks'
// turn counts and the vector index, not the turns.
type summary struct {
	Version       string        `json:"version"`
	Metadata      spec.Metadata `json:"metadata"`
	WorkingMemory struct {
		RecentContext []struct{} `json:"recentContext"`
	} `json:"workingMemory"`
	SemanticGraph struct {
		Nodes []struct {
			Type spec.NodeType `json:"type"`
		} `json:"nodes"`
		Edges []struct {
			Relation spec.Relation `json:"relation"`
		} `json:"edges"`
	} `json:"semanticGraph"`
	ArtifactVault struct {
		Artifacts map[string]struct {
			Versions []summaryVersion `json:"versions"`
		} `json:"artifacts"`
	} `json:"artifactVault"`
	DeepArchive struct {
		Blocks []struct {
			TurnCount int `json:"turnCount"`
		} `json:"blocks"`
		VectorIndex *spec.VectorIndex `json:"vectorIndex"`
	} `json:"deepArchive"`
	// referenced is the bytes of archived turns stored as references to
	// the vault, in a document before version 1.3 (§8.2.1), which
	// summarize does not read.
	referenced int64
}

// summaryVersion is what a summary reads of an artifact's version: its
// size, whether it names its place (§7.2.2), and the sizes of what it
// stores.
type summaryVersion struct {
	Size    int64       `json:"size"`
	End     int         `json:"end"`
	Content *stringSize `json:"content"`
	Patch   *stringSize `json:"patch"`
}

// stringSize is the size in bytes of a JSON string, decoded, which it
// does not keep.
type stringSize int64

func (s *stringSize) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != '"' {
		return fmt.Errorf("want a string, not %v", tok.Kind())
	}
	*s = stringSize(len(tok.String()))
	return nil
}

// summaryOf is the summary of doc.
func summaryOf(doc *spec.Document) *summary {
	s := &summary{Version: doc.Version, Metadata: doc.Metadata}
	s.WorkingMemory.RecentContext = make([]struct{}, len(doc.WorkingMemory.RecentContext))
	g := &s.SemanticGraph
	g.Nodes = make([]struct {
		Type spec.NodeType `json:"type"`
	}, len(doc.SemanticGraph.Nodes))
	for i, n := range doc.SemanticGraph.Nodes {
		g.Nodes[i].Type = n.Type
	}
	g.Edges = make([]struct {
		Relation spec.Relation `json:"relation"`
	}, len(doc.SemanticGraph.Edges))
	for i, e := range doc.SemanticGraph.Edges {
		g.Edges[i].Relation = e.Relation
	}
	s.ArtifactVault.Artifacts = make(map[string]struct {
		Versions []summaryVersion `json:"versions"`
	}, len(doc.ArtifactVault.Artifacts))
	for id, a := range doc.ArtifactVault.Artifacts {
		vs := make([]summaryVersion, len(a.Versions))
		for i, v := range a.Versions {
			vs[i] = summaryVersion{Size: v.Size, End: v.End}
			if v.Content != nil {
				vs[i].Content = new(stringSize(len(*v.Content)))
			}
			if v.Patch != nil {
				vs[i].Patch = new(stringSize(len(*v.Patch)))
			}
		}
		s.ArtifactVault.Artifacts[id] = struct {
			Versions []summaryVersion `json:"versions"`
		}{vs}
	}
	s.DeepArchive.Blocks = make([]struct {
		TurnCount int `json:"turnCount"`
	}, len(doc.DeepArchive.Blocks))
	for i, b := range doc.DeepArchive.Blocks {
		s.DeepArchive.Blocks[i].TurnCount = b.TurnCount
		if !spec.Computed(doc.Version) {
			s.referenced += referencedBytes(b)
		}
	}
	s.DeepArchive.VectorIndex = doc.DeepArchive.VectorIndex
	return s
}

// info counts what s holds: every field of [Info] but the content hash,
// the sections and the file-level ones.
func (s *summary) info() (*Info, error) {
	info := &Info{
		Metadata:          s.Metadata,
		Version:           s.Version,
		Nodes:             map[spec.NodeType]int{},
		Relations:         map[spec.Relation]int{},
		Edges:             len(s.SemanticGraph.Edges),
		TotalNodes:        len(s.SemanticGraph.Nodes),
		Artifacts:         len(s.ArtifactVault.Artifacts),
		RecentTurns:       len(s.WorkingMemory.RecentContext),
		ArchiveBlocks:     len(s.DeepArchive.Blocks),
		ArchivedCodeBytes: s.referenced,
	}
	for _, t := range spec.NodeTypes {
		info.Nodes[t] = 0
	}
	for _, n := range s.SemanticGraph.Nodes {
		info.Nodes[n.Type]++
	}
	for _, e := range s.SemanticGraph.Edges {
		info.Relations[e.Relation]++
	}
	for _, a := range s.ArtifactVault.Artifacts {
		info.ArtifactVersions += len(a.Versions)
		for _, v := range a.Versions {
			info.ArtifactBytes += v.Size
			switch {
			case v.End > 0: // placed (spec.ArtifactVersion.Placed)
				info.ArchivedCodeBytes += v.Size
			case v.Content != nil:
				info.ArtifactStoredBytes += int64(*v.Content)
			case v.Patch != nil:
				info.ArtifactStoredBytes += int64(*v.Patch)
			}
		}
	}
	for _, b := range s.DeepArchive.Blocks {
		info.ArchivedTurns += b.TurnCount
	}
	vi := s.DeepArchive.VectorIndex
	if vi != nil {
		info.Embeddings = len(vi.Embeddings)
	}
	var err error
	if info.Vectors, err = vectorsInfo(canonicalVectors(vi)); err != nil {
		return nil, err
	}
	return info, nil
}

// SectionSizes returns the size of each top-level section of doc, in the
// order of [SectionNames]: its canonical JSON as the file holds it, and
// that JSON Brotli-compressed on its own at DefaultQuality, which takes
// the time of writing the file again.
func SectionSizes(doc *spec.Document) ([]SectionSize, error) {
	canon := canonicalOrder(doc)
	var out []SectionSize
	for i, s := range []any{canon.Metadata, canon.WorkingMemory, canon.SemanticGraph, canon.ArtifactVault, canon.DeepArchive} {
		js, err := spec.MarshalCanonical(s)
		if err != nil {
			return nil, err
		}
		out = append(out, SectionSize{Name: SectionNames[i], JSON: int64(len(js)), Compressed: int64(len(archive.Compress(js, DefaultQuality)))})
	}
	return out, nil
}

// IsEncrypted reports whether the bytes of a file are an encrypted
// envelope, without decrypting it.
func IsEncrypted(b []byte) bool {
	return isEnvelope(b, DefaultLimits)
}

// referencedBytes is how many bytes of a block's turns are references to
// artifact content (spec §8.2.1); 0 for a block that does not decode,
// which validation reports.
func referencedBytes(b spec.ArchiveBlock) int64 {
	raw, err := graph.BlockData(b, DefaultLimits.MaxBlockSize)
	if err != nil {
		return 0
	}
	var turns []struct {
		Refs []spec.ContentRef `json:"contentRefs"`
	}
	if json.Unmarshal(raw, &turns) != nil {
		return 0
	}
	var n int64
	for _, t := range turns {
		for _, r := range t.Refs {
			n += int64(r.Length)
		}
	}
	return n
}
