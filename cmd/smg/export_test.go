package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// TestExportReport exports the checkout memory as a report and as graphs:
// what the library exports, on stdout or atomically into -o, leaving the
// memory as it was.
func TestExportReport(t *testing.T) {
	name, doc := checkoutFile(t)
	unchanged := readOnly(t, name)
	for _, tt := range []struct {
		format string
		args   []string
		opts   *format.ExportOptions
		want   string
	}{
		{"markdown", nil, nil, "- **Why:** the designers want the payment form to match the rest of the site\n"},
		{"markdown", []string{"--max-content", "0"}, &format.ExportOptions{ContentLimit: -1}, "## Artifacts\n"},
		{"markdown", []string{"--max-content", "100"}, &format.ExportOptions{ContentLimit: 100}, "is over the 100 bytes this report shows"},
		{"dot", nil, nil, "strict digraph {\n"},
		{"dot", []string{"--types", "decision,problem"}, &format.ExportOptions{Types: []spec.NodeType{spec.NodeDecision, spec.NodeProblem}}, `label="solves"`},
		{"cytoscape", []string{"--min-importance", "0.3"}, &format.ExportOptions{MinImportance: 0.3}, `"relation": "supersedes"`},
	} {
		want, err := format.Export(doc, format.ExportFormat(tt.format), tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		args := append([]string{"export", name, "--format", tt.format}, tt.args...)
		r := run(t, nil, args...)
		if r.status != exitOK || r.stderr != "" {
			t.Fatalf("%q: status %d: %s", args, r.status, r.stderr)
		}
		if r.stdout != string(want) || !strings.Contains(r.stdout, tt.want) {
			t.Errorf("%q printed other than the library's export, or without %q:\n%.2000s", args, tt.want, r.stdout)
		}
		out := filepath.Join(t.TempDir(), "out")
		if err := os.WriteFile(out, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if r := run(t, nil, append(args, "-o", out)...); r.status != exitOK || r.stdout != "" || r.stderr != "" {
			t.Fatalf("%q -o: status %d, stdout %q, stderr %q", args, r.status, r.stdout, r.stderr)
		}
		if b, _ := os.ReadFile(out); string(b) != string(want) {
			t.Errorf("%q -o wrote other bytes than it prints", args)
		}
		if es := entries(t, filepath.Dir(out)); len(es) != 1 {
			t.Errorf("%q -o left %q", args, es)
		}
	}
	// The Cytoscape export above kept the important nodes only.
	r := run(t, nil, "export", name, "--format", "cytoscape", "--types", "decision")
	var g format.CytoscapeGraph
	if err := json.Unmarshal([]byte(r.stdout), &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Elements.Nodes) != 3 {
		t.Errorf("--types decision: %d nodes, want the 3 decisions", len(g.Elements.Nodes))
	}
	for _, n := range g.Elements.Nodes {
		if n.Data.Type != spec.NodeDecision {
			t.Errorf("--types decision: a %s", n.Data.Type)
		}
	}
	unchanged("export")
}

// TestExportEncrypted exports an encrypted memory into a file only its
// owner reads; a plain memory's export is readable by all.
func TestExportEncrypted(t *testing.T) {
	name, doc := checkoutFile(t)
	const password = "correct horse"
	cheap := smg.KDF{Function: format.DefaultPBKDF2.Function, Iterations: 1000}
	if err := format.WriteFile(name, doc, &smg.EncodeOptions{Password: []byte(password), KDF: cheap, InsecureKDF: true}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		file string
		env  map[string]string
		perm os.FileMode
	}{
		{name, withPassword(password), 0o600},
		{filepath.Join(testdataDir, "conversations", "checkout.smg"), nil, 0o644},
	} {
		out := filepath.Join(dir, filepath.Base(tt.file)+".md")
		if r := run(t, tt.env, "export", tt.file, "--format", "markdown", "-o", out); r.status != exitOK {
			t.Fatalf("export %s: status %d: %s", tt.file, r.status, r.stderr)
		}
		fi, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != tt.perm {
			t.Errorf("export of %s: mode %v, want %v", tt.file, fi.Mode().Perm(), tt.perm)
		}
		if b, _ := os.ReadFile(out); !strings.Contains(string(b), "· 20 exchanges ·") {
			t.Errorf("export of %s:\n%.300s", tt.file, b)
		}
	}
	if r := run(t, nil, "export", name, "--format", "dot"); r.status != exitPassword {
		t.Errorf("export without the password: status %d: %s", r.status, r.stderr)
	}
	// Bad options are told before a password is asked for.
	if r := run(t, nil, "export", name, "--format", "dot", "--types", "decisions"); r.status != exitUsage {
		t.Errorf("export --types decisions of an encrypted file: status %d: %s", r.status, r.stderr)
	}
}

// TestExportUsage: flags that do not fit the format are usage errors, and
// write nothing.
func TestExportUsage(t *testing.T) {
	name, _ := example(t, "small.smg")
	out := filepath.Join(t.TempDir(), "out")
	for _, args := range [][]string{
		{"--format", "svg"},
		{"--format", "jsonld", "--min-importance", "0.5"},
		{"--format", "nquads", "--types", "fact"},
		{"--format", "dot", "--max-content", "10"},
		{"--format", "dot", "--min-importance", "1.5"},
		{"--format", "cytoscape", "--types", "fact,decisions"},
		{"--format", "markdown", "--min-importance", "x"},
	} {
		args = append([]string{"export", name, "-o", out}, args...)
		r := run(t, nil, args...)
		if r.status != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, "smg export --help") {
			t.Errorf("%q: status %d, stdout %q, stderr %q", args, r.status, r.stdout, r.stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%q wrote %s", args, out)
		}
	}
}
