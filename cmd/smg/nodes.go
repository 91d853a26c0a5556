package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

func (a *app) nodesCommand() *cobra.Command {
	var typ, sort string
	var limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "nodes FILE",
		Short: "List the nodes of a memory",
		Long: `Nodes lists the nodes of a memory's semantic graph, most important first
(--sort importance), most recently mentioned first (--sort recent) or by id,
with what each type holds: a decision's outcome, rationale and rejected
alternatives, a fact's category, a problem's error code, whether a node was
superseded. --type keeps one type: concept, decision, problem, solution, fact
or artifact.`,
		Args: exactFiles(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			doc, err := a.decodeFile(args[0])
			if err != nil {
				return err
			}
			nodes, err := format.Nodes(doc, format.NodeQuery{Type: spec.NodeType(typ), Sort: sort, Limit: limit})
			if errors.Is(err, format.ErrBadQuery) {
				return usageErrorf("%v", err)
			} else if err != nil {
				return err
			}
			if asJSON {
				return a.writeJSON(nodes)
			}
			return writeNodes(a.stdout, nodes)
		}),
	}
	cmd.Flags().StringVar(&typ, "type", "", "keep the nodes of this type")
	cmd.Flags().StringVar(&sort, "sort", "importance", "importance, recent or id")
	cmd.Flags().IntVar(&limit, "limit", 0, "print at most this many nodes (0: all)")
	ranged(cmd, "limit", 0, unbounded)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the nodes as JSON")
	return cmd
}

