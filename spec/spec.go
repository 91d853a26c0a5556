// Package spec defines the .smg file format, version 1.2 (which reads every
// file of 1.0 and 1.1): the Go types of the document, the version
// constants, the vocabulary's enumerations, and the embedded JSON-LD
// context and JSON Schema.
//
// The prose specification, spec/smg-v1.md, is the source of truth; these
// types follow it section by section, and a field added to one is added to
// the other, to the schema and to the context.
//
// spec imports nothing else of this module. Encoding, decoding and
// validation live in package smg.
package spec

import (
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The format's identity.
const (
	// Version is the version this package writes.
	Version = "1.3"
	// MajorVersion and MinorVersion are Version's parts. A reader accepts
	// any 1.x document and rejects every other major version.
	MajorVersion = 1
	MinorVersion = 3

	// ComputedSince is the first minor version whose files leave out what
	// a reader computes (§14): versions' and blocks' content hashes, and
	// the text of a version that a turn holds whole ([Computed]).
	ComputedSince = 3

	// DocumentType is the value of "@type" at the top of every document.
	DocumentType = "SemanticMemoryGraph"
	// ContextIRI is the value of "@context". The context document is
	// embedded ([Context]); readers never fetch it.
	ContextIRI = "https://w3id.org/smg/v1/context.jsonld"
	// VocabIRI is the namespace of every term of the format.
	VocabIRI = "https://w3id.org/smg/v1#"
	// MemoryIRIPrefix, followed by a memory's id and "/", is the base IRI
	// against which the memory's node, artifact and block ids resolve in
	// JSON-LD (§10.2).
	MemoryIRIPrefix = "https://w3id.org/smg/v1/memory/"

	// CompressionBrotli is the only deepArchive.compressionMethod of v1.
	CompressionBrotli = "brotli"

	// HashPrefix starts every content hash: "sha256:" and 64 lowercase
	// hex digits.
	HashPrefix = "sha256:"

	// MaxPreviousSummaries is how many earlier descriptions a node keeps.
	MaxPreviousSummaries = 5
)

// Context returns the JSON-LD context document that ContextIRI names.
func Context() []byte { return contextJSONLD }

// Schema returns the JSON Schema (draft 2020-12) of a version 1 document.
func Schema() []byte { return schemaJSON }

// SchemaID is the "$id" of the schema that [Schema] returns.
const SchemaID = "https://w3id.org/smg/v1/smg-v1.schema.json"

var (
	//go:embed context.jsonld
	contextJSONLD []byte
	//go:embed smg-v1.schema.json
	schemaJSON []byte
)

// ErrVersionSyntax reports a version string that is not MAJOR.MINOR.
var ErrVersionSyntax = errors.New("version is not MAJOR.MINOR")

// ParseVersion splits a version string such as "1.0" into its numbers.
func ParseVersion(v string) (major, minor int, err error) {
	a, b, _ := strings.Cut(v, ".")
	ma, errA := parseDecimal(a)
	mi, errB := parseDecimal(b)
	if errA != nil || errB != nil {
		return 0, 0, fmt.Errorf("%w: %q", ErrVersionSyntax, v)
	}
	return ma, mi, nil
}

// Computed reports whether a document of version v leaves out what a
// reader computes: the content hashes of artifact versions, artifacts and
// archive blocks, and the text of an artifact version that names its
// place in a turn (§7.2.2). A reader fills them in ([ArtifactVersion.Start]);
// a writer leaves them out. It is true of 1.3 and every later minor
// version, and false of a version that does not parse.
func Computed(v string) bool {
	major, minor, err := ParseVersion(v)
	return err == nil && major == MajorVersion && minor >= ComputedSince
}

// parseDecimal accepts the digits of a non-negative number without a sign or
// leading zeros.
func parseDecimal(s string) (int, error) {
	if s == "" || len(s) > 9 || (len(s) > 1 && s[0] == '0') || strings.TrimLeft(s, "0123456789") != "" {
		return 0, ErrVersionSyntax
	}
	return strconv.Atoi(s)
}

// NodeType is the type of a graph node (§6.1).
type NodeType string

// The node types of v1.
const (
	NodeConcept  NodeType = "concept"
	NodeDecision NodeType = "decision"
	NodeProblem  NodeType = "problem"
	NodeSolution NodeType = "solution"
	NodeFact     NodeType = "fact"
	NodeArtifact NodeType = "artifact"
)

// NodeTypes lists the node types in the order the spec gives them.
var NodeTypes = []NodeType{NodeConcept, NodeDecision, NodeProblem, NodeSolution, NodeFact, NodeArtifact}

// Relation is the type of an edge (§6.2). The set is open: a writer may use
// any name that matches the relation syntax; these are the registered ones.
type Relation string

// The registered relations of v1.
const (
	RelRequiresDecision Relation = "requires_decision"
	RelResultedIn       Relation = "resulted_in"
	RelCauses           Relation = "causes"
	RelSolves           Relation = "solves"
	RelImplements       Relation = "implements"
	RelRelatedTo        Relation = "related_to"
	RelMentions         Relation = "mentions"
	RelSupersedes       Relation = "supersedes"
	RelContradicts      Relation = "contradicts"
	RelAbout            Relation = "about"
	RelPartOf           Relation = "part_of"
	RelDependsOn        Relation = "depends_on"
)

// Relations lists the registered relations.
var Relations = []Relation{
	RelRequiresDecision, RelResultedIn, RelCauses, RelSolves, RelImplements, RelRelatedTo,
	RelMentions, RelSupersedes, RelContradicts, RelAbout, RelPartOf, RelDependsOn,
}

// Kind says what a node is, more precisely than its type (§6.1.3). The set
// is open: a writer may use any name of the relation syntax; these are the
// registered ones, each for the one node type [KindTypes] gives. A reader
// that does not know a node's kind reads the node as its type.
type Kind string

// The registered kinds of version 1.2.
const (
	// KindInstruction: a fact that is a standing instruction of the
	// person's to the assistant, which contexts honour.
	KindInstruction Kind = "instruction"
	// KindGoal: a fact that is something the person wants to achieve.
	KindGoal Kind = "goal"
	// KindRequest: a fact that is something the person asked the
	// assistant to do, in a coding session.
	KindRequest Kind = "request"
	// KindChange: a solution that is a change made to the project's
	// files: a commit, or an edit applied.
	KindChange Kind = "change"
	// KindPerson: a concept that is a person who speaks in the
	// conversation, whom the facts of their turns are about.
	KindPerson Kind = "person"
)

// Kinds lists the registered kinds in the order the spec gives them.
var Kinds = []Kind{KindInstruction, KindGoal, KindRequest, KindChange, KindPerson}

// KindTypes gives the node type each registered kind belongs to: a node
// with a registered kind is of that type (§11.4).
var KindTypes = map[Kind]NodeType{
	KindInstruction: NodeFact,
	KindGoal:        NodeFact,
	KindRequest:     NodeFact,
	KindChange:      NodeSolution,
	KindPerson:      NodeConcept,
}

// Fact categories (§6.1.2), from the most to the least important.
const (
	CategoryIdentity     = "identity"
	CategoryPreference   = "preference"
	CategoryRelationship = "relationship"
	CategoryProject      = "project"
	CategoryContext      = "context"
)

// FactCategories lists the fact categories.
var FactCategories = []string{CategoryIdentity, CategoryPreference, CategoryRelationship, CategoryProject, CategoryContext}

// Who saved a fact.
const (
	SourceAI   = "ai"
	SourceUser = "user"
)

// ArtifactType is the kind of an artifact in the vault (§7).
type ArtifactType string

// The artifact types of v1.
const (
	ArtifactCode     ArtifactType = "code"
	ArtifactDocument ArtifactType = "document"
	ArtifactData     ArtifactType = "data"
	ArtifactCanvas   ArtifactType = "canvas"
)

// EditBlock returns the content of an edit version of an artifact
// (§7.2.1): the edit block that finds found and puts replaced instead,
// each text without the line feed that ends its last line.
func EditBlock(found, replaced string) string {
	return "<<<<<<< SEARCH\n" + found + "\n=======\n" + replaced + "\n>>>>>>> REPLACE\n"
}

// Roles of a turn's author.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleSystem    = "system"
	RoleTool      = "tool"
)

// Scope kinds (§4.3).
const (
	ScopeUser      = "user"
	ScopeWorkspace = "workspace"
	ScopeDrive     = "drive"
	ScopeApp       = "app"
	ScopeTeam      = "team"
	ScopeFile      = "file"
)

// Lineage operations (§4.4).
const (
	OpFork  = "fork"
	OpMerge = "merge"
	OpPatch = "patch"
)

// idPattern is the syntax of an id (§2.3).
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$`)

// ValidID reports whether id has the syntax of an id (§2.3): 1 to 128
// letters, digits, '.', '_', '~' or '-', starting with a letter or a digit.
func ValidID(id string) bool { return idPattern.MatchString(id) }
