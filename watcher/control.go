package watcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/floehq/floe/checkpoint"
)

// ErrRunning: the table already has a run in flight on this replica.
var ErrRunning = errors.New("a run is already in progress")

// startRun runs the table in the background unless it is already running.
func (w *Watcher) startRun(ctx context.Context, name, trigger string) (string, error) {
	w.mu.Lock()
	st, ok := w.tables[name]
	if !ok {
		w.mu.Unlock()
		return "", fmt.Errorf("trigger %s: %w", name, checkpoint.ErrNotFound)
	}
	if w.draining {
		w.mu.Unlock()
		return "", fmt.Errorf("trigger %s: %w", name, ErrDraining)
	}
	if st.running {
		id := st.runID
		w.mu.Unlock()
		return id, fmt.Errorf("trigger %s: %w (run %s)", name, ErrRunning, id)
	}
	st.running = true
	st.runID = newRunID(w.clock.Now())
	if trigger == triggerNotify {
		w.notifyStartedLocked(st, w.clock.Now())
	}
	t, id := st.table, st.runID
	w.inflight.Add(1)
	w.mu.Unlock()

	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer w.inflight.Done()
		defer w.finish(name)
		select {
		case w.slots <- struct{}{}:
			defer func() { <-w.slots }()
		case <-ctx.Done():
			return
		}
		run := w.safeRun(ctx, t, id, trigger)
		w.logRun(run)
	}()
	return id, nil
}

