package watcher_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/watcher"
)

// A model-based test of the control plane (architecture I8): two or three
// watchers share one store and a fake clock, and a seeded random sequence
// of operations — create, pause, resume, schedule change, enable/disable,
// delete, trigger, status read, refresh, replica restart, clock advance —
// runs against them while their runs start in the background. Invariants:
//
//   - Every run starts (the loader is called) with the table's stored
//     record as of its lease or later, and that record lets it run: no
//     run starts after a pause, disable or delete answered (a manual
//     trigger runs a paused table only if nothing changed since it).
//   - At quiescence every runnable table has had its first run.
//   - At quiescence every replica's schedule equals the stored records.
//
// Quiescence is waited for with a generous real-time deadline: it is a
// liveness bound, not a speed claim (docs/benchmarks.md measures speed).
// FLOE_MODEL_SEED replays a sequence; the seed is in every failure.

// fakeClock is a watcher.TimerClock moved by hand.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []fakeWaiter
}

type fakeWaiter struct {
	at time.Time
	ch chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) At(t time.Time) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if !t.After(c.now) {
		ch <- c.now
		return ch
	}
	c.waiters = append(c.waiters, fakeWaiter{at: t, ch: ch})
	return ch
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at.After(c.now) {
			kept = append(kept, w)
			continue
		}
		w.ch <- c.now
	}
	c.waiters = kept
}

// tableState is the model's reading of a stored record.
type modelState string

const (
	modelRunnable modelState = "runnable"
	modelPaused   modelState = "paused"
	modelDisabled modelState = "disabled"
	modelDeleted  modelState = "deleted"
)

func stateOf(t checkpoint.Table) modelState {
	switch {
	case watcher.Paused(t.TaskConfig):
		return modelPaused
	case !watcher.Enabled(t.TaskConfig):
		return modelDisabled
	}
	return modelRunnable
}

// answered is a table write that has returned to its caller.
type answered struct {
	seq   int64
	rev   int64 // the record's revision after the write; for a delete, the store's
	state modelState
	op    string
}

// acquired is a lease a replica holds, and when it asked for it.
type acquired struct {
	seq   int64
	lease checkpoint.Lease
}

// observer records, in one order, what the operations answered and what
// the replicas did, and checks the run-start invariants as runs start.
type observer struct {
	mu         sync.Mutex
	seq        int64
	history    map[string][]answered            // table → writes, in order
	triggers   map[string]map[int64]bool        // table → revisions a manual trigger saw
	leases     map[string]map[string][]acquired // replica → table → leases held
	starts     map[string][]int64               // table → revisions runs started with
	violations []string
	trail      map[string][]string // replica/table → lease events, for failure messages
}

func newObserver() *observer {
	return &observer{history: map[string][]answered{}, triggers: map[string]map[int64]bool{},
		leases: map[string]map[string][]acquired{}, starts: map[string][]int64{}, trail: map[string][]string{}}
}

func (o *observer) next() int64 {
	o.seq++
	return o.seq
}

func (o *observer) violate(format string, args ...any) {
	o.violations = append(o.violations, fmt.Sprintf(format, args...))
}

// answer notes a table write that returned.
func (o *observer) answer(table, op string, rev int64, state modelState) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.history[table] = append(o.history[table], answered{seq: o.next(), rev: rev, state: state, op: op})
}

// trigger notes the revision a manual trigger is about to see.
func (o *observer) trigger(table string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	h := o.history[table]
	if len(h) == 0 || h[len(h)-1].state == modelDeleted {
		return
	}
	if o.triggers[table] == nil {
		o.triggers[table] = map[int64]bool{}
	}
	o.triggers[table][h[len(h)-1].rev] = true
}

func (o *observer) acquire(replica, table string, l checkpoint.Lease, seq int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.leases[replica] == nil {
		o.leases[replica] = map[string][]acquired{}
	}
	o.leases[replica][table] = append(o.leases[replica][table], acquired{seq: seq, lease: l})
	o.trail[replica+"/"+table] = append(o.trail[replica+"/"+table], fmt.Sprintf("acquire %d at %d", l.Token, seq))
}

func (o *observer) acquireSeq() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.next()
}

