package spec

import (
	"strings"
	"testing"
)

func TestCheckFactScope(t *testing.T) {
	for _, s := range []string{"user", "user:dana", "workspace:crawler", "file:main.go", "team:a~b_c-d"} {
		if err := CheckFactScope(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	for s, says := range map[string]string{
		"":                                 `the kind "" is not one of`,
		"users":                            `the kind "users"`,
		"user:":                            "1 to 128",
		"user:a b":                         "1 to 128",
		"user:" + strings.Repeat("x", 129): "1 to 128",
	} {
		if err := CheckFactScope(s); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%q: %v, want an error saying %q", s, err, says)
		}
	}
}

func TestInScopes(t *testing.T) {
	for _, tc := range []struct {
		scope  string
		scopes []string
		want   bool
	}{
		{"user:dana", nil, true},
		{"user:dana", []string{"user"}, true},
		{"user", []string{"user:dana"}, false},
		{"username", []string{"user"}, false},
		{"workspace:web", []string{"user", "workspace:web"}, true},
	} {
		if got := InScopes(tc.scope, tc.scopes); got != tc.want {
			t.Errorf("InScopes(%q, %v) = %v", tc.scope, tc.scopes, got)
		}
	}
	if got := (&Scope{Kind: "workspace", ID: "crawler"}).FactScope(); got != "workspace:crawler" {
		t.Errorf("FactScope = %q", got)
	}
	if got := (&Scope{Kind: "team", ID: "Core Team"}).FactScope(); got != "team" {
		t.Errorf("an id that is not a fact scope's: %q", got)
	}
	if got := (*Scope)(nil).FactScope(); got != "" {
		t.Errorf("no scope: %q", got)
	}
}
