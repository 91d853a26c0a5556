package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

func (a *app) infoCommand() *cobra.Command {
	var asJSON, sections, hash bool
	cmd := &cobra.Command{
		Use:   "info FILE",
		Short: "Summarize a file: metadata, counts, form and sizes",
		Long: `Info summarizes a file: its metadata, format version and content hash; its
form (encrypted, compressed or plain) and sizes; the nodes per type, the
edges per relation, the artifacts and their versions, the archive's blocks
and turns; the vectors (model, encoding, dimensions, how many are of
excerpts of turns) and their bytes and share of the file, and the cache
folder beside it (.FILE.cache: the vectors it keeps for the file's bytes).
It reads what it counts and reads past the turns, in the memory of the
graph and the vault: it checks the file's limits and version and what it
counts, and 'smg validate' checks the rest. --hash adds the content hash
(spec §9.2), of the whole memory's canonical JSON, which decodes all of
it; --sections adds that and the size of each section, as canonical JSON
and compressed on its own, which takes about the time of writing the file
again. --json prints the same as JSON.`,
		Args: exactFiles(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			name := args[0]
			what := format.InspectOptions{ContentHash: hash || sections, Sections: sections}
			info, err := format.InspectFileWith(name, a.decodeOptions(name), what)
			if err != nil {
				return err
			}
			if asJSON {
				return a.writeJSON(info)
			}
			return writeInfo(a.stdout, info)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	cmd.Flags().BoolVar(&hash, "hash", false, "add the content hash (decodes the whole memory)")
	cmd.Flags().BoolVar(&sections, "sections", false, "add the content hash and the size of each section, compressed on its own (as long as writing the file)")
	return cmd
}

// writeInfo prints an Info as aligned text.
func writeInfo(w io.Writer, info *format.Info) error {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	row := func(label, format string, args ...any) {
		fmt.Fprintf(tw, "%s\t%s\n", label, fmt.Sprintf(format, args...))
	}
	m := info.Metadata

	if j := info.Journal; j != nil {
		row("journal", "%d changes (%d bytes) beside the file, not counted below: 'smg compact' writes them in", j.Entries, j.Bytes)
	}
	row("id", "%s", m.ID)
	if m.ProjectName != "" || m.ProjectID != "" {
		switch {
		case m.ProjectName == "":
			row("project", "%s", m.ProjectID)
		case m.ProjectID == "":
			row("project", "%s", m.ProjectName)
		default:
			row("project", "%s (%s)", m.ProjectName, m.ProjectID)
		}
	}
	if m.Description != "" {
		row("description", "%s", m.Description)
	}
	row("created", "%s", m.Created.Format(time.RFC3339))
	row("modified", "%s", m.Modified.Format(time.RFC3339))
	if m.Generator != "" {
		row("generator", "%s", m.Generator)
	}
	if s := m.Scope; s != nil {
		row("scope", "%s", strings.Join(nonEmpty(s.Kind, s.ID, parens(s.Name)), " "))
	}
	if l := m.Lineage; l != nil {
		if len(l.Parents) == 0 {
			row("lineage", "%s", l.Operation)
		}
		for i, p := range l.Parents {
			label := ""
			if i == 0 {
				label = "lineage"
			}
			row(label, "%s of %s at %s", l.Operation, p.ID, p.ContentHash)
		}
	}
	if len(m.Tags) > 0 {
		row("tags", "%s", strings.Join(m.Tags, ", "))
	}
	row("exchanges", "%d", m.TotalExchanges)
	row("format version", "%s", info.Version)
	if info.ContentHash != "" {
		row("content hash", "%s", info.ContentHash)
	}
	row("form", "%s", formText(info.Form))
	row("file size", "%s", byteCount(info.Form.FileSize))
	row("JSON size", "%s", byteCount(info.Form.JSONSize))
	if r := info.CompressionRatio; r > 0 {
		// Not "compression": a file with its graph and index is often
		// larger than its transcript.
		than := "smaller"
		if r > 1 {
			than = "larger"
		}
		row("file / transcript", "%.4g: %s than the transcript's %s", r, than, byteCount(m.TranscriptBytes))
	}
	fmt.Fprintln(tw)

	row("nodes", "%d", info.TotalNodes)
	for _, t := range orderedKeys(info.Nodes, spec.NodeTypes) {
		row("  "+string(t), "%d", info.Nodes[t])
	}
	row("edges", "%d", info.Edges)
	for _, r := range orderedKeys(info.Relations, spec.Relations) {
		if info.Relations[r] > 0 {
			row("  "+string(r), "%d", info.Relations[r])
		}
	}
	row("artifacts", "%d (%d %s)", info.Artifacts, info.ArtifactVersions, plural(info.ArtifactVersions, "version", "versions"))
	row("archive", "%d %s, %d %s", info.ArchiveBlocks, plural(info.ArchiveBlocks, "block", "blocks"),
		info.ArchivedTurns, plural(info.ArchivedTurns, "turn", "turns"))
	row("recent turns", "%d", info.RecentTurns)
	row("embeddings", "%d in the file", info.Embeddings)
	if v := info.Vectors; v != nil && info.Embeddings > 0 {
		row("  vectors", "%s, %d dimensions, model %q; %d of excerpts of turns", v.Encoding, v.Dimensions, v.Model, v.Excerpts)
		row("  vector bytes", "%s; %s compressed, %.1f%% of the file", byteCount(v.Bytes), byteCount(v.Compressed), 100*v.Share)
	} else if v != nil {
		row("  vectors", "of model %q, %s, %d dimensions: derived from the turns, kept in the cache (--with-vectors writes them in the file)", v.Model, v.Encoding, v.Dimensions)
	}
	if c := info.Cache; c != nil {
		vectors := "no vectors for these bytes"
		if c.Vectors > 0 {
			vectors = fmt.Sprintf("%d vectors for these bytes (model %q)", c.Vectors, c.Model)
		}
		row("cache", "%s in %s: %s; derived from the file, removable", byteCount(c.Bytes), c.Folder, vectors)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	if len(info.Sections) > 0 {
		buf.WriteString("\n")
		writeSections(&buf, info.Sections)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// writeSections prints the size table of the sections.
func writeSections(buf *bytes.Buffer, sections []format.SectionSize) {
	var totalJSON, totalComp int64
	for _, s := range sections {
		totalJSON += s.JSON
		totalComp += s.Compressed
	}
	rows := [][4]string{{"section", "JSON", "compressed", "share"}}
	share := func(n int64) string {
		if totalComp == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", float64(n)*100/float64(totalComp))
	}
	for _, s := range sections {
		rows = append(rows, [4]string{s.Name, fmt.Sprint(s.JSON), fmt.Sprint(s.Compressed), share(s.Compressed)})
	}
	rows = append(rows, [4]string{"total", fmt.Sprint(totalJSON), fmt.Sprint(totalComp), share(totalComp)})
	var width [4]int
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	for _, r := range rows {
		// The name on the left, the numbers on the right.
		fmt.Fprintf(buf, "%-*s  %*s  %*s  %*s\n", width[0], r[0], width[1], r[1], width[2], r[2], width[3], r[3])
	}
}

func formText(f format.FormInfo) string {
	var parts []string
	if f.Encrypted {
		s := "encrypted (AES-256-GCM)"
		if f.KDF != nil {
			s = fmt.Sprintf("encrypted (AES-256-GCM, key from %s)", kdfText(*f.KDF))
		}
		parts = append(parts, s)
	}
	if f.Compressed {
		parts = append(parts, "Brotli-compressed JSON")
	} else {
		parts = append(parts, "plain JSON")
	}
	return strings.Join(parts, ", ")
}

func kdfText(k smg.KDF) string {
	switch {
	case k.Iterations > 0:
		return fmt.Sprintf("%s, %d iterations", k.Function, k.Iterations)
	case k.TimeCost > 0 || k.MemoryKiB > 0:
		return fmt.Sprintf("%s, t=%d m=%d KiB p=%d", k.Function, k.TimeCost, k.MemoryKiB, k.Parallelism)
	}
	return k.Function
}

// byteCount prints a size in bytes and, from 1 KiB, in a larger unit.
func byteCount(n int64) string {
	s := fmt.Sprintf("%d bytes", n)
	if n < 1024 {
		return s
	}
	v, unit := float64(n)/1024, "KiB"
	for _, u := range []string{"MiB", "GiB"} {
		if v < 1024 {
			break
		}
		v, unit = v/1024, u
	}
	return fmt.Sprintf("%s (%.1f %s)", s, v, unit)
}

// orderedKeys returns the keys of m: first those of known, in its order,
// then the others, sorted.
func orderedKeys[K ~string](m map[K]int, known []K) []K {
	var keys, rest []K
	for _, k := range known {
		if _, ok := m[k]; ok {
			keys = append(keys, k)
		}
	}
	for k := range m {
		if !slices.Contains(known, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(keys, rest...)
}

func nonEmpty(ss ...string) []string {
	return slices.DeleteFunc(ss, func(s string) bool { return s == "" })
}

func parens(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}
