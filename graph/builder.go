// Package graph builds the semantic graph of a memory from the turns of a
// conversation: concepts, decisions with their rationale and alternatives,
// problems and their solutions, facts about people, artifacts, the typed,
// weighted edges between them, their importance and activation, the working
// memory, the artifact vault and the deep archive (spec/smg-v1.md §4–§8).
//
// A [Builder] takes turns one at a time and gives the [spec.Document] they
// make at any point. The document depends only on the turns and the
// [Config]: ingesting turns one by one, all at once, or in two sittings with
// the document saved and reloaded in between gives the same document.
// Ids are derived from content, so the same conversation gives the same
// file, and two versions of a memory diff well.
//
// graph composes classify, importance, artifacts and archive, and reads
// and writes spec's types. A Builder is not safe for concurrent use; the
// smg package's Memory serializes access to one.
package graph

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/classify"
	"github.com/smg-memory/smg/classify/linear"
	"github.com/smg-memory/smg/importance"
	"github.com/smg-memory/smg/spec"
)

// Config sets the numbers of the write path. The zero value of a field
// takes its default from [DefaultConfig].
type Config struct {
	// RecentTurns is how many of the last turns working memory keeps
	// verbatim.
	RecentTurns int
	// BlockSize is the number of turns of an archive block.
	BlockSize int
	// BlockQuality is the Brotli quality of archive blocks.
	BlockQuality int
	// SummaryBytes bounds the extractive summary of an archive block.
	SummaryBytes int
	// SnapshotInterval: every SnapshotInterval-th version of an artifact
	// is stored in full, the others as patches.
	SnapshotInterval int
	// MinEdgeStrength: weaker edges are pruned from the document.
	MinEdgeStrength float64
	// Goals and ActiveArtifacts bound those lists of working memory;
	// ActiveWindow is how many turns back an artifact counts as active.
	Goals           int
	ActiveArtifacts int
	ActiveWindow    int
	// Importance and decay.
	Weights importance.Weights
	Decay   importance.Decay
	// Generator names the program, for metadata.generator.
	Generator string
	// FactMinChars and FactMaxChars bound the length of a fact given to
	// be remembered, in characters.
	FactMinChars, FactMaxChars int
	// Statements judges which sentences of a user's turns to an
	// assistant the graph keeps (classify.StatementModel when nil): a
	// benchmark gives a model trained without the chat it measures.
	Statements *linear.Model
}

// DefaultConfig is the configuration a zero Config stands for.
func DefaultConfig() Config {
	return Config{
		RecentTurns:      10,
		BlockSize:        50,
		BlockQuality:     archive.DefaultQuality,
		SummaryBytes:     600,
		SnapshotInterval: 10,
		MinEdgeStrength:  0.3,
		Goals:            7,
		ActiveArtifacts:  5,
		ActiveWindow:     20,
		Weights:          importance.DefaultWeights(),
		Decay:            importance.DefaultDecay(),
		Generator:        "smg",
		FactMinChars:     10,
		FactMaxChars:     500,
	}
}

func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.RecentTurns <= 0 {
		c.RecentTurns = d.RecentTurns
	}
	if c.BlockSize <= 0 {
		c.BlockSize = d.BlockSize
	}
	if c.SummaryBytes <= 0 {
		c.SummaryBytes = d.SummaryBytes
	}
	if c.BlockQuality <= 0 {
		c.BlockQuality = d.BlockQuality
	}
	if c.SnapshotInterval <= 0 {
		c.SnapshotInterval = d.SnapshotInterval
	}
	if c.MinEdgeStrength <= 0 {
		c.MinEdgeStrength = d.MinEdgeStrength
	}
	if c.Goals <= 0 {
		c.Goals = d.Goals
	}
	if c.ActiveArtifacts <= 0 {
		c.ActiveArtifacts = d.ActiveArtifacts
	}
	if c.ActiveWindow <= 0 {
		c.ActiveWindow = d.ActiveWindow
	}
	if c.Weights.Categories == nil {
		c.Weights = d.Weights
	}
	if c.Decay.D == 0 {
		c.Decay = d.Decay
	}
	if c.Generator == "" {
		c.Generator = d.Generator
	}
	if c.FactMinChars <= 0 {
		c.FactMinChars = d.FactMinChars
	}
	if c.FactMaxChars <= 0 {
		c.FactMaxChars = d.FactMaxChars
	}
	return c
}

