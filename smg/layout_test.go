package smg_test

import (
	"fmt"
	"go/build"
	"go/token"
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

// behindTheFacade are the rooms cmd reaches only through smg, which
// forwards what a command needs (DESIGN.md: cmd is thin, smg the facade).
var behindTheFacade = map[string]bool{"graph": true, "restore": true}

// encoderBehindTheFacade: the built-in sentence encoder is reached through
// smg (BuiltinEmbedder, Options.NoVectors), never imported by cmd.
const encoderBehindTheFacade = module + "/classify/encoder"

func room(importPath string) string {
	rel := strings.TrimPrefix(strings.TrimPrefix(importPath, module), "/")
	top, _, _ := strings.Cut(rel, "/")
	return top
}

// TestImportsPointDown checks the imports of every package of the module
// (testdata aside) against the rooms: those of its files, of its test
// files and of its external test package (package foo_test), which may
// import its own room and the rooms below, like the package it tests;
// and cmd imports smg and its packages, never graph or restore.
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
		for _, files := range []struct {
			pkg     string // the package clause of the files
			imports []string
			pos     map[string][]token.Position
		}{
			{pkg.Name, pkg.Imports, pkg.ImportPos},
			{pkg.Name + " (its test files)", pkg.TestImports, pkg.TestImportPos},
			{pkg.Name + "_test", pkg.XTestImports, pkg.XTestImportPos},
		} {
			for _, imp := range files.imports {
				if !strings.HasPrefix(imp, module+"/") {
					continue
				}
				to := room(imp)
				var where []string
				for _, p := range files.pos[imp] {
					name, _ := filepath.Rel(root, p.Filename)
					where = append(where, fmt.Sprintf("%s:%d", filepath.ToSlash(name), p.Line))
				}
				switch {
				case to == from:
				case from == "cmd" && (behindTheFacade[to] || imp == encoderBehindTheFacade):
					t.Errorf("package %s of %s imports %s (%s): cmd goes through smg (%s)", files.pkg, self, imp, to, strings.Join(where, ", "))
				case level < 0:
					t.Errorf("package %s of %s is a leaf but imports %s (%s)", files.pkg, self, imp, strings.Join(where, ", "))
				case to == "cmd" || rooms[to] >= level:
					t.Errorf("package %s of %s (%s) imports %s (%s): imports point down (%s)", files.pkg, self, from, imp, to, strings.Join(where, ", "))
				}
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
