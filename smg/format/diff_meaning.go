package format

import "slices"

// The members whose changes are upkeep, not meaning: what every turn moves
// (a node's activation and importance, which fade; its mentions; the
// file's modification time and sizes), and what is derived from the rest
// (the working memory's summary and recent turns, the archive's blocks,
// the vectors).
var (
	upkeepMetadata = []string{"modified", "transcriptBytes", "compressionRatio", "maintenance"}
	upkeepWorking  = []string{"summary"}
	upkeepNode     = []string{"activation", "importance", "lastActivated", "mentions", "firstMentioned", "lastMentioned", "version"}
)

// Meaning returns the changes of c that change what the memory says: turns
// (their number), nodes and facts added, removed or changed in what they
// say (label, text, kind, validity: a fact superseded), edges added or
// removed, artifacts and their versions, goals, the document's and the
// metadata's other members, each private context's the same way; and how
// many changes of upkeep it left out (activation and importance that
// fade, mentions, strengths, the working memory's summary and recent
// turns, the archive's blocks, the vectors). c is not modified.
func (c *Changes) Meaning() (m *Changes, upkeep int) {
	m = &Changes{Base: c.Base, Target: c.Target, Document: c.Document, Graph: c.Graph, Artifacts: c.Artifacts}
	keep := func(fs []FieldChange, upkeepNames []string) []FieldChange {
		var out []FieldChange
		for _, f := range fs {
			if slices.Contains(upkeepNames, f.Name) {
				upkeep++
			} else {
				out = append(out, f)
			}
		}
		return out
	}
	m.Metadata = keep(c.Metadata, upkeepMetadata)
	m.WorkingMemory = keep(c.WorkingMemory, upkeepWorking)
	for _, n := range c.Nodes {
		if n.Change == Changed {
			if n.Fields = keep(n.Fields, upkeepNode); len(n.Fields) == 0 {
				continue
			}
		}
		m.Nodes = append(m.Nodes, n)
	}
	for _, e := range c.Edges {
		if e.Change == Changed {
			if e.OldStrength != nil || e.NewStrength != nil {
				upkeep++
			}
			e.OldStrength, e.NewStrength = nil, nil
			if len(e.Fields) == 0 {
				continue
			}
		}
		m.Edges = append(m.Edges, e)
	}
	upkeep += len(c.RecentTurns.Added) + len(c.RecentTurns.Removed) + len(c.RecentTurns.Changed) +
		len(c.Vault) + len(c.Blocks) + len(c.Archive) + len(c.VectorIndex) +
		len(c.Embeddings.Added) + len(c.Embeddings.Removed) + len(c.Embeddings.Changed) +
		len(c.Excerpts.Added) + len(c.Excerpts.Removed) + len(c.Excerpts.Changed)
	for _, p := range c.Private {
		if p.Changes != nil {
			inner, n := p.Changes.Meaning()
			upkeep += n
			if p.Change == Changed && inner.Empty() {
				continue
			}
			p.Changes = inner
		}
		m.Private = append(m.Private, p)
	}
	return m, upkeep
}
