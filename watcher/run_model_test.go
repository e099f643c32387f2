package watcher_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher"
	"github.com/floehq/floe/watcher/plan"
)

// commitProbe is a store that checks, at every checkpoint commit, that
// Pinot already serves every segment the new checkpoint names (I1), and
// keeps the commits for the test.
type commitProbe struct {
	checkpoint.Store
	t       *testing.T
	up      pinot.Uploader
	mu      sync.Mutex
	commits []checkpoint.CheckpointDelta
}

func (p *commitProbe) CommitCheckpointDelta(ctx context.Context, lease checkpoint.Lease, d checkpoint.CheckpointDelta) error {
	served, err := p.up.ListSegments(ctx, lease.Table)
	if err != nil && !errors.Is(err, pinot.ErrTableMissing) {
		return err
	}
	for path, fs := range d.Set {
		for _, s := range fs.Segments {
			if !slices.Contains(served, s) {
				p.t.Errorf("commit names segment %s of %s before Pinot serves it (I1)", s, path)
			}
		}
	}
	p.mu.Lock()
	p.commits = append(p.commits, d)
	p.mu.Unlock()
	return p.Store.CommitCheckpointDelta(ctx, lease, d)
}

// newRunHarness is newHarness with watcher options and a store wrapper.
func newRunHarness(t *testing.T, taskConfig map[string]string, opts watcher.Options, wrap func(checkpoint.Store) checkpoint.Store) *harness {
	t.Helper()
	h := newHarness(t, taskConfig)
	store := h.store
	if wrap != nil {
		store = wrap(h.store)
	}
	opts.Owner, opts.WorkDir = "test", t.TempDir()
	if opts.LeaseTTL == 0 {
		opts.LeaseTTL = time.Minute
	}
	h.w = watcher.New(watcher.Deps{Store: store, Loader: loader{h.lake}, Builder: h.builder, Uploader: h.up}, opts)
	return h
}

// keyOrder sorts the lake's live files the way a plan orders its units.
func keyOrder(t *testing.T, l *lake) []string {
	files := liveFiles(t, l)
	slices.SortFunc(files, func(a, b string) int {
		return strings.Compare(plan.SegmentName("events", a, "", 0), plan.SegmentName("events", b, "", 0))
	})
	return files
}

// A backfill commits batch by batch, each batch served before its commit
// names it (I1), with its progress in the checkpoint until the last one.
func TestRun_BackfillCommitsInBatches(t *testing.T) {
	var probe *commitProbe
	h := newRunHarness(t, nil, watcher.Options{BatchFiles: 2, BuildParallelism: 2}, func(s checkpoint.Store) checkpoint.Store {
		probe = &commitProbe{Store: s, t: t}
		return probe
	})
	probe.up = h.up
	for range 5 {
		h.lake.appendRows(4)
	}
	run := h.sync(t)
	if run.SegmentsGenerated != 5 || run.Rows != 20 {
		t.Fatalf("run: %+v", run)
	}
	if len(probe.commits) != 3 {
		t.Fatalf("%d commits, want one per batch of 2 files (3)", len(probe.commits))
	}
	for i, want := range []int{2, 4} {
		b := probe.commits[i].Header.Backfill
		if b == nil || b.FilesDone != want || b.FilesTotal != 5 || b.RunID != run.ID {
			t.Fatalf("commit %d backfill = %+v, want %d of 5 files by run %s", i, b, want, run.ID)
		}
	}
	if last := probe.commits[2].Header; last.Backfill != nil || last.SnapshotID != h.lake.load().CurrentSnapshot().SnapshotID {
		t.Fatalf("last commit header = %+v, want the snapshot without backfill", last)
	}
	h.assertConsistent(t)
}

// A backfill that fails part-way keeps its committed batches: the next run
// builds only what is left (I2) and the result is exact.
func TestRun_BackfillResumesAfterLastCommittedBatch(t *testing.T) {
	h := newRunHarness(t, nil, watcher.Options{BatchFiles: 2, BuildParallelism: 1}, nil)
	for range 6 {
		h.lake.appendRows(3)
	}
	order := keyOrder(t, h.lake)
	h.builder.fail[filepath.Base(order[len(order)-1])] = true
	if _, err := h.w.RunOnce(context.Background(), "events", "test", nil); err == nil {
		t.Fatal("want the run to fail on the last file")
	}
	cp := mustCheckpoint(t, h.store)
	if cp.Backfill == nil || cp.Backfill.FilesDone != 4 || len(cp.Files) != 4 {
		t.Fatalf("after the failure: backfill %+v with %d files, want 4 of 6 committed", cp.Backfill, len(cp.Files))
	}
	served, _ := h.up.ListSegments(context.Background(), "events")
	if len(served) < 4 || len(served) > 5 {
		t.Fatalf("Pinot serves %d segments mid-backfill, want the 4 committed (and the failed batch's upload of its good file)", len(served))
	}
	delete(h.builder.fail, filepath.Base(order[len(order)-1]))
	h.builder.built = nil
	run := h.sync(t)
	if len(h.builder.built) != 2 || run.SegmentsGenerated != 2 {
		t.Fatalf("resume built %v, want only the 2 files left", h.builder.built)
	}
	if cp := h.assertConsistent(t); cp.Backfill != nil {
		t.Fatalf("backfill still set after the last batch: %+v", cp.Backfill)
	}
}

