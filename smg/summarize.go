package smg

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/smg-memory/smg/graph"
	"github.com/smg-memory/smg/smg/format"
	"github.com/smg-memory/smg/smg/internal/listmsg"
	"github.com/smg-memory/smg/spec"
)

// Summarizer writes the summaries of archive blocks with a language model:
// the OpenAI client of package smg/provider is one, and so is any value
// with its methods. A memory given one ([Options], [OpenOptions]) has it
// summarize each block of the deep archive as the block closes, in place
// of the extractive summary, and records the model in the block's
// summaryModel (spec §8.2.2).
type Summarizer interface {
	// Summarize returns a summary of text in at most maxWords words.
	Summarize(ctx context.Context, text string, maxWords int) (string, error)
	// ChatModel names the model that writes the summaries, as a block's
	// summaryModel records it.
	ChatModel() string
}

// ErrSummarizing reports archive blocks whose summary the summarizer did
// not write: they keep their extractive summary, and
// [Memory.SummarizeBlocks] tries them again. The error is a
// [*SummaryError].
var ErrSummarizing = errors.New("summarizing archive blocks")

// ErrInvalidSummary reports a summary the memory cannot keep: an answer
// of nothing but white space, or from a summarizer that names no model.
var ErrInvalidSummary = graph.ErrInvalidSummary

// SummaryError reports the archive blocks that keep their extractive
// summary because the summarizer failed on them, or was not asked after
// failing on too many blocks in a row.
type SummaryError struct {
	// Blocks are the ids of the blocks left, in order.
	Blocks []string
	// Err is why: each failure, with its block's id.
	Err error
}

func (e *SummaryError) Error() string {
	ids := make([]blockName, len(e.Blocks))
	for i, id := range e.Blocks {
		ids[i] = blockName(id)
	}
	return fmt.Sprintf("%s (their extractive summaries kept): %v", listmsg.Of(ErrSummarizing, "block", ids, 5), e.Err)
}

// blockName is a block's id in a list of them.
type blockName string

func (b blockName) String() string { return string(b) }

func (e *SummaryError) Unwrap() []error { return []error{ErrSummarizing, e.Err} }

// The bounds of a model's summary.
//
// summaryWords is how many words a block's summary may have.
// summaryInput bounds the text the model is given: some 4,000 tokens,
// which a small local model takes. maxSummaryFailures is how many blocks
// in a row may fail before the rest are not asked for: a server that is
// down would otherwise be tried, with its retries, once per block.
const (
	summaryWords       = 60
	summaryInput       = 16000
	maxSummaryFailures = 3
)

// SummarizeBlocks writes, with the memory's summarizer, the summary of
// every closed block of its deep archive (one of the block size's turns)
// whose summary is not already its model's, and returns how many it wrote,
// even when it fails part of the way. Without a summarizer, or with the
// memory off, it does nothing. The summarizer is asked one block at a
// time, without the memory's lock held: the memory answers meanwhile. A
// block it fails on keeps its extractive summary, and the error, a
// [*SummaryError], names the blocks left. A memory opened from a file
// replays it first, as [Memory.Ingest] does.
func (m *Memory) SummarizeBlocks(ctx context.Context) (int, error) {
	return m.summarizeBlocks(ctx, 0)
}

// summarizeSealed summarizes the blocks closed after the first from, when
// the memory has a summarizer: those that turns just added closed. Its
// error is the [*SummaryError], if any.
func (m *Memory) summarizeSealed(ctx context.Context, from int) error {
	_, err := m.summarizeBlocks(ctx, from)
	return err
}

