package spec_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/smg-memory/smg/spec"
)

// versions is a vault of two artifacts for Expand.
func versions(id string, v int) (string, error) {
	switch {
	case id == "a" && v == 1:
		return "func f() {}\n", nil
	case id == "a" && v == 2:
		return "func f() { return }\n", nil
	case id == "é" && v == 1:
		return "café ☕\n", nil
	}
	return "", errors.New("no such version")
}

func TestExpand(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		refs    []spec.ContentRef
		want    string
	}{
		{"none", "plain", nil, "plain"},
		{"whole", "```go\n```", []spec.ContentRef{{At: 6, Artifact: "a", V: 1, Length: 12}}, "```go\nfunc f() {}\n```"},
		{"piece", "x=", []spec.ContentRef{{At: 2, Artifact: "a", V: 2, Offset: 11, Length: 6}}, "x=return"},
		{"two at one place", "[]", []spec.ContentRef{{At: 1, Artifact: "a", V: 1, Length: 4}, {At: 1, Artifact: "a", V: 2, Length: 4}}, "[funcfunc]"},
		{"at the ends", "mid", []spec.ContentRef{{At: 0, Artifact: "é", V: 1, Length: 5}, {At: 3, Artifact: "é", V: 1, Offset: 6, Length: 4}}, "cafémid☕\n"},
	} {
		got, err := spec.Turn{Content: tc.content, ContentRefs: tc.refs}.Expand(versions)
		if err != nil || got.Content != tc.want || got.ContentRefs != nil {
			t.Errorf("%s: %q, %v, refs %v; want %q", tc.name, got.Content, err, got.ContentRefs, tc.want)
		}
	}
}

func TestExpandRejects(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		refs    []spec.ContentRef
	}{
		{"out of order", "abcd", []spec.ContentRef{{At: 3, Artifact: "a", V: 1, Length: 4}, {At: 1, Artifact: "a", V: 1, Length: 4}}},
		{"beyond the content", "ab", []spec.ContentRef{{At: 3, Artifact: "a", V: 1, Length: 4}}},
		{"inside a character", "é", []spec.ContentRef{{At: 1, Artifact: "a", V: 1, Length: 4}}},
		{"piece inside a character", "", []spec.ContentRef{{At: 0, Artifact: "é", V: 1, Offset: 4, Length: 1}}},
		{"piece beyond the version", "", []spec.ContentRef{{At: 0, Artifact: "a", V: 1, Offset: 8, Length: 5}}},
		{"empty piece", "", []spec.ContentRef{{At: 0, Artifact: "a", V: 1}}},
		{"negative offset", "", []spec.ContentRef{{At: 0, Artifact: "a", V: 1, Offset: -1, Length: 2}}},
		{"unknown version", "", []spec.ContentRef{{At: 0, Artifact: "a", V: 3, Length: 2}}},
	} {
		if _, err := (spec.Turn{Content: tc.content, ContentRefs: tc.refs}).Expand(versions); !errors.Is(err, spec.ErrContentRef) {
			t.Errorf("%s: %v, want ErrContentRef", tc.name, err)
		}
	}
}

// FuzzExpand: Expand never panics, and what it returns is the stored
// content with the pieces put in, so it is as long as both together.
func FuzzExpand(f *testing.F) {
	f.Add("```go\n```", 6, "a", 1, 0, 12, 0, "a", 2, 11, 6)
	f.Add("mid", 0, "é", 1, 0, 5, 3, "é", 1, 6, 4)
	f.Fuzz(func(t *testing.T, content string, at1 int, id1 string, v1, off1, len1 int, at2 int, id2 string, v2, off2, len2 int) {
		refs := []spec.ContentRef{{At: at1, Artifact: id1, V: v1, Offset: off1, Length: len1}, {At: at2, Artifact: id2, V: v2, Offset: off2, Length: len2}}
		got, err := spec.Turn{Content: content, ContentRefs: refs}.Expand(versions)
		if err != nil {
			if !errors.Is(err, spec.ErrContentRef) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		if len(got.Content) != len(content)+len1+len2 {
			t.Fatalf("%d bytes from %d stored and pieces of %d and %d", len(got.Content), len(content), len1, len2)
		}
		if !strings.HasPrefix(got.Content, content[:at1]) || !strings.HasSuffix(got.Content, content[at2:]) {
			t.Fatalf("the stored text around the pieces moved: %q from %q", got.Content, content)
		}
	})
}
