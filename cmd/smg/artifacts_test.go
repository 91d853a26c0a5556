package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/spec"
)

// checkoutFile ingests the checkout conversation into a new memory with
// smg ingest and returns its name and document.
func checkoutFile(t testing.TB) (string, *spec.Document) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "shop.smg")
	ingest(t, nil, filepath.Join(conversationsDir, "checkout.json"), "-o", out)
	doc, err := format.ReadFile(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out, doc
}

func TestArtifactsCommand(t *testing.T) {
	name, doc := checkoutFile(t)
	unchanged := readOnly(t, name)

	r := run(t, nil, "artifacts", name)
	if r.status != exitOK || r.stderr != "" {
		t.Fatalf("artifacts: status %d: %s", r.status, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 1+len(doc.ArtifactVault.Artifacts) || strings.Join(strings.Fields(lines[0]), " ") != "ID TYPE LANGUAGE FILE VERSIONS SIZE STORED TURNS" {
		t.Errorf("artifacts:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "art-checkout-webhook-go      code  go        checkout/webhook.go      4         955") {
		t.Errorf("artifacts lacks webhook.go with 4 versions of which the latest is 955 bytes:\n%s", r.stdout)
	}

	r = run(t, nil, "artifacts", "--json", name)
	var arts []format.ArtifactInfo
	if err := json.Unmarshal([]byte(r.stdout), &arts); err != nil || len(arts) != len(doc.ArtifactVault.Artifacts) {
		t.Fatalf("artifacts --json: %v\n%s", err, r.stdout)
	}

	// Every version, byte for byte, and the latest without --version.
	for _, art := range arts {
		for v := 1; v <= art.Versions; v++ {
			want, err := format.ArtifactContent(doc, art.ID, v)
			if err != nil {
				t.Fatal(err)
			}
			r := run(t, nil, "artifact", name, art.ID, "--version", fmt.Sprint(v))
			if r.status != exitOK || r.stdout != want || r.stderr != "" {
				t.Errorf("artifact %s --version %d: status %d, stderr %q; the content is exact: %v", art.ID, v, r.status, r.stderr, r.stdout == want)
			}
			if v == art.Versions {
				if r := run(t, nil, "artifact", name, art.ID); r.stdout != want {
					t.Errorf("artifact %s prints another version than the latest", art.ID)
				}
			}
		}
	}

	r = run(t, nil, "artifact", name, "art-checkout-webhook-go", "--diff", "1..2")
	want, _ := format.ArtifactDiff(doc, "art-checkout-webhook-go", 1, 2)
	if r.status != exitOK || r.stdout != want ||
		!strings.HasPrefix(r.stdout, "--- art-checkout-webhook-go@v1\n+++ art-checkout-webhook-go@v2\n@@ -1,") ||
		!strings.Contains(r.stdout, "\n-\t\"encoding/json\"\n") || !strings.Contains(r.stdout, "\n+\t\"io\"\n") {
		t.Errorf("artifact --diff 1..2: status %d, stderr %q:\n%s", r.status, r.stderr, r.stdout)
	}
	if r := run(t, nil, "artifact", name, "art-checkout-webhook-go", "--diff", "3..3"); r.status != exitOK || r.stdout != "" {
		t.Errorf("a diff of a version with itself: status %d, %q", r.status, r.stdout)
	}
	unchanged("artifacts and artifact")

	for _, tt := range []struct {
		args   []string
		status int
		stderr string
	}{
		{[]string{"artifact", name}, exitUsage, "want FILE and ID, got 1 arguments"},
		{[]string{"artifact", name, "art-checkout-webhook-go", "--diff", "1-2"}, exitUsage, `--diff wants two version numbers A..B, like 1..2, not "1-2"`},
		{[]string{"artifact", name, "art-checkout-webhook-go", "--diff", "0..2"}, exitUsage, "--diff wants"},
		{[]string{"artifact", name, "art-checkout-webhook-go", "--diff", "1.."}, exitUsage, "--diff wants"},
		{[]string{"artifact", name, "art-checkout-webhook-go", "--diff", "a..b"}, exitUsage, "--diff wants"},
		{[]string{"artifact", name, "art-checkout-webhook-go", "--diff", "1..2", "--version", "2"}, exitUsage, "exclude each other"},
		{[]string{"artifact", name, "art-checkout-webhook-go", "--version", "-1"}, exitUsage, "--version -1: want a whole number from 1 up"},
		{[]string{"artifact", name, "art-nowhere"}, exitInvalid, `no artifact "art-nowhere"; did you mean one of art-checkout-webhook-go, art-web-src-paymentform-jsx?`},
		{[]string{"artifact", name, "art-checkout-webhook-go", "--version", "5"}, exitFailure, "version 5 (it has 4): not found"},
		{[]string{"artifact", name, "art-checkout-webhook-go", "--diff", "1..9"}, exitFailure, "not found"},
		{[]string{"artifacts"}, exitUsage, "missing FILE"},
	} {
		r := run(t, nil, tt.args...)
		if r.status != tt.status || !strings.Contains(r.stderr, tt.stderr) || r.stdout != "" {
			t.Errorf("%v: status %d, stdout %q, stderr %q; want %d and %q", tt.args[1:], r.status, r.stdout, r.stderr, tt.status, tt.stderr)
		}
	}
}

func TestArchiveCommand(t *testing.T) {
	name, _ := checkoutFile(t)
	unchanged := readOnly(t, name)

	r := run(t, nil, "archive", name)
	if r.status != exitOK || !strings.Contains(r.stdout, "1      block-0001  1-20   2025-11-03 09:12  2025-11-03 10:09  20") {
		t.Errorf("archive: status %d, stderr %q:\n%s", r.status, r.stderr, r.stdout)
	}
	r = run(t, nil, "archive", "--json", name)
	var blocks []format.BlockInfo
	if err := json.Unmarshal([]byte(r.stdout), &blocks); err != nil || len(blocks) != 1 || blocks[0].ID != "block-0001" || blocks[0].UncompressedSize == 0 || blocks[0].CompressedSize != 0 {
		t.Errorf("archive --json: %v, %+v", err, blocks)
	}

	r = run(t, nil, "archive", name, "--turn", "7")
	want := "\n#7  2025-11-03 09:30  Dana (user)  [msg-007]\n" +
		`I deployed it. The webhook returns 401 in production, and the Stripe dashboard says "No signatures found matching the expected signature for payload".` + "\n"
	if r.status != exitOK || !strings.HasSuffix(r.stdout, want) || !strings.HasPrefix(r.stdout, "block-0001 (block 1 of 1): turns 1-20") {
		t.Errorf("archive --turn 7: status %d, stderr %q:\n%s", r.status, r.stderr, r.stdout)
	}
	// A turn whose code the archive keeps as a reference comes back whole.
	turns := checkoutTurns(t)
	r = run(t, nil, "archive", name, "--turn", "8", "--json")
	var v blockView
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || len(v.Turns) != 1 || v.Turns[0].Content != turns[7].Content || v.Block.ID != "block-0001" {
		t.Errorf("archive --turn 8 --json: %v\n%s", err, r.stdout)
	}
	for _, sel := range []string{"1", "block-0001"} {
		r = run(t, nil, "archive", name, "--block", sel, "--json")
		if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || len(v.Turns) != 20 {
			t.Fatalf("archive --block %s --json: %v\n%s", sel, err, r.stdout)
		}
		for i, tu := range v.Turns {
			if tu.Turn != i+1 || tu.Content != turns[i].Content || len(tu.ContentRefs) > 0 {
				t.Errorf("archive --block %s: turn %d is %+v", sel, i+1, tu)
			}
		}
	}
	r = run(t, nil, "archive", name, "--block", "1")
	for _, tu := range turns {
		if !strings.Contains(r.stdout, tu.Content) {
			t.Errorf("archive --block 1 lacks %.60q", tu.Content)
		}
	}
	unchanged("archive")

	for _, tt := range []struct {
		args   []string
		status int
		stderr string
	}{
		{[]string{"archive", name, "--turn", "21"}, exitFailure, "turn 21: not found"},
		{[]string{"archive", name, "--turn", "0"}, exitUsage, "--turn 0: want a whole number from 1 up"},
		{[]string{"archive", name, "--block", "2"}, exitFailure, "archive block 2 (the archive has 1): not found"},
		{[]string{"archive", name, "--block", "block-0009"}, exitFailure, `archive block "block-0009": not found`},
		{[]string{"archive", name, "--block", "1", "--turn", "2"}, exitUsage, "exclude each other"},
		{[]string{"archive"}, exitUsage, "missing FILE"},
	} {
		r := run(t, nil, tt.args...)
		if r.status != tt.status || !strings.Contains(r.stderr, tt.stderr) || r.stdout != "" {
			t.Errorf("%v: status %d, stdout %q, stderr %q; want %d and %q", tt.args[1:], r.status, r.stdout, r.stderr, tt.status, tt.stderr)
		}
	}
}

// checkoutTurns are the turns of the checkout conversation.
func checkoutTurns(t testing.TB) []spec.Turn {
	t.Helper()
	res, err := importer.ReadFile(filepath.Join(conversationsDir, "checkout.json"), importer.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	return res.Conversations[0].Turns
}

// TestArchiveDamaged reads a memory whose third block of five is damaged:
// the list of blocks and the other blocks read, the damaged one fails
// with an error that names it.
func TestArchiveDamaged(t *testing.T) {
	m := smg.New(&smg.Options{Config: smg.Config{BlockSize: 4}})
	turns := checkoutTurns(t)
	if _, err := m.IngestAll(context.Background(), turns); err != nil {
		t.Fatal(err)
	}
	// The document as a writer writes it: its blocks in the clear.
	raw, err := m.Marshal(&smg.EncodeOptions{Plain: true})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := format.Unmarshal(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := &doc.DeepArchive.Blocks[2]
	// Its turns changed, not its size: the block fails, the others read.
	// (A file of 1.3 records no hash of a block: its reader computes it.)
	b.Turns = bytes.Replace(bytes.Clone(b.Turns), []byte("the"), []byte("thee"), 1)
	name := filepath.Join(t.TempDir(), "damaged.smg")
	writeUnchecked(t, name, doc)
	unchanged := readOnly(t, name)

	r := run(t, nil, "archive", name)
	if r.status != exitOK || strings.Count(r.stdout, "\n") != 6 || !strings.Contains(r.stdout, "block-0003  9-12") {
		t.Errorf("archive of a damaged memory: status %d, stderr %q:\n%s", r.status, r.stderr, r.stdout)
	}
	for sel, first := range map[string]int{"2": 5, "block-0004": 13, "5": 17} {
		r := run(t, nil, "archive", name, "--block", sel)
		if r.status != exitOK || !strings.Contains(r.stdout, fmt.Sprintf("\n#%d  ", first)) || !strings.Contains(r.stdout, turns[first-1].Content) {
			t.Errorf("archive --block %s, a healthy block: status %d, stderr %q:\n%s", sel, r.status, r.stderr, r.stdout)
		}
	}
	for _, args := range [][]string{{"--block", "3"}, {"--block", "block-0003"}, {"--turn", "10"}} {
		r := run(t, nil, append([]string{"archive", name}, args...)...)
		if r.status != exitInvalid || r.stdout != "" || !strings.HasPrefix(r.stderr, "smg: archive block block-0003: the block's turns take 1625 bytes, its uncompressedSize says 1624") {
			t.Errorf("archive %v, the damaged block: status %d, stdout %q, stderr %q", args, r.status, r.stdout, r.stderr)
		}
	}
	unchanged("archive")
}

// TestNodeIDs: every command that takes a node id says the same of one
// the memory does not hold: exit status 3, the id, the ids like it and
// one hint; forgetting an artifact's node is invalid input too. The
// artifact command takes an artifact's node id, as smg nodes prints it,
// as well as its vault id.
func TestNodeIDs(t *testing.T) {
	name, _ := checkoutFile(t)
	unchanged := readOnly(t, name)
	const hint = "smg: hint: 'smg facts FILE' lists the ids of facts, 'smg nodes FILE' those of all nodes\n"
	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"show", name, "postgresql"}, "smg: no node \"postgresql\"; did you mean one of concept-postgresql, decision-postgresql?\n" + hint},
		{[]string{"forget", name, "postgresql"}, "smg: no node \"postgresql\"; did you mean one of concept-postgresql, decision-postgresql?\n" + hint},
		{[]string{"pin", name, "postgresql"}, "smg: no node \"postgresql\"; did you mean one of concept-postgresql, decision-postgresql?\n" + hint},
		{[]string{"unpin", name, "postgresql"}, "smg: no node \"postgresql\"; did you mean one of concept-postgresql, decision-postgresql?\n" + hint},
		{[]string{"show", name, "zzz"}, "smg: no node \"zzz\"\n" + hint},
		// The vault's id of an artifact, given for a node: its node.
		{[]string{"show", name, "art-checkout-webhook-go"}, "smg: no node \"art-checkout-webhook-go\"; did you mean artifact-checkout-webhook-go?\n" + hint},
		{[]string{"pin", name, "art-checkout-webhook-go"}, "smg: no node \"art-checkout-webhook-go\"; did you mean artifact-checkout-webhook-go?\n" + hint},
		{[]string{"artifact", name, "webhook"}, "smg: no artifact \"webhook\"; did you mean art-checkout-webhook-go?\n"},
		{[]string{"forget", name, "artifact-checkout-webhook-go"}, "smg: \"artifact-checkout-webhook-go\" is the node of artifact art-checkout-webhook-go: an artifact's node goes only with its artifact\n"},
	} {
		r := run(t, nil, c.args...)
		if r.status != exitInvalid || !strings.HasPrefix(r.stderr, c.stderr) || strings.Count(r.stderr, "hint:") != 1 {
			t.Errorf("%v: status %d, stderr %q; want %d and %q, and one hint", c.args[:1], r.status, r.stderr, exitInvalid, c.stderr)
		}
	}
	unchanged("the failed commands")

	byVault := succeed(t, nil, "artifact", name, "art-checkout-webhook-go", "--diff", "1..2")
	byNode := succeed(t, nil, "artifact", name, "artifact-checkout-webhook-go", "--diff", "1..2")
	if byNode != byVault || !strings.HasPrefix(byNode, "--- art-checkout-webhook-go@v1\n") {
		t.Errorf("artifact by node id:\n%s\nby vault id:\n%s", byNode, byVault)
	}
	if succeed(t, nil, "artifact", name, "artifact-checkout-webhook-go") != succeed(t, nil, "artifact", name, "art-checkout-webhook-go") {
		t.Error("the latest version by node id differs from that by vault id")
	}
}
