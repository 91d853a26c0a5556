// Package watch follows conversation transcripts that grow on disk, the
// session files of Claude Code (~/.claude/projects/PROJECT/SESSION.jsonl)
// and the chat histories of aider (.aider.chat.history.md), and records
// their new turns in a memory file as they are written.
//
// It polls: each file is read again when its size or time has changed
// and then stayed the same for one interval, so that a turn still being
// written is not taken half-way; the last turn of an aider history, which
// aider may still add lines to, waits until the file has been quiet for
// longer. A file is read whole each time and its
// turns recorded with [smg.Memory.Record], which adds only those the
// memory does not hold: a watcher stopped and started again, a file
// rotated or truncated and written again, or two watchers of one
// transcript, never store a turn twice. A last line without its newline
// (a line being written) is left for the next read. A file that cannot be
// read or parsed is reported and tried again at its next change; the
// memory keeps all it has.
package watch

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/smg-memory/smg/smg"
	"github.com/smg-memory/smg/smg/importer"
)

// DefaultInterval is how often files are looked at, and DefaultQuiet
// how long an aider history stays the same before its last turn is
// taken, unless told.
const (
	DefaultInterval = time.Second
	DefaultQuiet    = 5 * time.Second
)

// Options tell how to follow the files. The zero value polls every
// DefaultInterval, detects each file's format and reports nothing.
type Options struct {
	// Interval is the time between two looks at the files.
	Interval time.Duration
	// Format is the files' format; "" or Auto detects each file's.
	Format importer.Format
	// Report, when set, is told what each read of a file did.
	Report func(Event)
	// Quiet is how long an aider history must stay the same before the
	// last turn in it is recorded: aider writes a turn in several
	// pieces (the lines of a tool's output come as they happen), and a
	// turn taken before its end would be stored again, whole, once it
	// ends. A turn followed by another is recorded at once. Zero is
	// DefaultQuiet. Once takes every turn at once.
	Quiet time.Duration
}

// Event is what one read of a file did.
type Event struct {
	// Path is the file's.
	Path string
	// Recorded is what the memory did with the file's turns: those
	// added, those it held already, message ids used again.
	Recorded smg.Recorded
	// Turns is how many turns the memory holds after it.
	Turns int
	// Skipped are the malformed turns of the file, left out.
	Skipped []*importer.Error
	// Err is why the file could not be read or recorded this time; it
	// is tried again at its next change.
	Err error
}

