package main

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"time"

	"github.com/floehq/floe/checkpoint"
	"github.com/floehq/floe/internal/cpuprofile"
	"github.com/floehq/floe/pinot"
	"github.com/floehq/floe/tools/bench/cli"
	"github.com/floehq/floe/tools/bench/lake"
	"github.com/floehq/floe/watcher"
	"github.com/floehq/floe/watcher/plan"
)

// result is one contender's means per measured commit.
type result struct {
	contender
	cpu, wall       float64 // s
	rowsWritten     float64 // rows the run wrote into segments
	rowsHeld        float64 // live rows of the files holding a deleted key, plus the new file's
	filesHit        float64 // files holding a deleted key
	replaced, built float64 // segments replaced and built
	maxReplaced     int
	files           int // the table's files before the measured commits (-grow)
}

const (
	tableName = "events"
	schemaJS  = `{"schemaName":"events","dimensionFieldSpecs":[{"name":"id","dataType":"LONG"},{"name":"v","dataType":"STRING"}]}`
)

// measure seeds a watcher on the table as it is, then measures commits
// of one new file and an equality delete, each followed by a run.
func measure(ctx context.Context, o options, c *cdcTable, keys *keyPicker, ct contender, dir string) (result, error) {
	s, err := newSession(ctx, o, c, keys, ct, dir)
	if err != nil {
		return result{}, err
	}
	stop := func() {}
	defer func() { stop() }()
	for i := 0; i <= o.commits; i++ { // the first commit warms up
		if i == 1 {
			if stop, err = cpuprofile.Start(o.profile); err != nil {
				return result{}, err
			}
		}
		if err := s.step(ctx, i > 0); err != nil {
			return result{}, err
		}
	}
	s.r.mean(o.commits)
	return s.r, nil
}

// session is one contender's watcher on one table, and its sums.
type session struct {
	o    options
	c    *cdcTable
	keys *keyPicker
	w    *watcher.Watcher
	r    result
	// settle collects garbage before each measured run (runAccumulate,
	// whose contenders' runs alternate in one process).
	settle bool
}

// newSession seeds a watcher on the table as it is (placeholder
// segments: the first sync is not what is measured).
func newSession(ctx context.Context, o options, c *cdcTable, keys *keyPicker, ct contender, dir string) (*session, error) {
	store := checkpoint.NewMemory()
	if err := store.CreateTable(ctx, checkpoint.Table{Name: tableName, Connection: "bench", Namespace: "bench",
		Source: "events", SchemaJSON: []byte(schemaJS), TableConfigJSON: []byte(`{"tableName":"events","tableType":"OFFLINE"}`)}); err != nil {
		return nil, err
	}
	b := &lake.SeedBuilder{}
	b.Real.ScanDeletes = ct.scanDeletes
	b.Seeding.Store(true)
	var sink pinot.Uploader = pinot.NewLocalDir(filepath.Join(dir, "pinot"))
	if o.sink == "memory" {
		sink = lake.NewMemSink()
	}
	w := watcher.New(watcher.Deps{Store: store, Loader: loader{c}, Builder: b, Uploader: sink,
		Planner: plan.New(plan.Options{EqualityDeletesWholePartition: ct.whole, NoKeyIndex: ct.noIndex})},
		watcher.Options{Owner: "bench", WorkDir: filepath.Join(dir, "work"), BuildParallelism: 2, BatchFiles: 1 << 20})
	if _, err := w.RunOnce(ctx, tableName, "bench", nil); err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	b.Seeding.Store(false)
	return &session{o: o, c: c, keys: keys, w: w, r: result{contender: ct, files: c.files}}, nil
}

// step commits one new file and an equality delete, then runs the
// watcher; counted, it adds the run's cost to the sums.
func (s *session) step(ctx context.Context, counted bool) error {
	_, err := s.stepCost(ctx, counted)
	return err
}

// stepCost is step, returning the run's cost.
func (s *session) stepCost(ctx context.Context, counted bool) (stepCost, error) {
	ks := s.keys.pick(s.c.files, s.o.deletes, s.r.recent)
	held, hit := s.keys.held(ks)
	if err := s.c.commit(ctx, 1, ks); err != nil {
		return stepCost{}, err
	}
	s.keys.remember(ks)
	if s.settle {
		runtime.GC() // the garbage of the commit, and of the other table's run, is not this run's
	}
	st0 := s.w.DeleteCacheStats()
	cpu0, t0 := cli.CPUTime(), time.Now()
	run, err := s.w.RunOnce(ctx, tableName, "bench", nil)
	if err != nil {
		return stepCost{}, err
	}
	if run.Status != checkpoint.RunCompleted {
		return stepCost{}, fmt.Errorf("run %s: %s", run.Status, run.Error)
	}
	st := s.w.DeleteCacheStats()
	c := stepCost{cpu: cli.CPUTime() - cpu0, wall: time.Since(t0), reads: st.Reads - st0.Reads,
		uses: st.Reads + st.Hits - st0.Reads - st0.Hits, run: run}
	if counted {
		s.r.add(c.cpu, c.wall, run, held+int64(s.o.rows), hit)
	}
	return c, nil
}

// stepCost is what one commit's run cost.
type stepCost struct {
	cpu, wall time.Duration
	reads     int64 // delete files the run read into the builder's cache
	uses      int64 // delete files applied to a data file, summed over the data files
	run       checkpoint.Run
}

func (r *result) add(cpu, wall time.Duration, run checkpoint.Run, held int64, hit int) {
	r.cpu += cpu.Seconds()
	r.wall += wall.Seconds()
	r.rowsWritten += float64(run.Rows)
	r.rowsHeld += float64(held)
	r.filesHit += float64(hit)
	r.replaced += float64(run.SegmentsDeleted)
	r.built += float64(run.SegmentsGenerated)
	r.maxReplaced = max(r.maxReplaced, run.SegmentsDeleted)
}

func (r *result) mean(n int) {
	for _, v := range []*float64{&r.cpu, &r.wall, &r.rowsWritten, &r.rowsHeld, &r.filesHit, &r.replaced, &r.built} {
		*v /= float64(n)
	}
}
