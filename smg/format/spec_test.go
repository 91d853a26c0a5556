package format_test

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// specText returns the prose spec.
func specText(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../spec/smg-v1.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// section returns the text of the spec from the heading that starts with
// from to the next heading that starts with to.
func section(t *testing.T, spec, from, to string) string {
	t.Helper()
	i := strings.Index(spec, "\n"+from)
	if i < 0 {
		t.Fatalf("the spec has no heading %q", from)
	}
	rest := spec[i+1:]
	if j := strings.Index(rest, "\n"+to); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

var codeBlock = regexp.MustCompile("(?s)\n```(?:json)?\n(.*?)\n```\n")

// TestSpecAppendix checks that the spec's complete example is valid and
// has the content hash and compressed size the spec says.
func TestSpecAppendix(t *testing.T) {
	appendix := section(t, specText(t), "## Appendix A", "## ")
	m := codeBlock.FindStringSubmatch(appendix)
	if m == nil {
		t.Fatal("Appendix A has no JSON block")
	}
	doc, err := format.ValidateBytes([]byte(m[1]), nil)
	if err != nil {
		t.Fatalf("Appendix A is not valid: %v", err)
	}
	hash := regexp.MustCompile(`sha256:[0-9a-f]{64}`).FindString(appendix)
	if got := mustHash(t, doc); got != hash {
		t.Errorf("Appendix A's content hash is %s; the spec says %s", got, hash)
	}
	size := regexp.MustCompile(`takes (\d+) bytes`).FindStringSubmatch(appendix)
	b, _ := format.Marshal(doc, nil)
	if want, _ := strconv.Atoi(size[1]); len(b) != want {
		t.Errorf("Appendix A compresses to %d bytes; the spec says %s", len(b), size[1])
	}
}

// TestSpecEnvelopes decrypts the encrypted examples of §9.5.
func TestSpecEnvelopes(t *testing.T) {
	enc := section(t, specText(t), "### 9.5 Encryption", "#### 9.5.1")
	n := 0
	for _, m := range codeBlock.FindAllStringSubmatch(enc, -1) {
		if !strings.Contains(m[1], `"encrypted"`) {
			continue
		}
		n++
		if _, err := format.Unmarshal([]byte(m[1]), &format.DecodeOptions{Password: []byte("correct horse battery staple")}); err != nil {
			t.Errorf("example envelope %d: %v", n, err)
		}
	}
	if n != 2 {
		t.Errorf("found %d example envelopes in §9.5, want 2", n)
	}
}

// TestSpecKinds checks that the registered kinds of §6.1.3, and the node
// type of each, are those of spec.Kinds and spec.KindTypes.
func TestSpecKinds(t *testing.T) {
	kinds := section(t, specText(t), "#### 6.1.3 Kinds", "### 6.2")
	row := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| `([a-z]+)` \\|")
	var got []string
	for _, m := range row.FindAllStringSubmatch(kinds, -1) {
		got = append(got, m[1]+" "+m[2])
	}
	var want []string
	for _, k := range spec.Kinds {
		want = append(want, string(k)+" "+string(spec.KindTypes[k]))
	}
	if !slices.Equal(got, want) || len(spec.KindTypes) != len(spec.Kinds) {
		t.Errorf("§6.1.3 registers %q; spec.Kinds and KindTypes %q (%d types)", got, want, len(spec.KindTypes))
	}
}

// TestSpecEditVersion checks the example of §7.2.1: an artifact whose
// only version is an edit block, with its hash and size, in a memory that
// validates.
func TestSpecEditVersion(t *testing.T) {
	sec := section(t, specText(t), "#### 7.2.1 Edit versions", "### 7.3")
	m := codeBlock.FindAllStringSubmatch(sec, -1)
	if len(m) == 0 {
		t.Fatal("§7.2.1 has no JSON example")
	}
	example := m[len(m)-1][1]
	doc := `{"@context":"https://w3id.org/smg/v1/context.jsonld","@type":"SemanticMemoryGraph",` +
		`"artifactVault":{"artifacts":{` + example + `}},"deepArchive":{"blocks":[],"compressionMethod":"brotli"},` +
		`"metadata":{"created":"2025-03-14T08:00:00Z","id":"m","modified":"2025-03-14T08:00:00Z","totalExchanges":0},` +
		`"semanticGraph":{"edges":[],"nodes":[]},"version":"1.2","workingMemory":{}}`
	d, err := format.ValidateBytes([]byte(doc), nil)
	if err != nil {
		t.Fatalf("the example of §7.2.1 is not valid: %v", err)
	}
	v := d.ArtifactVault.Artifacts["artifact-settings-py"].Versions[0]
	if !v.Edit || v.Content == nil || *v.Content != spec.EditBlock("TIMEOUT = 5", "TIMEOUT = 10") {
		t.Errorf("the example's version is %+v, want the edit block of TIMEOUT = 5 → 10", v)
	}
}
