package spec

import (
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// Document is a whole .smg memory: the JSON-LD document of spec/smg-v1.md §3.
//
// Every struct of the format has an Extra field that holds the members this
// version does not know, so that a newer writer's additions survive a round
// trip through this reader (§9.3). Extra is a JSON object or empty.
//
// The zero Document is not valid; use [New].
type Document struct {
	Context       string        `json:"@context"`
	Type          string        `json:"@type"`
	Version       string        `json:"version"`
	Metadata      Metadata      `json:"metadata"`
	WorkingMemory WorkingMemory `json:"workingMemory"`
	SemanticGraph SemanticGraph `json:"semanticGraph"`
	ArtifactVault ArtifactVault `json:"artifactVault"`
	DeepArchive   DeepArchive   `json:"deepArchive"`
	// PrivateContexts are the private parts of a shared memory, one per
	// collaborator who has one (§4.6).
	PrivateContexts []PrivateContext `json:"privateContexts,omitempty"`
	Extra           jsontext.Value   `json:",embed"`
}

// New returns an empty, valid document with the given memory id, created and
// modified at now.
func New(id string, now time.Time) *Document {
	return &Document{
		Context: ContextIRI,
		Type:    DocumentType,
		Version: Version,
		Metadata: Metadata{
			ID:       id,
			Created:  now,
			Modified: now,
		},
		SemanticGraph: SemanticGraph{Nodes: []Node{}, Edges: []Edge{}},
		ArtifactVault: ArtifactVault{Artifacts: map[string]Artifact{}},
		DeepArchive:   DeepArchive{CompressionMethod: CompressionBrotli, Blocks: []ArchiveBlock{}},
	}
}

// Metadata describes the memory as a whole (§4).
type Metadata struct {
	ID          string    `json:"id"`
	Created     time.Time `json:"created"`
	Modified    time.Time `json:"modified"`
	ProjectID   string    `json:"projectId,omitempty"`
	ProjectName string    `json:"projectName,omitempty"`
	Description string    `json:"description,omitempty"`
	// TotalExchanges is the number of turns the memory has taken in; it
	// equals the number of turns in the deep archive.
	TotalExchanges int `json:"totalExchanges"`
	// TranscriptBytes is the size of the raw transcript (§4.2).
	TranscriptBytes int64 `json:"transcriptBytes,omitzero"`
	// CompressionRatio is the file's size over TranscriptBytes (§4.2).
	CompressionRatio float64  `json:"compressionRatio,omitzero"`
	Tags             []string `json:"tags,omitempty"`
	Scope            *Scope   `json:"scope,omitzero"`
	Lineage          *Lineage `json:"lineage,omitzero"`
	// Collaborators are the people who share the memory (§4.5).
	Collaborators []Collaborator `json:"collaborators,omitempty"`
	// Maintenance records the memory's upkeep (§4.7).
	Maintenance *Maintenance `json:"maintenance,omitzero"`
	// Generator names the program that wrote the file, like "smg/0.1.0".
	Generator string         `json:"generator,omitempty"`
	Extra     jsontext.Value `json:",embed"`
}

// Scope says whose memory this is: a user's, or a workspace's (§4.3).
type Scope struct {
	Kind  string         `json:"kind"`
	ID    string         `json:"id,omitempty"`
	Name  string         `json:"name,omitempty"`
	Extra jsontext.Value `json:",embed"`
}

// Lineage records where a memory came from when it was forked, merged or
// produced by applying a differential file (§4.4).
type Lineage struct {
	Operation string         `json:"operation"`
	Parents   []Parent       `json:"parents"`
	Extra     jsontext.Value `json:",embed"`
}

// Parent names a memory by its id and the content hash of the exact version
// this one derives from.
type Parent struct {
	ID          string         `json:"id"`
	ContentHash string         `json:"contentHash"`
	Extra       jsontext.Value `json:",embed"`
}

// Collaborator is a person who shares a memory (§4.5).
type Collaborator struct {
	// ID names the collaborator in the memory; a private context's owner
	// is one.
	ID    string         `json:"id"`
	Name  string         `json:"name,omitempty"`
	Extra jsontext.Value `json:",embed"`
}

// PrivateContext is one collaborator's private part of a shared memory
// (§4.6): a whole memory of their own, either in the clear (Memory) or
// sealed with their password (Sealed: an envelope of §9.5 whose plaintext
// is the private memory's file). Exactly one of the two is set.
type PrivateContext struct {
	// Owner is the id of the collaborator whose part it is.
	Owner  string         `json:"owner"`
	Memory *Document      `json:"memory,omitzero"`
	Sealed jsontext.Value `json:"sealed,omitzero"`
	Extra  jsontext.Value `json:",embed"`
}

// Maintenance records the upkeep of a memory (§4.7): the clock up to
// which maintenance has run, and the writes since.
type Maintenance struct {
	// LastRun is the time, on the memory's clock, up to which maintenance
	// last ran: activation is decayed up to it.
	LastRun time.Time `json:"lastRun,omitzero"`
	// WritesSince counts the writes since, for a writer that maintains
	// the memory every N writes.
	WritesSince int            `json:"writesSince,omitzero"`
	Extra       jsontext.Value `json:",embed"`
}

// WorkingMemory is the tier that never decays: what the conversation is
// about right now (§5).
type WorkingMemory struct {
	Summary      string   `json:"summary,omitempty"`
	CurrentGoals []string `json:"currentGoals,omitempty"`
	// ActiveArtifacts are ids of artifacts in the vault.
	ActiveArtifacts []string `json:"activeArtifacts,omitempty"`
	// RecentContext holds the last exchanges verbatim, in turn order.
	RecentContext []Turn         `json:"recentContext,omitempty"`
	Extra         jsontext.Value `json:",embed"`
}

// Turn is one message of a conversation, as kept in working memory and in
// the deep archive (§5.1).
type Turn struct {
	// Turn is the 1-based sequence number of the turn in the memory.
	Turn int `json:"turn"`
	// ConversationID is the id of the conversation the turn was imported
	// from, in its source (an export's conversation, a session), when the
	// source has one; ExternalID is the turn's id in it. Together they
	// tell a turn the memory already holds (§5.1).
	ConversationID string `json:"conversationId,omitempty"`
	// ExternalID is the turn's id in the source it was imported from.
	ExternalID string `json:"externalId,omitempty"`
	// SameIDAs is the number of an earlier turn with the same
	// ConversationID and ExternalID but other content: a source that
	// reused a message id, or edited a message. Both are kept.
	SameIDAs  int       `json:"sameIdAs,omitzero"`
	Timestamp time.Time `json:"timestamp,omitzero"`
	// Role is user, assistant, system or tool; Speaker is a name.
	Role       string  `json:"role,omitempty"`
	Speaker    string  `json:"speaker,omitempty"`
	Content    string  `json:"content"`
	Importance float64 `json:"importance,omitzero"`
	// ContentRefs, in an archived turn of a file before version 1.3 only,
	// stand for the bytes of artifact versions that the turn's content
	// held (§8.2.1): Content is then the content without them, and
	// [Turn.Expand] puts them back. Since 1.3 turns are whole, and a
	// version names its place in its turn instead.
	ContentRefs []ContentRef   `json:"contentRefs,omitempty"`
	Extra       jsontext.Value `json:",embed"`
}

// ContentRef stands for Length bytes of version V of an artifact, from
// byte Offset of its content, which the turn's content held at byte At of
// the content as stored (§8.2.1).
type ContentRef struct {
	At       int    `json:"at"`
	Artifact string `json:"artifact"`
	V        int    `json:"v"`
	Offset   int    `json:"offset,omitzero"`
	Length   int    `json:"length"`
}

// SemanticGraph is the decaying middle tier: typed nodes and weighted
// edges (§6).
type SemanticGraph struct {
	Nodes []Node         `json:"nodes"`
	Edges []Edge         `json:"edges"`
	Extra jsontext.Value `json:",embed"`
}

// Node is a node of the semantic graph (§6.1). The fields under "decision",
// "fact" and "artifact" belong to nodes of that type only. Kind, optional,
// says what the node is more precisely than Type (§6.1.3): a registered
// kind ([Kinds]), on its type only, or one of the writer's.
type Node struct {
	ID          string   `json:"id"`
	Type        NodeType `json:"type"`
	Kind        Kind     `json:"kind,omitempty"`
	Label       string   `json:"label"`
	Description string   `json:"description,omitempty"`
	Aliases     []string `json:"aliases,omitempty"`
	// Confidence, Importance and Activation are in [0, 1].
	Confidence    float64   `json:"confidence"`
	Importance    float64   `json:"importance"`
	Activation    float64   `json:"activation"`
	LastActivated time.Time `json:"lastActivated,omitzero"`
	ValidFrom     time.Time `json:"validFrom,omitzero"`
	ValidTo       time.Time `json:"validTo,omitzero"`
	// FirstMentioned, LastMentioned and Mentions are turn numbers.
	FirstMentioned    int               `json:"firstMentioned,omitzero"`
	LastMentioned     int               `json:"lastMentioned,omitzero"`
	Mentions          []int             `json:"mentions,omitempty"`
	Pinned            bool              `json:"pinned,omitzero"`
	Version           int               `json:"version"`
	PreviousSummaries []PreviousSummary `json:"previousSummaries,omitempty"`
	// Metadata is free-form: any JSON object.
	Metadata map[string]any `json:"metadata,omitempty"`

	// decision
	Outcome      string        `json:"outcome,omitempty"`
	Rationale    string        `json:"rationale,omitempty"`
	Alternatives []Alternative `json:"alternatives,omitempty"`
	Timestamp    time.Time     `json:"timestamp,omitzero"`

	// fact
	Category  string `json:"category,omitempty"`
	Scope     string `json:"scope,omitempty"`
	Source    string `json:"source,omitempty"`
	CreatedBy string `json:"createdBy,omitempty"`

	// artifact
	ArtifactID      string `json:"artifactId,omitempty"`
	ArtifactVersion int    `json:"artifactVersion,omitzero"`

	Extra jsontext.Value `json:",embed"`
}

// PreviousSummary is an earlier description of a node, kept when the node
// was revised; a node keeps at most [MaxPreviousSummaries].
type PreviousSummary struct {
	Version    int            `json:"version"`
	Text       string         `json:"text"`
	ReplacedAt time.Time      `json:"replacedAt,omitzero"`
	Extra      jsontext.Value `json:",embed"`
}

// Alternative is an option a decision considered and rejected.
type Alternative struct {
	Option string         `json:"option"`
	Reason string         `json:"reason,omitempty"`
	Extra  jsontext.Value `json:",embed"`
}

// Edge is a directed, typed, weighted link between two nodes (§6.2).
type Edge struct {
	From     string         `json:"from"`
	To       string         `json:"to"`
	Relation Relation       `json:"relation"`
	Strength float64        `json:"strength"`
	Extra    jsontext.Value `json:",embed"`
}

// ArtifactVault stores code and documents once per artifact, each later
// version as a patch against the one before (§7).
type ArtifactVault struct {
	// SnapshotInterval is the writer's K: a full copy every K versions.
	SnapshotInterval int                 `json:"snapshotInterval,omitzero"`
	Artifacts        map[string]Artifact `json:"artifacts"`
	Extra            jsontext.Value      `json:",embed"`
}

// Artifact is one piece of code or text and all its versions, oldest first.
type Artifact struct {
	Type     ArtifactType `json:"type"`
	Language string       `json:"language,omitempty"`
	Filename string       `json:"filename,omitempty"`
	// ContentHash is the hash of the latest version's content; computed,
	// not stored, since version 1.3 ([Computed]).
	ContentHash string            `json:"contentHash,omitempty"`
	Versions    []ArtifactVersion `json:"versions"`
	Extra       jsontext.Value    `json:",embed"`
}

// ArtifactVersion is one version of an artifact. Exactly one of Content (the
// full text) and Patch (against version V-1) is set; version 1 has Content.
//
// A version with Edit is not the whole file but an edit of it, whose text
// before the edit the writer did not have (§7.2.1): its content is an edit
// block ([EditBlock]), which Hash, Size, Content and Patch are of, as for
// any version.
type ArtifactVersion struct {
	V         int       `json:"v"`
	Timestamp time.Time `json:"timestamp,omitzero"`
	Turn      int       `json:"turn,omitzero"`
	// Hash is the content hash of this version's full text; Size its
	// length in bytes. A file of version 1.3 or later leaves Hash out and
	// a reader computes it ([Computed]).
	Hash string `json:"hash,omitempty"`
	Size int64  `json:"size"`
	// Start and End, with End > 0, name the version's text by its place
	// in the content of its Turn, content[Start:End] (§7.2.2): a file of
	// 1.3 or later then holds neither Content nor Patch, and a reader
	// fills in Content. A document in memory may hold both the place and
	// the text; a writer of 1.3 writes the place only.
	Start   int            `json:"start,omitzero"`
	End     int            `json:"end,omitzero"`
	Content *string        `json:"content,omitzero"`
	Patch   *string        `json:"patch,omitzero"`
	Edit    bool           `json:"edit,omitzero"`
	Extra   jsontext.Value `json:",embed"`
}

// Placed reports whether the version names its text by its place in a
// turn (§7.2.2).
func (v ArtifactVersion) Placed() bool { return v.End > 0 }

// DeepArchive keeps every turn, in independently compressed blocks (§8).
type DeepArchive struct {
	CompressionMethod string         `json:"compressionMethod"`
	BlockSize         int            `json:"blockSize,omitzero"`
	Blocks            []ArchiveBlock `json:"blocks"`
	VectorIndex       *VectorIndex   `json:"vectorIndex,omitzero"`
	Extra             jsontext.Value `json:",embed"`
}

// ArchiveBlock is a run of consecutive turns, held in one of two forms
// (§8.2): Turns, the canonical JSON array of the block's [Turn] values
// itself (the form written since version 1.1: the file's compression is the
// only one), or CompressedData, a Brotli stream of it (version 1.0's).
// Either way the array's compact canonical bytes have length
// UncompressedSize and hash ContentHash.
type ArchiveBlock struct {
	ID string `json:"id"`
	// TurnRange is the first and last turn number, inclusive.
	TurnRange      [2]int    `json:"turnRange"`
	FirstTimestamp time.Time `json:"firstTimestamp,omitzero"`
	LastTimestamp  time.Time `json:"lastTimestamp,omitzero"`
	Summary        string    `json:"summary,omitempty"`
	// SummaryModel names the model that wrote Summary; empty when the
	// writer wrote it itself (§8.1, §8.2.2).
	SummaryModel     string   `json:"summaryModel,omitempty"`
	KeyPoints        []string `json:"keyPoints,omitempty"`
	TurnCount        int      `json:"turnCount"`
	UncompressedSize int64    `json:"uncompressedSize"`
	// ContentHash is the hash of the turns' compact canonical bytes;
	// computed, not stored, since version 1.3 ([Computed]).
	ContentHash    string         `json:"contentHash,omitempty"`
	Turns          jsontext.Value `json:"turns,omitzero"`
	CompressedData Bytes          `json:"compressedData,omitzero"`
	Extra          jsontext.Value `json:",embed"`
}

// Data returns the block's turns as stored, and whether they are plain
// JSON (Turns) rather than Brotli (CompressedData).
func (b *ArchiveBlock) Data() (data []byte, plain bool) {
	if b.Turns != nil {
		return b.Turns, true
	}
	return b.CompressedData, false
}

// VectorIndex optionally holds embeddings of turns and of excerpts of
// turns (§8.3), all of one model, dimensions and encoding. Encoding ""
// is [EncodingFloat32], as it was before the member existed.
type VectorIndex struct {
	Enabled    bool           `json:"enabled"`
	Model      string         `json:"model,omitempty"`
	Dimensions int            `json:"dimensions,omitzero"`
	Encoding   string         `json:"encoding,omitempty"`
	Embeddings []Embedding    `json:"embeddings,omitempty"`
	Extra      jsontext.Value `json:",embed"`
}

// Embedding is the vector of a turn, or of an excerpt of it: Dimensions
// values in the index's encoding, in Vector (base64 in JSON). An excerpt's
// Start and End are byte offsets into the turn's content, content[Start:End];
// both are 0 for the whole turn.
type Embedding struct {
	Turn   int            `json:"turn"`
	Start  int            `json:"start,omitzero"`
	End    int            `json:"end,omitzero"`
	Vector Bytes          `json:"vector"`
	Extra  jsontext.Value `json:",embed"`
}

// CompareEmbeddings orders embeddings as a vectorIndex lists them: by
// turn, then by excerpt, the whole turn first.
func CompareEmbeddings(a, b Embedding) int {
	if a.Turn != b.Turn {
		return a.Turn - b.Turn
	}
	if a.Start != b.Start {
		return a.Start - b.Start
	}
	return a.End - b.End
}
