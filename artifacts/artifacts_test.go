package artifacts

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestHash(t *testing.T) {
	if got := Hash(""); got != "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("Hash(\"\") = %s", got)
	}
}

var texts = []string{
	"",
	"package main\n\nfunc main() {}\n",
	"package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"héllo 🎉\")\n}\n",
	"package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"héllo 🎉🎉 wörld\")\n\tfmt.Println(\"100% + 50% = ?\")\n}\n",
	strings.Repeat("a line of text that repeats\n", 200) + "the end\u2028\n",
}

func TestPatchRoundTrip(t *testing.T) {
	for i, a := range texts {
		for j, b := range texts {
			p, err := MakePatch(a, b)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ApplyPatch(a, p)
			if err != nil || got != b {
				t.Errorf("text %d → %d: %v\npatch %q", i, j, err, p)
			}
		}
	}
}

// TestApplyIsStrict applies a patch to a text that differs from its base
// where the patch looks: it fails instead of guessing.
func TestApplyIsStrict(t *testing.T) {
	p := mustPatch(t, texts[2], texts[3])
	base := strings.Replace(texts[2], "héllo", "hello", 1)
	if got, err := ApplyPatch(base, p); !errors.Is(err, ErrPatch) {
		t.Errorf("applied to another base: %q, %v", got, err)
	}
	for _, bad := range []string{
		"garbage\n",
		"@@ -1,3 +1,4 @@\n x\n",           // a hunk that does not match
		"@@ -1,3 +1,4 @@\n %ZZ\n",         // a broken escape
		"@@ -1,3 +1,4 @@\n*oops\n",        // an unknown line mode
		"@@ -1,3 +1,4 @@",                 // no newline at the end
		"@@ -99999999999,3 +1,4 @@\n x\n", // a number too large
		"@@ -1,3 +1,4 @@\n\n",             // an empty line
	} {
		if _, err := ApplyPatch(texts[2], bad); !errors.Is(err, ErrPatch) {
			t.Errorf("ApplyPatch(%q): %v", bad, err)
		}
	}
}

func chainOf(contents []string, interval int) []Version {
	vs := make([]Version, len(contents))
	for i, c := range contents {
		vs[i].Hash = Hash(c)
		if i%interval == 0 {
			vs[i].Content = &c
		} else {
			p, _ := MakePatch(contents[i-1], c)
			vs[i].Patch = &p
		}
	}
	return vs
}

func TestReconstruct(t *testing.T) {
	var contents []string
	for i := range 10 {
		contents = append(contents, fmt.Sprintf("retries = %d\nbackoff = %dms\n", i, 10*i))
	}
	chain := chainOf(contents, 4)
	for i := range contents {
		got, err := Reconstruct(chain, i)
		if err != nil || got != contents[i] {
			t.Errorf("version %d: %q, %v", i, got, err)
		}
	}
	if _, err := Reconstruct(chain, 10); err == nil {
		t.Error("an index past the end")
	}
	broken := chainOf(contents, 4)
	broken[5].Hash = Hash("not it")
	if _, err := Reconstruct(broken, 6); !errors.Is(err, ErrHashMismatch) {
		t.Errorf("through a version with a wrong hash: %v", err)
	}
	if got, err := Reconstruct(broken, 8); err != nil || got != contents[8] {
		t.Errorf("from the snapshot after the broken version: %q, %v", got, err)
	}
}

func TestWalkReportsEveryBrokenVersion(t *testing.T) {
	var contents []string
	for i := range 7 {
		contents = append(contents, fmt.Sprintf("v%d\n", i))
	}
	chain := chainOf(contents, 3) // full copies at 0, 3, 6
	bad := "@@ -1,3 +1,3 @@\n-zz%0A\n+v2%0A\n"
	chain[1].Patch = &bad
	chain[4].Content, chain[4].Patch = nil, nil
	var got []string
	Walk(chain, func(i int, content string, err error) error {
		if err != nil {
			var ve *VersionError
			if !errors.As(err, &ve) || ve.Index != i {
				t.Errorf("version %d: %v is not a VersionError of that index", i, err)
			}
			got = append(got, fmt.Sprintf("%d:%v", i, errors.Is(err, ErrNoBase)))
		} else if content != contents[i] {
			t.Errorf("version %d: %q", i, content)
		}
		return nil
	})
	want := []string{"1:false", "2:true", "4:false", "5:true"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("broken versions %v, want %v", got, want)
	}
}

