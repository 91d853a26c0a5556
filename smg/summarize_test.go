package smg_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/provider"
	"github.com/smg-memory/smg/spec"
)

// The provider's client is a smg.Summarizer.
var _ smg.Summarizer = (*provider.OpenAI)(nil)

// parcelTurns are n turns from turn from on, dated a minute apart.
func parcelTurns(from, n int) []smg.Turn {
	t0 := time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC)
	out := make([]smg.Turn, n)
	for i := range out {
		k := from + i
		out[i] = smg.Turn{Role: "user", Speaker: "Dana", Timestamp: t0.Add(time.Duration(k) * time.Minute),
			Content: fmt.Sprintf("We decided to send parcel %d from Rotterdam.", k)}
	}
	return out
}

// checkBlocks checks which blocks of doc have a model's summary: the
// first n, by model; the others the writer's own.
func checkBlocks(t *testing.T, doc *spec.Document, n int, model string) {
	t.Helper()
	for i, b := range doc.DeepArchive.Blocks {
		switch {
		case i < n && (b.SummaryModel != model || !strings.HasPrefix(b.Summary, "Zeppelin notes: ")):
			t.Errorf("block %d: summary %q by %q, want the model %q's", i+1, b.Summary, b.SummaryModel, model)
		case i >= n && (b.SummaryModel != "" || strings.Contains(b.Summary, "Zeppelin")):
			t.Errorf("block %d: summary %q by %q, want an extractive one", i+1, b.Summary, b.SummaryModel)
		}
		if i >= n && b.Summary == "" {
			t.Errorf("block %d has no summary", i+1)
		}
	}
}

