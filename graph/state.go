package graph

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/smg-memory/smg/archive"
	"github.com/smg-memory/smg/graph/chunks"
	"github.com/smg-memory/smg/spec"
)

// stateVersion names the layout of a builder's state: a state of another
// version is refused ([ErrState]), and its memory replayed instead.
// Changing what the builder keeps between turns must change it.
const stateVersion = "smg-builder 8"

func init() {
	// The values of a node's free-form metadata besides JSON's scalars.
	gob.Register(map[string]any{})
	gob.Register([]any{})
}

// ErrState reports a builder's state that cannot be resumed: of another
// version, or damaged.
var ErrState = errors.New("unusable builder state")

// State returns what the builder keeps between turns, for [Resume]: a
// builder resumed from it takes the next turns as this one would. It is
// the builder's own, and holds the memory's text: it is kept where the
// memory is, never in the clear beside an encrypted one.
func (b *Builder) State() ([]byte, error) {
	var buf bytes.Buffer
	if err := b.WriteState(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteState writes the builder's [Builder.State] to w, Brotli-compressed,
// without keeping a copy of it. It holds neither the closed blocks of the
// archive nor the vectors, which the builder's document holds: it names
// the blocks (their ids, turns and hashes), and a builder resumed from it
// is given the blocks back by [Resume] and the vectors by
// [Builder.SetVectorIndex]. It holds the vector index's header (model,
// encoding, dimensions).
func (b *Builder) WriteState(w io.Writer) (err error) {
	zw := archive.NewStreamWriter(w, stateQuality)
	defer func() {
		if cerr := zw.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("the builder's state: %w", cerr)
		}
	}()
	w = zw
	s := builderState{
		Version: stateVersion, Cfg: b.cfg,
		Extra:      extrasState{Doc: b.extra.doc, WM: b.extra.wm, Graph: b.extra.graph, Vault: b.extra.vault, Archive: b.extra.archive},
		OwnVectors: b.ownVectors, Turns: b.turns, Times: b.times, Transcript: b.transcript,
		Closed: make([]closedState, len(b.arch.closed)),
		Open:   b.arch.open, Recent: b.recent, Relayed: b.relayed,
		Options:      make([]optionSetState, len(b.options)),
		DecisionKeys: b.decisionKeys, FactPreds: b.factPreds, OpenProblems: b.openProblems, Code: b.code,
		LastDecisionID: b.lastDecision.id, LastDecisionTurn: b.lastDecision.turn, ProvisionalID: b.provisionalID,
		LastAskedIDs: b.lastAsked.ids, LastAskedTurn: b.lastAsked.turn,
		Info: make(map[string]nodeInfoState, len(b.info)),
		Ents: entsState{
			ByKey: b.ents.byKey, Speakers: b.ents.speakers, Mid: b.ents.mid, Pending: map[string][]pendingUseState{},
			EdgeWords: b.ents.edgeWords, Lower: b.ents.lower, Capital: b.ents.capital,
			CapitalOthers: b.ents.capitalOthers, LowerOthers: b.ents.lowerOthers, LowerTurns: b.ents.lowerTurns,
			Topics: b.ents.topics, Self: b.ents.self,
		},
		Vault: vaultStateState{
			ByFile: b.vault.byFile, Unnamed: b.vault.unnamed,
			ByHash: make(map[string]verRefState, len(b.vault.byHash)), Node: b.vault.node,
			TurnArtifacts: b.vault.turnArtifacts, TurnOfArtifacts: b.vault.turnOfArtifacts,
		},
	}
	for i, c := range b.arch.closed {
		s.Closed[i] = closedState{c.ID, c.TurnRange, c.ContentHash}
	}
	for _, n := range b.arch.notes {
		s.Notes = append(s.Notes, noteState{n.turn, n.text, n.weight})
	}
	for i, o := range b.options {
		s.Options[i] = optionSetState{o.turn, o.options}
	}
	for _, g := range b.goals {
		s.Goals = append(s.Goals, goalState{g.text, g.turn})
	}
	for id, in := range b.info {
		s.Info[id] = nodeInfoState{in.cues, in.words, in.forms, in.firstForm, in.hints, in.kind, in.predicate, in.outcomeKey, in.artifactRel}
	}
	for k, uses := range b.ents.pending {
		out := make([]pendingUseState, len(uses))
		for i, u := range uses {
			out[i] = pendingUseState{int(u.turn), b.ents.str(u.form), b.ents.str(u.hint), u.others(), u.relay(), u.addressed()}
		}
		s.Ents.Pending[k] = out
	}
	// In JSON what gob cannot tell apart: a pointer to an empty string
	// (an empty version's content) from none, an empty scope from none.
	if s.Meta, err = json.Marshal(b.meta); err != nil {
		return fmt.Errorf("the builder's state: %w", err)
	}
	if vi := b.extra.vectorIndex; vi != nil {
		// The index's header, not its vectors: they are kept with the
		// file (in it or in its cache), and the caller of Resume gives
		// them back (SetVectorIndex). The state need not hold them too.
		if s.Extra.VectorIndex, err = json.Marshal(vi.Header()); err != nil {
			return fmt.Errorf("the builder's state: %w", err)
		}
	}
	for h, r := range b.vault.byHash {
		s.Vault.ByHash[h] = verRefState{r.id, r.v}
	}
	// The state, then its long lists, each in chunks: the encoder holds
	// one message at a time, not the whole state (a memory's graph and
	// code).
	enc := gob.NewEncoder(w)
	if err := enc.Encode(&s); err != nil {
		return fmt.Errorf("the builder's state: %w", err)
	}
	nodes := make([]*spec.Node, 0, b.store.Len())
	for _, id := range b.store.IDs() {
		nodes = append(nodes, b.store.Node(id))
	}
	err = errors.Join(chunks.Put(enc, nodes, 1024),
		chunks.Put(enc, b.store.Edges(), 4096)) // all edges: those weaker than a document keeps too
	if err != nil {
		return fmt.Errorf("the builder's state: %w", err)
	}
	ids := slices.Sorted(maps.Keys(b.vault.arts))
	if err := enc.Encode(len(ids)); err != nil {
		return fmt.Errorf("the builder's state: %w", err)
	}
	for chunk := range slices.Chunk(ids, 64) {
		arts := make([]artStateState, len(chunk))
		for i, id := range chunk {
			a := b.vault.arts[id]
			art, err := json.Marshal(a.art)
			if err != nil {
				return fmt.Errorf("the builder's state: %w", err)
			}
			arts[i] = artStateState{id, art, a.latest, a.unnamed, a.lastTurn, a.afterEdit, a.latestV}
		}
		if err := enc.Encode(arts); err != nil {
			return fmt.Errorf("the builder's state: %w", err)
		}
	}
	return nil
}

// SetVectorIndex gives a builder resumed from a state (which holds the
// vector index's header alone, see [Builder.WriteState]) the memory's
// vectors: vi, a document's vector index, which the builder shares and
// copies before it changes it.
func (b *Builder) SetVectorIndex(vi *spec.VectorIndex) {
	b.extra.vectorIndex, b.ownVectors = vi, false
}

// stateQuality is the Brotli quality of a builder's state: the lowest,
// which takes the state (gob, mostly the graph's words and ids) to about
// an eighth at about 200 MB/s (beam-dev x16: 23 MB to 2.8 MB). A state is
// written at every save.
const stateQuality = 1

// Resume returns the builder whose [Builder.State] data is, as [Load]
// returns it for the document the builder gave, without replaying its
// turns. blocks are that document's archive blocks, as a reader gives
// them: the state names its closed blocks and takes them from there,
// shared, not copied (the builder never changes them). cfg is as Load's:
// the state's block size and snapshot interval override it. A state that
// does not decode, of another version, or whose closed blocks blocks does
// not hold (by id, turns and content hash) is an error that matches
// ErrState.
func Resume(data []byte, blocks []spec.ArchiveBlock, cfg Config) (*Builder, error) {
	var s builderState
	dec := gob.NewDecoder(archive.NewStreamReader(bytes.NewReader(data)))
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrState, err)
	}
	if s.Version != stateVersion {
		return nil, fmt.Errorf("%w: %q, not %q", ErrState, s.Version, stateVersion)
	}
	closed, err := closedBlocks(s.Closed, blocks)
	if err != nil {
		return nil, err
	}
	if s.Nodes, err = chunks.Get[*spec.Node](dec); err != nil {
		return nil, fmt.Errorf("%w: the nodes: %v", ErrState, err)
	}
	if s.Edges, err = chunks.Get[spec.Edge](dec); err != nil {
		return nil, fmt.Errorf("%w: the edges: %v", ErrState, err)
	}
	arts, err := chunks.Get[artStateState](dec)
	if err != nil {
		return nil, fmt.Errorf("%w: the artifacts: %v", ErrState, err)
	}
	cfg.BlockSize, cfg.SnapshotInterval = s.Cfg.BlockSize, s.Cfg.SnapshotInterval
	b := newBuilder(cfg)
	if err := json.Unmarshal(s.Meta, &b.meta); err != nil {
		return nil, fmt.Errorf("%w: the metadata: %v", ErrState, err)
	}
	b.extra = extras{doc: s.Extra.Doc, wm: s.Extra.WM, graph: s.Extra.Graph, vault: s.Extra.Vault, archive: s.Extra.Archive}
	if s.Extra.VectorIndex != nil {
		b.extra.vectorIndex = new(spec.VectorIndex)
		if err := json.Unmarshal(s.Extra.VectorIndex, b.extra.vectorIndex); err != nil {
			return nil, fmt.Errorf("%w: the vector index: %v", ErrState, err)
		}
	}
	b.ownVectors, b.turns, b.times, b.transcript = s.OwnVectors, s.Turns, s.Times, s.Transcript
	b.arch.closed, b.arch.open, b.recent, b.relayed = closed, s.Open, s.Recent, s.Relayed
	b.arch.notes = s.notes()
	for _, n := range s.Nodes {
		if n == nil || n.ID == "" {
			return nil, fmt.Errorf("%w: a node without an id", ErrState)
		}
		b.store.Put(n)
	}
	for _, e := range s.Edges {
		if b.store.Node(e.From) == nil || b.store.Node(e.To) == nil {
			return nil, fmt.Errorf("%w: an edge from %q to %q, not both nodes", ErrState, e.From, e.To)
		}
		b.store.Link(e.From, e.To, e.Relation, e.Strength)
	}
	for id, in := range s.Info {
		b.info[id] = &nodeInfo{cues: in.Cues, words: in.Words, forms: in.Forms, firstForm: in.FirstForm, hints: in.Hints,
			kind: in.Kind, predicate: in.Predicate, outcomeKey: in.OutcomeKey, artifactRel: in.ArtifactRel}
	}
	for _, o := range s.Options {
		b.options = append(b.options, optionSet{o.Turn, o.Options})
	}
	b.decisionKeys, b.factPreds, b.openProblems = orEmpty(s.DecisionKeys), orEmpty(s.FactPreds), s.OpenProblems
	b.code = s.Code
	for _, g := range s.Goals {
		b.goals = append(b.goals, goal{g.Text, g.Turn})
	}
	b.lastDecision.id, b.lastDecision.turn, b.provisionalID = s.LastDecisionID, s.LastDecisionTurn, s.ProvisionalID
	b.lastAsked.ids, b.lastAsked.turn = s.LastAskedIDs, s.LastAskedTurn
	e := s.Ents
	b.ents = entityIndex{byKey: orEmpty(e.ByKey), speakers: orEmpty(e.Speakers), mid: orEmpty(e.Mid), pending: map[string][]pendingUse{}, strIDs: map[string]uint32{},
		edgeWords: orEmpty(e.EdgeWords), lower: orEmpty(e.Lower), capital: orEmpty(e.Capital), capitalOthers: orEmpty(e.CapitalOthers),
		lowerOthers: orEmpty(e.LowerOthers), lowerTurns: orEmpty(e.LowerTurns), topics: orEmpty(e.Topics), self: orEmpty(e.Self)}
	for k, uses := range e.Pending {
		out := make([]pendingUse, len(uses))
		for i, u := range uses {
			out[i] = pendingUse{turn: int32(u.Turn), form: b.ents.strID(u.Form), hint: b.ents.strID(u.Hint),
				flags: flagIf(u.Others, useOthers) | flagIf(u.Relay, useRelay) | flagIf(u.Addressed, useAddressed)}
		}
		b.ents.pending[k] = out
	}
	v := s.Vault
	b.vault = vaultState{arts: map[string]*artState{}, byFile: orEmpty(v.ByFile), unnamed: v.Unnamed, byHash: map[string]verRef{},
		node: orEmpty(v.Node), turnArtifacts: v.TurnArtifacts, turnOfArtifacts: v.TurnOfArtifacts}
	for _, a := range arts {
		st := &artState{latest: a.Latest, unnamed: a.Unnamed, lastTurn: a.LastTurn, afterEdit: a.AfterEdit, latestV: a.LatestV}
		if err := json.Unmarshal(a.Art, &st.art); err != nil {
			return nil, fmt.Errorf("%w: artifact %q: %v", ErrState, a.ID, err)
		}
		b.vault.arts[a.ID] = st
	}
	// The index of the unnamed artifacts' lines is made again from them.
	for i, id := range b.vault.unnamed {
		a := b.vault.arts[id]
		if a == nil || a.unnamed != i+1 {
			return nil, fmt.Errorf("%w: the unnamed artifact %q is not at its place", ErrState, id)
		}
		b.vault.lines.replace(i, a.art.Language, "", a.latest)
	}
	for h, r := range v.ByHash {
		b.vault.byHash[h] = verRef{r.ID, r.V}
	}
	if len(b.times) != b.turns {
		return nil, fmt.Errorf("%w: %d turns, %d times", ErrState, b.turns, len(b.times))
	}
	return b, nil
}

