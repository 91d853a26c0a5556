package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
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
			b, err := smg.Marshal(doc, &smg.EncodeOptions{Plain: true, Indent: !compact})
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

// exportFormats are the values of export's --format.
var exportFormats = []string{"jsonld", "nquads"}

func (a *app) exportCommand() *cobra.Command {
	var format, out string
	cmd := &cobra.Command{
		Use:   "export FILE --format jsonld|nquads",
		Short: "Print a file as expanded JSON-LD or as RDF N-Quads",
		Long: `Export prints the document of a file as expanded JSON-LD (--format jsonld)
or as RDF in N-Quads (--format nquads), on stdout or into the file -o
names. It works offline: the JSON-LD context is embedded in smg.`,
		Args: exactFiles(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(exportFormats, format) {
				return usageErrorf("--format must be one of %s, not %q", strings.Join(exportFormats, ", "), format)
			}
			doc, err := a.decodeFile(args[0])
			if err != nil {
				return err
			}
			var b []byte
			if format == "jsonld" {
				b, err = smg.ExpandJSONLD(doc)
			} else {
				var s string
				s, err = smg.NQuads(doc)
				b = []byte(s)
			}
			if err != nil {
				return inFile(args[0], err)
			}
			if out != "" {
				return os.WriteFile(out, b, 0o644)
			}
			_, err = a.stdout.Write(b)
			return err
		}),
	}
	cmd.Flags().StringVar(&format, "format", "", "jsonld (expanded JSON-LD) or nquads (RDF N-Quads)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to this file instead of stdout")
	_ = cmd.MarkFlagRequired("format")
	return cmd
}

// decodeFile reads and decodes the named file, getting its password when
// it is encrypted.
func (a *app) decodeFile(name string) (*spec.Document, error) {
	return smg.ReadFile(name, a.decodeOptions(name))
}

// kdfs are the values of encrypt's --kdf.
var kdfs = map[string]smg.KDF{
	"argon2id": smg.DefaultArgon2id,
	"pbkdf2":   smg.DefaultPBKDF2,
}

func (a *app) encryptCommand() *cobra.Command {
	var out, kdf string
	cmd := &cobra.Command{
		Use:   "encrypt FILE",
		Short: "Encrypt a file with a password",
		Long: `Encrypt encrypts a file with AES-256-GCM under a key derived from a password
(argon2id by default, or PBKDF2-HMAC-SHA256), in place or into the file -o
names. The file is replaced atomically: a failure leaves it as it was.
Decrypting gives back its bytes exactly.

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
			if _, err := smg.InspectFile(src, &smg.DecodeOptions{Limits: a.limits}); errors.Is(err, smg.ErrPasswordRequired) {
				return fmt.Errorf("encrypting %s: %w", src, smg.ErrAlreadyEncrypted)
			} else if err != nil {
				return err
			}
			password, err := a.newPassword(src)
			if err != nil {
				return err
			}
			return smg.EncryptFile(src, dst, &smg.EncodeOptions{Password: password, KDF: k})
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
			src := args[0]
			return smg.DecryptFile(src, cmp.Or(out, src), a.decodeOptions(src))
		}),
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the decrypted file here instead of replacing FILE")
	return cmd
}
