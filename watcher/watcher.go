package watcher

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/watcher/plan"
)

// Options tune a Watcher.
type Options struct {
	Owner             string // lease owner id (unique per replica)
	LeaseTTL          time.Duration
	MaxConcurrentRuns int
	BuildParallelism  int
	RefreshInterval   time.Duration // how often the whole table list is re-read (the fallback: changes are announced)
	DefaultSchedule   string        // for tables whose config has no schedule
	// WorkDir holds each replica's build directories (under its owner's
	// name) and, in KeyIndexDirName, the data files' key indexes, which
	// replicas on one machine share (plan P12; Options.Plan.KeyIndexDir
	// overrides it).
	WorkDir string
	// MaxRowsPerSegment caps segment size unless a table's task config
	// sets maxRowsPerSegment (0: no cap).
	MaxRowsPerSegment int64
	// LeaseMargin is how much certain lease a change to Pinot needs left
	// (default LeaseTTL/3); renewals happen every LeaseTTL/4.
	LeaseMargin time.Duration
	// BatchFiles and BatchBytes cut a run that adds files into batches that
	// are built, pushed and committed in turn (defaults 64 files, 8 GiB of
	// data files).
	BatchFiles int
	BatchBytes int64
	// ClaimTimeout is how long a shared work item may go without its
	// builder's heartbeat before another builder takes it (default 30s).
	ClaimTimeout time.Duration
	// Plan tunes planning: small-file coalescing and the manifest cache.
	Plan plan.Options
	// LagInterval is how often each table's lag is measured apart from
	// its runs (lagcheck.go; default DefaultLagInterval, negative: never);
	// LagParallelism bounds the checks in flight on this replica.
	LagInterval    time.Duration
	LagParallelism int
	// DeleteCacheBytes bounds the decoded delete files the replica keeps
	// for its builds (B2; default DefaultDeleteCacheBytes).
	DeleteCacheBytes int64
	// RunsOnce: the process runs once and exits (floe sync), so it keeps
	// no checkpoint for a later run: a run plans from the store's index of
	// the file map where the store keeps one (plan P14) instead of reading
	// the map whole. A long-lived replica does so only for maps larger
	// than its checkpoint cache holds.
	RunsOnce bool
}

// Deps are the parts a Watcher drives.
type Deps struct {
	Store    checkpoint.Store
	Loader   TableLoader
	Builder  SegmentBuilder
	Uploader pinot.Uploader
	Logger   *slog.Logger
	Clock    Clock
	// Planner plans runs (nil: plan.New(Options.Plan)); it caches
	// manifests across runs, so share one per process.
	Planner *plan.Planner
	// Work, when set, shares the builds of runs that add files with every
	// replica (Redis); nil builds on the lease holder only.
	Work checkpoint.WorkQueue
	// Scrub removes secrets from run errors before they are stored (nil: none).
	Scrub func(string) string
	// Metrics hears of runs, phases, files and lag (nil: nothing reported).
	Metrics Metrics
	// LagLoader loads tables for the lag checks between runs (lagcheck.go;
	// nil: lag is measured only when a table runs). Usually the Loader.
	LagLoader TableLoader
}

// TimerClock is a Clock that also makes timers. When Deps.Clock is one,
// the scheduling loop sleeps on it, so a test that moves a fake clock
// forward wakes the loop; otherwise the loop uses real timers.
type TimerClock interface {
	Clock
	// At returns a channel that receives once the clock reads t or later
	// (at once if it already does). The time is absolute so that a clock
	// moved between the loop's reading and the timer's making cannot
	// push the wake-up back.
	At(t time.Time) <-chan time.Time
}

// Watcher schedules and runs syncs for every registered external table.
type Watcher struct {
	deps  Deps
	opts  Options
	clock Clock
	log   *slog.Logger

	mu      sync.Mutex
	tables  map[string]*tableState
	slots   chan struct{}
	wake    chan struct{}
	cancel  context.CancelCauseFunc
	loopCtx context.Context
	wg      sync.WaitGroup
	started bool
	// draining: the replica is stopping and starts no run (drain.go);
	// inflight counts the runs started in the background.
	draining bool
	inflight sync.WaitGroup

	// The watcher's place in the store's table history (schedule_apply.go).
	records recordState
	// refreshMu orders snapshots: each one reflects at least the last.
	refreshMu sync.Mutex

	runLog      *recorder
	checkpoints *checkpointCache
	progMu      sync.Mutex
	progress    map[string]*RunProgress
	builders    builderPool
	metrics     Metrics     // never nil (metrics.go)
	runs        *runTracker // runs in flight: phase times, run logs (runlog.go)
}

