package watcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/floehq/floe/checkpoint"
)

// Run admission: the stored record decides at run start (architecture
// I8). A replica's schedule may lag the store by the time a change takes
// to be announced; admission closes that gap, because it reads the
// record after the run holds the table's lease and before it does any
// work. A pause, disable or delete has answered only once it is stored,
// so no run admitted after the answer can see the table as runnable.

var (
	// ErrTableDeleted: the table's registration is gone (or was deleted
	// and created again); a run of it stops without writing anything more.
	ErrTableDeleted = errors.New("table deleted")
	// ErrNotAdmitted: the stored record says the table must not run now.
	ErrNotAdmitted = errors.New("run not admitted")
)

// The triggers the watcher fires itself. Every other trigger (manual,
// ...) is an explicit request for one run.
const (
	// triggerSchedule: a run the table's schedule fired.
	triggerSchedule = "schedule"
	// triggerFirst: the run a table without a checkpoint owes as soon as
	// it starts being scheduled (just created, or resumed before it ever
	// synced), whatever its schedule says.
	triggerFirst = "first"
)

// fired reports whether trigger is one the watcher fires by itself, as
// opposed to a run somebody asked for. A notify run (notify.go) counts as
// fired: a paused or disabled table ignores notifications.
func fired(trigger string) bool {
	return trigger == triggerSchedule || trigger == triggerFirst || trigger == triggerNotify
}

// admit decides from the table's stored record, never from this replica's
// copy, whether a run that holds the table's lease may start:
//   - the table is deleted: no (ErrTableDeleted);
//   - it is paused or disabled: a scheduled run does not start
//     (ErrNotAdmitted); an explicitly requested run does, but only while
//     the record is still the one the request saw (t.Revision), so a
//     pause, disable or edit answered after the trigger cancels it;
//   - otherwise yes, and the run uses the stored record (the newest
//     config), which admit returns.
//
// The record read is applied to the schedule like any other, so a replica
// that had not heard of a change yet learns it here.
func (w *Watcher) admit(ctx context.Context, t checkpoint.Table, trigger string) (checkpoint.Table, error) {
	cur, err := w.deps.Store.GetTable(ctx, t.Name)
	switch {
	case errors.Is(err, checkpoint.ErrNotFound):
		return t, fmt.Errorf("table %s: %w", t.Name, ErrTableDeleted)
	case err != nil:
		return t, fmt.Errorf("admit run: %w", err)
	}
	w.apply(ctx, fromRead, cur)
	paused, disabled := Paused(cur.TaskConfig), !Enabled(cur.TaskConfig)
	if !paused && !disabled {
		return cur, nil
	}
	requested := !fired(trigger)
	if requested && cur.Revision == t.Revision {
		return cur, nil
	}
	reason := "paused"
	if !paused {
		reason = "disabled"
	}
	if requested {
		reason += " since the run was requested"
	}
	return cur, fmt.Errorf("table %s is %s (revision %d): %w", t.Name, reason, cur.Revision, ErrNotAdmitted)
}

// refuse ends a run that admission turned away. It gives the lease back
// and records the run as SKIPPED, with the reason, only when someone asked
// for that run (a manual trigger's caller follows its run id). A scheduled
// run that does not start is not recorded: a replica that had not heard
// of a pause yet would otherwise fill the history with them. Nor is a run
// of a deleted table (its history went with it). A failure to read the
// record fails the run, which is recorded.
func (w *Watcher) refuse(ctx context.Context, run checkpoint.Run, lease checkpoint.Lease, err error) checkpoint.Run {
	bg := context.WithoutCancel(ctx)
	if rerr := w.deps.Store.ReleaseLease(bg, lease); rerr != nil && !errors.Is(rerr, checkpoint.ErrFenced) {
		w.log.Error("release lease", slog.String(attrTable, run.Table), slog.String("error", rerr.Error()))
	}
	run.FinishedAt, run.Error = w.clock.Now().UTC(), err.Error()
	switch {
	case errors.Is(err, ErrTableDeleted):
		run.Status = checkpoint.RunSkipped
	case errors.Is(err, errNotifyCovered):
		run.Status = checkpoint.RunCompleted // nothing to do, like ErrNoChange
	case errors.Is(err, ErrNotAdmitted):
		run.Status = checkpoint.RunSkipped
		if !fired(run.Trigger) {
			w.record(bg, run)
		}
	default:
		run.Status = checkpoint.RunFailed
		w.record(bg, run)
	}
	return run
}

// stillWanted is the check a run in flight makes before each step that
// writes (each upload or lineage step, the checkpoint commit): nil while
// the table it was admitted for (admitted, as admit returned it) still
// exists; ErrTableDeleted once the table was deleted, or deleted and
// created again (a new CreatedAt). A run that gets ErrTableDeleted stops
// and removes what it uploaded that no checkpoint names. Pause and
// disable do not stop a run in flight (I5); a store error is returned as
// is.
func (w *Watcher) stillWanted(ctx context.Context, admitted checkpoint.Table) error {
	cur, err := w.deps.Store.GetTable(ctx, admitted.Name)
	switch {
	case errors.Is(err, checkpoint.ErrNotFound):
		return fmt.Errorf("table %s: %w", admitted.Name, ErrTableDeleted)
	case err != nil:
		return fmt.Errorf("check table %s: %w", admitted.Name, err)
	case !cur.CreatedAt.Equal(admitted.CreatedAt):
		return fmt.Errorf("table %s: %w and created again", admitted.Name, ErrTableDeleted)
	}
	return nil
}
