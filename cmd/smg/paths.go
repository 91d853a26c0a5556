package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// checkFolder fails unless the folder of the named file, which is to be
// made, exists: smg makes no folders, and says which one is missing.
// Every command that makes a memory file checks it first.
func checkFolder(name string) error {
	dir := filepath.Dir(name)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("cannot make %s: the folder %s does not exist (smg makes no folders: create it first): %w", name, dir, fs.ErrNotExist)
	case err != nil:
		return fmt.Errorf("cannot make %s: %w", name, err)
	case !fi.IsDir():
		return fmt.Errorf("cannot make %s: %s is not a folder", name, dir)
	}
	return nil
}
