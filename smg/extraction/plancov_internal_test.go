package extraction

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The few characters where Python's text rules and Go's differ, as
// plancov.py meets them.
func TestPythonTextRules(t *testing.T) {
	for in, want := range map[string]string{
		"Flask 2.3.1 ÉTÉ": "flask 2.3.1 ÉtÉ", // only what planWord can see is lowered
		"\u0130zmir":      "i\u0307zmir",     // Python: i and a combining dot; Go's ToLower: i
		"300\u212a":       "300k",            // the Kelvin sign
		"“I’M” $5 10%":    "“i’m” $5 10%",
	} {
		if got := pyLower(in); got != want {
			t.Errorf("pyLower(%q) = %q, want %q", in, got, want)
		}
	}
	for _, r := range []rune{'\x1c', '\x1d', '\x1e', '\x1f', '\u00a0', '\u2009', '\u3000'} {
		if !pySpace(r) {
			t.Errorf("%U is white space to Python", r)
		}
	}
	for _, r := range []rune{'\u200b', '\ufeff', 'x'} {
		if pySpace(r) {
			t.Errorf("%U is not white space to Python", r)
		}
	}
	got := pyLines("a\r\nb\rc\n\nd\x1ce\x1ff\u2028g\u0085h\n")
	want := []string{"a", "b", "c", "", "d", "e\x1ff", "g", "h"}
	if !slices.Equal(got, want) {
		t.Errorf("pyLines gives %q, want %q", got, want)
	}
}

// pyLower, pySpace and pyLines agree with Python on every character, when
// python3 is there to say.
func TestPythonTextRulesEveryCharacter(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skipf("not checked against Python: no python3 on PATH (%v)", err)
	}
	// For each character: its lower case if it holds ASCII, whether it is
	// white space, whether it ends a line.
	const script = `
import json
lower, space, lines = {}, [], []
for c in range(0x110000):
    if 0xd800 <= c < 0xe000: continue
    s = chr(c)
    if any(ord(x) < 128 for x in s.lower()): lower[c] = s.lower()
    if s.isspace(): space.append(c)
    if len(("a" + s + "b").splitlines()) > 1: lines.append(c)
print(json.dumps({"lower": lower, "space": space, "lines": lines}))
`
	out, err := exec.Command(python, "-c", script).Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var py struct {
		Lower map[string]string
		Space []rune
		Lines []rune
	}
	if err := json.Unmarshal(out, &py); err != nil {
		t.Fatal(err)
	}
	lower := map[rune]string{}
	for k, v := range py.Lower {
		n, err := strconv.Atoi(k)
		if err != nil {
			t.Fatal(err)
		}
		lower[rune(n)] = v
	}
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		s := string(r)
		if want, ok := lower[r]; ok {
			if got := pyLower(s); got != want {
				t.Errorf("pyLower(%U) = %q, Python gives %q", r, got, want)
			}
		} else if got := pyLower(s); strings.IndexFunc(got, func(c rune) bool { return c < utf8.RuneSelf }) >= 0 {
			t.Errorf("pyLower(%U) = %q holds ASCII, Python's lower case does not", r, got)
		}
		if got, want := pySpace(r), slices.Contains(py.Space, r); got != want {
			t.Errorf("pySpace(%U) = %v, Python says %v", r, got, want)
		}
		if got, want := len(pyLines("a"+s+"b")) > 1, slices.Contains(py.Lines, r); got != want {
			t.Errorf("pyLines splits at %U: %v, Python: %v", r, got, want)
		}
	}
}
