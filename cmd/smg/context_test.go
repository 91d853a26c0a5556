package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
)

// The questions of the tests about the checkout conversation, and what
// the conversation says that answers them.
const (
	elementsQuestion = "Why did we choose Stripe Elements over Stripe Checkout?"
	elementsEvidence = "Stripe Elements, because the designers want the payment form to match the rest of the site"
	webhookQuestion  = "How did we fix the webhook returning 401 in production?"
)

// contextJSON runs smg context --json and returns the result, checked
// against its budget by counting its text with its tokenizer.
func contextJSON(t testing.TB, env map[string]string, args ...string) *smg.ContextResult {
	t.Helper()
	res := contextOrNothing(t, env, args...)
	if len(res.Items) == 0 || res.Text == "" {
		t.Errorf("context --json %q: %d items, text %q", args, len(res.Items), res.Text)
	}
	return res
}

// contextOrNothing runs context --json as contextJSON does, but a context
// may be empty: nothing found, nothing given to keep.
func contextOrNothing(t testing.TB, env map[string]string, args ...string) *smg.ContextResult {
	t.Helper()
	r := run(t, env, append([]string{"context", "--json"}, args...)...)
	if r.status != exitOK || r.stderr != "" {
		t.Fatalf("context --json %q: status %d: %s", args, r.status, r.stderr)
	}
	var res smg.ContextResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("context --json: %v\n%s", err, r.stdout)
	}
	if res.Partial || len(res.Items) == 0 != (res.Text == "") {
		t.Errorf("context --json %q: %d items, partial %v, text %q", args, len(res.Items), res.Partial, res.Text)
	}
	tok, err := smg.NewTokenizer(res.Tokenizer)
	if err != nil {
		t.Fatal(err)
	}
	if n := tok.Count(res.Text); n != res.Tokens || n > res.Budget {
		t.Errorf("context %q: %d tokens by %s, it says %d, over a budget of %d?", args, n, res.Tokenizer, res.Tokens, res.Budget)
	}
	return &res
}

// entries lists the names in a directory, but for the lock files of
// memories.
func entries(t testing.TB, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		// The lock file of a memory written under its lock (".m.smg.lock")
		// stays, empty, for the next writer: it is no leftover.
		if n := de.Name(); !strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".smg.lock") {
			names = append(names, n)
		}
	}
	return names
}