// flakyRenew fails every lease renewal (a store the replica cannot reach)
// without fencing the lease.
type flakyRenew struct{ checkpoint.Store }

func (flakyRenew) RenewLease(context.Context, checkpoint.Lease, time.Duration) (checkpoint.Lease, error) {
	return checkpoint.Lease{}, errors.New("dial tcp 127.0.0.1:6379: i/o timeout")
}

// slowBuilder delays every build, so a lease can run out mid-run.
type slowBuilder struct {
	inner watcher.SegmentBuilder
	delay time.Duration
}

func (b slowBuilder) Build(ctx context.Context, req watcher.BuildRequest) (watcher.BuildResult, error) {
	select {
	case <-time.After(b.delay):
	case <-ctx.Done():
		return watcher.BuildResult{}, ctx.Err()
	}
	return b.inner.Build(ctx, req)
}

// I4: a run whose lease can no longer be renewed stops before its
// certain lease falls below the margin and changes nothing in Pinot.
func TestRun_UnrenewableLeaseStopsBeforePinot(t *testing.T) {
	h := newHarness(t, nil)
	h.w = watcher.New(watcher.Deps{Store: flakyRenew{h.store}, Loader: loader{h.lake},
		Builder: slowBuilder{inner: h.builder, delay: 300 * time.Millisecond}, Uploader: h.up},
		watcher.Options{Owner: "test", WorkDir: t.TempDir(), LeaseTTL: 600 * time.Millisecond, BuildParallelism: 1})
	for range 3 {
		h.lake.appendRows(2)
	}
	run, err := h.w.RunOnce(context.Background(), "events", "test", nil)
	if err == nil || !strings.Contains(run.Error, watcher.ErrLeaseExpiring.Error()) {
		t.Fatalf("want the run stopped by the lease guard, got %v (%+v)", err, run)
	}
	served, _ := h.up.ListSegments(context.Background(), "events")
	if len(served) > 1 {
		t.Fatalf("Pinot received %d segments from a run whose lease ran out", len(served))
	}
	if _, err := h.store.GetCheckpoint(context.Background(), "events"); !errors.Is(err, checkpoint.ErrNotFound) {
		t.Fatalf("checkpoint written by a run without a lease: %v", err)
	}
}

// W1: with a work queue, the units of a backfill are built by every
// replica's builders; the lease holder commits.
func TestRun_SharedBuildsUseEveryReplica(t *testing.T) {
	h := newHarness(t, map[string]string{watcher.KeySchedulePaused: "* * * * * ?"})
	mem := h.store.(*checkpoint.Memory)
	var replicas []*watcher.Watcher
	for _, name := range []string{"replica-a", "replica-b"} {
		w := watcher.New(watcher.Deps{Store: mem, Loader: loader{h.lake},
			Builder: slowBuilder{inner: h.builder, delay: 40 * time.Millisecond}, Uploader: h.up, Work: mem},
			watcher.Options{Owner: name, WorkDir: t.TempDir(), LeaseTTL: time.Minute, BuildParallelism: 1,
				ClaimTimeout: 5 * time.Second, RefreshInterval: time.Hour})
		if err := w.Open(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close(context.Background()) })
		replicas = append(replicas, w)
	}
	for range 8 {
		h.lake.appendRows(2)
	}
	run, err := replicas[0].RunOnce(context.Background(), "events", "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.Builders["replica-a"] == 0 || run.Builders["replica-b"] == 0 || run.Builders["replica-a"]+run.Builders["replica-b"] != 8 {
		t.Fatalf("units built per replica = %v, want 8 shared by both", run.Builders)
	}
	h.assertConsistent(t)
}

// A restarted replica marks its runs left RUNNING as ABANDONED
// and removes their work directories; a run that takes a table's lease
// marks any other replica's RUNNING run of it ABANDONED.
func TestWatcher_OpenCleansUpDeadRuns(t *testing.T) {
	h := newHarness(t, map[string]string{watcher.KeySchedulePaused: "* * * * * ?"})
	ctx := context.Background()
	work := t.TempDir()
	dead := filepath.Join(work, "test", "events", "run-1")
	if err := os.MkdirAll(dead, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dead, "seg.tar.gz"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	started := time.Now().Add(-time.Minute).UTC()
	for _, r := range []checkpoint.Run{
		{ID: "run-1", Table: "events", Owner: "test", Status: checkpoint.RunRunning, StartedAt: started},
		{ID: "run-2", Table: "events", Owner: "other", Status: checkpoint.RunRunning, StartedAt: started.Add(time.Second)},
	} {
		if err := h.store.PutRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	w := watcher.New(watcher.Deps{Store: h.store, Loader: loader{h.lake}, Builder: h.builder, Uploader: h.up},
		watcher.Options{Owner: "test", WorkDir: work, LeaseTTL: time.Minute, RefreshInterval: time.Hour})
	if err := w.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer w.Close(ctx)
	if _, err := os.Stat(dead); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("work dir of the dead run still there: %v", err)
	}
	wantStatus(t, h.store, "run-1", checkpoint.RunAbandoned)
	wantStatus(t, h.store, "run-2", checkpoint.RunRunning) // another replica's: judged when the lease is taken
	h.lake.appendRows(1)
	if _, err := w.RunOnce(ctx, "events", "test", nil); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, h.store, "run-2", checkpoint.RunAbandoned)
}

