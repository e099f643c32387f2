package checkpointtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
)

func fullObservation(snapshot int64) checkpoint.Observation {
	return checkpoint.Observation{
		LatestSnapshotID:  snapshot,
		LatestCommittedAt: base.Add(time.Hour),
		SnapshotsBehind:   3,
		OldestUnsyncedAt:  base.Add(30 * time.Minute),
		CheckedAt:         base.Add(2 * time.Hour),
	}
}

// testMaxRunLogLines: a stored run keeps the last MaxRunLogLines log lines.
func testMaxRunLogLines(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	r := fullRun("orders", "run-1", base)
	r.Log = nil
	for i := range checkpoint.MaxRunLogLines + 20 {
		r.Log = append(r.Log, checkpoint.RunLogLine{At: base.Add(time.Duration(i)), Level: "INFO", Msg: fmt.Sprintf("line %d", i)})
	}
	must(t, "PutRun", s.PutRun(ctx, r))
	got, err := s.GetRun(ctx, "orders", "run-1")
	must(t, "GetRun", err)
	if len(got.Log) != checkpoint.MaxRunLogLines || got.Log[0].Msg != "line 20" ||
		got.Log[len(got.Log)-1].Msg != fmt.Sprintf("line %d", checkpoint.MaxRunLogLines+19) {
		t.Fatalf("stored log: %d lines from %q, want the last %d", len(got.Log), got.Log[0].Msg, checkpoint.MaxRunLogLines)
	}
}

// testObservation: observations are stored for existing tables only, read
// back through TableOverviews, replaced by the next one and removed with
// the table (C7).
func testObservation(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	wantErr(t, "PutObservation(missing table)", s.PutObservation(ctx, "orders", fullObservation(1)), checkpoint.ErrNotFound)
	must(t, "CreateTable", s.CreateTable(ctx, fullTable("orders")))
	must(t, "PutObservation", s.PutObservation(ctx, "orders", fullObservation(1)))
	second := fullObservation(2)
	second.SnapshotsBehind, second.OldestUnsyncedAt = 0, time.Time{}
	must(t, "PutObservation again", s.PutObservation(ctx, "orders", second))
	ovs, err := s.TableOverviews(ctx, []string{"orders"})
	must(t, "TableOverviews", err)
	if len(ovs) != 1 || ovs[0].Observation == nil {
		t.Fatalf("overviews %+v: want one with an observation", ovs)
	}
	sameJSON(t, "observation", *ovs[0].Observation, second)

	must(t, "DeleteTable", s.DeleteTable(ctx, "orders"))
	must(t, "CreateTable again", s.CreateTable(ctx, fullTable("orders")))
	ovs, err = s.TableOverviews(ctx, []string{"orders"})
	must(t, "TableOverviews after delete and re-create", err)
	if ovs[0].Observation != nil {
		t.Fatalf("observation %+v survived DeleteTable", *ovs[0].Observation)
	}
}