// tableState is the watcher's view of one table.
type tableState struct {
	table   checkpoint.Table
	sched   Schedule // nil when paused, disabled or unparseable
	next    time.Time
	running bool
	runID   string
	err     error // schedule problem, shown in status
	// lastChecked is when a run last finished, with or without work.
	lastChecked time.Time
	// owed: the table starts being scheduled without a checkpoint and its
	// first run has not been fired yet; a run in flight does not use it up.
	owed bool
	// gone: the table was deleted while a run of it was in flight here.
	// The state stays (unscheduled, out of every listing) until the run
	// ends, so that a table created again under the name cannot start a
	// second run beside it under the same lease owner.
	gone bool
	// notifyAt: a notify run is due then (notify.go); notifySince: when
	// the first notification it answers arrived; notifyTries: how often
	// it found another replica's lease.
	notifyAt, notifySince time.Time
	notifyTries           int
	// runSince: notifySince of the notify run in flight.
	runSince time.Time
	// schemaAsked: the metadata file whose schema change a lag check asked
	// a run for (lagcheck.go askSchemaRun).
	schemaAsked string
}

// KeyIndexDirName is the folder of WorkDir that keeps key indexes.
const KeyIndexDirName = "_keyindex"

// New returns a Watcher; Open starts it.
func New(deps Deps, opts Options) *Watcher {
	if deps.Clock == nil {
		deps.Clock = systemClock{}
	}
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}

	if opts.MaxConcurrentRuns <= 0 {
		opts.MaxConcurrentRuns = 1
	}
	if opts.BuildParallelism <= 0 {
		opts.BuildParallelism = 1
	}
	if opts.DefaultSchedule == "" {
		opts.DefaultSchedule = DefaultQuartzSchedule
	}
	if opts.WorkDir == "" {
		opts.WorkDir = os.TempDir()
	}
	if opts.Plan.KeyIndexDir == "" {
		opts.Plan.KeyIndexDir = filepath.Join(opts.WorkDir, KeyIndexDirName)
	}
	if deps.Planner == nil {
		deps.Planner = plan.New(opts.Plan)
	}
	opts = withRunDefaults(opts)
	if deps.Metrics == nil {
		deps.Metrics = noMetrics{}
	}
	runs := newRunTracker(deps.Scrub)
	return &Watcher{
		deps: deps, opts: opts, clock: deps.Clock, log: slog.New(runs.handler(deps.Logger.Handler())),
		metrics: deps.Metrics, runs: runs, builders: builderPool{deletes: DeleteCache{max: opts.DeleteCacheBytes}},
		tables:      map[string]*tableState{},
		slots:       make(chan struct{}, opts.MaxConcurrentRuns),
		wake:        make(chan struct{}, 1),
		records:     recordState{tombstones: map[string]int64{}},
		runLog:      newRecorder(deps.Store, deps.Logger),
		checkpoints: newCheckpointCache(0),
		progress:    map[string]*RunProgress{},
	}
}

// withRunDefaults fills the run model's options left zero.
func withRunDefaults(opts Options) Options {
	if opts.LeaseTTL <= 0 {
		opts.LeaseTTL = 2 * time.Minute
	}
	if opts.BatchFiles <= 0 {
		opts.BatchFiles = 64
	}
	if opts.BatchBytes <= 0 {
		opts.BatchBytes = 8 << 30
	}
	if opts.ClaimTimeout <= 0 {
		opts.ClaimTimeout = 30 * time.Second
	}
	if opts.LagInterval == 0 {
		opts.LagInterval = DefaultLagInterval
	}
	if opts.LagParallelism <= 0 {
		opts.LagParallelism = DefaultLagParallelism
	}
	return opts
}

