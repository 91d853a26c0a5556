package smg_test

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/smg-memory/smg"

// rooms gives each top-level folder its level (DESIGN.md, "Packages and the
// direction of imports"): a package imports only packages of lower levels,
// or of its own folder. Leaves (-1) import nothing else of the module.
var rooms = map[string]int{
	"spec": -1, "classify": -1, "importance": -1, "artifacts": -1, "archive": -1,
	"graph":   1,
	"restore": 2,
	"smg":     3,
	"cmd":     4,
}

func room(importPath string) string {
	rel := strings.TrimPrefix(strings.TrimPrefix(importPath, module), "/")
	top, _, _ := strings.Cut(rel, "/")
	return top
}

// TestImportsPointDown checks the imports of every package of the module
// (tests and testdata aside) against the rooms.
func TestImportsPointDown(t *testing.T) {
	root := ".."
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") && path != root {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files here
		}
		rel, _ := filepath.Rel(root, path)
		self := module + "/" + filepath.ToSlash(rel)
		from := room(self)
		level, ok := rooms[from]
		if !ok {
			t.Errorf("%s is in a folder DESIGN.md does not name", self)
			return nil
		}
		n++
		for _, imp := range pkg.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			to := room(imp)
			switch {
			case to == from:
			case level < 0:
				t.Errorf("%s is a leaf but imports %s", self, imp)
			case to == "cmd" || rooms[to] >= level:
				t.Errorf("%s (%s) imports %s (%s): imports point down", self, from, imp, to)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < len(rooms) {
		t.Errorf("checked %d packages; every room should have one", n)
	}
}