// TestSummarizeBlocksEndToEnd summarizes the closed blocks of a saved
// memory through the OpenAI client against a test server, and follows the
// summaries through search, a save, a load and more turns.
func TestSummarizeBlocksEndToEnd(t *testing.T) {
	ctx := context.Background()
	srv, c := newProviderServer(t)
	name := filepath.Join(t.TempDir(), "parcels.smg")
	plain := smg.New(&smg.Options{Config: smg.Config{BlockSize: 4}})
	if _, err := plain.IngestAll(ctx, parcelTurns(1, 10)); err != nil {
		t.Fatal(err)
	}
	if err := plain.Save(name, nil); err != nil {
		t.Fatal(err)
	}

	m, err := smg.Open(name, &smg.OpenOptions{Summarizer: c})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if hits, err := m.Search(ctx, "zeppelin", 10); err != nil || len(hits) != 0 {
		t.Fatalf("Search before summarizing = %v, %v", hits, err)
	}
	n, err := m.SummarizeBlocks(ctx)
	if n != 2 || err != nil {
		t.Fatalf("SummarizeBlocks = %d, %v; want the 2 closed blocks", n, err)
	}
	if srv.Requests.Load() != 2 {
		t.Errorf("%d requests for 2 blocks", srv.Requests.Load())
	}
	doc := m.Document()
	checkBlocks(t, doc, 2, "summ-1")
	if got := doc.DeepArchive.Blocks[1].Summary; got != "Zeppelin notes: [14 March 2025] Dana: We decided to send parcel 5 from Rotterdam." {
		t.Errorf("block 2's summary %q", got)
	}
	if err := format.Validate(doc, nil); err != nil {
		t.Fatalf("the document is not valid: %v", err)
	}
	if n, err := m.SummarizeBlocks(ctx); n != 0 || err != nil || srv.Requests.Load() != 2 {
		t.Errorf("SummarizeBlocks again = %d, %v after %d requests; want 0 and no request", n, err, srv.Requests.Load())
	}

	// The live index finds a word that only the model's summary holds.
	hits, err := m.Search(ctx, "zeppelin", 10)
	if err != nil || len(hits) == 0 || hits[0].Kind != "block" || hits[0].NodeID != "block-0001" && hits[0].NodeID != "block-0002" {
		t.Fatalf("Search(zeppelin) = %+v, %v; want a block", hits, err)
	}

	// Saved and opened: the summaries stay, and more turns keep them.
	if err := m.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := format.ValidateFile(name, nil); err != nil {
		t.Fatalf("the file is not valid: %v", err)
	}
	again, err := smg.Open(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	checkBlocks(t, again.Document(), 2, "summ-1")
	if _, err := again.IngestAll(ctx, parcelTurns(11, 8)); err != nil {
		t.Fatal(err)
	}
	after := again.Document()
	if len(after.DeepArchive.Blocks) != 5 {
		t.Fatalf("%d blocks after 18 turns, want 5", len(after.DeepArchive.Blocks))
	}
	checkBlocks(t, after, 2, "summ-1")
	if err := format.Validate(after, nil); err != nil {
		t.Fatalf("the continued memory is not valid: %v", err)
	}
	hits, err = again.Search(ctx, "zeppelin", 10)
	if err != nil || len(hits) != 2 {
		t.Errorf("Search(zeppelin) in the continued memory = %+v, %v; want the 2 blocks", hits, err)
	}
}

// TestSummarizeBlocksServerFails checks that a failing server leaves the
// extractive summaries and a valid memory, and stops being asked after
// three blocks in a row.
func TestSummarizeBlocksServerFails(t *testing.T) {
	ctx := context.Background()
	srv, c := newProviderServer(t)
	srv.Fail.Store(http.StatusServiceUnavailable)
	m := smg.New(&smg.Options{Config: smg.Config{BlockSize: 2}})
	if _, err := m.IngestAll(ctx, parcelTurns(1, 11)); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "parcels.smg")
	if err := m.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	opened, err := smg.Open(name, &smg.OpenOptions{Summarizer: c})
	if err != nil {
		t.Fatal(err)
	}
	defer opened.Close()
	n, err := opened.SummarizeBlocks(ctx)
	if n != 0 || !errors.Is(err, smg.ErrSummarizing) {
		t.Fatalf("SummarizeBlocks = %d, %v; want 0 and ErrSummarizing", n, err)
	}
	se, ok := errors.AsType[*smg.SummaryError](err)
	if !ok || len(se.Blocks) != 5 || se.Blocks[0] != "block-0001" || se.Blocks[4] != "block-0005" {
		t.Fatalf("err = %#v, want a SummaryError naming the 5 closed blocks", err)
	}
	if he, ok := errors.AsType[*provider.HTTPError](err); !ok || he.Status != http.StatusServiceUnavailable {
		t.Errorf("err = %v, want the HTTPError in it", err)
	}
	if !strings.Contains(err.Error(), "5 blocks; block-0001; block-0002") {
		t.Errorf("the message %q does not name the blocks", err)
	}
	if got := srv.Requests.Load(); got != 3 {
		t.Errorf("%d requests, want 3: the rest are not tried after 3 failures in a row", got)
	}
	checkBlocks(t, opened.Document(), 0, "")
	if err := opened.Save(name, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := format.ValidateFile(name, nil); err != nil {
		t.Fatalf("the file is not valid: %v", err)
	}

	srv.Fail.Store(0)
	if n, err := opened.SummarizeBlocks(ctx); n != 5 || err != nil {
		t.Fatalf("SummarizeBlocks with the server back = %d, %v", n, err)
	}
	checkBlocks(t, opened.Document(), 5, "summ-1")
}

// fakeSummarizer answers with answer(text), or fails while fail is set,
// and records the texts it was given.
type fakeSummarizer struct {
	model  string
	answer func(text string) string
	fail   atomic.Bool

	mu    sync.Mutex
	texts []string
}

func (f *fakeSummarizer) ChatModel() string { return f.model }

func (f *fakeSummarizer) Summarize(ctx context.Context, text string, maxWords int) (string, error) {
	f.mu.Lock()
	f.texts = append(f.texts, text)
	f.mu.Unlock()
	if f.fail.Load() {
		return "", io.ErrUnexpectedEOF
	}
	if maxWords != 60 {
		return "", fmt.Errorf("asked for %d words", maxWords)
	}
	return f.answer(text), nil
}

func (f *fakeSummarizer) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.texts...)
}

func zeppelin(text string) string {
	first, _, _ := strings.Cut(text, "\n")
	return "Zeppelin notes: " + first
}