func wantStatus(t *testing.T, s checkpoint.Store, id string, want checkpoint.RunStatus) {
	t.Helper()
	r, err := s.GetRun(context.Background(), "events", id)
	if err != nil || r.Status != want {
		t.Fatalf("run %s: %v %+v, want %s", id, err, r, want)
	}
}

// downStore refuses run records while down is set (a store outage).
type downStore struct {
	checkpoint.Store
	down atomic.Bool
}

func (s *downStore) PutRun(ctx context.Context, r checkpoint.Run) error {
	if s.down.Load() {
		return errors.New("redis: connection refused")
	}
	return s.Store.PutRun(ctx, r)
}

// Runs that could not be recorded during an outage are recorded
// with their real times and errors once the store answers again.
func TestWatcher_RunsOfAnOutageAreRecordedLater(t *testing.T) {
	h := newHarness(t, map[string]string{watcher.KeySchedulePaused: "* * * * * ?"})
	ds := &downStore{Store: h.store}
	w := watcher.New(watcher.Deps{Store: ds, Loader: loader{h.lake}, Builder: h.builder, Uploader: h.up},
		watcher.Options{Owner: "test", WorkDir: t.TempDir(), LeaseTTL: time.Minute, RefreshInterval: time.Hour})
	ctx := context.Background()
	if err := w.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer w.Close(ctx)
	h.lake.appendRows(2)
	ds.down.Store(true)
	h.builder.fail[filepath.Base(liveFiles(t, h.lake)[0])] = true
	run, _ := w.RunOnce(ctx, "events", "test", nil)
	if run.Status != checkpoint.RunFailed {
		t.Fatalf("run: %+v", run)
	}
	if _, err := h.store.GetRun(ctx, "events", run.ID); !errors.Is(err, checkpoint.ErrNotFound) {
		t.Fatalf("run recorded during the outage: %v", err)
	}
	ds.down.Store(false)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		got, err := h.store.GetRun(ctx, "events", run.ID)
		if err == nil {
			if got.Status != checkpoint.RunFailed || !got.StartedAt.Equal(run.StartedAt) || got.Error != run.Error {
				t.Fatalf("recorded run %+v, want %+v", got, run)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the run of the outage never reached the history")
}

// statusProbe asks the watcher for the table's status at every commit.
type statusProbe struct {
	checkpoint.Store
	w    func() *watcher.Watcher
	mu   sync.Mutex
	seen []watcher.TableStatus
}

func (p *statusProbe) CommitCheckpointDelta(ctx context.Context, l checkpoint.Lease, d checkpoint.CheckpointDelta) error {
	if w := p.w(); w != nil {
		st, err := w.TableState(ctx, l.Table)
		if err == nil {
			p.mu.Lock()
			p.seen = append(p.seen, st)
			p.mu.Unlock()
		}
	}
	return p.Store.CommitCheckpointDelta(ctx, l, d)
}

// A batched run shows as BACKFILLING with its progress in the status.
func TestRun_StatusShowsBackfillProgress(t *testing.T) {
	h := newHarness(t, map[string]string{watcher.KeySchedulePaused: "* * * * * ?"})
	var w *watcher.Watcher
	probe := &statusProbe{Store: h.store, w: func() *watcher.Watcher { return w }}
	w = watcher.New(watcher.Deps{Store: probe, Loader: loader{h.lake}, Builder: h.builder, Uploader: h.up},
		watcher.Options{Owner: "test", WorkDir: t.TempDir(), LeaseTTL: time.Minute, BatchFiles: 2, RefreshInterval: time.Hour})
	ctx := context.Background()
	if err := w.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer w.Close(ctx)
	for range 5 {
		h.lake.appendRows(3)
	}
	if _, err := w.Trigger(ctx, "events"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if cp, err := h.store.GetCheckpointSummary(ctx, "events"); err == nil && cp.Backfill == nil && cp.FileCount == 5 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	probe.mu.Lock()
	defer probe.mu.Unlock()
	if len(probe.seen) != 3 {
		t.Fatalf("statuses seen at %d commits, want 3", len(probe.seen))
	}
	first := probe.seen[0]
	if first.State != watcher.StateBackfilling || first.Progress == nil || first.Progress.FilesTotal != 5 || first.Progress.FilesDone != 2 {
		t.Fatalf("status at the first batch commit = %+v (progress %+v), want BACKFILLING with 2 of 5 files", first, first.Progress)
	}
}
