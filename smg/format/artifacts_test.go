package format_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/smg-memory/smg/artifacts"
	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/importer"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

// findArtifact returns the artifact of a document with the given file
// name.
func findArtifact(t testing.TB, doc *spec.Document, filename string) format.ArtifactInfo {
	t.Helper()
	arts := format.Artifacts(doc)
	i := slices.IndexFunc(arts, func(a format.ArtifactInfo) bool { return a.Filename == filename })
	if i < 0 {
		t.Fatalf("no artifact %s among %+v", filename, arts)
	}
	return arts[i]
}

// sentCode is the content of every fenced block of the turns named
// filename, in order, without repeats: the versions the conversation sent.
func sentCode(turns []spec.Turn, filename string) []string {
	fence := regexp.MustCompile("(?s)```\\w* " + regexp.QuoteMeta(filename) + "\n(.*?)```")
	var out []string
	for _, t := range turns {
		for _, m := range fence.FindAllStringSubmatch(t.Content, -1) {
			if len(out) == 0 || out[len(out)-1] != m[1] {
				out = append(out, m[1])
			}
		}
	}
	return out
}

func TestArtifacts(t *testing.T) {
	doc := checkoutMemory(t).Document()
	arts := format.Artifacts(doc)
	if len(arts) != len(doc.ArtifactVault.Artifacts) || !slices.IsSortedFunc(arts, func(a, b format.ArtifactInfo) int { return strings.Compare(a.ID, b.ID) }) {
		t.Fatalf("Artifacts: %+v", arts)
	}
	web := findArtifact(t, doc, "checkout/webhook.go")
	sent := sentCode(smgtest.CheckoutTurns(t), "checkout/webhook.go")
	if len(sent) != 4 || web.Versions != len(sent) {
		t.Fatalf("the conversation sends %d versions of webhook.go, the vault has %d", len(sent), web.Versions)
	}
	stored, snapshots := int64(0), 0
	for _, v := range doc.ArtifactVault.Artifacts[web.ID].Versions {
		if !v.Placed() {
			stored += int64(len(*cmp.Or(v.Content, v.Patch)))
		}
		if v.Content != nil && !v.Placed() {
			snapshots++
		}
	}
	// Each of its versions is whole in the turn that sent it: the vault
	// names their places and stores nothing.
	if web.Type != spec.ArtifactCode || web.Language != "go" || web.Size != int64(len(sent[3])) || web.InTurns != 4 ||
		web.Snapshots != snapshots || web.StoredBytes != stored || stored != 0 || web.FirstTurn != 6 || web.LastTurn != 16 {
		t.Errorf("webhook.go: %+v (stored %d, %d snapshots)", web, stored, snapshots)
	}

	for i, want := range sent {
		got, err := format.ArtifactContent(doc, web.ID, i+1)
		if err != nil || got != want {
			t.Errorf("version %d: %v\n%s\nwant\n%s", i+1, err, got, want)
		}
	}
	if got, err := format.ArtifactContent(doc, web.ID, 0); err != nil || got != sent[3] {
		t.Errorf("version 0 is not the latest: %v", err)
	}
	for _, tt := range []struct {
		id string
		v  int
	}{{"art-nothing", 1}, {web.ID, 5}, {web.ID, -1}} {
		if _, err := format.ArtifactContent(doc, tt.id, tt.v); !errors.Is(err, format.ErrNotFound) {
			t.Errorf("%s version %d: %v, want ErrNotFound", tt.id, tt.v, err)
		}
		if _, err := format.ArtifactDiff(doc, tt.id, 1, tt.v); !errors.Is(err, format.ErrNotFound) {
			t.Errorf("diff to %s version %d: %v, want ErrNotFound", tt.id, tt.v, err)
		}
	}

	// A version that does not reconstruct makes the document invalid.
	art := doc.ArtifactVault.Artifacts[web.ID]
	art.Versions = slices.Clone(art.Versions)
	art.Versions[1].Hash = art.Versions[0].Hash
	doc.ArtifactVault.Artifacts[web.ID] = art
	if _, err := format.ArtifactContent(doc, web.ID, 2); !errors.Is(err, format.ErrInvalid) || !errors.Is(err, artifacts.ErrHashMismatch) {
		t.Errorf("a broken chain: %v", err)
	}
}

