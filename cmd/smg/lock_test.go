package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/spec"
)

// TestWritesUnderTheLock: ingest into an existing memory and summarize
// write it under its lock, as remember and the MCP server do, on top of
// what another process wrote while they waited: neither loses the other's
// change.
func TestWritesUnderTheLock(t *testing.T) {
	srv := chatServer(t, new(atomic.Int32))
	env := map[string]string{"SMG_PROVIDER_URL": srv.URL + "/v1", "SMG_CHAT_MODEL": "summ-1"}
	const fact = "Dana ships the parcels by rail"
	for _, tc := range []struct {
		name  string
		env   map[string]string
		args  func(file string) []string
		check func(t *testing.T, doc *spec.Document)
	}{
		{"ingest", nil, func(file string) []string {
			return []string{"ingest", filepath.Join(conversationsDir, "personal.json"), "-o", file}
		}, func(t *testing.T, doc *spec.Document) {
			if doc.Metadata.TotalExchanges <= 10 {
				t.Errorf("the ingested turns are lost: %d turns", doc.Metadata.TotalExchanges)
			}
		}},
		{"summarize", env, func(file string) []string {
			return []string{"summarize", file}
		}, func(t *testing.T, doc *spec.Document) {
			if b := doc.DeepArchive.Blocks; len(b) < 2 || b[0].SummaryModel != "summ-1" || b[1].SummaryModel != "summ-1" {
				t.Errorf("the model's summaries are lost: %+v", b)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := parcelsFile(t)
			lock := flock.New(filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+".lock"))
			if err := lock.Lock(); err != nil {
				t.Fatal(err)
			}
			done := make(chan result, 1)
			go func() { done <- run(t, tc.env, tc.args(name)...) }()
			time.Sleep(300 * time.Millisecond)
			select {
			case r := <-done:
				lock.Unlock()
				t.Fatalf("%s did not wait for the lock: status %d\n%s", tc.name, r.status, r.stderr)
			default:
			}
			// Another process changes the file under its lock meanwhile.
			m, err := smg.Open(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Remember(context.Background(), smg.Fact{Content: fact}); err != nil {
				t.Fatal(err)
			}
			if err := m.Save(name, nil); err != nil {
				t.Fatal(err)
			}
			m.Close()
			lock.Unlock()
			if r := <-done; r.status != exitOK {
				t.Fatalf("%s: status %d\n%s", tc.name, r.status, r.stderr)
			}
			doc, err := format.ReadFile(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(doc.SemanticGraph.Nodes, func(n spec.Node) bool { return strings.Contains(n.Label, "parcels by rail") }) {
				t.Errorf("%s lost the other process's fact", tc.name)
			}
			tc.check(t, doc)
		})
	}
}