func TestContextCommand(t *testing.T) {
	name, _ := checkoutFile(t)
	unchanged := readOnly(t, name)

	r := run(t, nil, "context", name, elementsQuestion)
	if r.status != exitOK || r.stderr != "" {
		t.Fatalf("context: status %d: %s", r.status, r.stderr)
	}
	if !strings.Contains(r.stdout, elementsEvidence) {
		t.Errorf("the context lacks %q:\n%s", elementsEvidence, r.stdout)
	}
	// The text, the provenance table, and the size.
	if !regexp.MustCompile(`(?m)^SECTION +KIND +ID +TURN +SCORE +TOKENS$`).MatchString(r.stdout) ||
		!regexp.MustCompile(`(?m)^Decisions +node +decision-stripe-elements +3 \(msg-003\) +[0-9.]+ +[0-9]+$`).MatchString(r.stdout) {
		t.Errorf("no provenance of the decision, from turn 3:\n%s", r.stdout)
	}
	m := regexp.MustCompile(`\n\n([0-9]+) of 1000 tokens \(cl100k\)\n$`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Errorf("no footer with the size:\n%s", r.stdout)
	}

	// --json: the same context, with its items.
	res := contextJSON(t, nil, name, elementsQuestion)
	if res.Budget != 1000 || res.Tokenizer != smg.CL100K || !strings.HasPrefix(r.stdout, res.Text) {
		t.Errorf("--json: budget %d, tokenizer %s, or another text than without it", res.Budget, res.Tokenizer)
	}
	if m != nil && m[1] != strconv.Itoa(res.Tokens) {
		t.Errorf("the footer says %s tokens, --json %d", m[1], res.Tokens)
	}

	// The 401 question: the turn that reported it, by its external id.
	r = run(t, nil, "context", name, webhookQuestion)
	if !regexp.MustCompile(`(?m)^From earlier conversations +turn +- +7 \(msg-007\) `).MatchString(r.stdout) {
		t.Errorf("the provenance lacks turn 7 (msg-007):\n%s", r.stdout)
	}
	res = contextJSON(t, nil, name, webhookQuestion)
	if !slices.ContainsFunc(res.Items, func(it smg.Found) bool {
		return it.Kind == "turn" && it.Turn == 7 && it.ExternalID == "msg-007"
	}) {
		t.Errorf("--json: no item of turn 7 (msg-007): %+v", res.Items)
	}
	if !strings.Contains(res.Text, "never verifies it") {
		t.Errorf("the 401 context lacks the cause:\n%s", res.Text)
	}

	// A small budget is kept, with every tokenizer.
	for _, tok := range []string{"cl100k", "o200k", "estimate"} {
		res := contextJSON(t, nil, name, elementsQuestion, "--budget", "150", "--tokenizer", tok)
		if res.Budget != 150 || res.Tokenizer != tok || res.Tokens > 150 {
			t.Errorf("--budget 150 --tokenizer %s: %d of %d tokens (%s)", tok, res.Tokens, res.Budget, res.Tokenizer)
		}
	}
	// --at: what was said by then, nothing after (a date stands for its
	// end); a time that does not parse is a usage error.
	all := contextJSON(t, nil, name, webhookQuestion, "--budget", "4000")
	var first time.Time
	for _, it := range all.Items {
		if !it.Timestamp.IsZero() && (first.IsZero() || it.Timestamp.Before(first)) {
			first = it.Timestamp
		}
	}
	if first.IsZero() {
		t.Fatal("no item with a time")
	}
	res = contextJSON(t, nil, name, webhookQuestion, "--budget", "4000", "--at", first.Format(time.RFC3339))
	for _, it := range res.Items {
		if it.Timestamp.After(first) {
			t.Errorf("--at %s: an item of %s", first.Format(time.RFC3339), it.Timestamp)
		}
	}
	if len(res.Items) == 0 || len(res.Items) >= len(all.Items) {
		t.Errorf("--at %s: %d items of %d", first.Format(time.RFC3339), len(res.Items), len(all.Items))
	}
	if at, err := parseAsOf("2024-04-01"); err != nil || !at.Equal(time.Date(2024, 4, 2, 0, 0, 0, 0, time.UTC).Add(-time.Nanosecond)) {
		t.Errorf("--at 2024-04-01 is %v, %v: want the end of the day", at, err)
	}
	if r := run(t, nil, "context", "--at", "yesterday", name, webhookQuestion); r.status != exitUsage || !strings.Contains(r.stderr, "--at") {
		t.Errorf("--at yesterday: status %d: %s", r.status, r.stderr)
	}
	unchanged("context")
}

// TestContextIndexCache: the first run leaves an index cache beside the
// file, the next runs reopen it, and --no-index-cache and encrypted files
// leave none.
func TestContextIndexCache(t *testing.T) {
	name, _ := checkoutFile(t)
	dir, cache := filepath.Dir(name), format.IndexCacheDir(name)
	first := run(t, nil, "context", name, elementsQuestion)
	if first.status != exitOK || first.stderr != "" {
		t.Fatalf("context: status %d: %s", first.status, first.stderr)
	}
	before, err := os.Stat(cache)
	if err != nil || !before.IsDir() {
		t.Fatalf("no index cache after the first run: %v", err)
	}
	// The cache folder, with the index, and the builder's state and the
	// vectors that ingest left.
	if got := entries(t, dir); !slices.Equal(got, []string{filepath.Base(format.CacheDir(name)), filepath.Base(name)}) {
		t.Errorf("the folder holds %q", got)
	}
	if got := entries(t, format.CacheDir(name)); !slices.Equal(got, []string{"index", "state"}) {
		t.Errorf("the cache folder holds %q", got)
	}
	// The second run gives the same answer from the same cache: a
	// rebuilt one would be a new directory renamed into place.
	again := run(t, nil, "context", name, elementsQuestion)
	if again != first {
		t.Errorf("with the cache: status %d, stderr %q, another context:\n%s", again.status, again.stderr, again.stdout)
	}
	if after, err := os.Stat(cache); err != nil || !os.SameFile(before, after) {
		t.Errorf("the second run replaced the index cache (%v)", err)
	}
	if r := run(t, nil, "search", name, "database is locked"); r.status != exitOK {
		t.Errorf("search with the cache: status %d: %s", r.status, r.stderr)
	}
	if after, err := os.Stat(cache); err != nil || !os.SameFile(before, after) {
		t.Errorf("search replaced the index cache (%v)", err)
	}

	// A changed file does not take the old cache's answers.
	ingest(t, nil, filepath.Join(conversationsDir, "personal.json"), "-o", name)
	res := contextJSON(t, nil, name, "What is the name of Ben's dog?")
	if !slices.ContainsFunc(res.Items, func(it smg.Found) bool { return it.ExternalID == "D3:1" }) {
		t.Errorf("after ingesting more turns, not the one about the dog: %+v", res.Items)
	}

	// Without the cache: none is written.
	name, _ = checkoutFile(t)
	if r := run(t, nil, "context", "--no-index-cache", name, elementsQuestion); r.status != exitOK || r.stdout != first.stdout {
		t.Errorf("--no-index-cache: status %d, stderr %q, another context:\n%s", r.status, r.stderr, r.stdout)
	}
	if r := run(t, nil, "search", "--no-index-cache", name, "webhook"); r.status != exitOK {
		t.Errorf("search --no-index-cache: status %d: %s", r.status, r.stderr)
	}
	if got := entries(t, format.CacheDir(name)); !slices.Equal(got, []string{"state"}) {
		t.Errorf("--no-index-cache left %q in the cache folder", got)
	}
}

