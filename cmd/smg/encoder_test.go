package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
)

// TestIngestBuiltinEncoder: with no provider, ingest embeds every turn
// with content with the built-in encoder; --no-vectors embeds none, and
// the memory answers all the same.
func TestIngestBuiltinEncoder(t *testing.T) {
	dir := t.TempDir()
	with, without := filepath.Join(dir, "with.smg"), filepath.Join(dir, "without.smg")
	r := runVectors(t, nil, "ingest", carTranscript(t), "-o", with)
	if r.status != exitOK || !strings.Contains(r.stdout, fmt.Sprintf("%d turns embedded (%s)", carEmbedded, smg.BuiltinModel)) {
		t.Fatalf("ingest: status %d: %s%s", r.status, r.stdout, r.stderr)
	}
	vi, _ := vectorIndex(t, with, "")
	if vi == nil || vi.Model != smg.BuiltinModel || len(vi.Embeddings) != carEmbedded {
		t.Fatalf("vectors of the built-in encoder: %+v", vi)
	}
	// The file names the model and holds no vector: its cache does, and
	// --with-vectors puts them in the file.
	if doc, err := format.ReadFile(with, nil); err != nil || doc.DeepArchive.VectorIndex.Model != smg.BuiltinModel || len(doc.DeepArchive.VectorIndex.Embeddings) != 0 {
		t.Fatalf("the file's own vector index: %+v (%v)", doc.DeepArchive.VectorIndex, err)
	}
	if info := succeed(t, nil, "info", with); !strings.Contains(info, fmt.Sprintf(": %d vectors for these bytes", carEmbedded)) || !regexp.MustCompile(`(?m)^embeddings +0 in the file$`).MatchString(info) {
		t.Errorf("info does not tell where the vectors are:\n%s", info)
	}
	// An export holds them when asked.
	for _, asked := range []bool{false, true} {
		args := []string{"export", with, "--format", "jsonld"}
		if asked {
			args = append(args, "--with-vectors")
		}
		if got := strings.Contains(succeed(t, nil, args...), "smg/v1#embedding"); got != asked {
			t.Errorf("export %q: vectors %v", args, got)
		}
	}
	// Encrypted, the file holds them: nothing is kept beside it.
	encrypted := filepath.Join(dir, "encrypted.smg")
	if r := run(t, withPassword("hunter2"), "encrypt", "--kdf", "pbkdf2", with, "-o", encrypted); r.status != exitOK {
		t.Fatalf("encrypt: status %d: %s", r.status, r.stderr)
	}
	if vi, _ := vectorIndex(t, encrypted, "hunter2"); vi == nil || len(vi.Embeddings) != carEmbedded {
		t.Errorf("the encrypted file holds the vectors %+v", vi)
	}
	inFile := filepath.Join(dir, "in-file.smg")
	if r := runVectors(t, nil, "ingest", carTranscript(t), "-o", inFile, "--with-vectors"); r.status != exitOK {
		t.Fatalf("ingest --with-vectors: status %d: %s", r.status, r.stderr)
	}
	if doc, err := format.ReadFile(inFile, nil); err != nil || len(doc.DeepArchive.VectorIndex.Embeddings) != carEmbedded {
		t.Fatalf("ingest --with-vectors: the file holds %+v (%v)", doc.DeepArchive.VectorIndex, err)
	}
	if _, err := os.Stat(format.VectorsName(inFile)); !os.IsNotExist(err) {
		t.Errorf("ingest --with-vectors left vectors in the cache too: %v", err)
	}
	r = runVectors(t, nil, "context", with, carQuestion, "--no-index-cache")
	if r.status != exitOK || !strings.Contains(r.stdout, "red one with leather seats") || r.stderr != "" {
		t.Errorf("context by meaning: status %d:\n%s%s", r.status, r.stdout, r.stderr)
	}

	r = runVectors(t, nil, "ingest", carTranscript(t), "-o", without, "--no-vectors")
	if r.status != exitOK || strings.Contains(r.stdout, "embedded") {
		t.Fatalf("ingest --no-vectors: status %d: %s%s", r.status, r.stdout, r.stderr)
	}
	if vi, _ := vectorIndex(t, without, ""); vi != nil {
		t.Fatalf("ingest --no-vectors stored vectors: %+v", vi)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"context", without, "Which orchestra rehearsal?", "--no-vectors", "--no-index-cache"}, "Rehearsal 1 of the orchestra"},
		{[]string{"search", without, "orchestra", "--no-vectors", "--no-index-cache"}, "Rehearsal"},
		{[]string{"remember", without, "User drives a sedan", "--no-vectors"}, "saved"},
	} {
		if r := runVectors(t, nil, c.args...); r.status != exitOK || !strings.Contains(r.stdout, c.want) {
			t.Errorf("%s --no-vectors: status %d: %s%s", c.args[0], r.status, r.stdout, r.stderr)
		}
	}
	if vi, _ := vectorIndex(t, without, ""); vi != nil {
		t.Errorf("remember --no-vectors stored vectors: %+v", vi)
	}
}