// Open cleans up after this replica's previous life (recoverDead), loads
// the tables and starts the scheduling loop, the lag checks, the follower
// of the store's table changes, the run recorder and, with a work queue,
// the builders.
func (w *Watcher) Open(ctx context.Context) error {
	if err := w.recoverDead(ctx); err != nil {
		return err
	}
	if err := w.Refresh(ctx); err != nil {
		return err
	}
	loopCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	w.mu.Lock()
	w.cancel, w.started, w.loopCtx = cancel, true, loopCtx
	w.mu.Unlock()
	w.wg.Add(4)
	go func() {
		defer w.wg.Done()
		w.loop(loopCtx)
	}()
	go func() {
		defer w.wg.Done()
		w.lagLoop(loopCtx)
	}()
	go func() {
		defer w.wg.Done()
		w.followTables(loopCtx)
	}()
	go func() {
		defer w.wg.Done()
		w.runLog.loop(loopCtx)
	}()
	w.startBuilders(loopCtx)
	return nil
}

// Close stops scheduling, cancels runs in flight and waits for them, or
// gives up when ctx ends.
func (w *Watcher) Close(ctx context.Context) error {
	w.mu.Lock()
	cancel := w.cancel
	w.mu.Unlock()
	if cancel != nil {
		cancel(nil)
	}
	done := make(chan struct{})
	go func() { w.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("close watcher: %w", ctx.Err())
	}
}

// scheduleOf returns the table's schedule, or nil when it must not run on
// a schedule (paused, disabled).
func (w *Watcher) scheduleOf(t checkpoint.Table) (Schedule, error) {
	if Paused(t.TaskConfig) || !Enabled(t.TaskConfig) {
		return nil, nil
	}
	spec, ok := t.TaskConfig[KeySchedule]
	if !ok {
		spec = w.opts.DefaultSchedule
	}
	s, err := ParseSchedule(spec)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.Name, err)
	}
	return s, nil
}

func (w *Watcher) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// loop fires due runs and sleeps until the next one is due, a table
// changes, or the refresh interval passes.
func (w *Watcher) loop(ctx context.Context) {
	lastRefresh := w.clock.Now()
	for {
		now := w.clock.Now()
		if w.opts.RefreshInterval > 0 && now.Sub(lastRefresh) >= w.opts.RefreshInterval {
			if err := w.Refresh(ctx); err != nil && ctx.Err() == nil {
				w.log.Error("refresh tables", slog.String("error", err.Error()))
			}
			lastRefresh = now
		}
		wait := w.fireDue(ctx, now)
		if w.opts.RefreshInterval > 0 && wait > w.opts.RefreshInterval {
			wait = w.opts.RefreshInterval
		}
		timeout, stop := w.at(now.Add(wait))
		select {
		case <-ctx.Done():
			stop()
			return
		case <-timeout:
		case <-w.wake:
			stop()
		}
	}
}

// at returns a channel that fires once the watcher's clock reads t, and a
// function that releases it early.
func (w *Watcher) at(t time.Time) (<-chan time.Time, func()) {
	if c, ok := w.clock.(TimerClock); ok {
		return c.At(t), func() {}
	}
	timer := time.NewTimer(t.Sub(w.clock.Now()))
	return timer.C, func() { timer.Stop() }
}

// fireDue starts every due run and returns how long until the next one.
func (w *Watcher) fireDue(ctx context.Context, now time.Time) time.Duration {
	w.mu.Lock()
	due := map[string]string{} // table → trigger
	wait := time.Hour
	for name, st := range w.tables {
		if st.gone && !st.running {
			delete(w.tables, name)
			continue
		}
		if notifyDueLocked(st, now) {
			due[name] = triggerNotify
			st.notifyAt = time.Time{}
		} else if d := st.notifyAt.Sub(now); !st.notifyAt.IsZero() && !st.running && d < wait {
			wait = d
		}
		if st.sched == nil || st.next.IsZero() {
			continue
		}
		if !st.next.After(now) {
			if st.running && st.owed {
				continue // fired when the run in flight ends (finish wakes the loop)
			}
			switch {
			case st.running:
			case st.owed: // a table's first run is recorded as such, notified or not
				due[name], st.owed, st.notifySince = triggerFirst, false, time.Time{}
			case due[name] == "": // a notify run due now covers the schedule's
				due[name] = triggerSchedule
			}
			st.next = st.sched.Next(now)
		}
		if d := st.next.Sub(now); d < wait {
			wait = d
		}
	}
	w.mu.Unlock()
	for name, trigger := range due {
		w.startRun(ctx, name, trigger)
	}
	if wait < time.Millisecond {
		wait = time.Millisecond
	}
	return wait
}

// newRunID returns a sortable unique run id.
func newRunID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405.000Z") + "-" + hex.EncodeToString(b[:])
}
