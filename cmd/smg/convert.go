package main

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

func (a *app) catCommand() *cobra.Command {
	var compact bool
	cmd := &cobra.Command{
		Use:   "cat FILE",
		Short: "Print the canonical JSON of a file",
		Long: `Cat prints the document of a file as canonical pretty JSON, decompressed
and, for an encrypted file, decrypted. With --compact it prints the compact
canonical form, without a final newline: its SHA-256 is the content hash.`,
		Args: exactFiles(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			doc, err := a.decodeFile(args[0])
			if err != nil {
				return err
			}
			b, err := format.Marshal(doc, &smg.EncodeOptions{Plain: true, Indent: !compact, WithVectors: a.withVectors})
			if err != nil {
				return err
			}
			_, err = a.stdout.Write(b)
			return err
		}),
	}
	cmd.Flags().BoolVar(&compact, "compact", false, "print the compact canonical form")
	return cmd
}

func (a *app) exportCommand() *cobra.Command {
	var kind, out string
	var minImportance float64
	var types []string
	var maxContent int
	cmd := &cobra.Command{
		Use:   "export FILE --format jsonld|nquads|markdown|dot|cytoscape",
		Short: "Export a file as linked data, a readable report, or a graph to draw",
		Long: `Export prints a memory on stdout, or writes it into the file -o names
(atomically: a failure leaves that file as it was; readable by its owner
only when the memory is encrypted), in one of these formats:

  jsonld     the document as expanded JSON-LD
  nquads     the document as RDF N-Quads (canonical)
  markdown   a report to read: summary and goals, the decisions in force
             with their rationale and rejected alternatives, the facts by
             category, the problems with what solved them, the artifacts
             (with the latest version when at most --max-content bytes),
             the key concepts, what was superseded, and the archive
  dot        the semantic graph in Graphviz's DOT language: shapes and
             colours by node type, edges labelled with their relations and
             drawn thicker when stronger (smg export F --format dot | dot -Tsvg)
  cytoscape  the semantic graph as Cytoscape.js elements JSON

The same memory always exports to the same bytes. --min-importance and
--types keep some nodes only (markdown, dot, cytoscape): a big memory has
thousands. It works offline: the JSON-LD context is embedded in smg.`,
		Args: exactFiles(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			f := format.ExportFormat(kind)
			if !slices.Contains(format.ExportFormats, f) {
				return usageErrorf("--format must be one of %s, not %q", strings.Join(exportFormatNames(), ", "), kind)
			}
			if !f.Selects() && (cmd.Flags().Changed("min-importance") || cmd.Flags().Changed("types")) {
				return usageErrorf("--min-importance and --types select nodes for markdown, dot and cytoscape, not %s, which is the whole document", kind)
			}
			if f != format.ExportMarkdown && cmd.Flags().Changed("max-content") {
				return usageErrorf("--max-content is for --format markdown")
			}
			opts := &format.ExportOptions{MinImportance: minImportance, ContentLimit: maxContent}
			if maxContent <= 0 {
				opts.ContentLimit = -1
			}
			for _, t := range types {
				opts.Types = append(opts.Types, spec.NodeType(t))
			}
			if err := opts.Check(); err != nil {
				return usageErrorf("%v", err)
			}
			// An encrypted memory asks for its password: its export is
			// then for its owner's eyes only.
			var password []byte
			doc, err := smg.ReadDocument(args[0], a.keepingPassword(args[0], &password))
			if err != nil {
				return err
			}
			b, err := format.Export(doc, f, opts)
			if errors.Is(err, format.ErrBadExport) {
				return usageErrorf("%v", err)
			} else if err != nil {
				return inFile(args[0], err)
			}
			if out != "" {
				return format.WriteBytes(out, b, password != nil)
			}
			_, err = a.stdout.Write(b)
			return err
		}),
	}
	cmd.Flags().StringVar(&kind, "format", "", "jsonld, nquads, markdown, dot or cytoscape")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to this file instead of stdout")
	cmd.Flags().Float64Var(&minImportance, "min-importance", 0, "leave out the nodes less important than this (0 to 1)")
	cmd.Flags().StringSliceVar(&types, "types", nil, "keep the nodes of these types only: concept, decision, problem, solution, fact, artifact")
	cmd.Flags().IntVar(&maxContent, "max-content", format.DefaultContentLimit, "markdown: show an artifact's latest version when it is at most this many bytes (0: never)")
	ranged(cmd, "min-importance", 0, 1)
	ranged(cmd, "max-content", 0, unbounded)
	_ = cmd.MarkFlagRequired("format")
	return cmd
}