// Follow records the turns of the files at paths in the memory of f,
// now and as they grow, until ctx is done; it returns ctx's error then. A
// path that is a directory stands for the transcripts in it (files
// named *.jsonl or .aider.chat.history.md), those created later too. A
// path that does not exist yet is waited for.
func Follow(ctx context.Context, f *smg.FileMemory, paths []string, opts *Options) error {
	w := newWatcher(f, paths, opts)
	tick := time.NewTicker(w.opts.Interval)
	defer tick.Stop()
	for {
		w.pass(ctx, false)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// Once records the turns the files at paths hold now, as Follow does
// at its first look, and returns. The error is the first of the files
// that could not be read or recorded, or ctx's.
func Once(ctx context.Context, f *smg.FileMemory, paths []string, opts *Options) error {
	w := newWatcher(f, paths, opts)
	return w.pass(ctx, true)
}

type watcher struct {
	f     *smg.FileMemory
	paths []string
	opts  Options
	files map[string]*fileState
}

// fileState is what the watcher saw of a file at its last look, and at
// its last read.
type fileState struct {
	seen, read stamp
}

// stamp tells whether a file changed: its size and time.
type stamp struct {
	size int64
	mod  time.Time
}

func newWatcher(f *smg.FileMemory, paths []string, opts *Options) *watcher {
	w := &watcher{f: f, paths: paths, files: map[string]*fileState{}}
	if opts != nil {
		w.opts = *opts
	}
	if w.opts.Interval <= 0 {
		w.opts.Interval = DefaultInterval
	}
	if w.opts.Quiet <= 0 {
		w.opts.Quiet = DefaultQuiet
	}
	return w
}

// pass looks at every file once and reads those that changed and then
// stayed the same since the last look (now: all that changed since they
// were read).
func (w *watcher) pass(ctx context.Context, now bool) error {
	var first error
	for _, name := range w.transcripts() {
		if err := ctx.Err(); err != nil {
			return err
		}
		fi, err := os.Stat(name)
		if err != nil {
			continue // gone meanwhile: rotated, or not made yet
		}
		st := w.files[name]
		if st == nil {
			st = &fileState{}
			w.files[name] = st
		}
		cur := stamp{fi.Size(), fi.ModTime()}
		settled := now || cur == st.seen
		st.seen = cur
		if !settled || cur == st.read {
			continue
		}
		// Read once a change (a file that fails is tried again when it
		// changes again), or until a last turn held back is taken.
		ev, held := w.read(ctx, name, now || time.Since(cur.mod) >= w.opts.Quiet)
		if !held {
			st.read = cur
		}
		if ev.Err != nil && first == nil {
			first = ev.Err
		}
		if w.opts.Report != nil && (ev.Err != nil || ev.Recorded.Added > 0 || len(ev.Recorded.Reused) > 0 || len(ev.Skipped) > 0) {
			w.opts.Report(ev)
		}
	}
	return first
}

// transcripts lists the files the paths stand for.
func (w *watcher) transcripts() []string {
	var out []string
	for _, p := range w.paths {
		fi, err := os.Stat(p)
		if err != nil || !fi.IsDir() {
			out = append(out, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if n := e.Name(); e.Type().IsRegular() && (strings.HasSuffix(n, ".jsonl") || n == ".aider.chat.history.md") {
				out = append(out, filepath.Join(p, n))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// read reads a file whole and records its turns (in the memory file's
// journal: see [smg.FileMemory.Record]): with quiet, all of
// them; otherwise the last turn of an aider history is held back, and
// held says so.
func (w *watcher) read(ctx context.Context, name string, quiet bool) (ev Event, held bool) {
	ev = Event{Path: name}
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return ev, false
	}
	if err != nil {
		ev.Err = err
		return ev, false
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return ev, false // made, not written yet
	}
	format := w.opts.Format
	if format == "" || format == importer.Auto {
		if format, err = importer.Detect(data[:min(len(data), importer.DetectSize)]); err != nil {
			if e, ok := errors.AsType[*importer.Error](err); ok {
				e.Name = name
			}
			ev.Err = err
			return ev, false
		}
	}
	if format == importer.ClaudeCode || format == importer.Aider {
		// A line still being written is read when it is whole.
		data = data[:bytes.LastIndexByte(data, '\n')+1]
	}
	res, err := importer.Read(bytes.NewReader(data), importer.Options{Format: format, Name: name})
	if err != nil {
		ev.Err = err
		return ev, false
	}
	ev.Skipped = res.Skipped
	if convs := res.Conversations; format == importer.Aider && !quiet && len(convs) > 0 {
		last := &convs[len(convs)-1]
		if n := len(last.Turns); n > 0 {
			last.Turns, held = last.Turns[:n-1], true
		}
	}
	for _, c := range res.Conversations {
		r, err := w.f.Record(ctx, c.Turns, &smg.RecordOptions{SkipInvalid: true})
		ev.Recorded.Added += r.Added
		ev.Recorded.Held += r.Held
		ev.Recorded.Reused = append(ev.Recorded.Reused, r.Reused...)
		ev.Recorded.Invalid = append(ev.Recorded.Invalid, r.Invalid...)
		if err != nil {
			ev.Err = err
			return ev, held
		}
	}
	if m, err := w.f.Memory(ctx); err == nil {
		ev.Turns = m.Turns()
	}
	return ev, held
}
