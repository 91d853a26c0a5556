package view

import (
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// MaxMentions is how many of the turns that mention a node its detail
// reads: the latest.
const MaxMentions = 20

// MaxDiffs is how many of an artifact's versions its detail shows the
// diff of (each from the version before): the latest.
const MaxDiffs = 20

// excerptBytes bounds the text of a turn a node's detail shows.
const excerptBytes = 600

// TurnReader reads up to limit turns from number from on, as
// smg.Memory.ReadTurns does.
type TurnReader func(from, limit int) ([]spec.Turn, int, error)

// Detail is a node's detail.
type Detail struct {
	MapNode
	Description string   `json:"description,omitempty"`
	Aliases     []string `json:"aliases,omitempty"`
	Confidence  float64  `json:"confidence"`
	Activation  float64  `json:"activation"`
	// Outcome, Rationale and Alternatives are a decision's: what was
	// decided, why, and the options rejected.
	Outcome      string        `json:"outcome,omitempty"`
	Rationale    string        `json:"rationale,omitempty"`
	Alternatives []Alternative `json:"alternatives,omitempty"`
	// Category, Scope and Source are a fact's.
	Category string `json:"category,omitempty"`
	Scope    string `json:"scope,omitempty"`
	Source   string `json:"source,omitempty"`
	// ValidFrom and ValidTo bound when it held.
	ValidFrom time.Time `json:"validFrom,omitzero"`
	ValidTo   time.Time `json:"validTo,omitzero"`
	// Revisions are its earlier descriptions, oldest first.
	Revisions []string `json:"revisions,omitempty"`
	// Edges are the node's edges, strongest first.
	Edges []NodeEdge `json:"edges"`
	// Mentions are the latest turns that mention the node, oldest
	// first; MentionCount counts them all.
	Mentions     []Mention `json:"mentions"`
	MentionCount int       `json:"mentionCount"`
	// Artifact is the node's artifact, when it is one.
	Artifact *Artifact `json:"artifact,omitempty"`

	// mentioned are the latest turns that mention it, for ReadMentions.
	mentioned []int
}

// Alternative is an option a decision rejected, and why.
type Alternative struct {
	Option string `json:"option"`
	Reason string `json:"reason,omitempty"`
}

// NodeEdge is an edge of a node, seen from the node: Out when the node is
// its From, and the node at its other end.
type NodeEdge struct {
	Relation spec.Relation `json:"relation"`
	Out      bool          `json:"out"`
	Strength float64       `json:"strength"`
	Other    MapNode       `json:"other"`
}

// Mention is a turn that mentions a node.
type Mention struct {
	Turn    int       `json:"turn"`
	Time    time.Time `json:"time,omitzero"`
	Role    string    `json:"role,omitempty"`
	Speaker string    `json:"speaker,omitempty"`
	// Text is the turn's content, cut at about 600 bytes (Cut says so).
	Text string `json:"text"`
	Cut  bool   `json:"cut,omitzero"`
}

// Artifact is an artifact's versions, the latest one's content and the
// diffs of the latest versions.
type Artifact struct {
	ID       string            `json:"id"`
	Type     spec.ArtifactType `json:"type"`
	Language string            `json:"language,omitempty"`
	Filename string            `json:"filename,omitempty"`
	Versions []Version         `json:"versions"`
	// Content is the latest version's.
	Content string `json:"content"`
}

// Version is one version of an artifact, and its diff from the one
// before (unified, as diff -u writes it) for the latest MaxDiffs.
type Version struct {
	V    int       `json:"v"`
	Time time.Time `json:"time,omitzero"`
	Turn int       `json:"turn,omitzero"`
	Size int64     `json:"size"`
	Diff string    `json:"diff,omitempty"`
}

// NodeOf returns the detail of the node id of doc, but for the turns that
// mention it, which [Detail.ReadMentions] reads. It keeps nothing of doc.
func NodeOf(doc *spec.Document, id string) (*Detail, error) {
	g := index(doc)
	n, ok := g.byID[id]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNoNode, id)
	}
	d := &Detail{MapNode: g.mapNode(n), Description: n.Description, Aliases: slices.Clone(n.Aliases), Confidence: n.Confidence, Activation: n.Activation,
		Outcome: n.Outcome, Rationale: n.Rationale, Category: n.Category, Scope: n.Scope, Source: n.Source, ValidFrom: n.ValidFrom, ValidTo: n.ValidTo,
		Edges: []NodeEdge{}, Mentions: []Mention{}, MentionCount: len(n.Mentions),
		mentioned: slices.Clone(n.Mentions[max(0, len(n.Mentions)-MaxMentions):])}
	for _, a := range n.Alternatives {
		d.Alternatives = append(d.Alternatives, Alternative{Option: a.Option, Reason: a.Reason})
	}
	for _, p := range n.PreviousSummaries {
		d.Revisions = append(d.Revisions, p.Text)
	}
	for _, i := range g.adj[id] {
		e := doc.SemanticGraph.Edges[i]
		other := e.To
		if other == id {
			other = e.From
		}
		if o, ok := g.byID[other]; ok {
			d.Edges = append(d.Edges, NodeEdge{Relation: e.Relation, Out: e.From == id, Strength: e.Strength, Other: g.mapNode(o)})
		}
	}
	slices.SortStableFunc(d.Edges, func(a, b NodeEdge) int {
		if a.Strength != b.Strength {
			if a.Strength > b.Strength {
				return -1
			}
			return 1
		}
		return byImportance(a.Other, b.Other)
	})
	if n.Type == spec.NodeArtifact {
		a, err := artifactOf(doc, n)
		if err != nil {
			return nil, err
		}
		d.Artifact = a
	}
	return d, nil
}

// ReadMentions reads, with read, the latest turns that mention the node,
// up to MaxMentions, into d.Mentions.
func (d *Detail) ReadMentions(read TurnReader) error {
	d.Mentions = d.Mentions[:0]
	for _, t := range d.mentioned {
		turns, _, err := read(t, 1)
		if err != nil {
			return err
		}
		if len(turns) == 0 || turns[0].Turn != t {
			continue // removed by maintenance
		}
		d.Mentions = append(d.Mentions, mention(turns[0]))
	}
	return nil
}

func mention(t spec.Turn) Mention {
	text, cut := t.Content, false
	if len(text) > excerptBytes {
		end := excerptBytes
		for end > 0 && !utf8.RuneStart(text[end]) {
			end--
		}
		text, cut = text[:end], true
	}
	return Mention{Turn: t.Turn, Time: t.Timestamp, Role: string(t.Role), Speaker: t.Speaker, Text: text, Cut: cut}
}

// artifactOf is the artifact of the node n, nil when the vault has none.
func artifactOf(doc *spec.Document, n *spec.Node) (*Artifact, error) {
	id := n.ArtifactID
	if id == "" {
		id = n.ID
	}
	va, ok := doc.ArtifactVault.Artifacts[id]
	if !ok {
		return nil, nil
	}
	content, err := format.ArtifactContent(doc, id, 0)
	if err != nil {
		return nil, err
	}
	a := &Artifact{ID: id, Type: va.Type, Language: va.Language, Filename: va.Filename, Content: content, Versions: make([]Version, len(va.Versions))}
	for i, v := range va.Versions {
		a.Versions[i] = Version{V: v.V, Time: v.Timestamp, Turn: v.Turn, Size: v.Size}
		if v.V > 1 && i >= len(va.Versions)-MaxDiffs {
			if a.Versions[i].Diff, err = format.ArtifactDiff(doc, id, v.V-1, v.V); err != nil {
				return nil, err
			}
		}
	}
	return a, nil
}
