package main

import (
	"fmt"
	"sync"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
)

// lockOptions are the options of the lock every write of a memory file
// takes: --lock-timeout, and one line on stderr when another process holds
// the lock, so that a command that waits says why.
func (a *app) lockOptions() *smg.LockOptions {
	var once sync.Once
	return &smg.LockOptions{
		Timeout: a.lockTimeout,
		OnWait: func(name string) {
			once.Do(func() {
				fmt.Fprintf(a.stderr, "smg: waiting for %s: another process is changing it (up to %v, --lock-timeout)\n", name, a.lockTimeout)
			})
		},
	}
}

// locked runs fn holding the lock of the named memory file, which fn
// reads and writes with the library's functions that take no lock.
func (a *app) locked(cmd *cobra.Command, name string, fn func() error) error {
	unlock, err := format.LockFile(cmdContext(cmd), name, a.lockOptions())
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}
