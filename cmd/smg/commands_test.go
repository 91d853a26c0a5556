package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// TestGolden compares the output of info and export with the golden files.
func TestGolden(t *testing.T) {
	tests := []struct {
		golden string
		args   []string
	}{
		{"info-small.txt", []string{"info"}},
		{"info-small.json", []string{"info", "--json"}},
		{"infohash-small.txt", []string{"info", "--hash"}},
		{"info-full.txt", []string{"info", "--sections"}},
		{"info-full.json", []string{"info", "--sections", "--json"}},
		{"export-small.nq", []string{"export", "--format", "nquads"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			t.Parallel()
			file := strings.SplitN(strings.TrimSuffix(tt.golden, filepath.Ext(tt.golden)), "-", 2)[1] + ".smg"
			name := filepath.Join(testdataDir, file)
			unchanged := readOnly(t, name)
			r := run(t, nil, append(tt.args, name)...)
			unchanged(tt.args[0])
			if r.status != exitOK || r.stderr != "" {
				t.Fatalf("status %d, stderr %q", r.status, r.stderr)
			}
			got := r.stdout
			switch filepath.Ext(tt.golden) {
			case ".json":
				if !json.Valid([]byte(got)) {
					t.Errorf("--json printed invalid JSON:\n%s", got)
				}
			}
			golden(t, tt.golden, got)
		})
	}
}

// TestExportOffline exports with every network connection refused: the
// JSON-LD context must come from the binary.
func TestExportOffline(t *testing.T) {
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		t.Setenv(k, "http://127.0.0.1:1")
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	name, _ := example(t, "small.smg")
	unchanged := readOnly(t, name)
	for _, format := range []string{"jsonld", "nquads"} {
		r := run(t, nil, "export", "--format", format, name)
		if r.status != exitOK {
			t.Fatalf("export --format %s: status %d: %s", format, r.status, r.stderr)
		}
		// Expansion mapped the terms to the vocabulary's IRIs.
		if !strings.Contains(r.stdout, spec.VocabIRI) {
			t.Errorf("export --format %s: no IRI of the vocabulary %s in:\n%.500s", format, spec.VocabIRI, r.stdout)
		}
		if format == "jsonld" && !json.Valid([]byte(r.stdout)) {
			t.Errorf("export --format jsonld: not JSON")
		}

		out := filepath.Join(t.TempDir(), "out")
		if r := run(t, nil, "export", "--format", format, "-o", out, name); r.status != exitOK || r.stdout != "" {
			t.Fatalf("export -o: status %d, stdout %q, stderr %q", r.status, r.stdout, r.stderr)
		}
		// r is the run that printed.
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if format == "nquads" {
			if string(b) != r.stdout {
				t.Errorf("export -o wrote another graph than it prints")
			}
		} else if string(b) != r.stdout {
			t.Errorf("export -o wrote other bytes than it prints")
		}
	}
	unchanged("export")
}

// TestEncryptDecrypt encrypts a memory and decrypts it again, with the
// default key derivation (argon2id), reading it in between.
func TestEncryptDecrypt(t *testing.T) {
	name, orig := example(t, "small.smg")
	const password = "tr0ub4dor&3"
	env := withPassword(password)
	plain := run(t, nil, "cat", name)
	if plain.status != exitOK {
		t.Fatalf("cat: status %d: %s", plain.status, plain.stderr)
	}

	if r := run(t, env, "encrypt", name); r.status != exitOK || r.stdout != "" || r.stderr != "" {
		t.Fatalf("encrypt: status %d, stdout %q, stderr %q", r.status, r.stdout, r.stderr)
	}
	enc, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !format.IsEncrypted(enc) {
		t.Fatalf("encrypt left a file that is not encrypted:\n%.200q", enc)
	}
	unchanged := readOnly(t, name)

	// Read with the password: the same document.
	if r := run(t, env, "cat", name); r.status != exitOK || r.stdout != plain.stdout {
		t.Errorf("cat of the encrypted file: status %d, stderr %q; same output as before: %v", r.status, r.stderr, r.stdout == plain.stdout)
	}
	if r := run(t, env, "info", name); r.status != exitOK || !strings.Contains(r.stdout, "encrypted (AES-256-GCM, key from argon2id") {
		t.Errorf("info of the encrypted file: status %d, stderr %q, stdout:\n%s", r.status, r.stderr, r.stdout)
	}

	// A wrong password.
	r := run(t, withPassword("not it"), "cat", name)
	if r.status != exitPassword || r.stdout != "" || !strings.Contains(r.stderr, "wrong password") {
		t.Errorf("cat with a wrong password: status %d, want %d; stdout %q; stderr:\n%s", r.status, exitPassword, r.stdout, r.stderr)
	}
	// No password, and no terminal to ask.
	r = run(t, nil, "cat", name)
	if r.status != exitPassword || !strings.Contains(r.stderr, passwordEnv) {
		t.Errorf("cat with no password: status %d, want %d; stderr:\n%s", r.status, exitPassword, r.stderr)
	}
	// Encrypting twice.
	r = run(t, env, "encrypt", name)
	if r.status != exitInvalid || !strings.Contains(r.stderr, "already encrypted") {
		t.Errorf("encrypt of an encrypted file: status %d, want %d; stderr:\n%s", r.status, exitInvalid, r.stderr)
	}
	unchanged("reading and encrypting again")

	// Decrypt, with the password from the terminal.
	r = runPrompt(t, nil, []string{password}, "decrypt", name)
	if r.status != exitOK {
		t.Fatalf("decrypt: status %d: %s", r.status, r.stderr)
	}
	got, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(orig) {
		t.Errorf("encrypt then decrypt does not give back the original bytes")
	}

	// Decrypting twice.
	r = run(t, env, "decrypt", name)
	if r.status != exitInvalid || !strings.Contains(r.stderr, "not encrypted") {
		t.Errorf("decrypt of a plain file: status %d, want %d; stderr:\n%s", r.status, exitInvalid, r.stderr)
	}
}

