package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/term"

	"github.com/smg-memory/smg/smg"
)

// envPassword returns SMG_PASSWORD, or nil when it is unset or empty.
func (a *app) envPassword() []byte {
	if p, ok := a.lookupEnv(passwordEnv); ok && p != "" {
		return []byte(p)
	}
	return nil
}

// decodeOptions are the options to read the named file with: the app's
// limits, and a password asked for only when the file is encrypted.
func (a *app) decodeOptions(name string) *smg.DecodeOptions {
	return &smg.DecodeOptions{PasswordFunc: a.passwordFunc(name), Limits: a.limits}
}

// passwordFunc returns a function that gets the password of the named file.
func (a *app) passwordFunc(name string) func() ([]byte, error) {
	return func() ([]byte, error) { return a.password(name) }
}

// password gets the password that opens the named file.
func (a *app) password(name string) ([]byte, error) {
	if p := a.envPassword(); p != nil {
		return p, nil
	}
	p, err := a.prompt(fmt.Sprintf("Password for %s: ", name))
	if errors.Is(err, errNoTerminal) {
		return nil, &passwordError{msg: "the file is encrypted and there is no terminal to ask for its password: set " + passwordEnv}
	}
	if err != nil {
		return nil, fmt.Errorf("reading the password: %w", err)
	}
	if p == nil {
		p = []byte{} // typed, but empty: a password, if a wrong one
	}
	return p, nil
}

// newPassword gets a password to encrypt the named file with, asking twice
// when it asks.
func (a *app) newPassword(name string) ([]byte, error) {
	if p := a.envPassword(); p != nil {
		return p, nil
	}
	p, err := a.prompt(fmt.Sprintf("New password for %s: ", name))
	if errors.Is(err, errNoTerminal) {
		return nil, &passwordError{msg: fmt.Sprintf("there is no terminal to ask for a password to encrypt %s with: set %s", name, passwordEnv)}
	}
	if err != nil {
		return nil, fmt.Errorf("reading the password: %w", err)
	}
	if len(p) == 0 {
		return nil, &passwordError{msg: "the password is empty"}
	}
	again, err := a.prompt("Repeat the password: ")
	if err != nil {
		return nil, fmt.Errorf("reading the password: %w", err)
	}
	if !bytes.Equal(p, again) {
		return nil, &passwordError{msg: "the two passwords differ"}
	}
	return p, nil
}

// inFile prefixes an error with the name of the file it is about, unless
// it names it already.
func inFile(name string, err error) error {
	if err == nil || errors.As(err, new(*fs.PathError)) {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// terminalPrompt reads a password without echo from the controlling
// terminal or, failing that, from stdin when it is a terminal.
func terminalPrompt(prompt string) ([]byte, error) {
	if tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
		defer tty.Close()
		if fd := int(tty.Fd()); term.IsTerminal(fd) {
			fmt.Fprint(tty, prompt)
			p, err := term.ReadPassword(fd)
			fmt.Fprintln(tty)
			return p, err
		}
	}
	if fd := int(os.Stdin.Fd()); term.IsTerminal(fd) {
		fmt.Fprint(os.Stderr, prompt)
		p, err := term.ReadPassword(fd)
		fmt.Fprintln(os.Stderr)
		return p, err
	}
	return nil, errNoTerminal
}