// testTableOverviews: one overview per name, in the order asked, each with
// the table's checkpoint summary, newest run and observation, nil where a
// record is absent (also for a name without a table).
func testTableOverviews(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	none, err := s.TableOverviews(ctx, nil)
	must(t, "TableOverviews(none)", err)
	if len(none) != 0 {
		t.Fatalf("TableOverviews(nil) = %d overviews, want 0", len(none))
	}
	for _, n := range []string{"full", "bare", "runs-only"} {
		must(t, "CreateTable "+n, s.CreateTable(ctx, fullTable(n)))
	}
	lease, err := s.AcquireLease(ctx, "full", "r1", longTTL)
	must(t, "AcquireLease", err)
	cp := fullCheckpoint("full", 42, makeFiles(4, "f"))
	cp.Rows = 4006
	cp.Backfill = &checkpoint.Backfill{SnapshotID: 43, MetadataLocation: "s3://m/43.json", FilesDone: 1, FilesTotal: 9, RunID: "run-2"}
	must(t, "Commit", s.CommitCheckpoint(ctx, lease, cp))
	cp.LeaseToken = lease.Token
	older, newer := fullRun("full", "run-1", base), fullRun("full", "run-2", base.Add(time.Minute))
	newer.Status, newer.Error = checkpoint.RunRunning, ""
	must(t, "PutRun newer", s.PutRun(ctx, newer))
	must(t, "PutRun older", s.PutRun(ctx, older))
	must(t, "PutObservation", s.PutObservation(ctx, "full", fullObservation(44)))
	onlyRun := fullRun("runs-only", "run-9", base)
	must(t, "PutRun runs-only", s.PutRun(ctx, onlyRun))

	ovs, err := s.TableOverviews(ctx, []string{"runs-only", "missing", "full", "bare"})
	must(t, "TableOverviews", err)
	obs := fullObservation(44)
	sum := cp.Summary()
	want := []checkpoint.TableOverview{
		{Table: "runs-only", LastRun: &onlyRun},
		{Table: "missing"},
		{Table: "full", Summary: &sum, LastRun: &newer, Observation: &obs},
		{Table: "bare"},
	}
	sameJSON(t, "overviews", ovs, want)

	// What a caller does to an overview stays with it, and every record
	// changed since the last read shows in the next one.
	ovs[2].LastRun.Log[0].Msg, ovs[2].Summary.Rows, ovs[2].Observation.SnapshotsBehind = "changed by the caller", 1, 99
	obs.SnapshotsBehind = 0
	must(t, "PutObservation again", s.PutObservation(ctx, "full", obs))
	cp2 := fullCheckpoint("full", 43, makeFiles(2, "g"))
	cp2.Rows = 77
	must(t, "Commit again", s.CommitCheckpoint(ctx, lease, cp2))
	cp2.LeaseToken = lease.Token
	sum2 := cp2.Summary()
	again, err := s.TableOverviews(ctx, []string{"full"})
	must(t, "TableOverviews again", err)
	sameJSON(t, "overview after changes", again[0],
		checkpoint.TableOverview{Table: "full", Summary: &sum2, LastRun: &newer, Observation: &obs})
}

// testTableOverviewsNewestRun: the overview's run is the newest by the C6
// order, through updates of the newest run and runs that arrive late.
func testTableOverviewsNewestRun(t *testing.T, s checkpoint.Store) {
	ctx := ctxT(t)
	must(t, "CreateTable", s.CreateTable(ctx, fullTable("orders")))
	newest := func(want string) {
		t.Helper()
		ovs, err := s.TableOverviews(ctx, []string{"orders"})
		must(t, "TableOverviews", err)
		if ovs[0].LastRun == nil || ovs[0].LastRun.ID != want {
			t.Fatalf("newest run %+v, want %s", ovs[0].LastRun, want)
		}
	}
	a, b, c := fullRun("orders", "a", base), fullRun("orders", "b", base.Add(time.Second)), fullRun("orders", "c", base.Add(2*time.Second))
	must(t, "PutRun b", s.PutRun(ctx, b))
	newest("b")
	must(t, "PutRun a (older, late)", s.PutRun(ctx, a))
	newest("b")
	b.Status = checkpoint.RunFailed
	must(t, "PutRun b updated", s.PutRun(ctx, b))
	ovs, err := s.TableOverviews(ctx, []string{"orders"})
	must(t, "TableOverviews", err)
	if ovs[0].LastRun.Status != checkpoint.RunFailed {
		t.Fatalf("newest run status %s after its update, want FAILED", ovs[0].LastRun.Status)
	}
	must(t, "PutRun c", s.PutRun(ctx, c))
	newest("c")
	c.StartedAt = base.Add(-time.Second) // rewritten with an older start: b is newest again
	must(t, "PutRun c moved back", s.PutRun(ctx, c))
	newest("b")
	// a tie in start time goes to the larger ID (C6)
	must(t, "PutRun ba", s.PutRun(ctx, fullRun("orders", "ba", b.StartedAt)))
	newest("ba")
}