// TestEncryptPrompt asks for a new password on the terminal.
func TestEncryptPrompt(t *testing.T) {
	name, _ := example(t, "small.smg")
	unchanged := readOnly(t, name)
	for _, tt := range []struct {
		answers []string
		want    string
	}{
		{nil, passwordEnv},
		{[]string{"one", "two"}, "differ"},
		{[]string{""}, "empty"},
	} {
		r := runPrompt(t, nil, tt.answers, "encrypt", name)
		if r.status != exitPassword || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("encrypt answering %q: status %d, want %d; stderr %q, want it to mention %q", tt.answers, r.status, exitPassword, r.stderr, tt.want)
		}
	}
	unchanged("encrypt without a password")

	// PBKDF2, into another file, asking twice. (Its 600,000 iterations
	// are costly: this is the test's only use of it.)
	out := filepath.Join(t.TempDir(), "out.smg")
	r := runPrompt(t, nil, []string{"same", "same"}, "encrypt", "--kdf", "pbkdf2", "-o", out, name)
	if r.status != exitOK {
		t.Fatalf("encrypt --kdf pbkdf2 -o: status %d: %s", r.status, r.stderr)
	}
	unchanged("encrypt -o")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !format.IsEncrypted(b) || !strings.Contains(string(b), format.DefaultPBKDF2.Function) {
		t.Errorf("encrypt --kdf pbkdf2 wrote:\n%.300s", b)
	}
}

// TestUsage checks the exit status of command lines that are wrong.
func TestUsage(t *testing.T) {
	name, _ := example(t, "small.smg")
	for _, args := range [][]string{
		{"nope"},
		{"info"},
		{"info", name, name},
		{"info", "--nope", name},
		{"cat", "--password", "x", name},
		{"validate"},
		{"validate", "-x", name},
		{"export", name},
		{"export", "--format", "turtle", name},
		{"encrypt", "--kdf", "scrypt", name},
		{"decrypt"},
	} {
		r := run(t, withPassword("x"), args...)
		if r.status != exitUsage || r.stdout != "" || !strings.HasPrefix(r.stderr, "smg: ") || !strings.Contains(r.stderr, "--help") {
			t.Errorf("smg %s: status %d, want %d; stdout %q; stderr %q", strings.Join(args, " "), r.status, exitUsage, r.stdout, r.stderr)
		}
	}
}

func TestVersion(t *testing.T) {
	r := run(t, nil, "--version")
	if r.status != exitOK || !strings.Contains(r.stdout, version) {
		t.Errorf("--version: status %d, stdout %q", r.status, r.stdout)
	}
}

func TestMissingFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.smg")
	for _, cmd := range []string{"validate", "info", "cat", "encrypt", "decrypt"} {
		r := run(t, withPassword("x"), cmd, missing)
		if r.status != exitFailure || !strings.Contains(r.stdout+r.stderr, "missing.smg: no such file") {
			t.Errorf("%s of a missing file: status %d, want %d; stderr %q", cmd, r.status, exitFailure, r.stderr)
		}
	}
}