func TestArtifactDiff(t *testing.T) {
	doc := checkoutMemory(t).Document()
	web := findArtifact(t, doc, "checkout/webhook.go")
	diff, err := format.ArtifactDiff(doc, web.ID, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	header := fmt.Sprintf("--- %s@v1\n+++ %s@v2\n@@ -1,", web.ID, web.ID)
	if !strings.HasPrefix(diff, header) {
		t.Errorf("the diff does not start with %q:\n%s", header, diff)
	}
	for _, want := range []string{
		"\n package checkout\n",
		"\n-\t\"encoding/json\"\n",
		"\n+\t\"io\"\n",
		"\n+\t\"os\"\n",
		"\n-\t\"github.com/stripe/stripe-go/v76\"\n",
		"\n+\t\"github.com/stripe/stripe-go/v76/webhook\"\n",
		"\n+\tevent, err := webhook.ConstructEvent(payload, r.Header.Get(\"Stripe-Signature\"), os.Getenv(\"STRIPE_WEBHOOK_SECRET\"))\n",
	} {
		if !strings.Contains(diff, want) {
			t.Errorf("the diff lacks %q:\n%s", want, diff)
		}
	}
	if latest, err := format.ArtifactDiff(doc, web.ID, 1, 0); err != nil || !strings.Contains(latest, "+++ "+web.ID+"@v4\n") {
		t.Errorf("a diff to version 0 is not to the latest: %v\n%s", err, latest)
	}

	// Every diff between two versions turns the one into the other.
	for a := 1; a <= web.Versions; a++ {
		for b := 1; b <= web.Versions; b++ {
			checkDiff(t, doc, web.ID, a, b)
		}
	}
}

// checkDiff fails the test unless the diff from version a to version b
// applies to a and gives b; the diff between equal contents is empty.
func checkDiff(t testing.TB, doc *spec.Document, id string, a, b int) {
	t.Helper()
	from, err1 := format.ArtifactContent(doc, id, a)
	to, err2 := format.ArtifactContent(doc, id, b)
	diff, err3 := format.ArtifactDiff(doc, id, a, b)
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	if (diff == "") != (from == to) {
		t.Fatalf("%s v%d..v%d: a diff of %d bytes between contents equal: %v", id, a, b, len(diff), from == to)
	}
	got, err := applyUnified(from, diff)
	if err != nil || got != to {
		t.Fatalf("%s v%d..v%d: the diff does not give v%d (%v):\n%s", id, a, b, b, err, diff)
	}
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$`)

// applyUnified applies a unified diff to text, strictly: its context and
// deleted lines must be exactly there, and the counts of its headers
// right.
func applyUnified(text, diff string) (string, error) {
	if diff == "" {
		return text, nil
	}
	old := strings.SplitAfter(text, "\n")
	if old[len(old)-1] == "" {
		old = old[:len(old)-1]
	}
	lines := strings.SplitAfter(diff, "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") || lines[len(lines)-1] != "" {
		return "", errors.New("no --- and +++ header, or no final line feed")
	}
	type line struct {
		op   byte
		text string
	}
	var out strings.Builder
	at := 0 // in old
	lines = lines[2 : len(lines)-1]
	for len(lines) > 0 {
		m := hunkHeader.FindStringSubmatch(strings.TrimSuffix(lines[0], "\n"))
		if m == nil {
			return "", fmt.Errorf("not a hunk header: %q", lines[0])
		}
		num := func(s string) int { n, _ := strconv.Atoi(s); return n }
		count := func(s string) int {
			if s == "" {
				return 1
			}
			return num(s)
		}
		start, oldN, newN := num(m[1]), count(m[2]), count(m[4])
		if oldN > 0 {
			start--
		}
		var body []line
		for lines = lines[1:]; len(lines) > 0 && !strings.HasPrefix(lines[0], "@@"); lines = lines[1:] {
			l := lines[0]
			if l == "\\ No newline at end of file\n" {
				if len(body) == 0 || !strings.HasSuffix(body[len(body)-1].text, "\n") {
					return "", errors.New("a misplaced no-newline marker")
				}
				body[len(body)-1].text = strings.TrimSuffix(body[len(body)-1].text, "\n")
				continue
			}
			if l[0] != ' ' && l[0] != '-' && l[0] != '+' {
				return "", fmt.Errorf("not a line of a hunk: %q", l)
			}
			body = append(body, line{l[0], l[1:]})
		}
		if start < at || start > len(old) {
			return "", fmt.Errorf("a hunk at line %d, after line %d", start, at)
		}
		for ; at < start; at++ {
			out.WriteString(old[at])
		}
		for _, l := range body {
			if l.op != '+' {
				if at >= len(old) || old[at] != l.text {
					return "", fmt.Errorf("line %d is not %q", at+1, l.text)
				}
				at++
				oldN--
			}
			if l.op != '-' {
				out.WriteString(l.text)
				newN--
			}
		}
		if oldN != 0 || newN != 0 {
			return "", fmt.Errorf("a hunk's counts are off by %d and %d", oldN, newN)
		}
	}
	for ; at < len(old); at++ {
		out.WriteString(old[at])
	}
	return out.String(), nil
}

func TestUnifiedDiffEdges(t *testing.T) {
	texts := []string{"", "a", "a\n", "a\nb", "a\nb\n", "b\n", "x\na\nb\n", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11", "0\n1\n2\n3\n4\n5\n6\n7\n8\nnine\n10\n"}
	doc := &spec.Document{ArtifactVault: spec.ArtifactVault{Artifacts: map[string]spec.Artifact{}}}
	for i, from := range texts {
		for j, to := range texts {
			id := fmt.Sprintf("art-%d-%d", i, j)
			doc.ArtifactVault.Artifacts[id] = spec.Artifact{Type: spec.ArtifactCode, Versions: []spec.ArtifactVersion{
				{V: 1, Hash: artifacts.Hash(from), Size: int64(len(from)), Content: &from},
				{V: 2, Hash: artifacts.Hash(to), Size: int64(len(to)), Content: &to},
			}}
			checkDiff(t, doc, id, 1, 2)
		}
	}
	// The format, as diff -u writes it.
	got, _ := format.ArtifactDiff(doc, "art-7-8", 1, 2)
	want := `--- art-7-8@v1
+++ art-7-8@v2
@@ -2,9 +2,10 @@
 2
 3
 4
-5
+five
 6
 7
 8
 9
 10
+11
\ No newline at end of file
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got, _ = format.ArtifactDiff(doc, "art-0-4", 1, 2)
	if want := "--- art-0-4@v1\n+++ art-0-4@v2\n@@ -0,0 +1,2 @@\n+a\n+b\n"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// aiderHistories are the aider chat histories of ../shared/bench, when it
// is there; under the race detector, the three smallest.
func aiderHistories(t *testing.T) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("ingests megabytes")
	}
	files, _ := filepath.Glob("../../../shared/bench/aider-dev/[0-9]*.md")
	if len(files) == 0 {
		t.Skip("no ../shared/bench/aider-dev")
	}
	if raceEnabled && len(files) > 3 {
		size := func(name string) int64 {
			fi, err := os.Stat(name)
			if err != nil {
				t.Fatal(err)
			}
			return fi.Size()
		}
		slices.SortFunc(files, func(a, b string) int { return cmp.Compare(size(a), size(b)) })
		files = files[:3]
	}
	return files
}