// closedBlocks returns the blocks a state names, from a document's blocks:
// the first len(names), each with the name's id, turns and content hash.
func closedBlocks(names []closedState, blocks []spec.ArchiveBlock) ([]spec.ArchiveBlock, error) {
	if len(blocks) < len(names) {
		return nil, fmt.Errorf("%w: it closed %d blocks, and the document holds %d", ErrState, len(names), len(blocks))
	}
	out := make([]spec.ArchiveBlock, len(names))
	for i, n := range names {
		d := blocks[i]
		if d.ID != n.ID || d.TurnRange != n.Turns || d.ContentHash == "" || d.ContentHash != n.Hash {
			return nil, fmt.Errorf("%w: the document's block %d is not the state's %s", ErrState, i+1, n.ID)
		}
		d.KeyPoints = slices.Clone(d.KeyPoints)
		out[i] = d
	}
	return out, nil
}

// orEmpty is m, or an empty map for nil: gob leaves out empty maps.
func orEmpty[M ~map[K]V, K comparable, V any](m M) M {
	if m == nil {
		return M{}
	}
	return m
}

// builderState is a [Builder] in gob: every field but the analyzer, the
// clock and what is made again on demand (a fact's statement and topic, the open
// block compressed, the turn being applied).
type builderState struct {
	Version          string
	Cfg              Config
	Meta             []byte // JSON
	Extra            extrasState
	OwnVectors       bool
	Turns            int
	Times            []time.Time
	Transcript       int64
	Closed           []closedState
	Open             []spec.Turn
	Notes            []noteState
	Recent           []spec.Turn
	Relayed          int
	Nodes            []*spec.Node
	Edges            []spec.Edge
	Info             map[string]nodeInfoState
	Ents             entsState
	Options          []optionSetState
	DecisionKeys     map[string]string
	FactPreds        map[string][]string
	OpenProblems     []string
	Code             codingState
	Goals            []goalState
	Vault            vaultStateState
	LastDecisionID   string
	LastDecisionTurn int
	LastAskedIDs     []string
	LastAskedTurn    int
	ProvisionalID    bool
}

