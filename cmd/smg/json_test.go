package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/spf13/cobra"

	"github.com/smg-memory/smg/smg/smgtest"
)

// camelCase is a member name of the JSON the commands print.
var camelCase = regexp.MustCompile(`^[a-z][a-zA-Z0-9]*$`)

// dataKeys are the JSON paths of objects whose member names are data, not
// names of fields: they are spelt as the data is.
var dataKeys = []*regexp.Regexp{
	regexp.MustCompile(`^\$\.relations$`), // info: edges by relation, as the spec names relations (related_to)
	// A node's metadata (in a list of nodes, show's node, remember's
	// fact): whatever its writer put there.
	regexp.MustCompile(`^\$(\[\d+\]|\.node|\.fact)\.metadata$`),
}

// TestJSONKeysCamelCase runs every command that has a --json flag, found
// by walking the command tree, and checks that every member name of the
// JSON it prints is camelCase, like the format's own. A new command with
// --json needs a line in the table below, or this test fails.
func TestJSONKeysCamelCase(t *testing.T) {
	shop, _ := checkoutFile(t)
	other := filepath.Join(t.TempDir(), "other.smg")
	ingest(t, nil, filepath.Join(conversationsDir, "checkout.json"), "-o", other)
	succeed(t, nil, "remember", other, "I live in Berlin now")
	succeed(t, nil, "collaborators", "add", shop, "alice", "--name", "Alice")
	var fail atomic.Int32
	chat := map[string]string{"SMG_PROVIDER_URL": chatServer(t, &fail).URL + "/v1", "SMG_CHAT_MODEL": "summ-1"}
	embed := providerEnv(smgtest.NewProviderServer(t), "")
	merged := filepath.Join(t.TempDir(), "merged.smg")
	keys := filepath.Join(t.TempDir(), "memories")
	if r := run(t, nil, "serve", "key", "add", "--dir", keys, "--tenant", "acme", "--memory", "dana"); r.status != exitOK {
		t.Fatal(r.stderr)
	}

	cases := map[string]struct {
		env  map[string]string
		args []string
	}{
		"smg archive":        {nil, []string{shop, "--turn", "3"}},
		"smg artifacts":      {nil, []string{shop}},
		"smg context":        {nil, []string{shop, "why Stripe Elements?", "--no-index-cache"}},
		"smg diff":           {nil, []string{shop, other}},
		"smg embed":          {embed, []string{other}},
		"smg remember":       {nil, []string{shop, "I use vim"}},
		"smg facts":          {nil, []string{shop, "--all"}},
		"smg info":           {nil, []string{shop}},
		"smg maintain":       {nil, []string{shop, "--dry-run"}},
		"smg merge":          {nil, []string{shop, other, "-o", merged, "--prefer", "ours"}},
		"smg nodes":          {nil, []string{shop}},
		"smg show":           {nil, []string{shop, "decision-postgresql"}},
		"smg collaborators":  {nil, []string{shop}},
		"smg query":          {nil, []string{shop, "FIND decisions LIMIT 3"}},
		"smg search":         {nil, []string{shop, "webhook", "--no-index-cache"}},
		"smg serve key list": {nil, []string{"--dir", keys}},
		"smg summarize":      {chat, []string{parcelsFile(t)}},
		"smg validate":       {nil, []string{shop, other}},
	}
	var withJSON []string
	walk((&app{}).rootCommand(), func(cmd *cobra.Command) {
		if cmd.LocalFlags().Lookup("json") != nil {
			withJSON = append(withJSON, cmd.CommandPath())
		}
	})
	if len(withJSON) < 10 {
		t.Fatalf("only %v have --json: the walk is broken", withJSON)
	}
	for _, path := range withJSON {
		c, ok := cases[path]
		if !ok {
			t.Errorf("%s has --json: add its arguments to this test", path)
			continue
		}
		args := append(strings.Fields(path)[1:], "--json")
		r := run(t, c.env, append(args, c.args...)...)
		if r.status != exitOK {
			t.Errorf("%s: status %d\n%s", path, r.status, r.stderr)
			continue
		}
		var bad []string
		dec := json.NewDecoder(strings.NewReader(r.stdout))
		for dec.More() { // validate prints one object per file
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Errorf("%s: not JSON: %v\n%s", path, err, r.stdout)
				break
			}
			bad = append(bad, nonCamel(v, "$")...)
		}
		slices.Sort(bad)
		if bad = slices.Compact(bad); len(bad) > 0 {
			t.Errorf("%s --json: member names not in camelCase: %s", path, strings.Join(bad, ", "))
		}
	}
}

// nonCamel lists the member names of v, at path, that are not camelCase,
// with their paths, leaving out those of dataKeys.
func nonCamel(v any, path string) []string {
	var bad []string
	switch v := v.(type) {
	case map[string]any:
		data := slices.ContainsFunc(dataKeys, func(re *regexp.Regexp) bool { return re.MatchString(path) })
		for k, x := range v {
			if !data && !camelCase.MatchString(k) {
				bad = append(bad, path+"."+k)
			}
			if !data {
				bad = append(bad, nonCamel(x, path+"."+k)...)
			}
		}
	case []any:
		for i, x := range v {
			bad = append(bad, nonCamel(x, fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return bad
}
