package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/provider"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/smg/tools"
	"github.com/smg-memory/smg/spec"
)

// The commands' model provider is a test server of smgtest.MeaningVector,
// named by the environment each run is given (the process's own is never
// read).

// providerEnv is the environment that names srv as the model provider,
// with SMG_PASSWORD when password is not empty.
func providerEnv(srv *smgtest.ProviderServer, password string) map[string]string {
	env := map[string]string{provider.EnvURL: srv.BaseURL(), provider.EnvEmbedModel: smgtest.EmbeddingModel}
	if password != "" {
		env[passwordEnv] = password
	}
	return env
}

// carQuestion shares no word with the turn that answers it, carTurn, and
// has its meaning (see smgtest.MeaningVector).
const (
	carQuestion = "Which automobile was purchased?"
	carTurn     = 2
)

// carTranscript writes a transcript of 16 turns: the second, far from the
// last ones that working memory holds, answers carQuestion in other words;
// the others are about something else.
func carTranscript(t testing.TB) string {
	t.Helper()
	return carSession(t, 0)
}

// carSession is carTranscript's turns said on day n of 2025 (n > 0), or
// at no time (0): the same words, but other turns than those of another
// day.
func carSession(t testing.TB, n int) string {
	t.Helper()
	turns := []map[string]string{
		{"speaker": "Melanie", "content": "The garden needs watering twice a week in summer."},
		{"speaker": "Caroline", "content": "I finally bought a sedan, a red one with leather seats."},
		{"speaker": "Melanie", "content": "My sister plays the violin in an orchestra."},
		{"speaker": "Caroline", "content": "   "}, // nothing to embed
	}
	for i := range 12 {
		turns = append(turns, map[string]string{"speaker": "Melanie", "content": fmt.Sprintf("Rehearsal %d of the orchestra starts at seven in the hall.", i+1)})
	}
	if n > 0 {
		for _, turn := range turns {
			turn["timestamp"] = time.Date(2025, 1, n, 9, 0, 0, 0, time.UTC).Format(time.RFC3339)
		}
	}
	b, err := json.Marshal(turns)
	if err != nil {
		t.Fatal(err)
	}
	return writeTemp(t, fmt.Sprintf("cars-%d.json", n), b)
}

// carTurns is how many turns carTranscript has, and carEmbedded how many
// of them have something to embed.
const (
	carTurns    = 16
	carEmbedded = 15
)

// vectorIndex reads the vector index of the memory in the named file.
func vectorIndex(t testing.TB, name, password string) (*spec.VectorIndex, *spec.Document) {
	t.Helper()
	doc, err := format.ReadFile(name, &smg.DecodeOptions{Password: []byte(password), CachedVectors: true})
	if err != nil {
		t.Fatal(err)
	}
	return doc.DeepArchive.VectorIndex, doc
}