func (o *observer) release(replica string, l checkpoint.Lease) {
	o.mu.Lock()
	defer o.mu.Unlock()
	held := o.leases[replica][l.Table]
	o.leases[replica][l.Table] = slices.DeleteFunc(held, func(a acquired) bool { return a.lease.Token == l.Token })
	o.trail[replica+"/"+l.Table] = append(o.trail[replica+"/"+l.Table], fmt.Sprintf("release %d at %d", l.Token, o.seq))
}

// runStarted checks a run that reached the loader with record t.
func (o *observer) runStarted(replica string, t checkpoint.Table) (checkpoint.Lease, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.next()
	held := o.leases[replica][t.Name]
	if len(held) == 0 {
		o.violate("%s started a run of %s (revision %d) without holding its lease: %v", replica, t.Name, t.Revision,
			o.trail[replica+"/"+t.Name])
		return checkpoint.Lease{}, false
	}
	acq := held[0] // the oldest: the most lenient reading if two overlap
	if st := stateOf(t); st != modelRunnable && !o.triggers[t.Name][t.Revision] {
		o.violate("%s started a run of %s on a %s record (revision %d) nobody triggered", replica, t.Name, st, t.Revision)
	}
	var last *answered
	for i, h := range o.history[t.Name] {
		if h.seq < acq.seq {
			last = &o.history[t.Name][i]
		}
	}
	if last != nil && t.Revision < last.rev {
		o.violate("%s started a run of %s with revision %d, although %s (revision %d, %s) had answered before it took the lease",
			replica, t.Name, t.Revision, last.op, last.rev, last.state)
	}
	o.starts[t.Name] = append(o.starts[t.Name], t.Revision)
	return acq.lease, true
}

func (o *observer) takeViolations() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	v := o.violations
	o.violations = nil
	return v
}

// ranSince reports whether a run of table started with a revision at or
// above rev.
func (o *observer) ranSince(table string, rev int64) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.ContainsFunc(o.starts[table], func(r int64) bool { return r >= rev })
}

// createdAt returns the revision that created the table's current
// incarnation.
func (o *observer) createdAt(table string) int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	h := o.history[table]
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].op == "create" {
			return h[i].rev
		}
	}
	return 0
}

func (o *observer) position() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.seq
}

// obsStore is one replica's store: it tells the observer which leases the
// replica takes and gives back.
type obsStore struct {
	checkpoint.Store
	obs     *observer
	replica string
}

func (s obsStore) AcquireLease(ctx context.Context, table, owner string, ttl time.Duration) (checkpoint.Lease, error) {
	seq := s.obs.acquireSeq()
	l, err := s.Store.AcquireLease(ctx, table, owner, ttl)
	if err == nil {
		s.obs.acquire(s.replica, table, l, seq)
	}
	return l, err
}

func (s obsStore) ReleaseLease(ctx context.Context, l checkpoint.Lease) error {
	s.obs.release(s.replica, l)
	return s.Store.ReleaseLease(ctx, l)
}

// modelLoader is where a run starts: it checks the invariants, commits a
// checkpoint for every other revision (so both first-run cases occur),
// and ends the run.
type modelLoader struct {
	obs     *observer
	store   checkpoint.Store
	replica string
}

var errModelLoad = errors.New("model: no catalog behind this table")

func (l modelLoader) LoadTable(ctx context.Context, t checkpoint.Table) (*watcher.Source, error) {
	lease, ok := l.obs.runStarted(l.replica, t)
	if ok && t.Revision%2 == 0 {
		_ = l.store.CommitCheckpoint(ctx, lease, checkpoint.Checkpoint{Table: t.Name, SnapshotID: t.Revision})
	}
	return nil, errModelLoad
}

// modelRun is one run of the model against stores from open.
type modelRun struct {
	t        *testing.T
	seed     int64
	rng      *rand.Rand
	clock    *fakeClock
	obs      *observer
	shared   checkpoint.Store // for the model's own reads
	open     func(replica string) (checkpoint.Store, func())
	replicas []*modelReplica
	step     int
	log      []string
}

type modelReplica struct {
	name  string
	gen   int
	w     *watcher.Watcher
	close func()
}

var modelTables = []string{"t0", "t1", "t2", "t3", "t4", "t5"}

var modelSchedules = []string{"@every 30s", "*/2 * * * *", "0 0 3 * * ?", "0 */5 * * * ?"}