// TestIngestSummarizesClosedBlocks checks that a memory with a summarizer
// summarizes each block as a turn closes it, after the turn is in, and
// keeps the turns when the summary fails.
func TestIngestSummarizesClosedBlocks(t *testing.T) {
	ctx := context.Background()
	f := &fakeSummarizer{model: "fake-1", answer: zeppelin}
	m := smg.New(&smg.Options{Summarizer: f, Config: smg.Config{BlockSize: 4}})
	for i, tu := range parcelTurns(1, 5) {
		if err := m.Ingest(ctx, tu); err != nil {
			t.Fatal(err)
		}
		if want := (i + 1) / 4; len(f.calls()) != want {
			t.Fatalf("after turn %d: %d summaries asked for, want %d", i+1, len(f.calls()), want)
		}
	}
	want := strings.Join([]string{
		"[14 March 2025] Dana: We decided to send parcel 1 from Rotterdam.",
		"[14 March 2025] Dana: We decided to send parcel 2 from Rotterdam.",
		"[14 March 2025] Dana: We decided to send parcel 3 from Rotterdam.",
		"[14 March 2025] Dana: We decided to send parcel 4 from Rotterdam.",
	}, "\n")
	if got := f.calls()[0]; got != want {
		t.Errorf("the model was given\n%s\nwant\n%s", got, want)
	}
	checkBlocks(t, m.Document(), 1, "fake-1")

	n, err := m.IngestAll(ctx, parcelTurns(6, 8))
	if n != 8 || err != nil {
		t.Fatalf("IngestAll = %d, %v", n, err)
	}
	checkBlocks(t, m.Document(), 3, "fake-1")

	f.fail.Store(true)
	n, err = m.IngestAll(ctx, parcelTurns(14, 4))
	if n != 4 || !errors.Is(err, smg.ErrSummarizing) || !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "block-0004") {
		t.Fatalf("IngestAll with a failing summarizer = %d, %v", n, err)
	}
	if m.Turns() != 17 {
		t.Fatalf("%d turns: a failed summary lost turns", m.Turns())
	}
	checkBlocks(t, m.Document(), 3, "fake-1")
	for i := range 2 {
		if err := m.Ingest(ctx, parcelTurns(18+i, 1)[0]); err != nil {
			t.Fatalf("turn %d closes no block: %v", 18+i, err)
		}
	}
	if err := m.Ingest(ctx, parcelTurns(20, 1)[0]); !errors.Is(err, smg.ErrSummarizing) || !strings.Contains(err.Error(), "block-0005") {
		t.Fatalf("Ingest of turn 20 with a failing summarizer: %v", err)
	}

	f.fail.Store(false)
	if n, err := m.SummarizeBlocks(ctx); n != 2 || err != nil {
		t.Fatalf("SummarizeBlocks = %d, %v; want blocks 4 and 5", n, err)
	}
	checkBlocks(t, m.Document(), 5, "fake-1")

	// Another model: every block again.
	f.model = "fake-2"
	if n, err := m.SummarizeBlocks(ctx); n != 5 || err != nil {
		t.Fatalf("SummarizeBlocks with another model = %d, %v", n, err)
	}
	checkBlocks(t, m.Document(), 5, "fake-2")
}

// TestSummarizeRefusesEmptyAnswers checks that an answer of white space
// keeps the extractive summary, with an error that says so; that a long
// answer is cut to 60 words; and that a memory that is off or has no
// summarizer summarizes nothing.
func TestSummarizeRefusesEmptyAnswers(t *testing.T) {
	ctx := context.Background()
	f := &fakeSummarizer{model: "fake-1", answer: func(string) string { return " \n\t " }}
	m := smg.New(&smg.Options{Summarizer: f, Config: smg.Config{BlockSize: 4}})
	n, err := m.IngestAll(ctx, parcelTurns(1, 4))
	if n != 4 || !errors.Is(err, smg.ErrInvalidSummary) || !strings.Contains(err.Error(), "no summary") {
		t.Fatalf("IngestAll with an empty answer = %d, %v", n, err)
	}
	checkBlocks(t, m.Document(), 0, "")

	f.answer = func(string) string { return "Zeppelin notes:" + strings.Repeat(" word\n", 100) }
	if n, err := m.SummarizeBlocks(ctx); n != 1 || err != nil {
		t.Fatalf("SummarizeBlocks = %d, %v", n, err)
	}
	if got := m.Document().DeepArchive.Blocks[0].Summary; len(strings.Fields(got)) != 60 || strings.Contains(got, "\n") {
		t.Errorf("a long answer kept as %d words: %q", len(strings.Fields(got)), got)
	}

	m.SetEnabled(false)
	f.model = "fake-2"
	if n, err := m.SummarizeBlocks(ctx); n != 0 || err != nil {
		t.Errorf("SummarizeBlocks of a memory that is off = %d, %v", n, err)
	}
	if n, err := smg.New(nil).SummarizeBlocks(ctx); n != 0 || err != nil {
		t.Errorf("SummarizeBlocks without a summarizer = %d, %v", n, err)
	}
}

