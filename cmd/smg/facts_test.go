package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

func TestFactCommands(t *testing.T) {
	name := filepath.Join(t.TempDir(), "me.smg")
	ok := func(args ...string) string { t.Helper(); return succeed(t, nil, args...) }
	out := ok("remember", name, "I prefer dark mode in every editor", "--reasoning", "said it twice")
	if !regexp.MustCompile(`^saved fact-user-prefers-dark-mode-in-every-editor \(preference, user, importance 1\): User prefers dark mode in every editor\n$`).MatchString(out) {
		t.Errorf("remember:\n%s", out)
	}
	if out := ok("remember", name, "User prefers dark mode in editors"); !strings.HasPrefix(out, "already saved as fact-user-prefers-dark-mode-in-every-editor: ") {
		t.Errorf("a duplicate:\n%s", out)
	}
	ok("remember", name, "User lives in Paris", "--category", "identity")
	out = ok("remember", name, "I live in Berlin now", "--pin")
	if !strings.Contains(out, "  supersedes fact-user-lives-in-paris\n") {
		t.Errorf("a contradiction:\n%s", out)
	}
	ok("remember", name, "The crawler must respect robots.txt", "--scope", "workspace:crawler", "--category", "project")

	out = ok("facts", name)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || strings.Join(strings.Fields(lines[0]), " ") != "ID CATEGORY SCOPE IMPORTANCE FACT" ||
		!strings.HasPrefix(lines[1], "fact-user-lives-in-berlin-now") || !strings.Contains(lines[1], "[pinned] User lives in Berlin now") ||
		!strings.HasPrefix(lines[3], "fact-the-crawler-must-respect-robots-txt") {
		t.Errorf("facts:\n%s", out)
	}
	if out := ok("facts", name, "--all"); !strings.Contains(out, "User lives in Paris [superseded ") {
		t.Errorf("facts --all:\n%s", out)
	}
	var facts []spec.Node
	if err := json.Unmarshal([]byte(ok("facts", name, "--json", "--scope", "workspace")), &facts); err != nil || len(facts) != 1 || facts[0].Scope != "workspace:crawler" {
		t.Errorf("facts --json --scope workspace: %v %+v", err, facts)
	}

	ok("unpin", name, "fact-user-lives-in-berlin-now")
	ok("pin", name, "fact-user-prefers-dark-mode-in-every-editor")
	if out := ok("facts", name); strings.Contains(out, "[pinned] User lives") || !strings.Contains(out, "[pinned] User prefers dark mode") {
		t.Errorf("after unpin and pin:\n%s", out)
	}
	// Paris is current again (TestForgetRestores).
	if out := ok("forget", name, "fact-user-lives-in-berlin-now"); !strings.HasPrefix(out, "forgot fact-user-lives-in-berlin-now\n  restored fact-user-lives-in-paris") {
		t.Errorf("forget: %q", out)
	}

	// Errors: an unknown id changes nothing, a bad fact says what is wrong.
	before := ok("facts", name, "--json")
	for _, tc := range []struct {
		args   []string
		status int
		says   string
	}{
		{[]string{"forget", name, "fact-user-prefers-dark-mode-in-every-editor", "fact-nope"}, exitInvalid, `no node "fact-nope"`},
		{[]string{"remember", name, "tiny"}, exitInvalid, `fact content: saved as "tiny", is 4 characters long; a fact takes 10 to 500`},
		{[]string{"remember", name, "User likes green tea", "--category", "hobby"}, exitInvalid, `"hobby" is not a category`},
		{[]string{"remember", name, "User likes green tea", "--scope", "galaxy"}, exitInvalid, `the kind "galaxy"`},
		{[]string{"pin", name}, exitUsage, "missing ID"},
		{[]string{"facts", name, "--category", "hobby"}, exitUsage, "--category"},
		{[]string{"forget", filepath.Join(t.TempDir(), "none.smg"), "x"}, exitFailure, "no such file"},
	} {
		r := run(t, nil, tc.args...)
		if r.status != tc.status || !strings.Contains(r.stderr, tc.says) {
			t.Errorf("%q: status %d, %s; want %d saying %q", tc.args, r.status, r.stderr, tc.status, tc.says)
		}
	}
	if after := ok("facts", name, "--json"); after != before {
		t.Error("a failed command changed the memory")
	}
	if _, err := format.ReadFile(name, nil); err != nil {
		t.Fatal(err)
	}
}

// An encrypted memory takes facts and stays encrypted.
func TestRememberEncrypted(t *testing.T) {
	name, _ := checkoutFile(t)
	if r := run(t, withPassword("pw"), "encrypt", name); r.status != exitOK {
		t.Fatalf("encrypt: %s", r.stderr)
	}
	if r := run(t, withPassword("pw"), "remember", name, "User deploys on Fridays only"); r.status != exitOK {
		t.Fatalf("remember: %s", r.stderr)
	}
	if r := run(t, nil, "facts", name); r.status != exitPassword {
		t.Errorf("the memory is no longer encrypted: status %d", r.status)
	}
	if r := run(t, withPassword("pw"), "facts", name); !strings.Contains(r.stdout, "User deploys on Fridays only") {
		t.Errorf("facts:\n%s%s", r.stdout, r.stderr)
	}
}

// TestForgetRestores: forgetting the fact that superseded another brings
// the old one back as the current value, and forget says so.
func TestForgetRestores(t *testing.T) {
	name := filepath.Join(t.TempDir(), "me.smg")
	succeed(t, nil, "remember", name, "User lives in Paris", "--category", "identity")
	succeed(t, nil, "remember", name, "I live in Berlin now")
	out := succeed(t, nil, "forget", name, "fact-user-lives-in-berlin-now")
	want := "forgot fact-user-lives-in-berlin-now\n  restored fact-user-lives-in-paris: current again, as before fact-user-lives-in-berlin-now superseded it\n"
	if out != want {
		t.Errorf("forget:\n%s\nwant\n%s", out, want)
	}
	var facts []spec.Node
	if err := json.Unmarshal([]byte(succeed(t, nil, "facts", name, "--json", "--all")), &facts); err != nil {
		t.Fatal(err)
	}
	if len(facts) != 1 || facts[0].ID != "fact-user-lives-in-paris" || !facts[0].ValidTo.IsZero() {
		t.Errorf("after forget, the facts are %+v", facts)
	}
}

// TestRememberShortFact: "I use vim" is 9 characters, but saved as "User
// uses vim" it is 13: long enough.
func TestRememberShortFact(t *testing.T) {
	name := filepath.Join(t.TempDir(), "me.smg")
	if out := succeed(t, nil, "remember", name, "I use vim"); !strings.HasSuffix(out, ": User uses vim\n") {
		t.Errorf("remember: %q", out)
	}
	r := run(t, nil, "remember", name, "tiny")
	if r.status != exitInvalid || !strings.Contains(r.stderr, `fact content: saved as "tiny", is 4 characters long; a fact takes 10 to 500`) {
		t.Errorf("remember tiny: status %d, %s", r.status, r.stderr)
	}
}
