package smg

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/smg-memory/smg/classify/encoder"
	"github.com/smg-memory/smg/spec"
)

// builtin is the built-in sentence encoder, loaded once per process.
var builtin = sync.OnceValues(func() (Embedder, error) {
	e, err := encoder.New()
	if err != nil {
		return nil, fmt.Errorf("loading the built-in sentence encoder: %w", err)
	}
	return e, nil
})

// noBuiltin turns the built-in encoder off for the memories given no
// embedder, as NoVectors does: the package's tests that are not about
// vectors spare its time (export_test.go).
var noBuiltin atomic.Bool

// BuiltinEmbedder returns the sentence encoder that ships with smg
// (Universal Sentence Encoder Lite, run offline in pure Go; see package
// classify/encoder): the [Embedder] of a memory given none. The first call
// loads it (some tens of milliseconds); later calls return the same one. It
// is safe for concurrent use.
func BuiltinEmbedder() (Embedder, error) { return builtin() }

// BuiltinModel is the model name of the vectors [BuiltinEmbedder] makes.
const BuiltinModel = encoder.ModelName

// defaultEmbedder is the embedder of a memory given emb, with vectors off
// when off: emb when set, none when off, otherwise the built-in encoder
// (none, should it fail to load: the memory works without vectors).
func defaultEmbedder(emb Embedder, off bool) Embedder {
	switch {
	case emb != nil:
		return emb
	case off || noBuiltin.Load():
		return nil
	}
	e, err := builtin()
	if err != nil {
		return nil
	}
	return e
}

// openedEmbedder is the embedder of a memory opened from doc, given emb,
// with vectors off when off: as defaultEmbedder, except that the built-in
// encoder leaves alone a document whose vectors are of another model (a
// provider's): it would drop them at the first turn it embeds. Such a
// memory embeds nothing unless given an embedder, such as
// [BuiltinEmbedder] to embed it again.
func openedEmbedder(doc *spec.Document, emb Embedder, off bool) Embedder {
	if emb != nil || off {
		return defaultEmbedder(emb, off)
	}
	if vi := doc.DeepArchive.VectorIndex; vi != nil && vi.Model != "" && vi.Model != BuiltinModel {
		return nil
	}
	return defaultEmbedder(nil, false)
}

// vectorWork is the background embedding of a memory: the turns ingested
// that wait for their vectors, and the one goroutine that embeds them, in
// order, while there are any. It has its own lock, never held while
// embedding, and taken after m.mu when both are.
type vectorWork struct {
	mu sync.Mutex
	// queue holds the turns waiting, in order; missingUpTo, when above
	// 0, asks the worker to look for the turns of an opened memory that
	// lack a vector, up to that turn: the file's last (the turns added
	// since are the queue's, or EmbedMissing's).
	queue       []pendingTurn
	missingUpTo int
	// remaking: the memory was opened from a file with no vector at all
	// for its model (a copy of it alone, without its cache), until the
	// worker has queued its turns.
	remaking bool
	// busy counts the turns being embedded now, out of the queue.
	busy int
	// done is closed when the running worker stops; nil when none runs.
	done   chan struct{}
	cancel context.CancelFunc
	// err is what failed since the last WaitVectors.
	err error
	// gate, when set (by tests), is received from before each batch.
	gate chan struct{}
}

type pendingTurn struct {
	num  int
	text string
}

// vectorBatch is the most turns the worker embeds at a time: what queued
// up while it embedded the last batch, up to this.
const vectorBatch = embedChunk

// enqueue queues turns for the background worker and starts it if none
// runs. Turns with no content but white space are not queued.
func (m *Memory) enqueue(turns ...pendingTurn) {
	w := &m.vw
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, t := range turns {
		if strings.TrimSpace(t.text) != "" {
			w.queue = append(w.queue, t)
		}
	}
	m.startWorker()
}

