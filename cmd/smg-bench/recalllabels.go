package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg/extraction"
)

func recallLabelsCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "recall-labels ANSWERS LABELS",
		Short: "Add a labeller's answers on the sample of turns, in plain words, to a recall labels file, as hashes",
		Long: `Recall-labels reads ANSWERS, JSON lines a person wrote on the turns
'smg-bench extract --todo' lists to label for recall, each
{"turn": KEY, "expect": [{"kind": KIND, "words": [WORD...]}...], "note": TEXT},
hashes their words (package smg/extraction, TermHash) so that the labels
quote none of the data, and adds them to LABELS (testdata/labels/recall.jsonl),
which it creates when there is none, in the order of the turns' keys. A turn
LABELS holds already is kept when the answer says the same, and fails the
command, LABELS unchanged, when it says otherwise: labels are added, never
rewritten.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			answersFile, labelsFile := args[0], args[1]
			answers, err := readLabelsFile(answersFile, extraction.ReadRecallAnswers)
			if err != nil {
				return err
			}
			labels, err := readLabelsFile(labelsFile, extraction.ReadRecallLabels)
			if errors.Is(err, fs.ErrNotExist) {
				labels = extraction.RecallLabels{}
			} else if err != nil {
				return err
			}
			before := len(labels)
			if err := extraction.MergeRecallLabels(labels, answers); err != nil {
				return fmt.Errorf("%s into %s: %w", answersFile, labelsFile, err)
			}
			var buf bytes.Buffer
			if err := extraction.WriteRecallLabels(&buf, labels); err != nil {
				return err
			}
			if err := replaceFile(labelsFile, buf.Bytes()); err != nil {
				return err
			}
			_, err = fmt.Fprintf(stdout, "%s: %d turns labelled (%d new)\n", labelsFile, len(labels), len(labels)-before)
			return err
		},
	}
}

// replaceFile replaces the named file with data by a rename, so that a
// failed write leaves it as it was.
func replaceFile(name string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("%s: %w", name, err)
	}
	return os.Rename(tmp.Name(), name)
}