// TestAiderRoundTrip builds the memory of each aider history, saves it,
// reads the saved file back and reconstructs from it every version of
// every artifact, checked against its hash and size, and every archived
// turn, which must be the turn that went in, byte for byte.
func TestAiderRoundTrip(t *testing.T) {
	for _, name := range aiderHistories(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			t.Parallel()
			res, err := importer.ReadFile(name, importer.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var turns []spec.Turn
			for _, c := range res.Conversations {
				turns = append(turns, c.Turns...)
			}
			m := smg.New(&smg.Options{NoVectors: true})
			if _, err := m.IngestAll(context.Background(), turns); err != nil {
				t.Fatal(err)
			}
			b, err := m.Marshal(nil)
			if err != nil {
				t.Fatal(err)
			}
			saved := filepath.Join(t.TempDir(), "m.smg")
			if err := os.WriteFile(saved, b, 0o644); err != nil {
				t.Fatal(err)
			}
			doc, err := format.ReadFile(saved, nil)
			if err != nil {
				t.Fatal(err)
			}

			versions, diffs := 0, 0
			for _, info := range format.Artifacts(doc) {
				art := doc.ArtifactVault.Artifacts[info.ID]
				for _, v := range art.Versions {
					content, err := format.ArtifactContent(doc, info.ID, v.V)
					if err != nil {
						t.Errorf("%s version %d does not reconstruct: %v", info.ID, v.V, err)
						continue
					}
					if artifacts.Hash(content) != v.Hash || int64(len(content)) != v.Size {
						t.Errorf("%s version %d: %d bytes, hash %s; the vault says %d bytes, %s", info.ID, v.V, len(content), artifacts.Hash(content), v.Size, v.Hash)
					}
					versions++
					if v.V > 1 {
						checkDiff(t, doc, info.ID, v.V-1, v.V)
						diffs++
					}
				}
			}
			if versions == 0 {
				t.Error("no artifact versions: the test tests nothing")
			}

			a := format.NewArchive(doc, format.Limits{})
			for i, w := range turns {
				got, err := a.Turn(i + 1)
				if err != nil {
					t.Fatalf("turn %d: %v", i+1, err)
				}
				if got.Content != w.Content || got.Role != w.Role || got.Speaker != w.Speaker {
					t.Fatalf("turn %d reads back as %q (%s %s), want %q (%s %s)", i+1, got.Content, got.Role, got.Speaker, w.Content, w.Role, w.Speaker)
				}
			}
			if _, err := a.Turn(len(turns) + 1); !errors.Is(err, format.ErrNotFound) {
				t.Errorf("the turn after the last: %v", err)
			}
			t.Logf("%d turns in %d blocks, %d artifacts, %d versions, %d diffs applied", len(turns), a.Len(), len(doc.ArtifactVault.Artifacts), versions, diffs)
		})
	}
}

func ExampleArtifactDiff() {
	m := smg.New(&smg.Options{NoVectors: true})
	_, _ = m.IngestAll(context.Background(), []smg.Turn{
		{Role: "assistant", Content: "```python hello.py\nprint('hello')\n```"},
		{Role: "assistant", Content: "```python hello.py\nimport sys\nprint('hello', sys.argv[1])\n```"},
	})
	doc := m.Document()
	for _, a := range format.Artifacts(doc) {
		fmt.Println(a.ID, a.Filename, a.Versions)
		diff, _ := format.ArtifactDiff(doc, a.ID, 1, 2)
		fmt.Print(diff)
	}
	// Output:
	// art-hello-py hello.py 2
	// --- art-hello-py@v1
	// +++ art-hello-py@v2
	// @@ -1 +1,2 @@
	// -print('hello')
	// +import sys
	// +print('hello', sys.argv[1])
}
