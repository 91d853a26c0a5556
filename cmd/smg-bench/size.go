package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/spec"
)

// sizeTargets are the largest .smg size, over the raw transcript
// Brotli-compressed at quality 11, that the format of an input is meant to
// reach (issue 38's: the file with the default settings, its vectors in
// the cache). An input of another format has no target.
var sizeTargets = map[importer.Format]float64{
	importer.LoCoMo: 1.40,
	importer.Aider:  1.55,
}

// sizeReport is what size measures: every conversation of every input.
type sizeReport struct {
	Count int `json:"count"`
	// XZ tells whether xz was on PATH; without it the xz figures are -1.
	XZ     bool        `json:"xz"`
	Inputs []sizeInput `json:"inputs"`
}

// sizeInput is the measure of one input: a row per conversation, and
// their sum.
type sizeInput struct {
	Input         string          `json:"input"`
	Format        importer.Format `json:"format"`
	Conversations []sizeRow       `json:"conversations"`
	Total         sizeRow         `json:"total"`
}

// sizeRow is what the .smg of one conversation, or of all the
// conversations of an input (the total), costs against its raw transcript.
// A total's compressed sizes are sums over the conversations, as the .smg
// sizes are: one file per conversation against one stream per
// conversation.
type sizeRow struct {
	Input string `json:"input"`
	// Conversation is the importer's id of the conversation (LoCoMo's
	// sample_id; "" in the other formats), or "total".
	Conversation string `json:"conversation,omitzero"`
	Turns        int    `json:"turns"`
	// RawBytes is the size of the turns as canonical JSON (numbered 1..n),
	// Q11Bytes that Brotli-compressed at quality 11 (window 24), XZBytes
	// that compressed by xz -9 (-1 without xz), SMGBytes the .smg file's.
	RawBytes int64 `json:"rawBytes"`
	Q11Bytes int64 `json:"q11Bytes"`
	XZBytes  int64 `json:"xzBytes"`
	SMGBytes int64 `json:"smgBytes"`
	// SMGPerQ11 and SMGPerXZ are SMGBytes over Q11Bytes and over XZBytes
	// (-1 without xz).
	SMGPerQ11 float64 `json:"smgPerQ11"`
	SMGPerXZ  float64 `json:"smgPerXz"`
	// Target is the input format's target for SMGPerQ11 (0: none), Met
	// whether SMGPerQ11 is at most the target.
	Target float64 `json:"target"`
	Met    bool    `json:"met"`
	// The median times of writing the file (smg.Memory.Save), decoding it
	// (format.ReadFile) and opening it (smg.Open: decoding and replaying the
	// turns into a live memory).
	SaveMs   float64 `json:"saveMs"`
	DecodeMs float64 `json:"decodeMs"`
	OpenMs   float64 `json:"openMs"`
	// Sections are the document's top-level sections in the order of
	// format.SectionNames.
	Sections []sectionShare `json:"sections"`
	// ArtifactBytes is the full size of every artifact version,
	// ArtifactStoredBytes what the vault stores for them, and ChainRatio
	// the first over the second (0 when the vault stores nothing).
	// ArchivedCodeBytes is what the file keeps once, in the turns: the
	// versions named by their place in a turn (format.Info).
	ArtifactBytes       int64   `json:"artifactBytes"`
	ArtifactStoredBytes int64   `json:"artifactStoredBytes"`
	ChainRatio          float64 `json:"chainRatio"`
	ArchivedCodeBytes   int64   `json:"archivedCodeBytes"`
	// Vectors is what the vector index costs (0 without one): its
	// vectors' bytes, decoded, the index compressed on its own, and that
	// over SMGBytes; VectorEncoding is its encoding ("" without one).
	VectorEncoding   string  `json:"vectorEncoding,omitzero"`
	VectorBytes      int64   `json:"vectorBytes"`
	VectorCompressed int64   `json:"vectorCompressed"`
	VectorShare      float64 `json:"vectorShare"`
	// InFile tells whether the .smg holds the vectors (--with-vectors);
	// without, CacheBytes is the size of the vectors kept in its cache
	// folder beside it, and VectorShare is 0.
	InFile     bool  `json:"vectorsInFile,omitzero"`
	CacheBytes int64 `json:"cacheBytes,omitzero"`
}