// notes are the notes of the open block.
func (s *builderState) notes() []note {
	out := make([]note, len(s.Notes))
	for i, n := range s.Notes {
		out[i] = note{n.Turn, n.Text, n.Weight}
	}
	return out
}

type extrasState struct {
	Doc, WM, Graph, Vault, Archive []byte
	VectorIndex                    []byte // JSON
}

// closedState names a closed block, which the state does not hold.
type closedState struct {
	ID    string
	Turns [2]int
	Hash  string
}

type noteState struct {
	Turn   int
	Text   string
	Weight int
}

type nodeInfoState struct {
	Cues, Words int
	Forms       map[string]int
	FirstForm   string
	Hints       map[string]int
	Kind        string
	Predicate   string
	OutcomeKey  string
	ArtifactRel bool
}

type entsState struct {
	ByKey, Speakers            map[string]string
	Mid, Self                  map[string]bool
	Pending                    map[string][]pendingUseState
	EdgeWords, Topics          map[string][]string
	Lower, Capital             map[string]int
	CapitalOthers, LowerOthers map[string]int
	LowerTurns                 map[string][]int
}

type pendingUseState struct {
	Turn                     int
	Form, Hint               string
	Others, Relay, Addressed bool
}

type optionSetState struct {
	Turn    int
	Options []string
}

type goalState struct {
	Text string
	Turn int
}

// vaultStateState is the vault but its artifacts, which follow the
// state in chunks.
type vaultStateState struct {
	ByFile          map[string]string
	Unnamed         []string
	ByHash          map[string]verRefState
	Node            map[string]string
	TurnArtifacts   []string
	TurnOfArtifacts int
}

type artStateState struct {
	ID        string
	Art       []byte // JSON
	Latest    string
	Unnamed   int
	LastTurn  int
	AfterEdit bool
	LatestV   int
}

type verRefState struct {
	ID string
	V  int
}