// modelSeed returns FLOE_MODEL_SEED, or a fresh seed.
func modelSeed(t *testing.T) int64 {
	if v := os.Getenv("FLOE_MODEL_SEED"); v != "" {
		s, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("FLOE_MODEL_SEED=%q: %v", v, err)
		}
		return s
	}
	return time.Now().UnixNano()
}

// runModel runs steps random operations against replicas watchers whose
// stores come from open (a replica's store and its closer).
func runModel(t *testing.T, shared checkpoint.Store, open func(replica string) (checkpoint.Store, func()), replicas, steps int) {
	seed := modelSeed(t)
	t.Logf("model seed %d (replay: FLOE_MODEL_SEED=%d go test -run '^%s$' ./watcher/)", seed, seed, t.Name())
	m := &modelRun{t: t, seed: seed, rng: rand.New(rand.NewPCG(uint64(seed), 15)), clock: newFakeClock(),
		obs: newObserver(), shared: shared, open: open}
	// The tables' connection (AddTable needs it stored: checkpoint C13).
	if err := shared.PutConnection(context.Background(), checkpoint.Connection{Name: "c", Type: "rest"}); err != nil {
		t.Fatal(err)
	}
	for i := range replicas {
		r := &modelReplica{name: fmt.Sprintf("r%d", i)}
		m.replicas = append(m.replicas, r)
		m.start(r)
	}
	defer func() {
		for _, r := range m.replicas {
			m.stop(r)
		}
	}()
	for m.step = 1; m.step <= steps; m.step++ {
		m.randomStep()
		m.checkViolations()
		if m.step%25 == 0 {
			m.quiesce()
		}
	}
	m.quiesce()
}

func (m *modelRun) fail(format string, args ...any) {
	m.t.Helper()
	from := max(0, len(m.log)-25)
	m.t.Fatalf("seed %d, step %d: %s\nlast operations:\n  %s\nreplay: FLOE_MODEL_SEED=%d go test -run '^%s$' ./watcher/",
		m.seed, m.step, fmt.Sprintf(format, args...), strings.Join(m.log[from:], "\n  "), m.seed, m.t.Name())
}

func (m *modelRun) note(format string, args ...any) {
	m.log = append(m.log, fmt.Sprintf("%d: ", m.step)+fmt.Sprintf(format, args...))
}

func (m *modelRun) checkViolations() {
	m.t.Helper()
	if v := m.obs.takeViolations(); len(v) > 0 {
		m.fail("invariant broken:\n  %s", strings.Join(v, "\n  "))
	}
}

// start opens a watcher for r (a new process: new owner, new store client).
func (m *modelRun) start(r *modelReplica) {
	r.gen++
	owner := fmt.Sprintf("%s-%d", r.name, r.gen)
	store, closeStore := m.open(owner)
	obs := obsStore{Store: store, obs: m.obs, replica: owner}
	r.w = watcher.New(watcher.Deps{Store: obs, Loader: modelLoader{obs: m.obs, store: store, replica: owner}, Clock: m.clock},
		watcher.Options{Owner: owner, LeaseTTL: time.Minute, MaxConcurrentRuns: 4, RefreshInterval: 15 * time.Second,
			WorkDir: m.t.TempDir()})
	r.close = closeStore
	if err := r.w.Open(context.Background()); err != nil {
		m.fail("open %s: %v", owner, err)
	}
}

func (m *modelRun) stop(r *modelReplica) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.w.Close(ctx); err != nil {
		m.fail("close %s: %v", r.name, err)
	}
	r.close()
}

func (m *modelRun) pick(xs []string) string { return xs[m.rng.IntN(len(xs))] }

// randomStep runs one operation, chosen by weight.
func (m *modelRun) randomStep() {
	ops := []struct {
		weight int
		run    func()
	}{
		{12, m.create}, {10, m.pause}, {9, m.resume}, {6, m.reschedule}, {8, m.toggle}, {5, m.remove},
		{8, m.trigger}, {8, m.status}, {3, m.refresh}, {2, m.restart}, {10, m.advance},
	}
	total := 0
	for _, o := range ops {
		total += o.weight
	}
	n := m.rng.IntN(total)
	for _, o := range ops {
		if n < o.weight {
			o.run()
			return
		}
		n -= o.weight
	}
}

