package format

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/go-json-experiment/json"

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
	ContentHash string        `json:"contentHash"`
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
	// [SectionNames], when asked for ([InspectFileSections],
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

// Inspect decodes a file and summarizes it, without the sizes of its
// sections.
func Inspect(r io.Reader, opts *DecodeOptions) (*Info, error) {
	return inspect(r, opts, false)
}

func inspect(r io.Reader, opts *DecodeOptions, sections bool) (*Info, error) {
	d, err := decode(r, opts)
	if err != nil {
		return nil, err
	}
	info, err := Stat(d.Doc)
	if err != nil {
		return nil, err
	}
	if sections {
		if info.Sections, err = SectionSizes(d.Doc); err != nil {
			return nil, err
		}
	}
	info.Form = d.Form
	if t := d.Doc.Metadata.TranscriptBytes; t > 0 {
		info.CompressionRatio = math.Round(float64(d.Form.FileSize)/float64(t)*1e4) / 1e4
	}
	if v := info.Vectors; v != nil {
		part := v.Compressed
		if !d.Form.Compressed {
			part = v.JSON
		}
		v.Share = share(part, d.Form.FileSize)
	}
	return info, nil
}

// InspectFile is [Inspect] of the named file.
func InspectFile(name string, opts *DecodeOptions) (*Info, error) {
	return inspectFile(name, opts, false)
}

// InspectFileSections is [InspectFile] with the sizes of the file's
// sections ([SectionSizes]).
func InspectFileSections(name string, opts *DecodeOptions) (*Info, error) {
	return inspectFile(name, opts, true)
}

func inspectFile(name string, opts *DecodeOptions, sections bool) (*Info, error) {
	lim := DefaultLimits
	if opts != nil {
		lim = opts.Limits.withDefaults()
	}
	b, err := ReadBytes(name, lim)
	if err != nil {
		return nil, err
	}
	info, err := inspect(bytes.NewReader(b), opts, sections)
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
	info := &Info{
		Metadata:    doc.Metadata,
		Version:     doc.Version,
		ContentHash: hash,
		Nodes:       map[spec.NodeType]int{},
		Relations:   map[spec.Relation]int{},
		Edges:       len(doc.SemanticGraph.Edges),
		TotalNodes:  len(doc.SemanticGraph.Nodes),
		Artifacts:   len(doc.ArtifactVault.Artifacts),
		RecentTurns: len(doc.WorkingMemory.RecentContext),
	}
	for _, t := range spec.NodeTypes {
		info.Nodes[t] = 0
	}
	for _, n := range doc.SemanticGraph.Nodes {
		info.Nodes[n.Type]++
	}
	for _, e := range doc.SemanticGraph.Edges {
		info.Relations[e.Relation]++
	}
	for _, a := range doc.ArtifactVault.Artifacts {
		info.ArtifactVersions += len(a.Versions)
		for _, v := range a.Versions {
			info.ArtifactBytes += v.Size
			switch {
			case v.Placed():
				info.ArchivedCodeBytes += v.Size
			case v.Content != nil:
				info.ArtifactStoredBytes += int64(len(*v.Content))
			case v.Patch != nil:
				info.ArtifactStoredBytes += int64(len(*v.Patch))
			}
		}
	}
	info.ArchiveBlocks = len(doc.DeepArchive.Blocks)
	for _, b := range doc.DeepArchive.Blocks {
		info.ArchivedTurns += b.TurnCount
		if !spec.Computed(doc.Version) {
			info.ArchivedCodeBytes += referencedBytes(b)
		}
	}
	if vi := doc.DeepArchive.VectorIndex; vi != nil {
		info.Embeddings = len(vi.Embeddings)
	}
	if info.Vectors, err = vectorsInfo(canonicalOrder(doc).DeepArchive.VectorIndex); err != nil {
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