// TestContextEncrypted: an encrypted memory answers with its password, and
// leaves no index cache, which would hold its text in the clear.
func TestContextEncrypted(t *testing.T) {
	name, _ := checkoutFile(t)
	const password = "correct horse"
	env := withPassword(password)
	// A cheap key derivation: the file is read seven times, slowly under
	// the race detector.
	doc, err := format.ReadFile(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	cheap := smg.KDF{Function: format.DefaultPBKDF2.Function, Iterations: 1000}
	if err := format.WriteFile(name, doc, &smg.EncodeOptions{Password: []byte(password), KDF: cheap, InsecureKDF: true}); err != nil {
		t.Fatal(err)
	}
	unchanged := readOnly(t, name)
	r := run(t, env, "context", name, elementsQuestion)
	if r.status != exitOK || !strings.Contains(r.stdout, elementsEvidence) {
		t.Errorf("context of an encrypted file: status %d, stderr %q:\n%s", r.status, r.stderr, r.stdout)
	}
	if r := run(t, env, "search", name, "webhook"); r.status != exitOK || !strings.Contains(r.stdout, "msg-007") {
		t.Errorf("search of an encrypted file: status %d, stderr %q:\n%s", r.status, r.stderr, r.stdout)
	}
	if got := entries(t, filepath.Dir(name)); !slices.Equal(got, []string{filepath.Base(name)}) {
		t.Errorf("an encrypted file left %q", got)
	}
	for _, cmd := range []string{"context", "search"} {
		if r := run(t, nil, cmd, name, "webhook"); r.status != exitPassword {
			t.Errorf("%s without a password: status %d: %s", cmd, r.status, r.stderr)
		}
		if r := run(t, withPassword("wrong"), cmd, name, "webhook"); r.status != exitPassword {
			t.Errorf("%s with a wrong password: status %d: %s", cmd, r.status, r.stderr)
		}
	}
	unchanged("context")
}

func TestContextErrors(t *testing.T) {
	name, _ := example(t, "small.smg")
	bad := writeTemp(t, "bad.smg", []byte("not a memory"))
	missing := filepath.Join(t.TempDir(), "missing.smg")
	for _, tt := range []struct {
		args   []string
		status int
	}{
		{[]string{"context"}, exitUsage},
		{[]string{"context", name}, exitUsage},
		{[]string{"context", name, "why", "extra"}, exitUsage},
		{[]string{"context", name, "why", "--budget", "0"}, exitUsage},
		{[]string{"context", name, "why", "--budget", "-5"}, exitUsage},
		{[]string{"context", name, "why", "--budget", "many"}, exitUsage},
		{[]string{"context", name, "why", "--tokenizer", "gpt2"}, exitUsage},
		{[]string{"context", name, "why", "--tokenizer", ""}, exitUsage},
		{[]string{"context", name, "why", "--frobnicate"}, exitUsage},
		{[]string{"context", bad, "why"}, exitInvalid},
		{[]string{"context", missing, "why"}, exitFailure},
		{[]string{"context", name, "why", "--scope", "planet"}, exitUsage},
		{[]string{"context", name, "why", "--with", missing}, exitFailure},
		{[]string{"search"}, exitUsage},
		{[]string{"search", name}, exitUsage},
		{[]string{"search", name, "x", "--limit", "0"}, exitUsage},
		{[]string{"search", bad, "x"}, exitInvalid},
		{[]string{"demo", "extra"}, exitUsage},
	} {
		r := run(t, nil, tt.args...)
		if r.status != tt.status || r.stdout != "" || !strings.HasPrefix(r.stderr, "smg: ") {
			t.Errorf("%q: status %d (want %d), stdout %q, stderr %q", tt.args, r.status, tt.status, r.stdout, r.stderr)
		}
	}
	// A file that was never read leaves no cache either.
	if got := entries(t, filepath.Dir(bad)); !slices.Equal(got, []string{"bad.smg"}) {
		t.Errorf("a bad file left %q", got)
	}
}

// --with composes a user's memory and the shop's; --scope keeps the facts
// of some scopes only.
func TestContextWith(t *testing.T) {
	shop, _ := checkoutFile(t)
	me := filepath.Join(t.TempDir(), "me.smg")
	if r := run(t, nil, "remember", me, "I prefer answers with the code first", "--scope", "user:dana"); r.status != exitOK {
		t.Fatal(r.stderr)
	}
	res := contextJSON(t, nil, me, webhookQuestion, "--with", shop)
	if !strings.Contains(res.Text, "## About This User\n\n- User prefers answers with the code first") || !strings.Contains(res.Text, "ConstructEvent") {
		t.Errorf("composed:\n%s", res.Text)
	}
	memories := map[string]bool{}
	for _, it := range res.Items {
		memories[it.Memory] = true
	}
	if !memories["memory 1"] || !memories["memory 2"] {
		t.Errorf("the items come from %v", memories)
	}
	r := run(t, nil, "context", me, webhookQuestion, "--with", shop)
	if !regexp.MustCompile(`(?m)^MEMORY +SECTION +KIND +ID +TURN +SCORE +TOKENS$`).MatchString(r.stdout) || !regexp.MustCompile(`(?m)^memory 1 +About This User +node +fact-user-prefers-answers`).MatchString(r.stdout) {
		t.Errorf("composed provenance:\n%s", r.stdout)
	}
	res = contextJSON(t, nil, me, webhookQuestion, "--with", shop, "--scope", "workspace")
	if strings.Contains(res.Text, "code first") {
		t.Errorf("--scope workspace kept a user's fact:\n%s", res.Text)
	}
}

// TestContextJSONSuperseded: context --json gives what replaced a fact the
// context's turn stated, as the text does.
func TestContextJSONSuperseded(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "ana.json"), filepath.Join(dir, "ana.smg")
	transcript := `[
{"id":"t1","speaker":"Ana","role":"user","content":"Hi, I'm Ana. I live in Madrid.","timestamp":"2024-03-01T10:00:00Z"},
{"id":"t2","speaker":"Ben","role":"user","content":"We deploy the API with Fly.io.","timestamp":"2024-03-01T10:01:00Z"},
{"id":"t3","speaker":"Ana","role":"user","content":"I live in Lisbon now, I moved there last week.","timestamp":"2024-05-02T09:00:00Z"}
]`
	if err := os.WriteFile(in, []byte(transcript), 0o600); err != nil {
		t.Fatal(err)
	}
	ingest(t, nil, in, "-o", out, "--no-vectors")
	res := contextJSON(t, nil, "--no-index-cache", out, "Where does Ana live?")
	var madrid *smg.Found
	for i, it := range res.Items {
		if it.ExternalID == "t1" {
			madrid = &res.Items[i]
		}
	}
	if madrid == nil || len(madrid.SupersededBy) != 1 || madrid.SupersededBy[0].NodeID != "fact-ana-lives-in-madrid" ||
		!strings.HasPrefix(madrid.SupersededBy[0].Label, "Ana lives in Lisbon") || madrid.SupersededBy[0].At.IsZero() {
		t.Fatalf("the Madrid turn's item: %+v\n%s", madrid, res.Text)
	}
	if !strings.Contains(res.Text, "I live in Madrid. (superseded on 2 May 2024 by: Ana lives in Lisbon") {
		t.Errorf("the text does not say so:\n%s", res.Text)
	}
}
