package watcher

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/pinot"
)

// Options tune a Watcher.
type Options struct {
	Owner             string // lease owner id (unique per replica)
	LeaseTTL          time.Duration
	MaxConcurrentRuns int
	BuildParallelism  int
	RefreshInterval   time.Duration // how often the table list is re-read
	DefaultSchedule   string        // for tables whose config has no schedule
	WorkDir           string
	// MaxRowsPerSegment caps segment size unless a table's task config
	// sets maxRowsPerSegment (0: no cap).
	MaxRowsPerSegment int64
}

// Deps are the parts a Watcher drives.
type Deps struct {
	Store    checkpoint.Store
	Loader   TableLoader
	Builder  SegmentBuilder
	Uploader pinot.Uploader
	Logger   *slog.Logger
	Clock    Clock
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
	cancel  context.CancelFunc
	loopCtx context.Context
	wg      sync.WaitGroup
	started bool
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
}

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
	return &Watcher{
		deps: deps, opts: opts, clock: deps.Clock, log: deps.Logger,
		tables: map[string]*tableState{},
		slots:  make(chan struct{}, opts.MaxConcurrentRuns),
		wake:   make(chan struct{}, 1),
	}
}

// Open loads the tables and starts the scheduling loop.
func (w *Watcher) Open(ctx context.Context) error {
	if err := w.Refresh(ctx); err != nil {
		return err
	}
	loopCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w.mu.Lock()
	w.cancel, w.started, w.loopCtx = cancel, true, loopCtx
	w.mu.Unlock()
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		w.loop(loopCtx)
	}()
	return nil
}

// Close stops scheduling, cancels runs in flight and waits for them, or
// gives up when ctx ends.
func (w *Watcher) Close(ctx context.Context) error {
	w.mu.Lock()
	cancel := w.cancel
	w.mu.Unlock()
	if cancel != nil {
		cancel()
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

// Refresh re-reads the table list from the store: new tables are
// scheduled (a table without a checkpoint runs at once), removed tables
// are dropped, changed task configs take effect.
func (w *Watcher) Refresh(ctx context.Context) error {
	tables, err := w.deps.Store.ListTables(ctx)
	if err != nil {
		return fmt.Errorf("list tables: %w", err)
	}
	seen := map[string]bool{}
	for _, t := range tables {
		seen[t.Name] = true
		runNow := false
		if !w.knows(t.Name) { // only a table new to this watcher may need its first run now
			_, cpErr := w.deps.Store.GetCheckpointSummary(ctx, t.Name)
			runNow = errors.Is(cpErr, checkpoint.ErrNotFound)
		}
		w.upsert(t, runNow)
	}
	w.mu.Lock()
	for name, st := range w.tables {
		if !seen[name] && !st.running {
			delete(w.tables, name)
		}
	}
	w.mu.Unlock()
	w.poke()
	return nil
}

// knows reports whether the watcher already schedules the table.
func (w *Watcher) knows(name string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.tables[name]
	return ok
}

// upsert installs t's schedule. runNow schedules an immediate first run.
func (w *Watcher) upsert(t checkpoint.Table, runNow bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	st, ok := w.tables[t.Name]
	if !ok {
		st = &tableState{}
		w.tables[t.Name] = st
	}
	changed := !ok || t.UpdatedAt != st.table.UpdatedAt || !equalMaps(t.TaskConfig, st.table.TaskConfig)
	st.table = t
	if !changed {
		return
	}
	st.sched, st.err = w.scheduleOf(t)
	now := w.clock.Now()
	switch {
	case st.sched == nil:
		st.next = time.Time{}
	case runNow && !ok:
		st.next = now
	default:
		st.next = st.sched.Next(now)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			return false
		}
	}
	return true
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
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		case <-w.wake:
			timer.Stop()
		}
	}
}

// fireDue starts every due run and returns how long until the next one.
func (w *Watcher) fireDue(ctx context.Context, now time.Time) time.Duration {
	w.mu.Lock()
	var due []string
	wait := time.Hour
	for name, st := range w.tables {
		if st.sched == nil || st.next.IsZero() {
			continue
		}
		if !st.next.After(now) {
			if !st.running {
				due = append(due, name)
			}
			st.next = st.sched.Next(now)
		}
		if d := st.next.Sub(now); d < wait {
			wait = d
		}
	}
	w.mu.Unlock()
	for _, name := range due {
		w.startRun(ctx, name, "schedule")
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