// TestValidateOutput checks the text and JSON reports of validate.
func TestValidateOutput(t *testing.T) {
	good, _ := example(t, "small.smg")
	doc, err := format.ReadFile(good, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.SemanticGraph.Nodes) == 0 {
		t.Fatal("small.smg has no nodes")
	}
	doc.SemanticGraph.Edges = append(doc.SemanticGraph.Edges, spec.Edge{
		From: doc.SemanticGraph.Nodes[0].ID, To: "nowhere", Relation: spec.RelRelatedTo, Strength: 0.5,
	})
	bad := filepath.Join(t.TempDir(), "bad.smg")
	writeUnchecked(t, bad, doc)
	notSMG := writeTemp(t, "text.smg", []byte("hello\n"))

	r := run(t, nil, "validate", "--skip-jsonld", good, bad, notSMG)
	if r.status != exitInvalid {
		t.Errorf("status %d, want %d; stderr %q", r.status, exitInvalid, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 4 ||
		lines[0] != good+": ok" ||
		!strings.HasPrefix(lines[1], bad+": $.semanticGraph.edges[") || !strings.Contains(lines[1], "].to: ") ||
		lines[2] != bad+": 1 problem" ||
		!strings.HasPrefix(lines[3], notSMG+": not an smg file") {
		t.Errorf("validate printed:\n%s", r.stdout)
	}
	if r.stderr != "smg: 2 of 3 files failed validation\n" {
		t.Errorf("stderr: %q", r.stderr)
	}

	r = run(t, nil, "validate", "--json", "--skip-jsonld", good, bad, notSMG)
	if r.status != exitInvalid {
		t.Errorf("--json: status %d, want %d", r.status, exitInvalid)
	}
	type report struct {
		File     string           `json:"file"`
		Valid    bool             `json:"valid"`
		Problems []format.Problem `json:"problems"`
		Error    string           `json:"error"`
	}
	var reports []report
	for line := range strings.SplitSeq(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		var rep report
		if err := json.Unmarshal([]byte(line), &rep); err != nil {
			t.Fatalf("--json line %q: %v", line, err)
		}
		reports = append(reports, rep)
	}
	if len(reports) != 3 ||
		!reports[0].Valid || reports[0].File != good || len(reports[0].Problems) != 0 || reports[0].Error != "" ||
		reports[1].Valid || len(reports[1].Problems) != 1 || reports[1].Problems[0].Rule != "semantic" || reports[1].Error != "" ||
		reports[2].Valid || !strings.Contains(reports[2].Error, "not an smg file") {
		t.Errorf("--json printed:\n%s", r.stdout)
	}
}

// TestCatCompact checks that the compact form's hash is the content hash.
func TestCatCompact(t *testing.T) {
	name, _ := example(t, "small.smg")
	r := run(t, nil, "cat", "--compact", name)
	if r.status != exitOK {
		t.Fatalf("status %d: %s", r.status, r.stderr)
	}
	doc, err := format.ReadFile(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := format.ContentHash(doc)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(r.stdout))
	if got := spec.HashPrefix + hex.EncodeToString(sum[:]); got != want {
		t.Errorf("cat --compact hashes to %s, want the content hash %s", got, want)
	}
}

// TestExitStatus checks the mapping of errors to exit statuses.
func TestExitStatus(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("reading x: %w", err) }
	tests := []struct {
		err      error
		status   int
		wantHint bool
	}{
		{nil, exitOK, false},
		{errors.New("disk on fire"), exitFailure, false},
		{&os.PathError{Op: "open", Path: "x", Err: os.ErrNotExist}, exitFailure, false},
		{usageErrorf("missing FILE"), exitUsage, true},
		{&passwordError{msg: "no terminal"}, exitPassword, false},
		{wrap(smg.ErrPasswordRequired), exitPassword, true},
		{wrap(smg.ErrWrongPassword), exitPassword, true},
		{&validateFailure{failed: 1, total: 2, first: wrap(smg.ErrWrongPassword)}, exitPassword, true},
		{&validateFailure{failed: 1, total: 1, first: &format.ValidationError{}}, exitInvalid, false},
		{wrap(smg.ErrUnsupportedVersion), exitInvalid, true},
		{wrap(&format.DecodeError{Err: smg.ErrTruncated}), exitInvalid, false},
		{wrap(&format.LimitError{Limit: "MaxEdges"}), exitInvalid, false},
		{wrap(smg.ErrNotSMG), exitInvalid, true},
	}
	for _, e := range invalidInput {
		tests = append(tests, struct {
			err      error
			status   int
			wantHint bool
		}{wrap(e), exitInvalid, false})
	}
	for _, tt := range tests {
		status, hint := exitStatus(tt.err)
		if status != tt.status {
			t.Errorf("exitStatus(%v) = %d, want %d", tt.err, status, tt.status)
		}
		if tt.wantHint && hint == "" {
			t.Errorf("exitStatus(%v): no hint", tt.err)
		}
	}
}

// TestValidateJournal: a memory with a journal is checked as it is and
// with its journal's changes; a journal that cannot be read fails, naming
// its line, with the status of invalid input.
func TestValidateJournal(t *testing.T) {
	out := filepath.Join(t.TempDir(), "j.smg")
	succeed(t, nil, "add", out, "--no-vectors", "Let's use Postgres for the orders.")
	succeed(t, nil, "add", out, "--no-vectors", "--journal", "--role", "assistant", "Postgres it is.")
	r := run(t, nil, "validate", "--skip-jsonld", out)
	if r.status != exitOK || r.stdout != out+": ok\n"+out+".journal: ok\n" {
		t.Errorf("validate: %+v", r)
	}
	r = run(t, nil, "validate", "--json", "--skip-jsonld", out)
	if !strings.Contains(r.stdout, `"journal":{"file":"`+out+`.journal","valid":true`) {
		t.Errorf("validate --json: %s", r.stdout)
	}
	f, err := os.OpenFile(out+".journal", os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("not json\n{\"op\":\"record\",\"turns\":[]}\n")
	f.Close()
	r = run(t, nil, "validate", "--skip-jsonld", out)
	if r.status != exitInvalid || !strings.HasPrefix(r.stdout, out+": ok\n"+out+".journal: line 3: ") {
		t.Errorf("a broken journal: %+v", r)
	}
}