func mustPatch(t testing.TB, a, b string) string {
	t.Helper()
	p, err := MakePatch(a, b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNotUTF8(t *testing.T) {
	if _, err := MakePatch("\xff", "0"); !errors.Is(err, ErrNotUTF8) {
		t.Errorf("MakePatch of invalid UTF-8: %v", err)
	}
	if _, err := ApplyPatch("\xff", "@@ -1 +1 @@\n-%FF\n+0\n"); !errors.Is(err, ErrNotUTF8) {
		t.Errorf("ApplyPatch to invalid UTF-8: %v", err)
	}
	if _, err := ApplyPatch("0", "@@ -1 +1 @@\n-0\n+%FF\n"); !errors.Is(err, ErrPatch) {
		t.Errorf("ApplyPatch giving invalid UTF-8: %v", err)
	}
}

// FuzzPatch: a patch made from a to b applies to a and gives b.
func FuzzPatch(f *testing.F) {
	for i := 1; i < len(texts); i++ {
		f.Add(texts[i-1], texts[i])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		p, err := MakePatch(a, b)
		if err != nil {
			if utf8.ValidString(a) && utf8.ValidString(b) {
				t.Fatal(err)
			}
			return
		}
		got, err := ApplyPatch(a, p)
		if err != nil || got != b {
			t.Fatalf("%q → %q: got %q, %v (patch %q)", a, b, got, err, p)
		}
	})
}

// FuzzApplyPatch: any patch text, applied to any text, fails or gives a
// result; it never panics.
func FuzzApplyPatch(f *testing.F) {
	f.Add(texts[2], mustPatch(f, texts[2], texts[3]))
	f.Add("abc", "@@ -1,3 +1,3 @@\n-abc\n+xyz\n")
	f.Fuzz(func(t *testing.T, base, patch string) {
		_, _ = ApplyPatch(base, patch)
	})
}

// TestSpecPatchExample checks the two-hunk example of spec §7.4.1, which
// go-diff writes from a character diff: ApplyPatch applies it.
func TestSpecPatchExample(t *testing.T) {
	b, err := os.ReadFile("../spec/smg-v1.md")
	if err != nil {
		t.Fatal(err)
	}
	const intro = "Two hunks, with rolling offsets: `aaaa1111bbbbbbbbbbbbcccc2222dddd` →\n`aaaaXbbbbbbbbbbbbccccYYYYdddd`:\n\n```\n"
	_, rest, ok := strings.Cut(string(b), intro)
	if !ok {
		t.Fatal("§7.4.1 no longer has the two-hunk example")
	}
	example, _, _ := strings.Cut(rest, "```")
	old, new := "aaaa1111bbbbbbbbbbbbcccc2222dddd", "aaaaXbbbbbbbbbbbbccccYYYYdddd"
	if got, err := ApplyPatch(old, example); err != nil || got != new {
		t.Errorf("applying the spec's example: %q, %v", got, err)
	}
}

func TestReaderReadsAnyOrder(t *testing.T) {
	texts := []string{"a\nb\nc\n", "a\nB\nc\n", "a\nB\nc\nd\n", "x\nB\nc\nd\n", "x\nB\nc\nd\ne\n", "x\nc\nd\ne\n"}
	chain := chainOf(texts, 3)
	r := NewReader(func(id string) []Version {
		if id == "art" {
			return chain
		}
		return nil
	})
	for _, v := range []int{6, 1, 2, 3, 5, 4, 4, 6, 2} {
		got, err := r.Content("art", v)
		if err != nil || got != texts[v-1] {
			t.Fatalf("Content(art, %d) = %q, %v; want %q", v, got, err, texts[v-1])
		}
	}
	for _, v := range []int{0, 7} {
		if _, err := r.Content("art", v); !errors.Is(err, ErrUnknown) {
			t.Errorf("Content(art, %d): %v, want ErrUnknown", v, err)
		}
	}
	if _, err := r.Content("other", 1); !errors.Is(err, ErrUnknown) {
		t.Errorf("Content(other, 1): %v, want ErrUnknown", err)
	}
}

func TestReaderChecksHashes(t *testing.T) {
	texts := []string{"one\ntwo\n", "one\n2\n", "one\n2\nthree\n"}
	chain := chainOf(texts, 10)
	chain[1].Hash = Hash("something else")
	r := NewReader(func(string) []Version { return chain })
	if got, err := r.Content("art", 1); err != nil || got != texts[0] {
		t.Fatalf("version 1: %q, %v", got, err)
	}
	for _, v := range []int{2, 3} {
		var verr *VersionError
		if _, err := r.Content("art", v); !errors.As(err, &verr) || verr.Index != 1 || !errors.Is(err, ErrHashMismatch) {
			t.Errorf("version %d: %v, want a hash mismatch at index 1", v, err)
		}
	}
}