// summarizeBlocks is [Memory.SummarizeBlocks] of the closed blocks from
// index from on.
func (m *Memory) summarizeBlocks(ctx context.Context, from int) (int, error) {
	if m.sum == nil {
		return 0, nil
	}
	model := m.sum.ChatModel()
	m.mu.Lock()
	if m.off {
		m.mu.Unlock()
		return 0, nil
	}
	b, err := m.builder()
	if err != nil {
		m.mu.Unlock()
		return 0, err
	}
	sealed := b.Sealed()
	if from >= sealed {
		m.mu.Unlock()
		return 0, nil
	}
	doc := b.Document()
	m.mu.Unlock()
	var todo []int
	for i := from; i < sealed; i++ {
		if doc.DeepArchive.Blocks[i].SummaryModel != model {
			todo = append(todo, i)
		}
	}
	idsOf := func(list []int) []string {
		ids := make([]string, len(list))
		for k, i := range list {
			ids[k] = doc.DeepArchive.Blocks[i].ID
		}
		return ids
	}
	if len(todo) > 0 && strings.TrimSpace(model) == "" {
		return 0, &SummaryError{Blocks: idsOf(todo), Err: fmt.Errorf("%w: the summarizer names no model", ErrInvalidSummary)}
	}
	ar := format.NewArchive(doc, Limits{})
	written, failures := 0, 0
	var left []string
	var errs []error
	for k, i := range todo {
		id := doc.DeepArchive.Blocks[i].ID
		if err := ctx.Err(); err != nil || failures == maxSummaryFailures {
			left = append(left, idsOf(todo[k:])...)
			if err != nil {
				errs = append(errs, err)
			}
			break
		}
		if err := m.summarizeBlock(ctx, ar, i, id, model); err != nil {
			left, errs = append(left, id), append(errs, fmt.Errorf("%s: %w", id, err))
			failures++
			continue
		}
		written, failures = written+1, 0
	}
	if len(left) > 0 {
		return written, &SummaryError{Blocks: left, Err: errors.Join(errs...)}
	}
	return written, nil
}

// summarizeBlock has the summarizer summarize block i of ar, whose id is
// id, and stores the summary. m.mu is not held.
func (m *Memory) summarizeBlock(ctx context.Context, ar *format.Archive, i int, id, model string) error {
	turns, err := ar.Block(i)
	if err != nil {
		return err
	}
	s, err := m.sum.Summarize(ctx, summaryText(turns, summaryInput), summaryWords)
	if err != nil {
		return err
	}
	s = cleanSummary(s, summaryWords)
	if s == "" {
		return fmt.Errorf("%w: the model %q answered with no summary", ErrInvalidSummary, model)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.b.SetBlockSummary(id, s, model); err != nil {
		return err
	}
	m.gen++
	return nil
}

// cleanSummary is a model's answer as a block keeps it: valid UTF-8, its
// white space made single spaces, at most maxWords words.
func cleanSummary(s string, maxWords int) string {
	w := strings.Fields(strings.ToValidUTF8(s, "\uFFFD"))
	return strings.Join(w[:min(len(w), maxWords)], " ")
}

// summaryText is what a model summarizes of a block: its turns one a
// line, "[2 January 2006] speaker: text" (no date when the turn has none;
// the role when it has no speaker), with their white space made single
// spaces, each cut to an equal share of the limit that the shorter lines
// leave (spec §8.2.2), so that the text is at most limit bytes.
func summaryText(turns []spec.Turn, limit int) string {
	lines := make([]string, len(turns))
	for i, t := range turns {
		var sb strings.Builder
		if !t.Timestamp.IsZero() {
			sb.WriteString("[" + t.Timestamp.UTC().Format("2 January 2006") + "] ")
		}
		sb.WriteString(cmp.Or(t.Speaker, string(t.Role)) + ": ")
		sb.WriteString(strings.Join(strings.Fields(t.Content), " "))
		lines[i] = sb.String()
	}
	share := fairShare(lines, limit-len(lines)) // a line feed each
	for i, l := range lines {
		if len(l) > share {
			lines[i] = cutAt(l, share-len("…")) + "…"
		}
	}
	return strings.Join(lines, "\n")
}

// fairShare is the longest a line may be so that all of them fit in limit
// bytes: what the shorter lines leave, shared equally among the longer.
func fairShare(lines []string, limit int) int {
	lens := make([]int, len(lines))
	for i, l := range lines {
		lens[i] = len(l)
	}
	slices.Sort(lens)
	left := max(limit, 0)
	for i, n := range lens {
		if share := left / (len(lens) - i); n > share {
			return max(share, len("…"))
		}
		left -= n
	}
	return math.MaxInt // all fit
}

// cutAt returns s cut to at most n bytes, at a character boundary.
func cutAt(s string, n int) string {
	if n < 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