// TestIngestEmbeds: with a provider in the environment, ingest stores one
// vector of its model per turn with content, in a few requests, and
// embed then finds nothing to do.
func TestIngestEmbeds(t *testing.T) {
	srv := smgtest.NewProviderServer(t)
	env := providerEnv(srv, "")
	out := filepath.Join(t.TempDir(), "cars.smg")
	r := ingest(t, env, carTranscript(t), "-o", out)
	if want := fmt.Sprintf("%d turns (%d new)", carTurns, carTurns); !strings.Contains(r.stdout, want) ||
		!strings.Contains(r.stdout, fmt.Sprintf("%d turns embedded (%s)", carEmbedded, smgtest.EmbeddingModel)) || r.stderr != "" {
		t.Errorf("ingest: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	if n := srv.Requests.Load(); n != 1 {
		t.Errorf("%d requests to embed %d turns, want 1", n, carEmbedded)
	}
	vi, _ := vectorIndex(t, out, "")
	if vi == nil || vi.Model != smgtest.EmbeddingModel || vi.Dimensions != smgtest.EmbeddingDims || len(vi.Embeddings) != carEmbedded {
		t.Fatalf("vector index %+v", vi)
	}
	if slices.ContainsFunc(vi.Embeddings, func(e spec.Embedding) bool { return e.Turn == 4 }) {
		t.Errorf("a vector of turn 4, which has no content")
	}
	validate(t, nil, out)

	unchanged := readOnly(t, out)
	if out := succeed(t, env, "embed", out); !strings.HasSuffix(out, ": 0 turns embedded (meaning-256)\n") {
		t.Errorf("embed after ingest: %q", out)
	}
	unchanged("embed with nothing to embed")
	if n := srv.Requests.Load(); n != 1 {
		t.Errorf("embed with nothing to embed made %d requests", n-1)
	}

	// The same turns again: none is added, nothing is embedded, the
	// file stays as it was.
	r = ingest(t, env, carTranscript(t), "-o", out)
	if want := fmt.Sprintf("%d turns (0 new, %d held already)", carTurns, carTurns); !strings.Contains(r.stdout, want) {
		t.Errorf("ingest of the same turns: %q, want %q", r.stdout, want)
	}
	unchanged("ingest of the same turns")
	if n := srv.Requests.Load(); n != 1 {
		t.Errorf("ingest of the same turns made %d requests", n-1)
	}

	// More turns: only theirs are embedded.
	r = ingest(t, env, carSession(t, 2), "-o", out)
	if !strings.Contains(r.stdout, fmt.Sprintf("%d turns embedded", carEmbedded)) {
		t.Errorf("ingest into the memory: %q", r.stdout)
	}
	if vi, _ := vectorIndex(t, out, ""); vi == nil || len(vi.Embeddings) != 2*carEmbedded {
		t.Errorf("after a second ingest: %+v", vi)
	}
}

// TestNoProvider: --no-provider asks nothing of the provider the
// environment names, even a malformed one, which is otherwise a usage
// error for every command that embeds.
func TestNoProvider(t *testing.T) {
	srv := smgtest.NewProviderServer(t)
	env := providerEnv(srv, "")
	dir := t.TempDir()
	out := filepath.Join(dir, "cars.smg")
	ingest(t, env, carTranscript(t), "-o", out, "--no-provider")
	if vi, _ := vectorIndex(t, out, ""); vi != nil {
		t.Errorf("ingest --no-provider stored vectors: %+v", vi)
	}
	succeed(t, env, "context", "--no-provider", out, carQuestion)
	succeed(t, env, "search", "--no-provider", out, carQuestion)
	succeed(t, env, "remember", "--no-provider", out, "User drives a sedan")
	if n := srv.Requests.Load(); n != 0 {
		t.Errorf("%d requests with --no-provider", n)
	}

	bad := map[string]string{provider.EnvURL: "localhost:11434/v1"}
	for _, args := range [][]string{
		{"ingest", carTranscript(t), "-o", filepath.Join(dir, "new.smg")},
		{"remember", out, "User drives a sedan"},
		{"context", out, carQuestion},
		{"search", out, carQuestion},
		{"mcp", "--memory", filepath.Join(dir, "me.smg")},
		{"embed", out},
	} {
		r := run(t, bad, args...)
		if r.status != exitUsage || !strings.Contains(r.stderr, provider.EnvURL+`: provider: base URL "localhost:11434/v1" is not an http or https URL`) {
			t.Errorf("%s with a malformed %s: status %d: %s", args[0], provider.EnvURL, r.status, r.stderr)
		}
		if args[0] == "embed" || args[0] == "mcp" {
			continue // mcp would serve: see TestMCPProvider
		}
		if r := run(t, bad, append(args[:1:1], append([]string{"--no-provider"}, args[1:]...)...)...); r.status == exitUsage {
			t.Errorf("%s --no-provider with a malformed %s: %s", args[0], provider.EnvURL, r.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new.smg")); err != nil {
		t.Errorf("ingest --no-provider with a malformed provider: %v", err)
	}

	// A chat model alone names no embeddings: embed uses the built-in
	// encoder.
	chat := map[string]string{provider.EnvChatModel: "gpt-4o-mini"}
	if r := run(t, chat, "embed", out); r.status != exitOK || !strings.Contains(r.stdout, "("+smg.BuiltinModel+")") {
		t.Errorf("embed without a provider: status %d: %s%s", r.status, r.stdout, r.stderr)
	}
	if n := srv.Requests.Load(); n != 0 {
		t.Errorf("%d requests without a provider", n)
	}
	succeed(t, chat, "context", out, carQuestion)
}

// TestEmbedCommand embeds a memory made without a provider, encrypted: all
// its turns, then none; the file stays encrypted.
func TestEmbedCommand(t *testing.T) {
	srv := smgtest.NewProviderServer(t)
	const password = "tr0ub4dor&3"
	out := filepath.Join(t.TempDir(), "cars.smg")
	ingest(t, withPassword(password), carTranscript(t), "-o", out)
	succeed(t, withPassword(password), "encrypt", out)
	env := providerEnv(srv, password)

	var got embedReport
	if err := json.Unmarshal([]byte(succeed(t, env, "embed", "--json", out)), &got); err != nil {
		t.Fatal(err)
	}
	if want := (embedReport{File: out, Model: smgtest.EmbeddingModel, Embedded: carEmbedded}); got != want {
		t.Errorf("embed --json = %+v, want %+v", got, want)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !format.IsEncrypted(b) {
		t.Fatalf("embed wrote an encrypted memory in the clear")
	}
	if vi, _ := vectorIndex(t, out, password); vi == nil || len(vi.Embeddings) != carEmbedded {
		t.Fatalf("vector index %+v", vi)
	}
	unchanged := readOnly(t, out)
	if out := succeed(t, env, "embed", out); !strings.HasSuffix(out, ": 0 turns embedded (meaning-256)\n") {
		t.Errorf("embed again: %q", out)
	}
	unchanged("embed again")

	if r := run(t, env, "embed", filepath.Join(t.TempDir(), "none.smg")); r.status != exitFailure {
		t.Errorf("embed of a missing file: status %d: %s", r.status, r.stderr)
	}
}

// TestProviderFails: a provider that answers 500 costs ingest the
// vectors, not the turns, and says how to add them; embed adds them once
// it works. A failure part of the way saves what was embedded.
func TestProviderFails(t *testing.T) {
	srv := smgtest.NewProviderServer(t)
	env := providerEnv(srv, "")
	out := filepath.Join(t.TempDir(), "cars.smg")
	srv.Fail.Store(http.StatusInternalServerError)
	r := run(t, env, "ingest", carTranscript(t), "-o", out)
	if r.status != exitFailure || !strings.Contains(r.stdout, fmt.Sprintf("%d turns (%d new)", carTurns, carTurns)) ||
		!strings.Contains(r.stderr, "the turns are saved, but not all their vectors: embedding turns 1 to 16: ") ||
		!strings.Contains(r.stderr, "500 Internal Server Error") ||
		!strings.Contains(r.stderr, "smg: hint: what was done is saved; once the provider works, 'smg embed "+out+"' embeds") {
		t.Errorf("ingest with a failing provider: status %d\nstdout %q\nstderr %s", r.status, r.stdout, r.stderr)
	}
	vi, doc := vectorIndex(t, out, "")
	if vi != nil || doc.Metadata.TotalExchanges != carTurns {
		t.Fatalf("after a failed embedding: %d turns, vectors %+v", doc.Metadata.TotalExchanges, vi)
	}
	if r := run(t, env, "embed", out); r.status != exitFailure || !strings.Contains(r.stdout, ": 0 turns embedded") ||
		!strings.Contains(r.stderr, "'smg embed "+out+"'") {
		t.Errorf("embed with a failing provider: status %d, stdout %q\n%s", r.status, r.stdout, r.stderr)
	}

	srv.Fail.Store(0)
	if out := succeed(t, env, "embed", out); !strings.HasSuffix(out, fmt.Sprintf(": %d turns embedded (meaning-256)\n", carEmbedded)) {
		t.Errorf("embed once the provider works: %q", out)
	}
	if vi, _ := vectorIndex(t, out, ""); vi == nil || len(vi.Embeddings) != carEmbedded {
		t.Fatalf("vector index %+v", vi)
	}

	// Part of the way: more turns than the memory embeds at a time, the
	// provider failing on the last one.
	many := make([]map[string]string, 600)
	for i := range many {
		many[i] = map[string]string{"role": "user", "content": fmt.Sprintf("Note %d: the parcel left the depot.", i+1)}
	}
	b, err := json.Marshal(many)
	if err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(t.TempDir(), "parcels.smg")
	ingest(t, nil, writeTemp(t, "parcels.json", b), "-o", big)
	srv.FailOn(many[len(many)-1]["content"])
	r = run(t, env, "embed", "--json", big)
	var got embedReport
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("embed --json: %v: %q", err, r.stdout)
	}
	if r.status != exitFailure || got.Embedded == 0 || got.Embedded >= len(many) || !strings.Contains(r.stderr, "smg: hint: what was done is saved") {
		t.Fatalf("embed failing part of the way: status %d, %+v\n%s", r.status, got, r.stderr)
	}
	if vi, _ := vectorIndex(t, big, ""); vi == nil || len(vi.Embeddings) != got.Embedded {
		t.Fatalf("%d embedded, but the file holds %+v", got.Embedded, vi)
	}
	srv.FailOn("")
	if out := succeed(t, env, "embed", big); !strings.HasSuffix(out, fmt.Sprintf(": %d turns embedded (meaning-256)\n", len(many)-got.Embedded)) {
		t.Errorf("embed the rest: %q", out)
	}
}

// TestSplitProviderFails: with --split, the memories after the provider
// failed are saved without trying it again, and the hint names them all.
func TestSplitProviderFails(t *testing.T) {
	srv := smgtest.NewProviderServer(t)
	srv.Fail.Store(http.StatusServiceUnavailable)
	dir := t.TempDir()
	out := filepath.Join(dir, "cars.smg")
	one, two := carTranscript(t), carTranscript(t)
	r := run(t, providerEnv(srv, ""), "ingest", "--split", one, two, "-o", out)
	a, b := filepath.Join(dir, "cars-1.smg"), filepath.Join(dir, "cars-2.smg")
	if r.status != exitFailure || !strings.Contains(r.stderr, "'smg embed "+a+"', 'smg embed "+b+"'") {
		t.Errorf("ingest --split with a failing provider: status %d\n%s", r.status, r.stderr)
	}
	for _, name := range []string{a, b} {
		if _, doc := vectorIndex(t, name, ""); doc.Metadata.TotalExchanges != carTurns {
			t.Errorf("%s: %d turns", name, doc.Metadata.TotalExchanges)
		}
	}
	if n := srv.Requests.Load(); n != 1 {
		t.Errorf("%d requests to a failing provider, want 1", n)
	}
}

// TestProviderQuestions: context and search send the question to the
// provider, and find the turn near it in meaning that shares none of its
// words, which full text alone does not.
func TestProviderQuestions(t *testing.T) {
	srv := smgtest.NewProviderServer(t)
	env := providerEnv(srv, "")
	out := filepath.Join(t.TempDir(), "cars.smg")
	ingest(t, env, carTranscript(t), "-o", out)
	asked := func() []string {
		texts := srv.Texts()
		return texts[len(texts)-1]
	}
	hasCar := func(items []smg.Found) bool {
		return slices.ContainsFunc(items, func(it smg.Found) bool { return it.Kind == "turn" && it.Turn == carTurn })
	}

	// Without the provider nothing is found, and nothing was given to
	// keep: the context may be empty.
	if res := contextOrNothing(t, nil, out, carQuestion); hasCar(res.Items) {
		t.Fatalf("full text alone found turn %d: the test shows nothing", carTurn)
	}
	if res := contextOrNothing(t, env, "--no-provider", out, carQuestion); hasCar(res.Items) {
		t.Errorf("context --no-provider found turn %d", carTurn)
	}
	before := srv.Requests.Load()
	res := contextJSON(t, env, out, carQuestion)
	if !hasCar(res.Items) || !strings.Contains(res.Text, "red one with leather seats") || len(res.Warnings) != 0 {
		t.Errorf("context with the provider lacks turn %d (warnings %q):\n%s", carTurn, res.Warnings, res.Text)
	}
	if n := srv.Requests.Load() - before; n != 1 || !slices.Equal(asked(), []string{carQuestion}) {
		t.Errorf("context: %d requests, the last for %q", n, asked())
	}

	search := func(env map[string]string, args ...string) []smg.Found {
		t.Helper()
		var found []smg.Found
		if err := json.Unmarshal([]byte(succeed(t, env, append([]string{"search", "--json"}, args...)...)), &found); err != nil {
			t.Fatal(err)
		}
		return found
	}
	if hasCar(search(nil, out, carQuestion)) {
		t.Errorf("search without a provider found turn %d", carTurn)
	}
	before = srv.Requests.Load()
	if !hasCar(search(env, out, carQuestion)) {
		t.Errorf("search with the provider lacks turn %d", carTurn)
	}
	if n := srv.Requests.Load() - before; n != 1 || !slices.Equal(asked(), []string{carQuestion}) {
		t.Errorf("search: %d requests, the last for %q", n, asked())
	}

	// A provider that fails costs the context its vectors, with a
	// warning, and search its vectors, silently.
	srv.Fail.Store(http.StatusTooManyRequests)
	r := run(t, env, "context", out, carQuestion)
	if r.status != exitOK || !strings.Contains(r.stderr, "smg: warning: embedding the question: ") || !strings.Contains(r.stderr, "429") {
		t.Errorf("context with a failing provider: status %d: %s", r.status, r.stderr)
	}
	succeed(t, env, "search", out, carQuestion)
}

// TestRememberByMeaning: with a provider, remember takes a fact whose
// vector is that of a saved one for a duplicate, which the text alone
// does not.
func TestRememberByMeaning(t *testing.T) {
	srv := smgtest.NewProviderServer(t)
	env := providerEnv(srv, "")
	dir := t.TempDir()
	for _, tc := range []struct {
		env       map[string]string
		duplicate bool
	}{
		{nil, false},
		{env, true},
	} {
		name := filepath.Join(dir, fmt.Sprintf("me-%v.smg", tc.duplicate))
		succeed(t, tc.env, "remember", name, "User drives a sedan")
		before := srv.Requests.Load()
		var r smg.Remembered
		if err := json.Unmarshal([]byte(succeed(t, tc.env, "remember", "--json", name, "User drives a car")), &r); err != nil {
			t.Fatal(err)
		}
		if r.Duplicate != tc.duplicate || (tc.duplicate && (r.Fact.ID != "fact-user-drives-a-sedan" || r.Similarity <= smg.DuplicateCosine)) {
			t.Errorf("with the provider %v: remember = %+v", tc.env != nil, r)
		}
		if n := srv.Requests.Load() - before; tc.env != nil && n == 0 {
			t.Errorf("remember asked nothing of the provider")
		}
	}
}

// TestMCPProvider: the MCP server's memories use the provider of its
// environment, unless --no-provider: save_memory takes a fact near a
// saved one in meaning for a duplicate.
func TestMCPProvider(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := smgtest.NewProviderServer(t)
	env := []string{provider.EnvURL + "=" + srv.BaseURL(), provider.EnvEmbedModel + "=" + smgtest.EmbeddingModel}
	for _, off := range []bool{false, true} {
		args := []string{"--memory", filepath.Join(t.TempDir(), "me.smg")}
		if off {
			args = append(args, "--no-provider")
		}
		s := startMCPEnv(t, ctx, env, args...)
		before := srv.Requests.Load()
		save := func(fact string) tools.Reply {
			r, isErr := s.call(t, ctx, "save_memory", map[string]any{"content": fact, "category": "context", "reasoning": "Said so."})
			if isErr {
				t.Fatalf("save_memory %q: %+v\n%s", fact, r, s.stderr)
			}
			return r
		}
		save("User drives a sedan")
		if r := save("User drives a car"); r.Duplicate == off {
			t.Errorf("--no-provider %v: %+v", off, r)
		}
		if n := srv.Requests.Load() - before; (n == 0) != off {
			t.Errorf("--no-provider %v: %d requests", off, n)
		}
	}
}
