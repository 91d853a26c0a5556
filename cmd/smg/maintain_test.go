package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/smg-memory/smg/smg"
)

func TestMaintainCommand(t *testing.T) {
	name := filepath.Join(t.TempDir(), "shop.smg")
	ingest(t, nil, filepath.Join(conversationsDir, "checkout.json"), "-o", name)
	ok := func(args ...string) string { t.Helper(); return succeed(t, nil, args...) }

	// On the memory's own clock, nothing is stale yet.
	unchanged := readOnly(t, name)
	out := ok("maintain", name, "--dry-run")
	if !strings.Contains(out, "0 merge, 1 drop-edge, 0 prune, ") || !strings.HasSuffix(out, "dry run: nothing was written\n") {
		t.Errorf("maintain --dry-run:\n%s", out)
	}
	out = ok("maintain", name, "--dry-run", "--now", "2026-03-01", "--stale-after", "100d")
	unchanged("maintain --dry-run")
	for _, want := range []string{
		"\ndrop-edge  concept-stripe-checkout → concept-stripe-elements ",
		"\nprune      concept-http-401 ",
		"0 merge, 1 drop-edge, 3 prune, 14 decay, 0 rebase (as of 2026-03-01T00:00:00Z)\n",
	} {
		if !strings.Contains("\n"+out, want) {
			t.Errorf("maintain --dry-run --now lacks %q:\n%s", want, out)
		}
	}
	var dry, real smg.MaintenanceReport
	if err := json.Unmarshal([]byte(ok("maintain", name, "--dry-run", "--now", "2026-03-01", "--stale-after", "100d", "--json")), &dry); err != nil {
		t.Fatal(err)
	}
	unchanged("maintain --dry-run --json")

	if err := json.Unmarshal([]byte(ok("maintain", name, "--now", "2026-03-01", "--stale-after", "100d", "--json")), &real); err != nil {
		t.Fatal(err)
	}
	if !dry.DryRun || real.DryRun || len(real.Changes) != 18 {
		t.Fatalf("dry run %v, real run %v with %d changes", dry.DryRun, real.DryRun, len(real.Changes))
	}
	dry.DryRun = false
	if !reflect.DeepEqual(dry, real) {
		t.Errorf("the dry run reports\n%v\nthe real run\n%v", dry.Changes, real.Changes)
	}
	ok("validate", name)
	if out := ok("nodes", name); strings.Contains(out, "concept-go ") {
		t.Errorf("a pruned node is listed:\n%s", out)
	}
	if out := ok("maintain", name, "--now", "2026-03-01", "--stale-after", "100d"); out != "0 merge, 0 drop-edge, 0 prune, 0 decay, 0 rebase (as of 2026-03-01T00:00:00Z)\n" {
		t.Errorf("a second run:\n%s", out)
	}

	for _, bad := range [][]string{
		{"maintain", name, "--stale-after", "soon"},
		{"maintain", name, "--now", "yesterday"},
		{"maintain"},
	} {
		if r := run(t, nil, bad...); r.status != exitUsage {
			t.Errorf("%q: status %d, want %d: %s", bad, r.status, exitUsage, r.stderr)
		}
	}
}

func TestParseDays(t *testing.T) {
	for in, want := range map[string]string{"90d": "2160h0m0s", "1.5d": "36h0m0s", "36h": "36h0m0s", "0": "-1ns", "0d": "-1ns"} {
		if d, err := parseDays(in); err != nil || d.String() != want {
			t.Errorf("parseDays(%q) = %v, %v; want %s", in, d, err, want)
		}
	}
	for _, in := range []string{"", "d", "-3d", "-1h", "ninety"} {
		if _, err := parseDays(in); err == nil {
			t.Errorf("parseDays(%q) takes it", in)
		}
	}
}
