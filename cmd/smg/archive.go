package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// blockView is what archive --block and --turn print: a block and turns
// of it.
type blockView struct {
	Block format.BlockInfo `json:"block"`
	Turns []spec.Turn      `json:"turns"`
}

func (a *app) archiveCommand() *cobra.Command {
	var block string
	var turn int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "archive FILE [--block N|ID | --turn T]",
		Short: "List the blocks of a memory's deep archive, or read their turns",
		Long: `Archive lists the blocks of a memory's deep archive: each one's turns and
their time range, its size decompressed and compressed, and its summary. It
reads no block for that.

With --block (a block's number, from 1, or its id) it prints the turns of
that block; with --turn the turn of that number. Turns come with their
number, date, speaker or role, external id and whole content: the code
that the archive keeps as references to the artifact vault is put back. Only
the block that holds them is decompressed, and a damaged block fails alone.`,
		Args: exactFiles(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			byBlock, byTurn := cmd.Flags().Changed("block"), cmd.Flags().Changed("turn")
			if byBlock && byTurn {
				return usageErrorf("--block and --turn exclude each other")
			}
			doc, err := a.decodeFile(args[0])
			if err != nil {
				return err
			}
			ar := format.NewArchive(doc, a.limits)
			blocks := ar.Blocks()
			if !byBlock && !byTurn {
				if asJSON {
					return a.writeJSON(blocks)
				}
				return writeBlocks(a.stdout, blocks)
			}
			var v blockView
			if byTurn {
				t, err := ar.Turn(turn)
				if err != nil {
					return err
				}
				i, _ := ar.BlockOf(turn)
				v = blockView{Block: blocks[i], Turns: []spec.Turn{t}}
			} else {
				i, err := blockIndex(ar, block)
				if err != nil {
					return err
				}
				turns, err := ar.Block(i)
				if err != nil {
					return err
				}
				v = blockView{Block: blocks[i], Turns: turns}
			}
			if asJSON {
				return a.writeJSON(v)
			}
			return writeBlockView(a.stdout, v, ar.Len())
		}),
	}
	cmd.Flags().StringVar(&block, "block", "", "print the turns of this block: its number, from 1, or its id")
	cmd.Flags().IntVar(&turn, "turn", 0, "print the turn of this number")
	ranged(cmd, "turn", 1, unbounded)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// blockIndex finds the block that s names by number (from 1) or id.
func blockIndex(ar *format.Archive, s string) (int, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n < 1 || n > ar.Len() {
			return 0, fmt.Errorf("archive block %d (the archive has %d): %w", n, ar.Len(), smg.ErrNotFound)
		}
		return n - 1, nil
	}
	i, ok := ar.BlockIndex(s)
	if !ok {
		return 0, fmt.Errorf("archive block %q: %w", s, smg.ErrNotFound)
	}
	return i, nil
}

// writeBlocks prints blocks as a table.
func writeBlocks(w io.Writer, blocks []format.BlockInfo) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "BLOCK\tID\tTURNS\tFROM\tTO\tCOUNT\tSIZE\tCOMPRESSED\tSUMMARY")
	for _, b := range blocks {
		compressed := "-" // a block of version 1.1: the file's compression is its
		if b.CompressedSize > 0 {
			compressed = fmt.Sprint(b.CompressedSize)
		}
		fmt.Fprintf(tw, "%d\t%s\t%d-%d\t%s\t%s\t%d\t%d\t%s\t%s\n", b.Number, b.ID, b.FirstTurn, b.LastTurn,
			when(b.FirstTimestamp), when(b.LastTimestamp), b.TurnCount, b.UncompressedSize, compressed, dash(oneLine(b.Summary, 60)))
	}
	return tw.Flush()
}

// writeBlockView prints a block's line and then each turn: a line with its
// number, date, speaker and role and external id, its whole content, and
// an empty line.
func writeBlockView(w io.Writer, v blockView, blocks int) error {
	b := v.Block
	if _, err := fmt.Fprintf(w, "%s (block %d of %d): turns %d-%d, %s to %s\n", b.ID, b.Number, blocks, b.FirstTurn, b.LastTurn, when(b.FirstTimestamp), when(b.LastTimestamp)); err != nil {
		return err
	}
	for _, t := range v.Turns {
		var head []string
		head = append(head, fmt.Sprintf("#%d", t.Turn))
		if !t.Timestamp.IsZero() {
			head = append(head, when(t.Timestamp))
		}
		switch {
		case t.Speaker != "" && t.Role != "":
			head = append(head, t.Speaker+" ("+t.Role+")")
		default:
			head = append(head, t.Speaker+t.Role)
		}
		if t.ExternalID != "" {
			head = append(head, "["+t.ExternalID+"]")
		}
		content := t.Content
		if !strings.HasSuffix(content, "\n") {
			content += "\n"
		}
		if _, err := fmt.Fprintf(w, "\n%s\n%s", strings.Join(head, "  "), content); err != nil {
			return err
		}
	}
	return nil
}

// when is a timestamp to the minute, or "-" for none.
func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Format("2006-01-02 15:04")
}