func (a *app) showCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show FILE NODE_ID",
		Short: "Show a node, its edges and the turns that mention it",
		Long: `Show prints one node of a memory: every field it has, its edges in both
directions with the nodes at their other ends, and the turns that mention
it, with their dates, speakers and text (decompressing only the archive
blocks that hold them).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErrorf("want FILE and NODE_ID, got %d arguments", len(args))
			}
			return nil
		},
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			doc, err := a.decodeFile(args[0])
			if err != nil {
				return err
			}
			v, err := format.ShowNode(doc, args[1], a.limits)
			if err != nil {
				return err
			}
			if asJSON {
				return a.writeJSON(v)
			}
			return writeNodeView(a.stdout, v)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the node as JSON")
	return cmd
}

// writeNodes prints nodes as a table, with a line of detail under the
// nodes that have more to say.
func writeNodes(w io.Writer, nodes []spec.Node) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TYPE\tID\tIMPORTANCE\tACTIVATION\tLAST\tLABEL")
	for _, n := range nodes {
		last := "-"
		if n.LastMentioned > 0 {
			last = fmt.Sprint(n.LastMentioned)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.2f\t%s\t%s\n", n.Type, n.ID, n.Importance, n.Activation, last, oneLine(n.Label, 100))
		if d := detail(n); d != "" {
			fmt.Fprintf(tw, "\t\t\t\t\t  %s\n", d)
		}
	}
	return tw.Flush()
}

// detail is what a node of each type holds beyond its label.
func detail(n spec.Node) string {
	var parts []string
	switch n.Type {
	case spec.NodeDecision:
		if n.Outcome != "" && n.Outcome != n.Label {
			parts = append(parts, "→ "+n.Outcome)
		}
		if n.Rationale != "" {
			parts = append(parts, "because "+n.Rationale)
		}
		if len(n.Alternatives) > 0 {
			var alts []string
			for _, a := range n.Alternatives {
				alts = append(alts, a.Option)
			}
			parts = append(parts, "over "+strings.Join(alts, ", "))
		}
	case spec.NodeFact:
		parts = append(parts, "["+n.Category+"]")
		if n.Kind != "" {
			parts = append(parts, string(n.Kind))
		}
		if n.Source == spec.SourceUser {
			parts = append(parts, "remembered on request")
		}
	case spec.NodeSolution:
		if n.Kind != "" {
			parts = append(parts, string(n.Kind))
		}
	case spec.NodeProblem:
		if c, ok := n.Metadata["code"].(string); ok {
			parts = append(parts, c)
		}
	case spec.NodeConcept:
		if k, ok := n.Metadata["kind"].(string); ok {
			parts = append(parts, k)
		}
	case spec.NodeArtifact:
		parts = append(parts, fmt.Sprintf("%s v%d", n.ArtifactID, n.ArtifactVersion))
	}
	if !n.ValidTo.IsZero() {
		parts = append(parts, "superseded "+n.ValidTo.Format("2006-01-02"))
	}
	return strings.Join(parts, "; ")
}

// writeNodeView prints a node, its edges and its turns.
func writeNodeView(w io.Writer, v *format.NodeView) error {
	n := v.Node
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(label, value string) {
		if value != "" {
			fmt.Fprintf(tw, "%s\t%s\n", label, value)
		}
	}
	row(string(n.Type), n.Label)
	row("id", n.ID)
	row("kind", string(n.Kind))
	row("description", n.Description)
	row("aliases", strings.Join(n.Aliases, ", "))
	row("outcome", n.Outcome)
	row("rationale", n.Rationale)
	for _, a := range n.Alternatives {
		row("alternative", strings.TrimSuffix(a.Option+" ("+a.Reason+")", " ()"))
	}
	row("category", n.Category)
	row("scope", n.Scope)
	row("source", n.Source)
	if n.ArtifactID != "" {
		row("artifact", fmt.Sprintf("%s v%d", n.ArtifactID, n.ArtifactVersion))
	}
	row("importance", fmt.Sprintf("%.4g", n.Importance))
	row("activation", fmt.Sprintf("%.4g", n.Activation))
	row("confidence", fmt.Sprintf("%.4g", n.Confidence))
	if !n.ValidFrom.IsZero() || !n.ValidTo.IsZero() {
		row("valid", validity(n))
	}
	if len(n.Mentions) > 0 {
		row("mentions", fmt.Sprintf("%d turns, %d to %d", len(n.Mentions), n.FirstMentioned, n.LastMentioned))
	}
	if n.Pinned {
		row("pinned", "yes")
	}
	for _, k := range slices.Sorted(maps.Keys(n.Metadata)) {
		b, _ := json.Marshal(n.Metadata[k], json.Deterministic(true))
		row("metadata."+k, string(b))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(v.Out)+len(v.In) > 0 {
		fmt.Fprintln(w, "\nedges:")
		for _, e := range v.Out {
			fmt.Fprintf(w, "  → %s %.2f  %s %q [%s]\n", e.Relation, e.Strength, e.Type, oneLine(e.Label, 80), e.Other)
		}
		for _, e := range v.In {
			fmt.Fprintf(w, "  ← %s %.2f  %s %q [%s]\n", e.Relation, e.Strength, e.Type, oneLine(e.Label, 80), e.Other)
		}
	}
	if len(v.Turns) > 0 {
		fmt.Fprintln(w, "\nturns:")
		for _, t := range v.Turns {
			who := t.Speaker
			if who == "" {
				who = t.Role
			}
			when := ""
			if !t.Timestamp.IsZero() {
				when = t.Timestamp.Format("2006-01-02 15:04") + " "
			}
			id := ""
			if t.ExternalID != "" {
				id = " (" + t.ExternalID + ")"
			}
			fmt.Fprintf(w, "  #%d %s%s%s: %s\n", t.Turn, when, who, id, oneLine(t.Content, 300))
		}
	}
	return nil
}

func validity(n spec.Node) string {
	from, to := "", "now"
	if !n.ValidFrom.IsZero() {
		from = n.ValidFrom.Format(time.RFC3339)
	}
	if !n.ValidTo.IsZero() {
		to = n.ValidTo.Format(time.RFC3339) + " (superseded)"
	}
	return strings.TrimSpace(from + " – " + to)
}

// oneLine squeezes text to one line of at most n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}
