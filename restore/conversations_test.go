package restore

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/smg-memory/smg/spec"
)

// conversationsDir holds the conversations written for the tests.
const conversationsDir = "../smg/examples"

// conversation returns the turns of the named conversation of
// conversationsDir, a generic transcript: a JSON list of turns {id, role,
// speaker, content, timestamp}, numbered from 1.
func conversation(t testing.TB, name string) []spec.Turn {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(conversationsDir, name))
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
