package spec

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// ScopeKinds lists the scope kinds (§4.3).
var ScopeKinds = []string{ScopeUser, ScopeWorkspace, ScopeDrive, ScopeApp, ScopeTeam, ScopeFile}

var factScopeID = regexp.MustCompile(`^[A-Za-z0-9._~-]{1,128}$`)

// CheckFactScope checks a fact's scope against its grammar (§6.1.2): a
// scope kind, optionally followed by ":" and an id of 1 to 128 unreserved
// characters, like "user", "user:dana" or "workspace:crawler".
func CheckFactScope(s string) error {
	kind, id, hasID := strings.Cut(s, ":")
	if !slices.Contains(ScopeKinds, kind) {
		return fmt.Errorf("scope %q: the kind %q is not one of %s", s, kind, strings.Join(ScopeKinds, ", "))
	}
	if hasID && !factScopeID.MatchString(id) {
		return fmt.Errorf("scope %q: the id after %q must be 1 to 128 letters, digits, '.', '_', '~' or '-'", s, kind+":")
	}
	return nil
}

// FactScope is the fact scope of a memory's scope: its kind, and its id
// when the id fits the grammar of a fact's scope; "" for no scope.
func (s *Scope) FactScope() string {
	if s == nil || s.Kind == "" {
		return ""
	}
	if factScopeID.MatchString(s.ID) {
		return s.Kind + ":" + s.ID
	}
	return s.Kind
}

// InScopes reports whether a fact's scope is one of scopes, or within one:
// "user:dana" is within "user". An empty list holds every scope.
func InScopes(scope string, scopes []string) bool {
	if len(scopes) == 0 {
		return true
	}
	for _, s := range scopes {
		if scope == s || strings.HasPrefix(scope, s+":") {
			return true
		}
	}
	return false
}
