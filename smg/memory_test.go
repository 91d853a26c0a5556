package smg_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/smgtest"
	"github.com/smg-memory/smg/spec"
)

// checkoutTurns reads the coding conversation of testdata.
func TestMemorySaveOpenContinue(t *testing.T) {
	turns := smgtest.CheckoutTurns(t)
	ctx := context.Background()
	whole := smg.New(nil)
	if n, err := whole.IngestAll(ctx, turns); n != len(turns) || err != nil {
		t.Fatal(n, err)
	}
	want, err := whole.Marshal(nil)
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	name := filepath.Join(dir, "m.smg")
	first := smg.New(nil)
	first.IngestAll(ctx, turns[:12])
	if err := first.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	m, err := smg.Open(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Turns() != 12 {
		t.Fatalf("opened with %d turns", m.Turns())
	}
	for _, tu := range turns[12:] {
		if err := m.Ingest(ctx, tu); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := m.Marshal(nil)
	if !bytes.Equal(got, want) {
		t.Error("saved, opened and continued, the memory differs from the one built at once")
	}

	doc, err := format.ValidateBytes(got, nil)
	if err != nil {
		t.Fatal(err)
	}
	// One encoding a save: no compressionRatio, which would take another
	// (spec §4.2); the transcript's size, from which a reader computes it.
	if r := doc.Metadata.CompressionRatio; r != 0 || doc.Metadata.TranscriptBytes == 0 {
		t.Errorf("compressionRatio %v, transcriptBytes %d", r, doc.Metadata.TranscriptBytes)
	}
}

// TestMemoryConcurrent ingests from several goroutines while others read:
// the race detector watches, and every turn lands once.
func TestMemoryConcurrent(t *testing.T) {
	m := smg.New(&smg.Options{ProjectName: "race"})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range 25 {
				if err := m.Ingest(context.Background(), smg.Turn{Role: "user", Content: "turn " + string(rune('a'+w)) + " " + string(rune('a'+i%26))}); err != nil {
					t.Error(err)
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range 5 {
				if doc := m.Document(); doc.Metadata.TotalExchanges > 100 {
					t.Error("more turns than ingested")
				}
			}
		}()
	}
	wg.Wait()
	doc := m.Document()
	if doc.Metadata.TotalExchanges != 100 || doc.Metadata.ProjectName != "race" {
		t.Errorf("%d turns", doc.Metadata.TotalExchanges)
	}
	if err := format.Validate(doc, &format.ValidateOptions{SkipJSONLD: true}); err != nil {
		t.Error(err)
	}
}

func TestMemoryRefuses(t *testing.T) {
	m := smg.New(nil)
	if err := m.Ingest(context.Background(), smg.Turn{Content: "who said this?"}); !errors.Is(err, smg.ErrInvalidTurn) {
		t.Errorf("a turn without role or speaker: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if n, err := m.IngestAll(ctx, smgtest.CheckoutTurns(t)); n != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: %d, %v", n, err)
	}
	// A memory of no turns is still a valid file.
	b, err := m.Marshal(&smg.EncodeOptions{Plain: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := format.ValidateBytes(b, nil); err != nil {
		t.Error(err)
	}
}

// FuzzIngest: whatever people say, ingest never panics and the memory it
// makes is a valid document, with every turn accepted or refused as an
// ErrInvalidTurn.
func FuzzIngest(f *testing.F) {
	for _, t := range smgtest.CheckoutTurns(f) {
		f.Add(t.Content, t.Speaker, "Let's use Redis instead of Memcached, because it persists.")
	}
	f.Add("```go main.go\npackage main\n```", "", "I'm Ana, I live in Lisbon. Remember that I hate cats.")
	f.Add("<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE", "Mel", "TypeError: x is undefined\n    at f (a.js:1:2)")
	f.Fuzz(func(t *testing.T, first, speaker, second string) {
		m := smg.New(nil)
		at := time.Date(2024, 5, 8, 13, 56, 0, 0, time.UTC)
		for i, tu := range []smg.Turn{
			{Role: "user", Speaker: speaker, Content: first, Timestamp: at},
			{Role: "assistant", Content: second, Timestamp: at.Add(time.Minute)},
			{Role: "user", Speaker: speaker, Content: first + "\n" + second, Timestamp: at.Add(time.Hour)},
		} {
			if err := m.Ingest(context.Background(), tu); err != nil && !errors.Is(err, smg.ErrInvalidTurn) {
				t.Fatalf("turn %d: %v", i+1, err)
			}
		}
		b, err := m.Marshal(&smg.EncodeOptions{Plain: true})
		if err != nil {
			t.Fatal(err)
		}
		doc, err := format.Decode(bytes.NewReader(b), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := format.Validate(doc, &format.ValidateOptions{SkipJSONLD: true}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestWritersWriteBlocksInTheClear: every writer of a memory (Marshal,
// Save, a FileMemory's write) writes version 1.1's blocks, the closed ones
// in the clear too, though the memory keeps them compressed.
func TestWritersWriteBlocksInTheClear(t *testing.T) {
	m := smg.New(&smg.Options{NoVectors: true, Config: smg.Config{BlockSize: 4}})
	if _, err := m.IngestAll(context.Background(), smgtest.CheckoutTurns(t)); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "m.smg")
	if err := m.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	raw, err := m.Marshal(nil)
	if err != nil {
		t.Fatal(err)
	}
	for what, read := range map[string]func() (*spec.Document, error){
		"Marshal": func() (*spec.Document, error) { return format.Unmarshal(raw, nil) },
		"Save":    func() (*spec.Document, error) { return format.ReadFile(name, nil) },
	} {
		doc, err := read()
		if err != nil {
			t.Fatal(err)
		}
		if len(doc.DeepArchive.Blocks) < 3 || doc.Version != spec.Version {
			t.Fatalf("%s: %d blocks, version %s", what, len(doc.DeepArchive.Blocks), doc.Version)
		}
		for _, b := range doc.DeepArchive.Blocks {
			if b.Turns == nil || b.CompressedData != nil {
				t.Errorf("%s: block %s is not in the clear", what, b.ID)
			}
		}
	}
}