// exportFormatNames are the values of export's --format.
func exportFormatNames() []string {
	names := make([]string, len(format.ExportFormats))
	for i, f := range format.ExportFormats {
		names[i] = string(f)
	}
	return names
}

// decodeFile reads and decodes the named file, getting its password when
// it is encrypted.
func (a *app) decodeFile(name string) (*spec.Document, error) {
	return smg.ReadDocument(name, a.decodeOptions(name))
}

// kdfs are the values of encrypt's --kdf.
var kdfs = map[string]smg.KDF{
	"argon2id": format.DefaultArgon2id,
	"pbkdf2":   format.DefaultPBKDF2,
}

func (a *app) encryptCommand() *cobra.Command {
	var out, kdf string
	cmd := &cobra.Command{
		Use:   "encrypt FILE",
		Short: "Encrypt a file with a password",
		Long: `Encrypt encrypts a file with AES-256-GCM under a key derived from a password
(argon2id by default, or PBKDF2-HMAC-SHA256), in place or into the file -o
names. The file is replaced atomically: a failure leaves it as it was.
Decrypting gives back its bytes exactly, but for the vectors its cache
kept (.FILE.cache/vectors): the encrypted file holds them, since nothing is
kept beside it.

The password comes from SMG_PASSWORD or is asked for twice on the terminal.`,
		Args: exactFiles(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			k, ok := kdfs[kdf]
			if !ok {
				return usageErrorf("--kdf must be argon2id or pbkdf2, not %q", kdf)
			}
			src := args[0]
			dst := cmp.Or(out, src)
			// Check the file before asking for a password that would not
			// be used: an encrypted one needs a password to be read.
			if _, err := format.InspectFile(src, &smg.DecodeOptions{Limits: a.limits}); errors.Is(err, smg.ErrPasswordRequired) {
				return fmt.Errorf("encrypting %s: %w", src, format.ErrAlreadyEncrypted)
			} else if err != nil {
				return err
			}
			// The changes of its journal first: the encrypted file holds
			// them, and no journal in the clear is left beside it.
			if err := a.compact(cmd, src); err != nil {
				return err
			}
			password, err := a.newPassword(src)
			if err != nil {
				return err
			}
			return a.locked(cmd, dst, func() error {
				return format.EncryptFile(src, dst, &smg.EncodeOptions{Password: password, KDF: k})
			})
		}),
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the encrypted file here instead of replacing FILE")
	cmd.Flags().StringVar(&kdf, "kdf", "argon2id", "key derivation: argon2id or pbkdf2")
	return cmd
}

func (a *app) decryptCommand() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "decrypt FILE",
		Short: "Decrypt an encrypted file",
		Long: `Decrypt decrypts a file, in place or into the file -o names, giving back the
bytes that were encrypted. The file is replaced atomically, and only once
its content is known to be a readable document.

The password comes from SMG_PASSWORD or is asked for on the terminal.`,
		Args: exactFiles(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			src, dst := args[0], cmp.Or(out, args[0])
			return a.locked(cmd, dst, func() error {
				return format.DecryptFile(src, dst, a.decodeOptions(src))
			})
		}),
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the decrypted file here instead of replacing FILE")
	return cmd
}
