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

// env returns the environment variable key, or nil when it is unset or
// empty.
func (a *app) env(key string) []byte {
	if p, ok := a.lookupEnv(key); ok && p != "" {
		return []byte(p)
	}
	return nil
}

// decodeOptions are the options to read the named file with: the app's
// limits, and a password asked for only when the file is encrypted.
func (a *app) decodeOptions(name string) *smg.DecodeOptions {
	return &smg.DecodeOptions{PasswordFunc: a.passwordFunc(name), Limits: a.limits, CachedVectors: a.withVectors}
}

// keepingPassword are the options to read the named file with, as
// decodeOptions, that also store in *kept the password it asked for, if
// it did: what is written from an encrypted file is encrypted too.
func (a *app) keepingPassword(name string, kept *[]byte) *smg.DecodeOptions {
	opts := a.decodeOptions(name)
	ask := opts.PasswordFunc
	opts.PasswordFunc = func() ([]byte, error) {
		p, err := ask()
		if err == nil {
			*kept = p
		}
		return p, err
	}
	return opts
}

// passwordFunc returns a function that gets the password of the named file.
func (a *app) passwordFunc(name string) func() ([]byte, error) {
	return func() ([]byte, error) { return a.password(name) }
}

// password gets the password that opens the named file.
func (a *app) password(name string) ([]byte, error) {
	return a.askPassword(passwordEnv, name, "the file is encrypted and there is no terminal to ask for its password")
}

// askPassword gets a password from the environment variable env or,
// when it is unset or empty, from the terminal, asking for what's. Without
// a terminal the error is noTerminal and how to set env.
func (a *app) askPassword(env, what, noTerminal string) ([]byte, error) {
	if p := a.env(env); p != nil {
		return p, nil
	}
	p, err := a.prompt(fmt.Sprintf("Password for %s: ", what))
	if errors.Is(err, errNoTerminal) {
		return nil, &passwordError{msg: noTerminal + ": set " + env}
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
	return a.askNewPassword(passwordEnv, name, "there is no terminal to ask for a password to encrypt "+name+" with")
}

// askNewPassword gets a new password for what's as askPassword does, but
// asks twice on the terminal and refuses an empty one.
func (a *app) askNewPassword(env, what, noTerminal string) ([]byte, error) {
	if p := a.env(env); p != nil {
		return p, nil
	}
	p, err := a.prompt(fmt.Sprintf("New password for %s: ", what))
	if errors.Is(err, errNoTerminal) {
		return nil, &passwordError{msg: noTerminal + ": set " + env}
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