func (m *modelRun) replica() *modelReplica { return m.replicas[m.rng.IntN(len(m.replicas))] }

// expect fails on an error other than the ones an operation may give.
func (m *modelRun) expect(what string, err error, allowed ...error) {
	m.t.Helper()
	if err == nil {
		return
	}
	for _, a := range allowed {
		if errors.Is(err, a) {
			return
		}
	}
	m.fail("%s: %v", what, err)
}

// answered notes a write of table that returned, with the store's view.
func (m *modelRun) answered(table, op string) {
	t, err := m.shared.GetTable(context.Background(), table)
	if errors.Is(err, checkpoint.ErrNotFound) {
		snap, err := m.shared.SnapshotTables(context.Background())
		if err != nil {
			m.fail("snapshot: %v", err)
		}
		m.obs.answer(table, op, snap.Revision, modelDeleted)
		return
	}
	if err != nil {
		m.fail("read %s: %v", table, err)
	}
	m.obs.answer(table, op, t.Revision, stateOf(t))
}

func (m *modelRun) create() {
	r, name := m.replica(), m.pick(modelTables)
	tc := map[string]string{watcher.KeySchedule: m.pick(modelSchedules)}
	if m.rng.IntN(5) == 0 {
		tc = watcher.Pause(tc)
	}
	if m.rng.IntN(7) == 0 {
		tc[watcher.KeyEnabled] = "false"
	}
	m.note("create %s on %s %v", name, r.name, tc)
	err := r.w.AddTable(context.Background(), checkpoint.Table{Name: name, Connection: "c", Namespace: "ns", Source: name, TaskConfig: tc})
	m.expect("create "+name, err, checkpoint.ErrConflict)
	if err == nil {
		m.answered(name, "create")
	}
}

func (m *modelRun) edit(op string, fn func(*checkpoint.Table) error) {
	r, name := m.replica(), m.pick(modelTables)
	m.note("%s %s on %s", op, name, r.name)
	var err error
	switch op {
	case "pause":
		_, err = r.w.Pause(context.Background(), name)
	case "resume":
		_, err = r.w.Resume(context.Background(), name)
	default:
		_, err = r.w.UpdateTable(context.Background(), name, fn)
	}
	m.expect(op+" "+name, err, checkpoint.ErrNotFound)
	if err == nil {
		m.answered(name, op)
	}
}

func (m *modelRun) pause()  { m.edit("pause", nil) }
func (m *modelRun) resume() { m.edit("resume", nil) }

func (m *modelRun) reschedule() {
	spec := m.pick(modelSchedules)
	m.edit("schedule "+spec, func(t *checkpoint.Table) error {
		if watcher.Paused(t.TaskConfig) {
			t.TaskConfig[watcher.KeySchedulePaused] = spec
		} else {
			t.TaskConfig[watcher.KeySchedule] = spec
		}
		return nil
	})
}

func (m *modelRun) toggle() {
	on := strconv.FormatBool(m.rng.IntN(2) == 0)
	m.edit("enabled="+on, func(t *checkpoint.Table) error {
		t.TaskConfig[watcher.KeyEnabled] = on
		return nil
	})
}

func (m *modelRun) remove() {
	r, name := m.replica(), m.pick(modelTables)
	m.note("delete %s on %s", name, r.name)
	err := r.w.DeleteTable(context.Background(), name)
	m.expect("delete "+name, err, checkpoint.ErrNotFound)
	if err == nil {
		m.answered(name, "delete")
	}
}

func (m *modelRun) trigger() {
	r, name := m.replica(), m.pick(modelTables)
	m.note("trigger %s on %s", name, r.name)
	m.obs.trigger(name)
	_, err := r.w.Trigger(context.Background(), name)
	m.expect("trigger "+name, err, checkpoint.ErrNotFound, watcher.ErrRunning)
}

func (m *modelRun) status() {
	r, name := m.replica(), m.pick(modelTables)
	m.note("status %s on %s", name, r.name)
	_, err := r.w.TableState(context.Background(), name)
	m.expect("status "+name, err, checkpoint.ErrNotFound)
}

func (m *modelRun) refresh() {
	r := m.replica()
	m.note("refresh %s", r.name)
	m.expect("refresh", r.w.Refresh(context.Background()))
}