// ErrInvalidTurn reports a turn the format cannot hold.
var ErrInvalidTurn = errors.New("invalid turn")

// Builder builds a memory turn by turn.
type Builder struct {
	cfg   Config
	an    *classify.Analyzer
	meta  spec.Metadata
	extra extras
	now   func() time.Time

	turns      int
	times      []time.Time // by turn - 1
	transcript int64

	arch   archiveState
	recent []spec.Turn
	// relayed is the number of the latest turn that relayed the
	// assistant's reply (see relay).
	relayed int

	store *Store
	info  map[string]*nodeInfo
	ents  entityIndex

	options      []optionSet
	decisionKeys map[string]string   // outcome key → decision node
	factPreds    map[string][]string // predicateKey → facts
	openProblems []string
	code         codingState
	goals        []goal
	vault        vaultState
	lastDecision struct {
		id   string
		turn int
	}
	// lastAsked are the statements of the latest user turn, and its
	// number: what an answer's artifact comes of (anchor).
	lastAsked struct {
		ids  []string
		turn int
	}
	cur *turnState // the turn being applied
	// provisionalID: the id is random, to be replaced by one derived from
	// the first turn.
	provisionalID bool
	// ownVectors: extra.vectorIndex is the builder's own, not a loaded
	// document's (see vectors.go).
	ownVectors bool
}

// extras are the members of a loaded document this package does not know,
// kept for the document it gives back (spec §9.3).
type extras struct {
	doc, wm, graph, vault, archive []byte
	vectorIndex                    *spec.VectorIndex
}

// nodeInfo is what the builder knows of a node beyond its spec fields.
type nodeInfo struct {
	cues, words int
	forms       map[string]int // the node's surface forms and their counts
	firstForm   string
	hints       map[string]int // entity kinds suggested by context
	kind        string
	predicate   string              // for facts: their predicateKey
	statement   *classify.Statement // for facts: how classify reads it, once asked
	topic       *factTopic          // for facts: what its clauses are about, once asked
	outcomeKey  string              // for decisions
	artifactRel bool                // linked to an artifact
}

type optionSet struct {
	turn    int
	options []string
}

type goal struct {
	text string
	turn int
}

// Options name a new memory.
type Options struct {
	ID          string
	ProjectID   string
	ProjectName string
	Description string
	Tags        []string
	Scope       *spec.Scope
	// Now is the clock, used only for turns without timestamps.
	Now func() time.Time
}

// New returns a builder of a new, empty memory.
func New(cfg Config, opts Options) *Builder {
	b := newBuilder(cfg)
	b.meta = spec.Metadata{
		ID:          opts.ID,
		ProjectID:   opts.ProjectID,
		ProjectName: opts.ProjectName,
		Description: opts.Description,
		Tags:        opts.Tags,
		Scope:       opts.Scope,
	}
	if opts.Now != nil {
		b.now = opts.Now
	}
	if b.meta.ID == "" {
		// Random until the first turn gives the memory an id derived from
		// its content: two empty memories are not one.
		b.meta.ID, b.provisionalID = randomID(), true
	}
	return b
}

func newBuilder(cfg Config) *Builder {
	cfg = cfg.withDefaults()
	return &Builder{
		cfg:   cfg,
		an:    classify.NewWith(classify.Options{Statements: cfg.Statements}),
		now:   time.Now,
		store: NewStore(),
		info:  map[string]*nodeInfo{},
		ents:  newEntityIndex(),
		vault: newVault(),

		decisionKeys: map[string]string{},
		factPreds:    map[string][]string{},
	}
}

// Turns is the number of turns ingested.
func (b *Builder) Turns() int { return b.turns }

// Store gives the graph as it is now (importance and activation are
// computed only in [Builder.Document]).
func (b *Builder) Store() *Store { return b.store }

