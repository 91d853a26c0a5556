// Package graphtest gives the tests of graph and restore the example
// conversations smg ships (smg/examples), which they cannot import (it is
// above them): a generic transcript read with encoding/json.
package graphtest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/smg-memory/smg/spec"
)

// Conversation returns the turns of the named conversation of
// smg/examples, a generic transcript (a JSON list of turns {id, role,
// speaker, content, timestamp}), numbered from 1. It is read from the
// module's folder, found upward from the test's.
func Conversation(t testing.TB, name string) []spec.Turn {
	t.Helper()
	dir, err := ModuleDir()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "smg", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	var in []struct {
		ID, Role, Speaker, Content string
		Timestamp                  time.Time
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	turns := make([]spec.Turn, len(in))
	for i, x := range in {
		turns[i] = spec.Turn{Turn: i + 1, ExternalID: x.ID, Role: x.Role, Speaker: x.Speaker, Content: x.Content, Timestamp: x.Timestamp}
	}
	return turns
}

// ModuleDir is the module's folder: the first one with a go.mod, from the
// working directory (a test's package folder) upward.
func ModuleDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = up
	}
}