func (m *modelRun) restart() {
	r := m.replica()
	m.note("restart %s", r.name)
	m.stop(r)
	m.start(r)
}

func (m *modelRun) advance() {
	d := time.Duration(m.rng.IntN(90)) * time.Second
	m.note("advance the clock %s", d)
	m.clock.Advance(d)
}

// quiesce waits until every replica's schedule equals the stored records,
// nothing runs and nothing is due, twice in a row; then every runnable
// table must have had its first run.
func (m *modelRun) quiesce() {
	m.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last, why string
	for {
		m.checkViolations()
		snap, err := m.shared.SnapshotTables(context.Background())
		if err != nil {
			m.fail("snapshot: %v", err)
		}
		view, mismatch := m.views(snap)
		switch {
		case mismatch == "" && view == last:
			m.checkFirstRuns(snap)
			return
		case mismatch == "":
			last = view
		default:
			last, why = "", mismatch
		}
		if time.Now().After(deadline) {
			m.fail("replicas never settled on the stored records: %s", why)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// views describes every replica's schedule ("" mismatch when all agree
// with the store, nothing runs and nothing is due).
func (m *modelRun) views(snap checkpoint.TableSnapshot) (view, mismatch string) {
	now := m.clock.Now()
	var b strings.Builder
	fmt.Fprintf(&b, "seq %d;", m.obs.position())
	for _, r := range m.replicas {
		sts := r.w.Status()
		if len(sts) != len(snap.Tables) {
			return "", fmt.Sprintf("%s schedules %d tables, the store has %d (%v vs %v)", r.name, len(sts), len(snap.Tables),
				statusNames(sts), tableNames(snap.Tables))
		}
		for i, st := range sts {
			rec := snap.Tables[i]
			if msg := compareStatus(st, rec, now); msg != "" {
				return "", fmt.Sprintf("%s: %s", r.name, msg)
			}
			fmt.Fprintf(&b, " %s/%s@%d", r.name, st.Table, st.Revision)
		}
	}
	return b.String(), ""
}

func compareStatus(st watcher.TableStatus, rec checkpoint.Table, now time.Time) string {
	want := map[modelState]watcher.State{modelRunnable: watcher.StateIdle, modelPaused: watcher.StatePaused,
		modelDisabled: watcher.StateDisabled}[stateOf(rec)]
	switch {
	case st.Table != rec.Name || st.Revision != rec.Revision:
		return fmt.Sprintf("holds %s@%d, the store %s@%d", st.Table, st.Revision, rec.Name, rec.Revision)
	case st.State != want:
		return fmt.Sprintf("%s is %s, its record says %s", st.Table, st.State, want)
	case want == watcher.StateIdle && st.Schedule != rec.TaskConfig[watcher.KeySchedule]:
		return fmt.Sprintf("%s runs on %q, its record says %q", st.Table, st.Schedule, rec.TaskConfig[watcher.KeySchedule])
	case want == watcher.StateIdle && !st.NextRun.After(now):
		return fmt.Sprintf("%s is due (%s) but not running", st.Table, st.NextRun)
	}
	return ""
}

// checkFirstRuns: every runnable table has had a run since it was created.
func (m *modelRun) checkFirstRuns(snap checkpoint.TableSnapshot) {
	m.t.Helper()
	for _, t := range snap.Tables {
		if stateOf(t) != modelRunnable {
			continue
		}
		if created := m.obs.createdAt(t.Name); !m.obs.ranSince(t.Name, created) {
			m.fail("table %s (created at revision %d, now %d) is runnable but never had its first run", t.Name, created, t.Revision)
		}
	}
}

func statusNames(sts []watcher.TableStatus) []string {
	var out []string
	for _, s := range sts {
		out = append(out, s.Table)
	}
	return out
}

func tableNames(ts []checkpoint.Table) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

// TestWatcher_ReplicasModel_Memory runs the model with three watchers on
// one in-memory store (its changes announced in process).
func TestWatcher_ReplicasModel_Memory(t *testing.T) {
	store := checkpoint.NewMemory()
	t.Cleanup(func() { _ = store.Close() })
	runModel(t, store, func(string) (checkpoint.Store, func()) { return store, func() {} }, 3, 3000)
}