// TestSummaryTextBound checks that the text a model is given of long
// turns stays within its bound, each turn cut to a fair share, and short
// turns whole.
func TestSummaryTextBound(t *testing.T) {
	ctx := context.Background()
	f := &fakeSummarizer{model: "fake-1", answer: zeppelin}
	m := smg.New(&smg.Options{Summarizer: f, Config: smg.Config{BlockSize: 4}})
	turns := []smg.Turn{
		{Role: "user", Content: "Short one."},
		{Role: "assistant", Content: strings.Repeat("é long\n\n", 4000)},
		{Role: "user", Speaker: "Dana", Content: strings.Repeat("long again ", 3000)},
		{Role: "assistant", Content: "Short two."},
	}
	if _, err := m.IngestAll(ctx, turns); err != nil {
		t.Fatal(err)
	}
	text := f.calls()[0]
	lines := strings.Split(text, "\n")
	if len(text) > 16000 || len(lines) != 4 {
		t.Fatalf("%d bytes in %d lines, want at most 16000 in 4", len(text), len(lines))
	}
	if lines[0] != "user: Short one." || lines[3] != "assistant: Short two." {
		t.Errorf("short lines %q and %q", lines[0], lines[3])
	}
	for _, l := range lines[1:3] {
		if !strings.HasSuffix(l, "…") || len(l) < 7000 {
			t.Errorf("a long line of %d bytes, ending %q: want a fair share, cut", len(l), l[max(0, len(l)-10):])
		}
	}
	if !strings.HasPrefix(lines[2], "Dana: long again") || !strings.HasPrefix(lines[1], "assistant: é long é long") {
		t.Errorf("long lines start %.30q and %.30q", lines[1], lines[2])
	}
}

// TestSummarizeConcurrent summarizes and asks at once, for the race
// detector.
func TestSummarizeConcurrent(t *testing.T) {
	ctx := context.Background()
	f := &fakeSummarizer{model: "fake-1", answer: zeppelin}
	m := smg.New(&smg.Options{Summarizer: f, Config: smg.Config{BlockSize: 3}})
	var wg sync.WaitGroup
	wg.Go(func() {
		for _, tu := range parcelTurns(1, 30) {
			if err := m.Ingest(ctx, tu); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Go(func() {
		for range 20 {
			if _, err := m.Search(ctx, "zeppelin parcel", 5); err != nil {
				t.Error(err)
			}
			if _, err := m.SummarizeBlocks(ctx); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	checkBlocks(t, m.Document(), 10, "fake-1")
}

// TestMergeKeepsModelSummaries checks that the blocks a model summarized
// keep their summaries through a merge while their turns are the same,
// and that the merge reports those it could not keep: theirs' new turns
// take new numbers, so their blocks are not the blocks summarized.
func TestMergeKeepsModelSummaries(t *testing.T) {
	ctx := context.Background()
	f := &fakeSummarizer{model: "fake-1", answer: zeppelin}
	clock := func() time.Time { return time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC) }
	m := smg.New(&smg.Options{Now: clock, Summarizer: f, Config: smg.Config{BlockSize: 4}})
	defer m.Close()
	if _, err := m.IngestAll(ctx, parcelTurns(1, 8)); err != nil {
		t.Fatal(err)
	}
	base := m.Document()
	checkBlocks(t, base, 2, "fake-1")
	ours := mergeGrow(t, base, parcelTurns(9, 2), nil)
	theirs := mergeGrow(t, base, parcelTurns(20, 4), nil)
	// Theirs' block of turns 9-12, summarized by another model.
	tb := &theirs.DeepArchive.Blocks[2]
	tb.Summary, tb.SummaryModel = "Parcels 20 to 23.", "fake-2"

	merged, rep := mergeOK(t, base, ours, theirs, smg.MergeOptions{})
	checkBlocks(t, merged, 2, "fake-1")
	if rep.DroppedSummaries != 1 {
		t.Errorf("%d model summaries reported dropped, want 1 (theirs' block of turns 9-12, now 11-14)", rep.DroppedSummaries)
	}
}