// safeRun is runTable for background runs: a panic anywhere in the run
// (a catalog client, iceberg-go on odd metadata) fails this run and is
// recorded, instead of ending the process and every other table's syncs.
// The lease, if taken, expires on its own.
func (w *Watcher) safeRun(ctx context.Context, t checkpoint.Table, id, trigger string) (run checkpoint.Run) {
	defer func() {
		if p := recover(); p != nil {
			now := w.clock.Now().UTC()
			run = checkpoint.Run{ID: id, Table: t.Name, Trigger: trigger, Status: checkpoint.RunFailed,
				StartedAt: now, FinishedAt: now, Owner: w.opts.Owner, Error: fmt.Sprintf("run panicked: %v", p)}
			w.log.Error("run panicked", slog.String(attrTable, t.Name), slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
			w.record(context.WithoutCancel(ctx), run)
		}
	}()
	return w.runTable(ctx, t, id, trigger, nil)
}

func (w *Watcher) finish(name string) {
	w.mu.Lock()
	if st, ok := w.tables[name]; ok {
		st.running = false
	}
	w.mu.Unlock()
	w.poke() // a first run owed meanwhile is due now (fireDue)
}

// logRun logs a finished run: failures at Error, no-ops at Debug,
// cancellation not at all (house style).
func (w *Watcher) logRun(run checkpoint.Run) {
	attrs := []any{
		slog.String(attrTable, run.Table), slog.String(attrRun, run.ID), slog.Int64(attrSnapshot, run.SnapshotID),
		slog.Int("segments", run.SegmentsGenerated), slog.Int64("rows", run.Rows),
		slog.Duration("took", run.FinishedAt.Sub(run.StartedAt)),
	}
	switch {
	case run.Status == checkpoint.RunFailed && run.Error == context.Canceled.Error():
	case run.Status == checkpoint.RunFailed && strings.Contains(run.Error, ErrDraining.Error()):
		w.log.Info("sync stopped: floe is stopping", append(attrs, slog.String("error", run.Error))...)
	case run.Status == checkpoint.RunFailed:
		w.log.Error("sync failed", append(attrs, slog.String("error", run.Error))...)
	case run.Status == checkpoint.RunSkipped || run.SegmentsGenerated == 0 && run.SegmentsDeleted == 0:
		w.log.Debug("sync had nothing to do", attrs...)
	default:
		w.log.Info("sync completed", attrs...)
	}
}

// Log attribute keys.
const (
	attrTable    = "table"
	attrRun      = "run_id"
	attrSnapshot = "snapshot_id"
)

// Progress reports how many of the run's files are converted; total is
// the number of files the run must build.
type Progress func(done, total int)

// RunOnce runs one sync of the named table now and waits for it (the CLI's
// `floe sync`). It does not need Open. progress may be nil.
func (w *Watcher) RunOnce(ctx context.Context, name, trigger string, progress Progress) (checkpoint.Run, error) {
	t, err := w.deps.Store.GetTable(ctx, name)
	if err != nil {
		return checkpoint.Run{}, fmt.Errorf("sync %s: %w", name, err)
	}
	stop := w.borrowBuilders(ctx)
	run := w.runTable(ctx, t, newRunID(w.clock.Now()), trigger, progress)
	stop()
	if run.Status == checkpoint.RunFailed {
		return run, fmt.Errorf("sync %s: %s", name, run.Error)
	}
	return run, nil
}

// runTable takes the lease, executes the run and records it.
func (w *Watcher) runTable(ctx context.Context, t checkpoint.Table, id, trigger string, progress Progress) (run checkpoint.Run) {
	run = checkpoint.Run{ID: id, Table: t.Name, Trigger: trigger, Status: checkpoint.RunRunning,
		StartedAt: w.clock.Now().UTC(), Owner: w.opts.Owner}
	defer w.runEnded(w.runBegan(t.Name, id), &run)
	sent := time.Now()
	lease, err := w.deps.Store.AcquireLease(ctx, t.Name, w.opts.Owner, w.opts.LeaseTTL)
	if err != nil {
		return w.notLeased(ctx, run, err)
	}
	if t, err = w.admit(ctx, t, trigger); err != nil {
		return w.refuse(ctx, run, lease, err)
	}
	if trigger == triggerNotify && w.notifyCovered(ctx, t.Name) {
		return w.refuse(ctx, run, lease, errNotifyCovered)
	}
	runCtx, keeper := w.keepLease(ctx, lease, sent)
	defer keeper.Close()
	w.abandonRuns(ctx, t.Name, id, "its replica stopped or lost the table's lease before the run ended",
		func(checkpoint.Run) bool { return true })
	err = w.execute(runCtx, t, keeper, &run, progress)
	if cause := context.Cause(runCtx); err != nil && cause != nil && !errors.Is(err, cause) {
		err = fmt.Errorf("%w (%w)", err, cause)
	}
	run.FinishedAt = w.clock.Now().UTC()
	switch {
	case errors.Is(err, ErrNoChange):
		run.Status = checkpoint.RunCompleted
	case err == nil:
		run.Status = checkpoint.RunCompleted
		w.record(context.WithoutCancel(ctx), run)
	case errors.Is(w.stillWanted(context.WithoutCancel(ctx), t), ErrTableDeleted):
		run.Status, run.Error = checkpoint.RunFailed, err.Error() // deleted under the run: no history to write to
	default:
		run.Status, run.Error = checkpoint.RunFailed, err.Error()
		w.record(context.WithoutCancel(ctx), run)
	}
	w.noteChecked(t.Name, run)
	w.endProgress(t.Name)
	keeper.Close()
	if rerr := w.deps.Store.ReleaseLease(context.WithoutCancel(ctx), keeper.current()); rerr != nil && !errors.Is(rerr, checkpoint.ErrFenced) {
		w.log.Error("release lease", slog.String(attrTable, t.Name), slog.String("error", rerr.Error()))
	}
	return run
}

// notLeased ends a run that could not take the lease. Another replica
// running the table is normal: a run the watcher fired skips silently (with
// several replicas every tick would otherwise push real runs out of the
// history); a manual one is recorded SKIPPED. A table deleted meanwhile
// leaves no record; any other failure is recorded FAILED.
func (w *Watcher) notLeased(ctx context.Context, run checkpoint.Run, err error) checkpoint.Run {
	run.Status, run.FinishedAt, run.Error = checkpoint.RunSkipped, w.clock.Now().UTC(), fmt.Sprintf("lease: %v", err)
	switch {
	case errors.Is(err, checkpoint.ErrLeaseHeld) && fired(run.Trigger):
		w.log.Debug("run skipped: another replica holds the lease", slog.String(attrTable, run.Table))
		if run.Trigger == triggerNotify {
			w.notifyLeaseHeld(run.Table)
		}
	case errors.Is(err, checkpoint.ErrLeaseHeld):
		w.record(ctx, run)
	case errors.Is(err, checkpoint.ErrNotFound):
		run.Status = checkpoint.RunFailed
	default:
		run.Status = checkpoint.RunFailed
		w.record(ctx, run)
	}
	return run
}

// execute runs the table in its own work directory. The run enters the
// history once it has work to do: a check that finds no new snapshot is
// only noted in the table's status.
func (w *Watcher) execute(ctx context.Context, t checkpoint.Table, keeper *leaseKeeper, run *checkpoint.Run, progress Progress) error {
	dir, err := workDir(w.opts.WorkDir, w.opts.Owner, t.Name, run.ID)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	r := &runner{w: w, table: t, keeper: keeper, run: run, dir: dir, progress: progress,
		started: func() { w.record(ctx, *run) }}
	return r.execute(ctx)
}

// noteChecked remembers when the table was last looked at.
func (w *Watcher) noteChecked(name string, run checkpoint.Run) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if st, ok := w.tables[name]; ok {
		st.lastChecked = run.FinishedAt
	}
}

// record writes a run record, or keeps it until the store answers.
func (w *Watcher) record(ctx context.Context, run checkpoint.Run) {
	run.Error = w.deps.scrub(run.Error)
	run.Log = w.logOf(run)
	w.runLog.record(ctx, run)
}
