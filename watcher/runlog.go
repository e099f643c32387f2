package watcher

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/floehq/floe/checkpoint"
)

// A run's log: every line a run writes at INFO or above through the
// watcher's logger (lines that carry the run's table or run id while the
// run is in flight here), plus the lines the run notes for itself (the
// plan, the first entry of each phase, the outcome), kept on the run record
// (checkpoint.Run.Log) so the history shows why a run failed. Messages and
// attribute values are scrubbed like the run's error (Deps.Scrub); at most
// checkpoint.MaxRunLogLines are kept, the newest, after a line that says
// how many earlier ones were dropped.

// runLog is the bounded buffer of one run's lines.
type runLog struct {
	lines   []checkpoint.RunLogLine
	dropped int
	closed  bool // the outcome line is in
}

// add appends l, dropping the oldest line when the buffer is full.
func (b *runLog) add(l checkpoint.RunLogLine) {
	if len(b.lines) >= checkpoint.MaxRunLogLines-1 {
		b.lines = append(b.lines[:0], b.lines[1:]...)
		b.dropped++
	}
	b.lines = append(b.lines, l)
}

// snapshot returns a copy of the lines (the drop notice first).
func (b *runLog) snapshot() []checkpoint.RunLogLine {
	out := make([]checkpoint.RunLogLine, 0, len(b.lines)+1)
	if b.dropped > 0 {
		out = append(out, checkpoint.RunLogLine{At: b.lines[0].At, Level: slog.LevelWarn.String(),
			Msg: fmt.Sprintf("%d earlier lines of this run were not kept", b.dropped)})
	}
	return append(out, b.lines...)
}

func infoLine(msg string, attrs map[string]string) checkpoint.RunLogLine {
	return checkpoint.RunLogLine{At: time.Now().UTC(), Level: slog.LevelInfo.String(), Msg: msg, Attrs: attrs}
}

func itoa[T int | int64](v T) string { return strconv.FormatInt(int64(v), 10) }

func boolString(b bool) string { return strconv.FormatBool(b) }

// logOf returns the log to store with run: the run's lines so far when it
// is in flight here, with its outcome line once it has ended; else the
// log the record already has.
func (w *Watcher) logOf(run checkpoint.Run) []checkpoint.RunLogLine {
	t := w.runs
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.byID[run.ID]
	if a == nil {
		return run.Log
	}
	if line, ok := outcomeLine(run); ok && !a.log.closed {
		a.log.add(line)
		a.log.closed = true
	}
	return a.log.snapshot()
}

// outcomeLine is the last line of an ended run (run.Error is scrubbed).
func outcomeLine(run checkpoint.Run) (checkpoint.RunLogLine, bool) {
	attrs := map[string]string{attrSnapshot: itoa(run.SnapshotID), "rows": itoa(run.Rows),
		"segments": itoa(run.SegmentsGenerated), "took": run.FinishedAt.Sub(run.StartedAt).String()}
	if run.Kind != "" {
		attrs["kind"], attrs["files_added"], attrs["files_rebuilt"] = string(run.Kind), itoa(run.FilesAdded), itoa(run.FilesRebuilt)
		attrs["files_removed"], attrs["rows_added"], attrs["rows_rebuilt"] = itoa(run.FilesRemoved), itoa(run.RowsAdded), itoa(run.RowsRebuilt)
		attrs["segments_replaced"] = itoa(run.SegmentsDeleted)
	}
	l := checkpoint.RunLogLine{At: run.FinishedAt, Level: slog.LevelInfo.String(), Attrs: attrs}
	switch run.Status {
	case checkpoint.RunCompleted:
		l.Msg = "sync completed"
		if run.Error != "" { // files failed under continueOnFileError
			l.Level, attrs["error"] = slog.LevelWarn.String(), run.Error
		}
	case checkpoint.RunFailed:
		l.Level, l.Msg, attrs["error"] = slog.LevelError.String(), "sync failed", run.Error
	case checkpoint.RunSkipped:
		l.Msg, attrs["reason"] = "run skipped", run.Error
	default:
		return l, false
	}
	return l, true
}

// captureHandler passes records on to the process's handler and copies
// INFO-and-above records about a run in flight into that run's log.
type captureHandler struct {
	next   slog.Handler
	runs   *runTracker
	attrs  []slog.Attr // from WithAttrs, keys already prefixed by their groups
	prefix string      // open groups, "a.b."
}

func (t *runTracker) handler(next slog.Handler) slog.Handler {
	return &captureHandler{next: next, runs: t}
}

func (h *captureHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l) || l >= slog.LevelInfo && h.runs.anyActive()
}

func (h *captureHandler) Handle(ctx context.Context, rec slog.Record) error {
	if rec.Level >= slog.LevelInfo && h.runs.anyActive() {
		h.runs.capture(h, rec)
	}
	if !h.next.Enabled(ctx, rec.Level) {
		return nil
	}
	return h.next.Handle(ctx, rec)
}

func (h *captureHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.next = h.next.WithAttrs(as)
	c.attrs = append([]slog.Attr(nil), h.attrs...)
	for _, a := range as {
		c.attrs = append(c.attrs, slog.Attr{Key: h.prefix + a.Key, Value: a.Value})
	}
	return &c
}

func (h *captureHandler) WithGroup(name string) slog.Handler {
	c := *h
	c.next = h.next.WithGroup(name)
	c.prefix = h.prefix + name + "."
	return &c
}

func (t *runTracker) anyActive() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.active > 0
}

// capture adds rec to the log of the run it is about, if one is in flight.
func (t *runTracker) capture(h *captureHandler, rec slog.Record) {
	attrs := map[string]string{}
	var table, runID string
	add := func(a slog.Attr) {
		flatten(attrs, a, "")
		switch a.Key {
		case attrTable:
			table = a.Value.String()
		case attrRun:
			runID = a.Value.String()
		}
	}
	for _, a := range h.attrs {
		add(a)
	}
	rec.Attrs(func(a slog.Attr) bool {
		add(slog.Attr{Key: h.prefix + a.Key, Value: a.Value})
		return true
	})
	delete(attrs, attrTable)
	delete(attrs, attrRun)
	for k, v := range attrs {
		attrs[k] = t.scrubbed(v)
	}
	if len(attrs) == 0 {
		attrs = nil
	}
	line := checkpoint.RunLogLine{At: rec.Time.UTC(), Level: rec.Level.String(), Msg: t.scrubbed(rec.Message), Attrs: attrs}
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.byID[runID]
	if a == nil && runID == "" {
		a = t.byTable[table]
	}
	if a != nil && !a.log.closed {
		a.log.add(line)
	}
}

// flatten writes a's value as strings, groups as "group.key".
func flatten(out map[string]string, a slog.Attr, prefix string) {
	v := a.Value.Resolve()
	if v.Kind() != slog.KindGroup {
		out[prefix+a.Key] = v.String()
		return
	}
	if a.Key != "" {
		prefix += a.Key + "."
	}
	for _, g := range v.Group() {
		flatten(out, g, prefix)
	}
}

func (t *runTracker) scrubbed(s string) string {
	if t.scrub == nil || s == "" {
		return s
	}
	return t.scrub(s)
}
