package api

import (
	"testing"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher"
)

// A run whose record says it ended is not shown in flight, though the
// watcher still holds it for a moment; a run not yet recorded is.
func TestOverviewState_endedRunIsNotInFlight(t *testing.T) {
	tbl := checkpoint.Table{Name: "t"}
	st := &watcher.TableStatus{State: watcher.StateBackfilling, RunningRunID: "r2"}
	for _, c := range []struct {
		last *checkpoint.Run
		want string
	}{
		{&checkpoint.Run{ID: "r2", Status: checkpoint.RunCompleted}, stateIdle},
		{&checkpoint.Run{ID: "r2", Status: checkpoint.RunFailed}, stateFailed},
		{&checkpoint.Run{ID: "r2", Status: checkpoint.RunRunning}, stateBackfilling},
		{&checkpoint.Run{ID: "r1", Status: checkpoint.RunCompleted}, stateBackfilling}, // r2 not recorded yet
		{nil, stateBackfilling},
	} {
		if got := overviewState(tbl, checkpoint.TableOverview{LastRun: c.last}, st); got != c.want {
			t.Errorf("last run %+v, watcher running r2: state %s, want %s", c.last, got, c.want)
		}
	}
}