// TestEmbedBuiltinEncoder: embed, with no provider, embeds a memory made
// without vectors, then nothing; and embeds again with the built-in
// encoder a memory of a provider's vectors.
func TestEmbedBuiltinEncoder(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cars.smg")
	ingest(t, nil, carTranscript(t), "-o", out, "--no-vectors")
	for i, want := range []int{carEmbedded, 0} {
		var got embedReport
		if err := json.Unmarshal([]byte(succeed(t, nil, "embed", "--json", out)), &got); err != nil {
			t.Fatal(err)
		}
		if got != (embedReport{File: out, Model: smg.BuiltinModel, Embedded: want}) {
			t.Errorf("embed %d: %+v, want %d turns embedded by %s", i+1, got, want, smg.BuiltinModel)
		}
	}
	if vi, _ := vectorIndex(t, out, ""); vi == nil || vi.Model != smg.BuiltinModel || len(vi.Embeddings) != carEmbedded {
		t.Fatalf("vectors after embed: %+v", vi)
	}

	// A provider's vectors: kept by the commands without the provider,
	// replaced by embed.
	srv := smgtest.NewProviderServer(t)
	theirs := filepath.Join(dir, "theirs.smg")
	ingest(t, providerEnv(srv, ""), carTranscript(t), "-o", theirs)
	if r := runVectors(t, nil, "remember", theirs, "User drives a sedan"); r.status != exitOK {
		t.Fatalf("remember: status %d: %s", r.status, r.stderr)
	}
	if vi, _ := vectorIndex(t, theirs, ""); vi == nil || vi.Model != smgtest.EmbeddingModel || len(vi.Embeddings) != carEmbedded {
		t.Fatalf("the provider's vectors after remember without it: %+v", vi)
	}
	var got embedReport
	if err := json.Unmarshal([]byte(succeed(t, nil, "embed", "--json", theirs)), &got); err != nil {
		t.Fatal(err)
	}
	if got.Model != smg.BuiltinModel || got.Embedded != carEmbedded {
		t.Errorf("embed of a provider's memory: %+v", got)
	}
	if vi, _ := vectorIndex(t, theirs, ""); vi == nil || vi.Model != smg.BuiltinModel || len(vi.Embeddings) != carEmbedded {
		t.Errorf("vectors after embed: %+v", vi)
	}
}

// TestIngestProgress: --progress shows the turns read, then embedded, on
// stderr, which is no terminal here.
func TestIngestProgress(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cars.smg")
	r := runVectors(t, nil, "ingest", carTranscript(t), "-o", out, "--progress")
	if r.status != exitOK || !strings.Contains(r.stderr, "ingesting") || !strings.Contains(r.stderr, "embedding") {
		t.Errorf("ingest --progress: status %d, stderr %q", r.status, r.stderr)
	}
	if r := runVectors(t, nil, "ingest", carTranscript(t), "-o", out); r.status != exitOK || r.stderr != "" {
		t.Errorf("ingest without a terminal: status %d, stderr %q", r.status, r.stderr)
	}
}

// TestEmbedProgress: embed --progress shows the turns embedded on stderr,
// which is no terminal here, and nothing without it.
func TestEmbedProgress(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cars.smg")
	ingest(t, nil, carTranscript(t), "-o", out, "--no-vectors")
	r := runVectors(t, nil, "embed", out, "--progress")
	if r.status != exitOK || !strings.Contains(r.stderr, "embedding") || !strings.Contains(r.stdout, fmt.Sprintf("%d turns embedded", carEmbedded)) {
		t.Errorf("embed --progress: status %d, stdout %q, stderr %q", r.status, r.stdout, r.stderr)
	}
	ingest(t, nil, carTranscript(t), "-o", out, "--no-vectors")
	if r := runVectors(t, nil, "embed", out); r.status != exitOK || r.stderr != "" {
		t.Errorf("embed without a terminal: status %d, stderr %q", r.status, r.stderr)
	}
}
