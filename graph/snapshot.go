package graph

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/smg-memory/smg/importance"
	"github.com/smg-memory/smg/spec"
)

// Document returns the memory as it stands: a new document that shares
// nothing with the builder. Importance and activation are computed
// here, as of the last turn, weak edges are pruned and the open archive
// block is compressed.
func (b *Builder) Document() *spec.Document { return b.document(true) }

// SharedDocument is [Builder.Document], but the compressed bytes of its
// closed archive blocks are the builder's own rather than copies: the
// builder never changes them, and the caller must not. It is for writing
// the memory and for reading it, where a copy of every block is time and,
// for a large memory, tens of megabytes.
func (b *Builder) SharedDocument() *spec.Document { return b.document(false) }

func (b *Builder) document(copyBlocks bool) *spec.Document {
	doc := spec.New(b.meta.ID, b.meta.Created)
	doc.Metadata = b.meta
	doc.Metadata.Tags = slices.Clone(b.meta.Tags)
	doc.Metadata.TotalExchanges = b.turns
	doc.Metadata.TranscriptBytes = b.transcript
	doc.Metadata.Generator = b.cfg.Generator
	doc.Metadata.CompressionRatio = 0
	if doc.Metadata.Created.IsZero() {
		doc.Metadata.Created = b.now().UTC().Truncate(time.Second)
	}
	if doc.Metadata.Modified.Before(doc.Metadata.Created) {
		doc.Metadata.Modified = doc.Metadata.Created
	}
	doc.Extra = jsontext.Value(b.extra.doc)

	keep := b.keptEdges()
	doc.SemanticGraph.Nodes = b.nodes(keep)
	doc.SemanticGraph.Edges = keep
	doc.SemanticGraph.Extra = jsontext.Value(b.extra.graph)

	doc.ArtifactVault.SnapshotInterval = b.cfg.SnapshotInterval
	for id, st := range b.vault.arts {
		a := st.art
		a.Versions = slices.Clone(a.Versions)
		doc.ArtifactVault.Artifacts[id] = a
	}
	doc.ArtifactVault.Extra = jsontext.Value(b.extra.vault)

	doc.DeepArchive.BlockSize = b.cfg.BlockSize
	doc.DeepArchive.Blocks = b.arch.blocks(b.cfg, copyBlocks)
	b.keyPoints(doc.DeepArchive.Blocks)
	doc.DeepArchive.VectorIndex = b.vectorIndex()
	doc.DeepArchive.Extra = jsontext.Value(b.extra.archive)

	doc.WorkingMemory = b.workingMemory(doc)
	return doc
}

// keptEdges are the edges at least MinEdgeStrength strong, rounded.
func (b *Builder) keptEdges() []spec.Edge {
	// Filtered in place: Store.Edges makes a new slice, and a live
	// memory makes its document at every turn (on 10,000 turns, 42,000
	// edges were copied again into a slice grown edge by edge).
	all := b.store.Edges()
	out := all[:0]
	for _, e := range all {
		if e.Strength >= b.cfg.MinEdgeStrength {
			e.Strength = round4(e.Strength)
			out = append(out, e)
		}
	}
	return slices.Clip(out)
}

// nodes returns copies of the nodes with their importance, activation and
// labels computed.
func (b *Builder) nodes(edges []spec.Edge) []spec.Node {
	degree := map[string]int{}
	maxDegree := 0
	for _, e := range edges {
		degree[e.From]++
		degree[e.To]++
	}
	for _, d := range degree {
		maxDegree = max(maxDegree, d)
	}
	now := importance.Use{Turn: b.turns, Time: b.decayClock(b.latestTime())}
	ids := b.store.IDs()
	out := make([]spec.Node, 0, len(ids))
	for _, id := range ids {
		n := *b.store.Node(id)
		info := b.info[id]
		n.Aliases = slices.Clone(n.Aliases)
		n.Mentions = slices.Clone(n.Mentions)
		n.Alternatives = slices.Clone(n.Alternatives)
		if n.Type == spec.NodeConcept && info.forms != nil {
			label, aliases := labelAndAliases(info)
			n.Label, n.Aliases = label, mergeAliases(n.Aliases, aliases, label)
			md := cloneMap(n.Metadata)
			if md == nil {
				md = map[string]any{}
			}
			md["kind"] = kindOf(info)
			n.Metadata = md
		} else {
			n.Metadata = cloneMap(n.Metadata)
		}
		switch n.Type {
		case spec.NodeFact:
			n.Importance = b.factImportance(&n)
		default:
			age := b.turns
			if n.LastMentioned > 0 {
				age = b.turns - n.LastMentioned
			}
			n.Importance = round4(b.cfg.Weights.Score(importance.Node{
				AgeTurns:     age,
				DecisionCues: info.cues,
				Words:        info.words,
				HasArtifact:  n.Type == spec.NodeArtifact || info.artifactRel,
				Degree:       degree[id],
				MaxDegree:    maxDegree,
			}))
		}
		uses := make([]importance.Use, 0, len(n.Mentions))
		for _, m := range n.Mentions {
			if m >= 1 && m <= len(b.times) {
				uses = append(uses, importance.Use{Turn: m, Time: b.times[m-1]})
			}
		}
		n.Activation = round4(b.cfg.Decay.Of(uses, now))
		if n.Pinned {
			n.Activation = 1
		}
		if k := len(uses); k > 0 {
			n.LastActivated = uses[k-1].Time
		}
		out = append(out, n)
	}
	return out
}

func mergeAliases(existing, computed []string, label string) []string {
	out := slices.Clone(computed)
	for _, a := range existing {
		if a != label && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	if len(out) == 0 {
		return nil
	}
	return out
}

func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// keyPoints gives each block the labels of the decisions, problems,
// solutions and facts first mentioned in it (at most five, decisions
// first).
func (b *Builder) keyPoints(blocks []spec.ArchiveBlock) {
	if len(blocks) == 0 {
		return
	}
	order := map[spec.NodeType]int{spec.NodeDecision: 0, spec.NodeProblem: 1, spec.NodeSolution: 2, spec.NodeFact: 3}
	type point struct {
		rank, turn int
		label      string
	}
	per := make([][]point, len(blocks))
	for _, id := range b.store.IDs() {
		n := b.store.Node(id)
		r, ok := order[n.Type]
		if !ok || n.FirstMentioned == 0 {
			continue
		}
		k := (n.FirstMentioned - 1) / b.cfg.BlockSize
		if k < len(per) {
			per[k] = append(per[k], point{r, n.FirstMentioned, capitalize(string(n.Type)) + ": " + n.Label})
		}
	}
	for k := range blocks {
		ps := per[k]
		slices.SortFunc(ps, func(x, y point) int {
			if x.rank != y.rank {
				return x.rank - y.rank
			}
			if x.turn != y.turn {
				return x.turn - y.turn
			}
			return strings.Compare(x.label, y.label)
		})
		blocks[k].KeyPoints = nil
		for i := 0; i < len(ps) && i < 5; i++ {
			blocks[k].KeyPoints = append(blocks[k].KeyPoints, ps[i].label)
		}
	}
}
