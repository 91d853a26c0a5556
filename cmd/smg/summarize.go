package main

import (
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
)

// summaryReport is what summarize prints: the model, and the blocks it
// summarized this time with their new summaries.
type summaryReport struct {
	File   string         `json:"file"`
	Model  string         `json:"model"`
	Blocks []summaryEntry `json:"blocks"`
	// Left are the blocks that keep their extractive summary because the
	// model failed on them.
	Left []string `json:"left,omitempty"`
}

type summaryEntry struct {
	ID      string `json:"id"`
	Turns   [2]int `json:"turnRange"`
	Summary string `json:"summary"`
}

func (a *app) summarizeCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "summarize FILE",
		Short: "Have a model summarize the blocks of a memory's deep archive",
		Long: `Summarize has a language model write the summary of each closed block of
the deep archive of FILE (one of the block size's turns, 50 by default), in
place of the extractive summary the memory wrote, in at most 60 words, and
records the model's name in the block (summaryModel, spec §8.2.2). Blocks
the same model summarized already are left as they are: a second run asks
nothing. Search finds the blocks by their new summaries.

The model is any server with OpenAI's chat completions API, named by the
environment: SMG_PROVIDER_URL (the API's root: https://api.openai.com/v1,
or a local server such as Ollama's http://localhost:11434/v1), SMG_CHAT_MODEL
(the model; default gpt-4o-mini) and SMG_API_KEY (sent when set;
OPENAI_API_KEY is sent to OpenAI's own server only).

The file is written atomically, encrypted again if it was, when at least
one block was summarized, under its lock (.FILE.lock beside it) and on top
of what another process wrote meanwhile; a block the model fails on keeps its extractive
summary, and the command then exits 1 after writing the others.`,
		Args: exactFiles(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			sum, err := a.summarizer()
			if err != nil {
				return err
			}
			name := args[0]
			f, err := a.fileMemory(name, nil, smg.OpenOptions{Summarizer: sum})
			if err != nil {
				return err
			}
			defer f.Close()
			// Under the file's lock, so that the summaries are written
			// on top of whatever another process wrote meanwhile.
			var serr error
			r := summaryReport{File: name, Model: sum.ChatModel(), Blocks: []summaryEntry{}}
			err = f.Update(cmdContext(cmd), func(m *smg.Memory) error {
				before := map[string]string{} // block id → model of its summary
				for _, b := range m.Document().DeepArchive.Blocks {
					before[b.ID] = b.SummaryModel
				}
				var n int
				n, serr = m.SummarizeBlocks(cmdContext(cmd))
				if n == 0 {
					return errNothingToWrite
				}
				for _, b := range m.Document().DeepArchive.Blocks {
					if b.SummaryModel == r.Model && before[b.ID] != r.Model {
						r.Blocks = append(r.Blocks, summaryEntry{ID: b.ID, Turns: b.TurnRange, Summary: b.Summary})
					}
				}
				return nil // written, even when the model failed on some
			})
			if err != nil && !errors.Is(err, errNothingToWrite) {
				return errors.Join(serr, err) // the file could not be read, or written
			}
			if se, ok := errors.AsType[*smg.SummaryError](serr); ok {
				r.Left = se.Blocks
			}
			if asJSON {
				err = a.writeJSON(r)
			} else {
				err = a.printSummaries(r)
			}
			return errors.Join(serr, err)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// printSummaries prints one line per block the model summarized, then
// how many it did.
func (a *app) printSummaries(r summaryReport) error {
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	for _, b := range r.Blocks {
		fmt.Fprintf(tw, "%s\t%d-%d\t%s\n", b.ID, b.Turns[0], b.Turns[1], oneLine(b.Summary, 100))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	left := ""
	if len(r.Left) > 0 {
		left = fmt.Sprintf("; %d left with their extractive summary", len(r.Left))
	}
	_, err := fmt.Fprintf(a.stdout, "%s: %d blocks summarized by %s%s\n", r.File, len(r.Blocks), r.Model, left)
	return err
}