// startWorker starts the worker when it has work and none runs. m.vw.mu
// is held.
func (m *Memory) startWorker() {
	w := &m.vw
	if w.done != nil || (len(w.queue) == 0 && w.missingUpTo == 0) {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	w.done, w.cancel = done, cancel
	go m.embedInBackground(ctx, done)
}

// A serialEmbedder embeds on the process's own cores, and can embed on
// one alone: the built-in encoder ([encoder.Encoder.EmbedSerially]), which
// shares a batch out among as many goroutines as there are cores
// otherwise. A memory's background worker embeds on one, so that the
// questions of requests, and other processes, find the others free.
type serialEmbedder interface {
	EmbedSerially(ctx context.Context, texts []string) ([][]float32, error)
}

// backgroundSlots bounds the memories of a process that embed in the
// background at once, one core short of them all: a server of many
// memories gives each its worker, and with as many embedding as there are
// cores its requests (a question to embed, a turn to record) would wait
// behind them all.
var backgroundSlots = sync.OnceValue(func() chan struct{} {
	return make(chan struct{}, max(1, runtime.GOMAXPROCS(0)-1))
})

// embedInBackground is the worker: it embeds the queued turns, a batch at
// a time, until none is left or ctx is cancelled ([Memory.Close]), when it
// puts back the batch it was embedding.
func (m *Memory) embedInBackground(ctx context.Context, done chan struct{}) {
	w := &m.vw
	defer close(done)
	for {
		w.mu.Lock()
		upTo := w.missingUpTo
		missing := upTo > 0
		w.missingUpTo = 0
		batch := w.queue[:min(len(w.queue), vectorBatch)]
		if ctx.Err() != nil || (len(batch) == 0 && !missing) {
			w.done, w.cancel = nil, nil
			w.mu.Unlock()
			return
		}
		if !missing {
			w.queue = w.queue[len(batch):]
			w.busy = len(batch)
		}
		gate := w.gate
		w.mu.Unlock()
		if gate != nil {
			select {
			case <-gate:
			case <-ctx.Done():
			}
		}
		var err error
		if missing {
			var turns []pendingTurn
			if turns, err = m.missingTurns(upTo); err == nil {
				w.mu.Lock()
				// Before the turns queued since: they are older.
				w.queue = append(turns, w.queue...)
				w.remaking = false // the queue counts them now
				w.mu.Unlock()
			}
		} else {
			nums, texts := make([]int, len(batch)), make([]string, len(batch))
			for i, t := range batch {
				nums[i], texts[i] = t.num, t.text
			}
			slots := backgroundSlots()
			select {
			case slots <- struct{}{}:
				_, err = m.embedTurns(ctx, nums, texts, nil, true)
				<-slots
			case <-ctx.Done():
			}
		}
		w.mu.Lock()
		w.busy = 0
		switch {
		case ctx.Err() != nil:
			// Stopped by Close: the batch waits for the next start.
			if missing {
				w.missingUpTo = upTo
			} else {
				w.queue = append(batch[:len(batch):len(batch)], w.queue...)
			}
		case err != nil:
			w.err = errors.Join(w.err, err)
		}
		w.mu.Unlock()
	}
}

// missingTurns returns the turns of the memory up to turn upTo that have
// no vector of its embedder's model and some content.
func (m *Memory) missingTurns(upTo int) ([]pendingTurn, error) {
	nums, texts, err := m.unembedded()
	if err != nil {
		return nil, err
	}
	var turns []pendingTurn
	for i, n := range nums {
		if n <= upTo {
			turns = append(turns, pendingTurn{n, texts[i]})
		}
	}
	return turns, nil
}

// PendingVectors is the number of turns ingested that wait for their
// vectors: the background embedding has not reached them yet. A context
// finds them by full text only meanwhile, and says so in its warnings.
func (m *Memory) PendingVectors() int {
	w := &m.vw
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.queue) + w.busy
}

// remakingVectors reports whether the memory, opened from a file with no
// vector at all, has its turns embedded again and has not queued them
// yet: a context says so without a count.
func (m *Memory) remakingVectors() bool {
	w := &m.vw
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.remaking
}

// WaitVectors waits until the turns ingested so far have their vectors
// (see [Memory.Ingest]), or ctx is done, and returns the embeddings that
// failed since the last call (matching ErrEmbedding: the turns are in the
// memory without vectors, and [Memory.EmbedMissing] tries again). It
// returns at once for a memory that embeds nothing.
func (m *Memory) WaitVectors(ctx context.Context) error {
	w := &m.vw
	for {
		w.mu.Lock()
		// A memory stopped by Close with turns waiting starts again.
		m.startWorker()
		done := w.done
		if done == nil {
			err := w.err
			w.err = nil
			w.mu.Unlock()
			return err
		}
		w.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// stopVectors stops the worker, if one runs, and waits until it has: the
// turns it had not embedded stay queued, for [Memory.WaitVectors] or the
// next turn ingested to start it again.
func (m *Memory) stopVectors() {
	w := &m.vw
	w.mu.Lock()
	done, cancel := w.done, w.cancel
	w.mu.Unlock()
	if done == nil {
		return
	}
	cancel()
	<-done
}

// dropQueue stops the worker and empties its queue, for EmbedMissing to
// embed what it held.
func (m *Memory) dropQueue() {
	m.stopVectors()
	w := &m.vw
	w.mu.Lock()
	w.queue, w.missingUpTo, w.remaking = nil, 0, false
	w.mu.Unlock()
}

// remakingWarning is the warning of a context asked of a memory opened
// from a file with no vector at all for its model, before its turns are
// queued to be embedded again.
const remakingWarning = "the memory's vectors are being made again (they are in neither its file nor a cache beside it): its turns are found by full text only until then"

// pendingWarning is the warning of a context asked while n turns wait for
// their vectors.
func pendingWarning(n int) string {
	if n == 1 {
		return "1 turn is not embedded yet: it is found by full text only"
	}
	return fmt.Sprintf("%d turns are not embedded yet: they are found by full text only", n)
}

// VectorModel names the model the memory embeds its turns and questions
// with ([Embedder.Model]); "" when it embeds nothing: vectors off, or a
// memory opened from a file of another model's vectors with no embedder
// given (see [OpenOptions.Embedder]).
func (m *Memory) VectorModel() string {
	if m.emb == nil {
		return ""
	}
	return m.emb.Model()
}