// Add ingests one turn. Its Turn field is ignored: the builder numbers
// turns. A turn needs content that is valid UTF-8 and a role or a speaker;
// a role must be user, assistant, system or tool.
func (b *Builder) Add(t spec.Turn) error {
	if err := CheckTurn(t); err != nil {
		return err
	}
	b.turns++
	t.Turn = b.turns
	t.Importance = 0
	b.times = append(b.times, t.Timestamp)
	if n, err := spec.CanonicalTurnSize(t); err == nil {
		b.transcript += int64(n)
	}
	role, listener := t.Role, b.listener(t)
	if role == spec.RoleUser && b.relay(t.Content) {
		// The assistant's last reply, word for word: a relay (aider's
		// architect handing its plan to the editor logs it as the user's
		// input), read as the assistant's words.
		role = spec.RoleAssistant
		b.relayed = t.Turn
	}
	b.recent = append(b.recent, t)
	if len(b.recent) > b.cfg.RecentTurns {
		b.recent = b.recent[len(b.recent)-b.cfg.RecentTurns:]
	}
	if b.meta.Created.IsZero() {
		b.meta.Created = b.turnTime(t)
	}
	if m := b.turnTime(t); m.After(b.meta.Modified) {
		b.meta.Modified = m
	}
	if b.provisionalID || b.meta.ID == "" {
		b.meta.ID, b.provisionalID = derivedID(t), false
	}
	// A user's turn to an assistant: a user who is no one by name, or
	// one who speaks to the assistant (not to another person).
	assisted := role == spec.RoleUser && (t.Speaker == "" || strings.EqualFold(t.Speaker, string(spec.RoleUser)) || listener == theAssistant)
	b.apply(t, b.an.Analyze(classify.Turn{Text: t.Content, Role: role, Speaker: t.Speaker, Time: t.Timestamp, Listener: listener, Assisted: assisted, Coding: b.code.Agent,
		Asks: b.code.Agent || len(b.times) <= askWindow}))
	b.arch.add(t, b.cfg)
	return nil
}

// theAssistant is the listener of a turn to an assistant that has no name.
const theAssistant = "the assistant"

// listener is whom turn t addresses, by the turns before it: the last
// other speaker, or the assistant; "" when no turn came before.
func (b *Builder) listener(t spec.Turn) string {
	for i := len(b.recent) - 1; i >= 0; i-- {
		p := b.recent[i]
		switch {
		case p.Role == spec.RoleTool || p.Role == spec.RoleSystem:
			continue
		case p.Speaker != "" && !strings.EqualFold(p.Speaker, t.Speaker):
			return p.Speaker
		case p.Speaker == "" && p.Role == spec.RoleAssistant && t.Role != spec.RoleAssistant:
			return theAssistant
		case p.Speaker != "" || p.Role == t.Role:
			continue // the same person again
		}
		return ""
	}
	return ""
}

// relay reports whether content repeats, word for word, the assistant's
// latest reply among the recent turns (tool lines between them aside).
func (b *Builder) relay(content string) bool {
	for i := len(b.recent) - 1; i >= 0; i-- {
		switch b.recent[i].Role {
		case spec.RoleTool:
			continue
		case spec.RoleAssistant:
			return len(content) > 0 && slices.Equal(strings.Fields(b.recent[i].Content), strings.Fields(content))
		}
		return false
	}
	return false
}

func (b *Builder) turnTime(t spec.Turn) time.Time {
	if !t.Timestamp.IsZero() {
		return t.Timestamp
	}
	return b.now().UTC().Truncate(time.Second)
}

var roles = map[string]bool{"": true, spec.RoleUser: true, spec.RoleAssistant: true, spec.RoleSystem: true, spec.RoleTool: true}

// CheckTurn returns an [ErrInvalidTurn] error when t is a turn [Builder.Add]
// refuses: text that is not UTF-8, or a role it does not know, or neither
// role nor speaker.
func CheckTurn(t spec.Turn) error {
	switch {
	case !utf8.ValidString(t.Content) || !utf8.ValidString(t.Speaker) || !utf8.ValidString(t.ExternalID):
		return fmt.Errorf("%w: not valid UTF-8", ErrInvalidTurn)
	case t.Role == "" && strings.TrimSpace(t.Speaker) == "":
		return fmt.Errorf("%w: neither role nor speaker", ErrInvalidTurn)
	case !roles[t.Role]:
		return fmt.Errorf("%w: role %q is not user, assistant, system or tool", ErrInvalidTurn, t.Role)
	}
	return nil
}
