package format

import (
	"cmp"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/smg-memory/smg/spec"
)

// CytoscapeGraph is the JSON that [Cytoscape] writes: a graph in the form
// Cytoscape.js reads with cy.json() or as the elements of cytoscape({...}),
// and the Cytoscape desktop application imports as .cyjs.
type CytoscapeGraph struct {
	// Data names the memory: its id, and its project's name.
	Data     CytoscapeGraphData `json:"data"`
	Elements CytoscapeElements  `json:"elements"`
}

// CytoscapeGraphData names the memory a graph comes from.
type CytoscapeGraphData struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// CytoscapeElements are a graph's nodes, sorted by id, and its edges,
// sorted by source, target and relation. Every edge's source and target
// is a node of Nodes.
type CytoscapeElements struct {
	Nodes []CytoscapeNode `json:"nodes"`
	Edges []CytoscapeEdge `json:"edges"`
}

// CytoscapeNode is a node element. Classes holds the node's type, and
// "superseded" for a node whose validity has ended, so that a style can
// select them (".decision", ".superseded").
type CytoscapeNode struct {
	Data    CytoscapeNodeData `json:"data"`
	Classes string            `json:"classes"`
}

// CytoscapeNodeData is what a node element carries: the node's id, type,
// label and scores, and, where the node has them, the members of its type
// (spec §6.1.2).
type CytoscapeNodeData struct {
	ID          string        `json:"id"`
	Label       string        `json:"label"`
	Type        spec.NodeType `json:"type"`
	Importance  float64       `json:"importance"`
	Activation  float64       `json:"activation"`
	Confidence  float64       `json:"confidence"`
	Description string        `json:"description,omitempty"`
	Pinned      bool          `json:"pinned,omitzero"`
	// Superseded is set on a node whose validity ended at ValidTo.
	Superseded     bool      `json:"superseded,omitzero"`
	ValidFrom      time.Time `json:"validFrom,omitzero"`
	ValidTo        time.Time `json:"validTo,omitzero"`
	FirstMentioned int       `json:"firstMentioned,omitzero"`
	LastMentioned  int       `json:"lastMentioned,omitzero"`
	// Mentions is the number of turns that mention the node.
	Mentions   int    `json:"mentions,omitzero"`
	Outcome    string `json:"outcome,omitempty"`
	Rationale  string `json:"rationale,omitempty"`
	Category   string `json:"category,omitempty"`
	Scope      string `json:"scope,omitempty"`
	Source     string `json:"source,omitempty"`
	ArtifactID string `json:"artifactId,omitempty"`
}

// CytoscapeEdge is an edge element.
type CytoscapeEdge struct {
	Data CytoscapeEdgeData `json:"data"`
}

// CytoscapeEdgeData is what an edge element carries. Its ID is
// "FROM:RELATION:TO", which no node id can be (ids have no ":", spec §2.3).
type CytoscapeEdgeData struct {
	ID       string        `json:"id"`
	Source   string        `json:"source"`
	Target   string        `json:"target"`
	Relation spec.Relation `json:"relation"`
	Strength float64       `json:"strength"`
}

// CytoscapeElementsOf returns the part of doc's semantic graph that opts
// select as Cytoscape.js elements; [Cytoscape] writes it as JSON.
func CytoscapeElementsOf(doc *spec.Document, opts *ExportOptions) (*CytoscapeGraph, error) {
	if err := checkExport(doc, opts); err != nil {
		return nil, err
	}
	g := selectGraph(doc, opts)
	out := &CytoscapeGraph{
		Data: CytoscapeGraphData{ID: doc.Metadata.ID, Name: cmp.Or(doc.Metadata.ProjectName, doc.Metadata.ID)},
		Elements: CytoscapeElements{
			Nodes: make([]CytoscapeNode, 0, len(g.nodes)),
			Edges: make([]CytoscapeEdge, 0, len(g.edges)),
		},
	}
	for _, n := range g.nodes {
		classes := string(n.Type)
		if superseded(n) {
			classes += " superseded"
		}
		out.Elements.Nodes = append(out.Elements.Nodes, CytoscapeNode{Classes: classes, Data: CytoscapeNodeData{
			ID: n.ID, Label: n.Label, Type: n.Type,
			Importance: n.Importance, Activation: n.Activation, Confidence: n.Confidence,
			Description: n.Description, Pinned: n.Pinned,
			Superseded: superseded(n), ValidFrom: n.ValidFrom, ValidTo: n.ValidTo,
			FirstMentioned: n.FirstMentioned, LastMentioned: n.LastMentioned, Mentions: len(n.Mentions),
			Outcome: n.Outcome, Rationale: n.Rationale,
			Category: n.Category, Scope: n.Scope, Source: n.Source,
			ArtifactID: n.ArtifactID,
		}})
	}
	for _, e := range g.edges {
		out.Elements.Edges = append(out.Elements.Edges, CytoscapeEdge{Data: CytoscapeEdgeData{
			ID:     e.From + ":" + string(e.Relation) + ":" + e.To,
			Source: e.From, Target: e.To, Relation: e.Relation, Strength: e.Strength,
		}})
	}
	return out, nil
}

// Cytoscape returns the part of doc's semantic graph that opts select as
// Cytoscape.js elements JSON (see [CytoscapeGraph]), indented, with a
// final newline:
//
//	{"data": {"id": …, "name": …},
//	 "elements": {"nodes": [{"data": {"id", "label", "type", "importance", …}, "classes": "decision"}, …],
//	              "edges": [{"data": {"id", "source", "target", "relation", "strength"}}, …]}}
//
// Load it with cytoscape({container, elements: graph.elements}) or
// cy.json(graph).
func Cytoscape(doc *spec.Document, opts *ExportOptions) ([]byte, error) {
	g, err := CytoscapeElementsOf(doc, opts)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(g, json.Deterministic(true), jsontext.WithIndent("  "))
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
