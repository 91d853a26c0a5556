package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/importer"
)

// layoutCommand measures what a file of another layout than the format's
// would weigh, against the raw transcript Brotli-compressed at quality 11:
// the floor a change of the format could reach (issue 20's aider target).
func layoutCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "layout INPUT...",
		Short: "Measure what the file would weigh with the code left in the turns and versions that point into them",
		Long: `Layout builds the memory of each conversation and weighs, against the raw
transcript at Brotli quality 11 (window 24), the .smg as written and the same
document laid out otherwise, as JSON:

  no hashes   the turns whole (no contentRefs), the vault without its stored
              hashes
  refs        and each version whose text a turn holds whole named by its
              place in that turn (turn, at, length), not stored
  refs q11    the same at Brotli quality 11 (the file is written at 6)
  -vault      refs q11 without the vault
  -graph      and without the semantic graph
  -wm         and without working memory: the turns, the blocks' metadata
              and the document's`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "input\tq11 KB\tsmg\tno hashes\trefs\trefs q11\t-vault\t-graph\t-wm\tversions\tin a turn\t")
			var total layoutRow
			for _, name := range args {
				res, err := importer.ReadFile(name, importer.Options{})
				if err != nil {
					return err
				}
				for _, c := range res.Conversations {
					r, err := measureLayout(c)
					if err != nil {
						return fmt.Errorf("%s: %w", name, err)
					}
					r.write(tw, shortName(name, c.ID))
					total.add(r)
				}
			}
			total.write(tw, "total")
			return tw.Flush()
		},
	}
}

// layoutRow is the compressed size of each layout of a memory; versions
// counts its artifacts' versions, inTurn those a turn holds whole.
type layoutRow struct {
	q11, smg, noHashes, refs, refs11, noVault, noGraph, noWM int64
	versions, inTurn                                         int
}

func (r *layoutRow) add(o layoutRow) {
	r.q11, r.smg, r.noHashes, r.refs, r.refs11 = r.q11+o.q11, r.smg+o.smg, r.noHashes+o.noHashes, r.refs+o.refs, r.refs11+o.refs11
	r.noVault, r.noGraph, r.noWM = r.noVault+o.noVault, r.noGraph+o.noGraph, r.noWM+o.noWM
	r.versions, r.inTurn = r.versions+o.versions, r.inTurn+o.inTurn
}

func (r layoutRow) write(w io.Writer, label string) {
	x := func(n int64) string { return fmt.Sprintf("%.3f", ratio(n, r.q11)) }
	fmt.Fprintf(w, "%s\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t\n", label, kb(r.q11), x(r.smg), x(r.noHashes), x(r.refs), x(r.refs11),
		x(r.noVault), x(r.noGraph), x(r.noWM), r.versions, r.inTurn)
}

func shortName(name, id string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if id != "" {
		name += " " + id
	}
	return name
}

func measureLayout(c importer.Conversation) (layoutRow, error) {
	var r layoutRow
	raw, err := rawTranscript(c)
	if err != nil {
		return r, err
	}
	if r.q11, err = brotliSize(raw, 11, 24); err != nil {
		return r, err
	}
	m := smg.New(noVectors)
	if _, err := m.IngestAll(context.Background(), c.Turns); err != nil {
		return r, err
	}
	file, err := m.Marshal(nil)
	if err != nil {
		return r, err
	}
	r.smg = int64(len(file))
	doc := m.Document()

	// The turns whole, in the clear.
	text := map[int]string{}
	arch := format.NewArchive(doc, format.Limits{})
	for i := range doc.DeepArchive.Blocks {
		ts, err := arch.Block(i)
		if err != nil {
			return r, err
		}
		for j := range ts {
			ts[j].ContentRefs = nil
			text[ts[j].Turn] = ts[j].Content
		}
		b := &doc.DeepArchive.Blocks[i]
		if b.Turns, err = json.Marshal(ts); err != nil {
			return r, err
		}
		b.CompressedData = nil
	}
	// The vault without its hashes, and with versions that point into
	// their turns.
	noHashes, refs := map[string]any{}, map[string]any{}
	for id, a := range doc.ArtifactVault.Artifacts {
		a.ContentHash = ""
		a.Versions = slices.Clone(a.Versions)
		var vs []map[string]any
		for i, v := range a.Versions {
			a.Versions[i].Hash = ""
			r.versions++
			content, err := format.ArtifactContent(doc, id, v.V)
			if err != nil {
				return r, err
			}
			mv := map[string]any{"v": v.V, "turn": v.Turn, "size": v.Size}
			if !v.Timestamp.IsZero() {
				mv["timestamp"] = v.Timestamp
			}
			if at := strings.Index(text[v.Turn], content); v.Turn > 0 && at >= 0 {
				mv["at"], mv["length"] = at, len(content)
				r.inTurn++
			} else if v.Patch != nil {
				mv["patch"] = *v.Patch
			} else {
				mv["content"] = content
			}
			vs = append(vs, mv)
		}
		noHashes[id] = a
		refs[id] = map[string]any{"type": a.Type, "language": a.Language, "filename": a.Filename, "versions": vs}
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return r, err
	}
	var d map[string]any
	if err := json.Unmarshal(js, &d); err != nil {
		return r, err
	}
	size := func(q, lgwin int) (int64, error) {
		js, err := json.Marshal(d)
		if err != nil {
			return 0, err
		}
		return brotliSize(js, q, lgwin)
	}
	vault := d["artifactVault"].(map[string]any)
	for _, s := range []struct {
		out    *int64
		q, win int
		change func()
	}{
		{&r.noHashes, 6, 22, func() { vault["artifacts"] = noHashes }},
		{&r.refs, 6, 22, func() { vault["artifacts"] = refs }},
		{&r.refs11, 11, 24, func() {}},
		{&r.noVault, 11, 24, func() { vault["artifacts"] = map[string]any{} }},
		{&r.noGraph, 11, 24, func() { d["semanticGraph"] = map[string]any{"nodes": []any{}, "edges": []any{}} }},
		{&r.noWM, 11, 24, func() { d["workingMemory"] = map[string]any{} }},
	} {
		s.change()
		if *s.out, err = size(s.q, s.win); err != nil {
			return r, err
		}
	}
	return r, nil
}
