package main

import (
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
)

// privateEnv names the environment variable that holds the password of a
// collaborator's sealed private part.
const privateEnv = "SMG_PRIVATE_PASSWORD"

// private opens owner's private part of m, asking for its password when
// it is sealed; with seal, a part in the clear (or a new one) is sealed
// from now on with a new password.
func (a *app) private(m *smg.Memory, owner string, seal bool) (*smg.Memory, error) {
	what := owner + "'s private part"
	p, err := m.Private(owner, nil)
	if errors.Is(err, smg.ErrSealed) {
		var pw []byte
		if pw, err = a.askPassword(privateEnv, what, what+" is sealed and there is no terminal to ask for its password"); err != nil {
			return nil, err
		}
		return m.Private(owner, pw)
	}
	if err != nil {
		return nil, err
	}
	if seal && !sealed(m, owner) {
		pw, err := a.askNewPassword(privateEnv, what, "there is no terminal to ask for a password to seal "+what+" with")
		if err != nil {
			return nil, err
		}
		if err := m.SealPrivate(owner, pw, nil); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// sealed tells whether owner's private part of m is sealed.
func sealed(m *smg.Memory, owner string) bool {
	for _, p := range m.PrivateParts() {
		if p.Owner == owner {
			return p.Sealed
		}
	}
	return false
}

const collaboratorsLong = `Collaborators lists the people who share the memory of FILE, and whether
each has a private part, sealed or in the clear. 'smg collaborators add
FILE ID [--name NAME]' adds one (or renames them), 'smg collaborators
remove FILE ID' removes one with their private part (a sealed part only
with --force: no one else can read it).

A collaborator's private part is a memory of their own inside the shared
file: 'smg remember FILE FACT --private ID' saves into it, 'smg facts
FILE --private ID' lists it, and 'smg context FILE QUESTION --as ID'
composes the shared memory with it, and with no one else's. --seal (on
remember) encrypts the part with its owner's password, so that the file
can be shared without showing it: the password is read from ` + privateEnv + `
or asked for on the terminal.`

func (a *app) collaboratorsCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "collaborators FILE",
		Short: "List, add and remove the people who share a memory",
		Long:  collaboratorsLong,
		Args:  exactFiles(1),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			m, err := smg.Open(args[0], &smg.OpenOptions{Decode: *a.decodeOptions(args[0])})
			if err != nil {
				return err
			}
			defer m.Close()
			type row struct {
				smg.Collaborator
				Private string `json:"private,omitempty"` // "", "clear" or "sealed"
			}
			parts := map[string]string{}
			for _, p := range m.PrivateParts() {
				parts[p.Owner] = map[bool]string{false: "clear", true: "sealed"}[p.Sealed]
			}
			rows := []row{}
			for _, c := range m.Collaborators() {
				rows = append(rows, row{Collaborator: c, Private: parts[c.ID]})
			}
			if asJSON {
				return a.writeJSON(rows)
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tPRIVATE PART")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, dash(r.Name), dash(r.Private))
			}
			return tw.Flush()
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the collaborators as JSON")
	var name string
	add := &cobra.Command{
		Use:   "add FILE ID",
		Short: "Add a collaborator to a memory, or rename one",
		Args:  fileAndText("ID", "the collaborator's id, like alice"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			return a.update(cmd, args[0], func(m *smg.Memory) error {
				return m.AddCollaborator(smg.Collaborator{ID: args[1], Name: name})
			})
		}),
	}
	add.Flags().StringVar(&name, "name", "", "the collaborator's name")
	var force bool
	remove := &cobra.Command{
		Use:   "remove FILE ID [--force]",
		Short: "Remove a collaborator and their private part from a memory",
		Long: `Remove removes the collaborator ID from the memory of FILE, with their
private part. A sealed private part can be read by no one but its owner:
removing it destroys what it holds for good, so remove refuses unless
--force is given.`,
		Args: fileAndText("ID", "the collaborator's id"),
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			var r smg.RemovedCollaborator
			err := a.update(cmd, args[0], func(m *smg.Memory) error {
				var err error
				r, err = m.RemoveCollaborator(args[1], &smg.RemoveOptions{DestroySealed: force})
				return err
			})
			if err != nil {
				return err
			}
			who := r.Collaborator.ID
			if r.Collaborator.Name != "" {
				who += " (" + r.Collaborator.Name + ")"
			}
			fmt.Fprintf(a.stdout, "removed collaborator %s\n", who)
			switch {
			case r.Private == nil:
			case r.Private.Sealed:
				fmt.Fprintf(a.stdout, "  and destroyed their sealed private part\n")
			default:
				fmt.Fprintf(a.stdout, "  and their private part\n")
			}
			return nil
		}),
	}
	remove.Flags().BoolVar(&force, "force", false, "remove a collaborator whose private part is sealed, destroying it")
	cmd.AddCommand(add, remove)
	return cmd
}

// update changes the memory of the named file with fn and writes it.
func (a *app) update(cmd *cobra.Command, name string, fn func(m *smg.Memory) error) error {
	f, err := a.fileMemory(name, nil, smg.OpenOptions{})
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Update(cmdContext(cmd), fn)
}