// sectionShare is one top-level section of a document: its canonical JSON
// size, its size Brotli-compressed on its own, and the share of that in the
// sum of the sections' compressed sizes.
type sectionShare struct {
	Name       string  `json:"name"`
	JSON       int64   `json:"json"`
	Compressed int64   `json:"compressed"`
	Share      float64 `json:"share"`
}

func sizeCommand(stdout io.Writer) *cobra.Command {
	var asJSON, vectors, inFile bool
	var count int
	cmd := &cobra.Command{
		Use:   "size INPUT...",
		Short: "Measure the .smg's size against the raw transcript compressed, and its save and load times",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := os.MkdirTemp("", "smg-bench-size-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			m := sizeMeter{count: count, dir: dir, warn: cmd.ErrOrStderr(), vectors: vectors, inFile: inFile}
			if path, err := exec.LookPath("xz"); err == nil {
				m.xz = path
			}
			rep := sizeReport{Count: count, XZ: m.xz != ""}
			for _, name := range args {
				in, err := m.input(name)
				if err != nil {
					return err
				}
				rep.Inputs = append(rep.Inputs, in)
			}
			if asJSON {
				return writeJSON(stdout, rep)
			}
			return writeSize(stdout, rep)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().IntVar(&count, "count", 3, "time each save and load this many times and keep the medians")
	cmd.Flags().BoolVar(&vectors, "vectors", false, "build the memories with the built-in sentence encoder, as smg does by default (without: no vectors, the figures of the graph and the archive alone)")
	cmd.Flags().BoolVar(&inFile, "with-vectors", false, "with --vectors, write the vectors in the .smg (as smg --with-vectors does) rather than in its cache beside it")
	return cmd
}

// sizeMeter measures conversations, saving their files in dir.
type sizeMeter struct {
	count   int
	vectors bool // build with the built-in encoder
	inFile  bool // write the vectors in the file
	dir     string
	xz      string    // the path of xz, or ""
	warn    io.Writer // where an xz failure is told
}

// input measures each conversation of the input name.
func (s sizeMeter) input(name string) (sizeInput, error) {
	res, err := importer.ReadFile(name, importer.Options{})
	if err != nil {
		return sizeInput{}, err
	}
	base := filepath.Base(name)
	in := sizeInput{Input: base, Format: res.Format, Total: sizeRow{Input: base, Conversation: "total"}}
	target := sizeTargets[res.Format]
	for _, c := range res.Conversations {
		r, err := s.conversation(c, target)
		if err != nil {
			if c.ID != "" {
				return in, fmt.Errorf("%s: %s: %w", name, c.ID, err)
			}
			return in, fmt.Errorf("%s: %w", name, err)
		}
		r.Input = base
		in.Conversations = append(in.Conversations, r)
		in.Total.add(r)
	}
	in.Total.Target = target
	in.Total.finish()
	return in, nil
}

// conversation builds the memory of one conversation and measures it.
func (s sizeMeter) conversation(c importer.Conversation, target float64) (sizeRow, error) {
	r := sizeRow{Conversation: c.ID, Turns: len(c.Turns), Target: target}
	raw, err := rawTranscript(c)
	if err != nil {
		return r, err
	}
	r.RawBytes = int64(len(raw))

	build := noVectors
	if s.vectors {
		build = nil
	}
	m := smg.New(build)
	if _, err := m.IngestAll(context.Background(), c.Turns); err != nil {
		return r, err
	}
	if err := m.WaitVectors(context.Background()); err != nil {
		return r, err
	}
	doc := m.Document()
	// The turns' JSON, brackets and commas; "[]" without turns.
	if want := doc.Metadata.TranscriptBytes + int64(max(len(c.Turns), 1)) + 1; r.RawBytes != want {
		return r, fmt.Errorf("the raw transcript is %d bytes, but metadata.transcriptBytes %d gives %d", r.RawBytes, doc.Metadata.TranscriptBytes, want)
	}

	if r.Q11Bytes, err = brotliSize(raw, 11, 24); err != nil {
		return r, err
	}
	r.XZBytes = -1
	if s.xz != "" {
		n, err := xzSize(s.xz, raw)
		if err != nil {
			fmt.Fprintf(s.warn, "smg-bench: %v; reporting n/a\n", err)
		} else {
			r.XZBytes = n
		}
	}

	enc := &smg.EncodeOptions{WithVectors: s.inFile}
	b, err := m.Marshal(enc)
	if err != nil {
		return r, err
	}
	r.SMGBytes, r.InFile = int64(len(b)), s.inFile
	path := filepath.Join(s.dir, "memory.smg")
	save, err := timeMedian(s.count, func() error { return m.Save(path, enc) })
	if err != nil {
		return r, err
	}
	if fi, err := os.Stat(format.VectorsName(path)); err == nil {
		r.CacheBytes = fi.Size()
	}
	decode, err := timeMedian(s.count, func() error { _, err := format.ReadFile(path, nil); return err })
	if err != nil {
		return r, err
	}
	open, err := timeMedian(s.count, func() error { _, err := smg.Open(path, &smg.OpenOptions{NoVectors: !s.vectors}); return err })
	if err != nil {
		return r, err
	}
	r.SaveMs, r.DecodeMs, r.OpenMs = ms(save), ms(decode), ms(open)

	info, err := format.Stat(doc)
	if err != nil {
		return r, err
	}
	if info.Sections, err = format.SectionSizes(doc); err != nil {
		return r, err
	}
	r.addInfo(info)
	r.finish()
	return r, nil
}

// addInfo takes the sizes of the sections, the artifacts and the vectors
// from the summary of a conversation's memory.
func (r *sizeRow) addInfo(info *format.Info) {
	for _, sec := range info.Sections {
		r.Sections = append(r.Sections, sectionShare{Name: sec.Name, JSON: sec.JSON, Compressed: sec.Compressed})
	}
	r.ArtifactBytes = info.ArtifactBytes
	r.ArtifactStoredBytes = info.ArtifactStoredBytes
	r.ArchivedCodeBytes = info.ArchivedCodeBytes
	if v := info.Vectors; v != nil {
		r.VectorEncoding, r.VectorBytes, r.VectorCompressed = v.Encoding, v.Bytes, v.Compressed
	}
}

// add sums the sizes and times of a conversation into a total.
func (r *sizeRow) add(c sizeRow) {
	r.Turns += c.Turns
	r.RawBytes += c.RawBytes
	r.Q11Bytes += c.Q11Bytes
	if r.XZBytes >= 0 && c.XZBytes >= 0 {
		r.XZBytes += c.XZBytes
	} else {
		r.XZBytes = -1
	}
	r.SMGBytes += c.SMGBytes
	r.SaveMs += c.SaveMs
	r.DecodeMs += c.DecodeMs
	r.OpenMs += c.OpenMs
	if r.Sections == nil {
		r.Sections = make([]sectionShare, len(c.Sections))
		for i, sec := range c.Sections {
			r.Sections[i].Name = sec.Name
		}
	}
	for i, sec := range c.Sections {
		r.Sections[i].JSON += sec.JSON
		r.Sections[i].Compressed += sec.Compressed
	}
	r.ArtifactBytes += c.ArtifactBytes
	r.ArtifactStoredBytes += c.ArtifactStoredBytes
	r.ArchivedCodeBytes += c.ArchivedCodeBytes
	r.VectorBytes += c.VectorBytes
	r.CacheBytes += c.CacheBytes
	r.InFile = c.InFile
	r.VectorCompressed += c.VectorCompressed
	if r.VectorEncoding == "" {
		r.VectorEncoding = c.VectorEncoding
	} else if c.VectorEncoding != "" && c.VectorEncoding != r.VectorEncoding {
		r.VectorEncoding = "mixed"
	}
}

// finish computes the ratios and shares from the sizes.
func (r *sizeRow) finish() {
	r.SMGPerQ11 = ratio(r.SMGBytes, r.Q11Bytes)
	r.SMGPerXZ = -1
	if r.XZBytes >= 0 {
		r.SMGPerXZ = ratio(r.SMGBytes, r.XZBytes)
	}
	r.Met = r.Target > 0 && r.SMGPerQ11 <= r.Target
	var sum int64
	for _, sec := range r.Sections {
		sum += sec.Compressed
	}
	for i := range r.Sections {
		r.Sections[i].Share = ratio(r.Sections[i].Compressed, sum)
	}
	r.ChainRatio = ratio(r.ArtifactBytes, r.ArtifactStoredBytes)
	r.VectorShare = 0
	if r.InFile {
		r.VectorShare = ratio(r.VectorCompressed, r.SMGBytes)
	}
}

// ratio is a over b, or 0 when b is 0.
func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// rawTranscript is the conversation's turns as canonical JSON, numbered
// from 1: what a memory's size is weighed against.
func rawTranscript(c importer.Conversation) ([]byte, error) {
	turns := slices.Clone(c.Turns)
	for i := range turns {
		turns[i].Turn = i + 1
	}
	return spec.MarshalCanonical(turns)
}

// brotliSize is the size of raw Brotli-compressed at quality with a window
// of 2^lgwin bytes.
func brotliSize(raw []byte, quality, lgwin int) (int64, error) {
	var n countWriter
	w := brotli.NewWriterOptions(&n, brotli.WriterOptions{Quality: quality, LGWin: lgwin})
	if _, err := w.Write(raw); err != nil {
		return 0, err
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	return int64(n), nil
}

// xzSize is the size of raw compressed by xz -9.
func xzSize(xz string, raw []byte) (int64, error) {
	var n countWriter
	var stderr bytes.Buffer
	cmd := exec.Command(xz, "-9", "-c")
	cmd.Stdin = bytes.NewReader(raw)
	cmd.Stdout = &n
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("xz -9: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return int64(n), nil
}

// countWriter counts the bytes written to it.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

// timeMedian runs fn count times (at least once) and returns the median of
// its times.
func timeMedian(count int, fn func() error) (time.Duration, error) {
	var ds []time.Duration
	for range max(count, 1) {
		start := time.Now()
		if err := fn(); err != nil {
			return 0, err
		}
		ds = append(ds, time.Since(start))
	}
	return median(ds), nil
}

func writeSize(w io.Writer, rep sizeReport) error {
	var rows []sizeRow
	for _, in := range rep.Inputs {
		rows = append(rows, in.Conversations...)
		if len(in.Conversations) > 1 {
			rows = append(rows, in.Total)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "input\tturns\traw KB\tq11 KB\txz KB\tsmg KB\tsmg/q11\tsmg/xz\ttarget\tmet\tsave ms\tdecode ms\topen ms\t")
	for _, r := range rows {
		xz, perXZ := "n/a", "n/a"
		if r.XZBytes >= 0 {
			xz, perXZ = fmt.Sprintf("%.1f", kb(r.XZBytes)), fmt.Sprintf("%.3f", r.SMGPerXZ)
		}
		target, met := "-", "-"
		if r.Target > 0 {
			target, met = fmt.Sprintf("%.2f", r.Target), "no"
			if r.Met {
				met = "yes"
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%s\t%.1f\t%.3f\t%s\t%s\t%s\t%.1f\t%.1f\t%.1f\t\n", r.label(), r.Turns, kb(r.RawBytes), kb(r.Q11Bytes),
			xz, kb(r.SMGBytes), r.SMGPerQ11, perXZ, target, met, r.SaveMs, r.DecodeMs, r.OpenMs)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "input\t%s\tartifact KB\tstored KB\tchain ratio\tin turns KB\tvectors KB\tof file\tcache KB\t\n", strings.Join(format.SectionNames, "\t"))
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t", r.label())
		for _, sec := range r.Sections {
			fmt.Fprintf(tw, "%.1f %4.1f%%\t", kb(sec.Compressed), 100*sec.Share)
		}
		vectors := "-"
		if r.VectorEncoding != "" {
			vectors = fmt.Sprintf("%.1f %s", kb(r.VectorCompressed), r.VectorEncoding)
		}
		fmt.Fprintf(tw, "%.1f\t%.1f\t%.2f\t%.1f\t%s\t%.1f%%\t%.1f\t\n", kb(r.ArtifactBytes), kb(r.ArtifactStoredBytes), r.ChainRatio, kb(r.ArchivedCodeBytes),
			vectors, 100*r.VectorShare, kb(r.CacheBytes))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	xz := "xz -9"
	if !rep.XZ {
		xz = "xz not on PATH"
	}
	_, err := fmt.Fprintf(w, "sections: KB Brotli-compressed alone and share of their sum; vectors: the vector index Brotli-compressed alone, its encoding, and its share of the .smg (0 when the file holds none: --with-vectors); cache: the vectors kept beside the file; q11: Brotli quality 11, window 24; %s; median of %d runs\n", xz, rep.Count)
	return err
}

// label names a row in the tables: the input, and the conversation if it
// has an id.
func (r sizeRow) label() string {
	if r.Conversation == "" {
		return r.Input
	}
	return r.Input + " " + r.Conversation
}

func kb(n int64) float64 { return float64(n) / 1024 }
